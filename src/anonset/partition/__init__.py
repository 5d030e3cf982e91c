"""The partition family: what every method produces, and the methods that partition the table directly.

:mod:`anonset.partition.classes` holds :class:`Partition` (records → equivalence
classes, each with its generalized values), which every method produces and
every metric scores; :mod:`anonset.partition.grouping` the :class:`Grouping`
that methods partitioning the records directly return (the classes of the
fitted records and the rule that places new ones); ``mondrian*.py`` Mondrian
(LeFevre et al.) with its split criteria: median, InfoGain, LSD, Selection.
"""

from __future__ import annotations

from anonset.partition.classes import (
    GeneralizedValues,
    HierarchyNodes,
    Intervals,
    Partition,
    grown_partition,
    partition_of_assignment,
)
from anonset.partition.grouping import Grouping
from anonset.partition.mondrian import MondrianTree, RegionBoxes, TreeNodes, mondrian
from anonset.partition.mondrian_criteria import InfoGainCriterion, LSDCriterion
from anonset.partition.mondrian_selection import SelectionCriterion, imprecision
from anonset.partition.mondrian_split import MedianCriterion, SplitCriterion

__all__ = ["GeneralizedValues", "Grouping", "HierarchyNodes", "InfoGainCriterion", "Intervals", "LSDCriterion",
           "MedianCriterion", "MondrianTree", "Partition", "RegionBoxes", "SelectionCriterion", "SplitCriterion",
           "TreeNodes", "grown_partition", "imprecision", "mondrian", "partition_of_assignment"]
