"""Test-session settings: property tests draw the same examples on every run.

CI must not fail one day and pass the next on the same code, so Hypothesis is
derandomized by default.  Set ``ANONSET_HYPOTHESIS_RANDOM=1`` to explore with
fresh random examples (failures found that way should become fixed tests).
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("anonset", derandomize=os.environ.get("ANONSET_HYPOTHESIS_RANDOM") != "1")
settings.load_profile("anonset")
