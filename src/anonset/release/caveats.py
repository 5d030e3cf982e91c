"""What a custodian must know before handing a release over, as warnings on the release.

Some releases pass every privacy check and still defeat their purpose, or
lose something nobody chose to lose:

* **a release that says nothing**: every record generalized into one class
  (or suppressed), so the quasi-identifiers carry no information.
  :func:`useless_release` says so and, for a full-domain node, names the
  privacy models that allow no step down from it (:func:`binding_models`);
* **an attribute lost**: a quasi-identifier released at its top level
  (``*``) or as one single value for every released record
  (:func:`lost_attributes`); for a full-domain method the warning names the
  cheapest feasible release that keeps it (found by the command that builds
  the release) and how to ask for it (attribute weights);
* **suppression concentrated on one value**: more than half of the
  suppressed records share one value of one quasi-identifier (the records
  with a blank ZIP code, say), a value at least twice as common among them
  as in the table, so the release under-represents whatever those records
  have in common (:func:`concentrated_suppression`).  The value
  is named only when at least max(k, 2) suppressed records hold it, so the
  warning discloses no group smaller than a released class.  A
  quasi-identifier with a minimum generalization (``min_level``) is counted
  and named at that level, never below it.

Columns the configuration does not name are the subject of
:mod:`anonset.recheck.undeclared`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from anonset.core.dataset import Dataset
from anonset.core.partition import HierarchyNodes, Partition
from anonset.core.stats import match_keys
from anonset.engine.base import Engine
from anonset.privacy.base import Requirements, group_floor

if TYPE_CHECKING:
    from collections.abc import Mapping

    from numpy.typing import NDArray

__all__ = [
    "OVER_REPRESENTED",
    "LostAttribute",
    "binding_models",
    "concentrated_suppression",
    "lost_attributes",
    "lost_warning",
    "suppressed_counts_of_node",
    "suppressed_counts_of_rows",
    "useless_release",
]


def useless_release(classes: int, suppressed: int, n_rows: int, requirements: Requirements,
                    binding: list[str] | None = None) -> str | None:
    """The warning for a release whose quasi-identifiers say nothing, or None.

    Parameters
    ----------
    classes : int
        Classes of the released table (suppressed records left out).
    suppressed : int
        Suppressed records.
    n_rows : int
        Records of the input.
    requirements : Requirements
        What the release satisfies.
    binding : list of str, optional
        The models that forced it (see :func:`binding_models`).
    """
    if classes > 1 or n_rows <= 1:
        return None
    what = ("every record is suppressed" if suppressed >= n_rows
            else "every released record falls in one class (every quasi-identifier at its most general value)")
    why = (f"; {' and '.join(binding)} allow{'s' if len(binding) == 1 else ''} no finer release" if binding
           else f"; the requirements ({requirements.describe()}) allow no finer release")
    return (f"the release is useless for analysis: {what}{why}; relax that requirement, allow more suppression,"
            " or use finer hierarchies")


def binding_models(engine: Engine, requirements: Requirements, levels: tuple[int, ...],
                   n_rows: int) -> list[str]:
    """The models that reject every node one step below ``levels`` (each judged alone, with the budget).

    A model named here is what holds the release at ``levels``: each
    neighbouring node with one attribute one level more specific violates
    it beyond the suppression budget.  Empty when ``levels`` is the bottom
    (each attribute at its ``min_level``: no node below it is a choice).
    """
    floor = engine.dataset.min_levels
    below = [levels[:i] + (level - 1,) + levels[i + 1:] for i, level in enumerate(levels) if level > floor[i]]
    if not below:
        return []
    stats = [engine.class_stats(node) for node in below]
    names = []
    for model in requirements.models:
        alone = Requirements([model], requirements.max_suppression)
        if not any(alone.judge(s, n_rows).feasible for s in stats):
            names.append(model.describe())
    return names


#: A value this many times as common among the suppressed records as in the table is over-represented there.
OVER_REPRESENTED = 2.0


@dataclass(frozen=True)
class LostAttribute:
    """A quasi-identifier the release shows as one value for every released record.

    Attributes
    ----------
    name : str
        The quasi-identifier.
    label : str
        The one value released (``*`` at the top level of its hierarchy).
    top : bool
        Released at the top level of its hierarchy.
    keep_level : int or None
        The highest level of its hierarchy at which the input's values still
        fall into two or more labels (None without a hierarchy): a
        full-domain release keeps the attribute at this level or below.
    """

    name: str
    label: str
    top: bool
    keep_level: int | None


def lost_attributes(dataset: Dataset, partition: Partition) -> list[LostAttribute]:
    """The quasi-identifiers whose every released class has the same generalized value.

    A column with one value in the input (nothing to lose) is not listed, nor
    is any column of a release with no released class (that release is
    useless as a whole: :func:`useless_release`).
    """
    from anonset.release.release import class_labels

    if partition.n_classes == 0:
        return []
    out = []
    for q in dataset.quasi:
        present = np.flatnonzero(dataset.encoded[q].counts() > 0)
        if len(present) < 2:
            continue
        values = partition.values[q]
        if isinstance(values, HierarchyNodes):
            pairs = np.unique(np.stack([values.levels.astype(np.int64), values.codes.astype(np.int64)]), axis=1)
            if pairs.shape[1] != 1:
                continue
            h = dataset.require_hierarchy(q)
            level = int(pairs[0, 0])
            label = str(h.labels[level][int(pairs[1, 0])])
            out.append(LostAttribute(q, label, level == h.max_level, _keep_level(dataset, q, present)))
        else:
            if len(np.unique(values.lo)) != 1 or len(np.unique(values.hi)) != 1:
                continue
            label = str(class_labels(dataset, q, values.take(np.zeros(1, dtype=np.int64)))[0])
            kept = None if dataset.hierarchy(q) is None else _keep_level(dataset, q, present)
            out.append(LostAttribute(q, label, False, kept))
    return out


def _keep_level(dataset: Dataset, name: str, present: NDArray[np.int64]) -> int | None:
    """The highest level at which the present leaves of ``name`` fall into two or more labels."""
    h = dataset.require_hierarchy(name)
    for level in range(h.max_level - 1, -1, -1):
        if len(np.unique(h.maps[level][present])) >= 2:
            return level
    return None


def lost_warning(lost: LostAttribute, alternative: str | None = None) -> str:
    """The warning of a lost attribute; ``alternative`` describes the cheapest release that keeps it, if known."""
    how = ("at its top level (*) for every record" if lost.top
           else f"as one single value ({lost.label!r}) for every released record")
    text = f"quasi-identifier {lost.name!r} is released {how}: the release says nothing about it"
    if alternative:
        text += f"; {alternative}"
    return text


def suppressed_counts_of_node(engine: Engine, levels: tuple[int, ...],
                              violating_keys: NDArray[np.int32]) -> dict[str, NDArray[np.int64]]:
    """Per quasi-identifier, the suppressed records of a full-domain node per value at its ``min_level``.

    Counted from the engine's most specific classes (every engine counts
    them), each rolled up to ``levels`` and matched with the suppressed
    classes' keys: no record is read again.
    """
    dataset = engine.dataset
    bottom = engine.class_stats(engine.bottom_levels)
    named = dataset.min_levels
    hierarchies = dataset.hierarchies
    d = len(dataset.quasi)
    out = {q: np.zeros(_values_at(dataset, q, named[j]), dtype=np.int64) for j, q in enumerate(dataset.quasi)}
    keys = np.asarray(violating_keys, dtype=np.int64).reshape(-1, d)
    if not len(keys) or not bottom.n_classes:
        return out
    rolled = np.stack([h.parent_map(counted, level)[bottom.keys[:, j]]
                       for j, (h, counted, level) in enumerate(zip(hierarchies, engine.bottom_levels, levels,
                                                                   strict=True))], axis=1).astype(np.int64)
    hit = match_keys(rolled, keys, [h.size(level) for h, level in zip(hierarchies, levels, strict=True)]) >= 0
    for j, (q, h, counted) in enumerate(zip(dataset.quasi, hierarchies, engine.bottom_levels, strict=True)):
        values = h.parent_map(counted, named[j])[bottom.keys[hit, j]]
        out[q] = np.bincount(values, weights=bottom.sizes[hit], minlength=len(out[q])).astype(np.int64)
    return out


def suppressed_counts_of_rows(dataset: Dataset, suppressed: NDArray[np.bool_]) -> dict[str, NDArray[np.int64]]:
    """Per quasi-identifier, the suppressed records per value at its ``min_level`` (the leaf code without one),
    from the records in memory."""
    out = {}
    for q, level in zip(dataset.quasi, dataset.min_levels, strict=True):
        codes = dataset.encoded[q].row_codes()[suppressed]
        if level:
            codes = dataset.require_hierarchy(q).maps[level][codes]
        out[q] = np.bincount(codes, minlength=_values_at(dataset, q, level)).astype(np.int64)
    return out


def _values_at(dataset: Dataset, name: str, level: int) -> int:
    """How many values quasi-identifier ``name`` has at ``level`` (its encoded categories at level 0)."""
    return dataset.encoded[name].n_categories if not level else dataset.require_hierarchy(name).size(level)


def concentrated_suppression(dataset: Dataset, counts: Mapping[str, NDArray[np.int64]], k: int) -> list[str]:
    """The warning (at most one) when more than half of the suppressed records share one value of a quasi-identifier.

    ``counts[q]`` holds the suppressed records per input value of ``q``, at
    its ``min_level`` when it has one
    (:func:`suppressed_counts_of_rows`, :func:`suppressed_counts_of_node`).
    The value must also be over-represented among the suppressed records (its
    share there at least :data:`OVER_REPRESENTED` times its share of the
    table): half of the suppressed records being women, as half of the table
    is, says nothing.  A value is named, with its count, only when at least
    max(k, 2) suppressed records hold it; a rarer one is only said to exist
    (its attribute named, its value and count not).
    """
    floor = group_floor(k)
    total = 0
    parts = []
    for q, level in zip(dataset.quasi, dataset.min_levels, strict=True):
        per_value = counts.get(q)
        if per_value is None or not per_value.sum():
            continue
        total = int(per_value.sum())
        top = int(np.argmax(per_value))
        n = int(per_value[top])
        if n * 2 <= total or n < 2:
            continue
        col = dataset.encoded[q]
        held = col.counts()
        if level:
            held = np.bincount(dataset.require_hierarchy(q).maps[level][np.arange(len(held))], weights=held,
                               minlength=len(per_value)).astype(np.int64)
        holders = int(held[top])
        if n / total < OVER_REPRESENTED * holders / max(dataset.n_rows, 1):
            continue  # as common among the suppressed as in the table: nothing was singled out
        if n < floor:
            parts.append(f"more than half share one value of {q} (a value fewer than {floor} records hold: not"
                         " named)")
            continue
        value = str(col.categories[top] if not level else dataset.require_hierarchy(q).labels[level][top])
        shown = f"{value!r}" + (" (empty)" if not value.strip() else "")
        whose = "every record with that value" if holders == n else f"{n:,} of the {holders:,} records with it"
        share = f"all {n:,}" if n == total else f"{n:,}"
        parts.append(f"{share} have {q} = {shown} ({whose})")
    if not parts:
        return []
    return [f"suppression is concentrated: of the {total:,} suppressed records, {' and '.join(parts)}; the release"
            " under-represents whatever those records have in common (check why they cannot join a class: a value"
            " the hierarchy keeps apart, such as a blank ZIP code, is a common cause)"]
