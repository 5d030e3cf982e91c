"""The option the research-value searches share: a cap on the frequency sets computed."""

from __future__ import annotations

from anonset.methods.base import Option

__all__ = ["MAX_FREQUENCY_SETS"]

MAX_FREQUENCY_SETS = Option(
    "max_frequency_sets", "int", None,
    "stop after this many frequency sets and release the best string found; the summary then says complete: false",
    low=1, optional=True,
)
