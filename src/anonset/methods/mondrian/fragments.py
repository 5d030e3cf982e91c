"""Distributed Mondrian's fragments: how many the driver cuts, and the merge of a fragment that fails a model.

After the first cuts (:func:`~anonset.methods.mondrian.first_cuts.first_cuts`)
the driver counts every fragment exactly (on the cluster) and, before any
worker runs, :func:`merge_failing` undoes the parent cut of each fragment
that as a whole fails a model (too small, not l-diverse), merging it with its
siblings, until every fragment passes.  Mondrian can only fail on a region
that fails as a whole, so after this no fragment can fail; a table that fails
as a whole is an :class:`~anonset.errors.InfeasibleError`, as in memory.

:func:`default_fragments` and :data:`DEFAULT_SAMPLE_ROWS` are the defaults of
the driver's options ``fragments`` and ``sample_rows`` (the mondrian
method's :class:`~anonset.methods.base.Distribution`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from anonset.core.stats import ClassStats, aggregate
from anonset.errors import InfeasibleError
from anonset.methods.mondrian.cut_tree import Cut, collapsed

if TYPE_CHECKING:
    from anonset.privacy.base import Requirements

__all__ = ["DEFAULT_SAMPLE_ROWS", "FRAGMENT_ROWS", "default_fragments", "merge_failing"]

#: Records sampled to the driver for the first cuts when ``sample_rows`` is not set.
DEFAULT_SAMPLE_ROWS = 1_000_000
#: The default fragments hold at most about this many records each: a worker holding a million records of
#: the synthetic register peaked at about 1.5 GB, and a hundred fragments of a million-record table cost
#: no measurable utility (docs/scale.md, "Distributed Mondrian").
FRAGMENT_ROWS = 1_000_000


def default_fragments(slots: int, n_rows: int) -> int:
    """Three fragments per task slot of the cluster (``slots``), and at least one per :data:`FRAGMENT_ROWS` records."""
    return max(3 * int(slots), math.ceil(n_rows / FRAGMENT_ROWS), 1)


def merge_failing(tree: Cut, stats: ClassStats, requirements: Requirements, n_rows: int) -> Cut:
    """Undo the parent cut of every fragment that fails a model as a whole, until none does.

    Parameters
    ----------
    tree : Cut
        The first cuts.
    stats : ClassStats
        The statistics of each fragment as a whole (one class per fragment, depth-first order), with what
        ``requirements`` judge.
    requirements : Requirements
        The privacy models.
    n_rows : int
        Records in the table (for the message when the whole table fails).

    Returns
    -------
    Cut
        The tree whose every fragment satisfies every model.
    """
    while True:
        ok = np.logical_and.reduce([m.satisfied(stats) for m in requirements.models]
                                   + [np.ones(stats.n_classes, dtype=np.bool_)])
        if ok.all():
            return tree
        if tree.is_leaf:
            failed = next(m for m in requirements.models if not m.satisfied(stats)[0])
            raise InfeasibleError(f"the whole table ({n_rows} records) does not satisfy {failed.describe()},"
                                  " so no Mondrian partition can; relax the requirements or use more data")
        tree, mapping = collapsed(tree, {int(i) for i in np.flatnonzero(~ok)})
        stats = aggregate(mapping, tree.n_fragments, stats, np.zeros((tree.n_fragments, 0), dtype=np.int32), None)
