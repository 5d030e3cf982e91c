"""Re-identification risk from class sizes alone: sample-based measures and population-uniqueness estimators.

Every figure here is computed from the sizes of the released equivalence
classes on the quasi-identifiers (``ClassStats.sizes`` of any engine), so it
works for any table or release.  ``sample.py`` holds the prosecutor,
journalist and marketer measures; ``pitman.py``, ``zayatz.py`` and ``snb.py``
the population-uniqueness models; ``population.py`` Dankar et al.'s decision
rule among them.  See docs/risk.md.
"""
