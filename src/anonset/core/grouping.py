"""``Grouping``: what a method that partitions the records directly returns.

Local recoding (k-member, Xu's bottom-up and top-down) and Mondrian do not pick
one generalization level per attribute: they put the records into classes and
generalize each class on its own.  Such a method returns a grouping: the class
of every fitted record (``row_class``, −1 for a suppressed one) and the rule
that places *new* records (``assign``), so a recoding learned on one table can
be applied to another (``Anonymizer.transform``, the train/test protocol).

The generalized values of the classes are not part of the grouping: the
release path derives them from the records
(:func:`anonset.core.partition.partition_of_assignment`), so every method's
classes are rendered, scored and re-checked the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from anonset.core.dataset import Dataset
from anonset.core.partition import Partition

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["Grouping", "PartitionedGrouping"]


@runtime_checkable
class Grouping(Protocol):
    """The classes a partitioning method formed, and how it places new records."""

    @property
    def row_class(self) -> NDArray[np.int64]:
        """(n,) int64 class of each fitted record, ``0 .. c - 1``, −1 when suppressed."""
        ...

    def assign(self, dataset: Dataset) -> NDArray[np.int64]:
        """(m,) int64 class of each record of ``dataset`` (new rows with the fitted attributes and hierarchies).

        A class id refers to the fitted classes; −1 means the record fits no
        class and is suppressed.
        """
        ...


@runtime_checkable
class PartitionedGrouping(Grouping, Protocol):
    """A grouping that gives its classes' released values itself.

    The release path otherwise derives each class's value from its records
    (the lowest common ancestor, the range); a method whose released value
    is not that (a value blanked in some classes only) says it here.
    """

    def partition(self, dataset: Dataset, row_class: NDArray[np.int64]) -> Partition:
        """The partition of the records of ``dataset`` placed in the classes ``row_class``."""
        ...
