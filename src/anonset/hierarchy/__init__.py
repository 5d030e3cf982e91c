"""Generalization hierarchies: the core type, builders and the ARX CSV format."""

from anonset.core.hierarchy import Hierarchy
from anonset.core.hierarchy_builders import (
    build_hierarchy,
    check_builder_spec,
    date_hierarchy,
    flat_hierarchy,
    interval_hierarchy,
    masking_hierarchy,
    natural_sorted,
    ordered_grouping_hierarchy,
)
from anonset.core.hierarchy_csv import read_hierarchy, read_taxonomy
from anonset.hierarchy.files import write_hierarchy

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
