"""The quasi-identifiers' lattice kept small enough for the ``optimal`` search.

Its size, the number of candidate generalizations, is the product of the
hierarchies' heights.  When it would be larger than :data:`LATTICE_BUDGET`,
:func:`fit_lattice` takes levels out; when even one level per hierarchy is
too many, it says so (the starter config then uses ``mondrian``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import replace

from anonset.starter.proposal import Proposal

__all__ = ["LATTICE_BUDGET", "fit_lattice", "lattice_size"]

#: Largest number of candidate generalizations (the product of the hierarchy heights) proposed for ``optimal``.
LATTICE_BUDGET = 100_000


def fit_lattice(proposals: Sequence[Proposal], budget: int = LATTICE_BUDGET) -> tuple[list[Proposal], bool]:
    """Take levels out (one at a time, from the column with the most) until the lattice fits ``budget``.

    Returns the proposals and whether they fit; when they cannot fit, even
    with one level between the values and ``*`` in every hierarchy, the
    proposals as they were.
    """
    out = list(proposals)
    if math.prod(min(p.levels, 1) + 2 for p in out if p.role == "quasi") > budget:
        return out, False  # too many even with one level each: nothing to take out (mondrian keeps them all)
    while lattice_size(out) > budget:
        candidates = [i for i, p in enumerate(out) if p.role == "quasi" and p.levels > 1]
        if not candidates:
            return out, False
        i = max(candidates, key=lambda j: (out[j].levels, -j))
        out[i] = _one_level_less(out[i])
    return out, True


def lattice_size(proposals: Iterable[Proposal]) -> int:
    """Candidate generalizations of the quasi-identifiers: the product of their hierarchies' heights."""
    return math.prod(p.levels + 2 for p in proposals if p.role == "quasi")


def _one_level_less(p: Proposal) -> Proposal:
    assert p.hierarchy is not None
    h = dict(p.hierarchy)
    groups = p.groups
    if h["builder"] == "intervals":
        h["widths"], groups = h["widths"][1:], groups[1:]       # the coarser bands stay
    elif h["builder"] == "dates":
        h["levels"] = h["levels"][1:]
    else:
        h["levels"] = h["levels"] - 1                           # masking: the longer prefixes stay
    note = f"Fewer levels than the data would allow, to keep the search small (at most {LATTICE_BUDGET:,} candidates)."
    return replace(p, hierarchy=h, groups=groups, notes=(*p.notes, note) if note not in p.notes else p.notes)
