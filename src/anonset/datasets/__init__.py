"""Data that ship with anonset: a built-in synthetic table and loaders for reference data.

The built-in table is a seeded synthetic hospital patient register
(:func:`patient_register`), realistic enough in its correlations that
anonymizing it is not trivial, with ready-made attribute specs and
generalization hierarchies (:func:`patient_register_attributes`) and both
combined into a :class:`~anonset.core.dataset.Dataset`
(:func:`patient_register_dataset`).  It needs no download, so examples,
tests and benchmarks can use it anywhere and at any size.
"""

from anonset.datasets.agrawal import (
    AgrawalConstants,
    agrawal,
    agrawal_attributes,
    agrawal_dataset,
    agrawal_label,
    draw_constants,
    function2_predicates,
)
from anonset.datasets.reference import adult_morton, read_adult_raw
from anonset.datasets.synthetic import (
    patient_register,
    patient_register_attributes,
    patient_register_dataset,
)
from anonset.datasets.wide import wide_survey, wide_survey_dataset

__all__ = [
    "AgrawalConstants",
    "adult_morton",
    "agrawal",
    "agrawal_attributes",
    "agrawal_dataset",
    "agrawal_label",
    "draw_constants",
    "function2_predicates",
    "patient_register",
    "patient_register_attributes",
    "patient_register_dataset",
    "read_adult_raw",
    "wide_survey",
    "wide_survey_dataset",
]
