"""Imprecision: how many records a selection query over a release returns that it did not ask for.

A selection predicate is a hyper-rectangle of the quasi-identifier space
(a closed range per numeric or date attribute, a set of leaves or hierarchy
nodes per categorical one).  Asked of a release, the query returns every
record whose released region overlaps the rectangle; the *imprecision* of the
predicate over the partition is the number of those records that do not
satisfy it, ``Σ over classes overlapping it of (|class| − |class ∩
predicate|)`` (a suppressed record overlaps every predicate).  It is 0 when
every class the rectangle touches lies wholly inside it, and it grows as
classes straddle the rectangle's border.

The measure is equation 5 of LeFevre, DeWitt and Ramakrishnan,
"Workload-Aware Anonymization" (KDD 2006); their Selection Mondrian minimizes
it summed over a workload's predicates (equation 6), here
:class:`anonset.methods.mondrian.selection.SelectionCriterion`, whose compiled
predicates (:func:`~anonset.methods.mondrian.selection.compile_selections`)
this metric reuses.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from anonset.core.attribute_space import attribute_space
from anonset.core.dataset import Dataset
from anonset.core.selections import Predicate, compile_selections

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["imprecision"]


def imprecision(dataset: Dataset, row_class: NDArray[np.integer[Any]],
                selections: Sequence[Predicate]) -> NDArray[np.int64]:
    """Imprecision of each selection predicate over a partition (LeFevre et al., equation 5).

    A query over the release returns every record whose released region
    overlaps the predicate's hyper-rectangle: the released region of a class
    is its records' bounding box (per numeric attribute ``[min, max]``, per
    categorical attribute the leaves under their lowest common ancestor), and
    a suppressed record (class −1, all ``*``) overlaps every predicate.  The
    imprecision is the number of records returned that do not satisfy the
    predicate: ``Σ over classes overlapping it of (|class| − |class ∩ predicate|)``.

    Parameters
    ----------
    dataset : Dataset
        The records.
    row_class : numpy.ndarray
        (n,) class of each record (−1 suppressed).
    selections : sequence of Predicate
        The predicates (see :func:`~anonset.methods.mondrian.selection.compile_selections`).

    Returns
    -------
    numpy.ndarray
        (P,) int64 imprecision of each predicate.
    """
    space = attribute_space(dataset)
    compiled = compile_selections(dataset, space, selections)
    row_class = np.asarray(row_class, dtype=np.int64)
    released = np.flatnonzero(row_class >= 0)
    order = released[np.argsort(row_class[released], kind="stable")]
    total = cast("NDArray[np.int64]", (~compiled.inside[:, row_class < 0]).sum(axis=1).astype(np.int64))
    if len(order):
        starts = np.flatnonzero(np.diff(row_class[order], prepend=-1))
        total += compiled.segments(space, order, starts).sum(axis=1).astype(np.int64)
    return total
