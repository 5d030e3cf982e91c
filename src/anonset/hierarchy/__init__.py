"""Generalization hierarchies: the core type, builders and the ARX CSV format."""

from anonset.hierarchy.builders import (
    build_hierarchy,
    check_builder_spec,
    date_hierarchy,
    flat_hierarchy,
    interval_hierarchy,
    masking_hierarchy,
    natural_sorted,
    ordered_grouping_hierarchy,
)
from anonset.hierarchy.core import Hierarchy
from anonset.hierarchy.files import read_hierarchy, read_taxonomy, write_hierarchy

__all__ = [
    "Hierarchy",
    "build_hierarchy",
    "check_builder_spec",
    "date_hierarchy",
    "flat_hierarchy",
    "interval_hierarchy",
    "masking_hierarchy",
    "natural_sorted",
    "ordered_grouping_hierarchy",
    "read_hierarchy",
    "read_taxonomy",
    "write_hierarchy",
]
