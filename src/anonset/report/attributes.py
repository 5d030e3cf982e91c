"""The report's per-attribute sections: the generalization applied, its loss, the distributions before and after.

Nothing here names a value, a numeric range or a combination held by fewer
records than the display floor (:func:`anonset.report.floor.display_floor`,
``max(k, 2)``): the distributions count such values in one bar that says
so, a numeric column's ranges are laid out between values held by at least
that many records, and the examples of a generalization are labels the
release itself shows on at least that many records.

Also the breakdown of the suppressed records, which must not disclose what
suppression hid: their quasi-identifiers are counted at the generalization
the release applied (labels the release already shows), and any count below
the floor it is given (the report gives the display floor) is folded into
one "fewer than k each" line.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from anonset.core.dataset import AttributeType, Dataset
from anonset.core.partition import HierarchyNodes, Intervals, Partition
from anonset.metrics.loss import Loss
from anonset.recheck.columns import SUPPRESSED
from anonset.report.floor import rare_label
from anonset.report.scale import shared_date_scale, shared_scale
from anonset.report.svg import nice_step

if TYPE_CHECKING:
    from collections.abc import Mapping

    from numpy.typing import NDArray

__all__ = ["attribute_sections", "input_values", "level_text", "suppressed_breakdown", "value_counts"]

#: Bars shown per distribution; the rest are one "other" bar.
TOP_VALUES = 12
#: Equal-width bins for a numeric or date column with more distinct values than TOP_VALUES.
NUMERIC_BINS = 10


def level_text(level: int, max_level: int) -> str:
    """``level 2 of 4`` (the top level is the one where every value is ``*``)."""
    return f"level {level} of {max_level}"


def attribute_sections(dataset: Dataset, released: pd.DataFrame, partition: Partition | None,
                       levels: Mapping[str, int] | None, floor: int) -> list[dict[str, Any]]:
    """One section per quasi-identifier: generalization, loss, distributions before and after.

    ``floor`` is the display floor: no value, range or example held by fewer
    records is named (see :mod:`anonset.report.floor`).
    """
    loss = _loss_per_attribute(dataset, partition)
    out = []
    for j, q in enumerate(dataset.quasi):
        h = dataset.hierarchy(q)
        level = None if levels is None else int(levels[q])
        in_order = dataset.specs[q].type is not AttributeType.CATEGORICAL
        after_counts = label_counts(released[q])
        section: dict[str, Any] = {
            "name": q, "type": dataset.specs[q].type.value,
            "hierarchy": None if h is None else h.source,
            "level": level, "max_level": None if h is None else h.max_level,
            "generalization": _generalization(dataset, q, level, partition,
                                              _examples(after_counts, floor, in_order)),
            "loss": None if loss is None else float(loss[j]),
            "distinct_before": int((dataset.encoded[q].counts() > 0).sum()),
            "distinct_after": int(len(after_counts) - (SUPPRESSED in after_counts.index)),
            "before": value_counts(input_values(dataset, q), floor, numeric=_by_value(dataset, q)),
            "after": value_counts(released[q], floor, suppressed_last=True, in_order=in_order),
        }
        section["scale"] = _scale(dataset, q, released[q], floor)
        out.append(section)
    return out


def suppressed_breakdown(dataset: Dataset, released: pd.DataFrame, suppressed: NDArray[np.bool_] | None,
                         levels: Mapping[str, int] | None, k: int,
                         disclosure: tuple[str, ...] = ()) -> dict[str, Any] | None:
    """Which quasi-identifier combinations the suppressed records had, without disclosing small groups.

    Each suppressed record's quasi-identifiers are shown at the level the
    release generalized them to (full-domain), or one level below the top of
    the hierarchy (other methods; numeric columns without a hierarchy are
    left out).  Combinations with at least ``k`` suppressed records are
    listed; the others are only counted.  None when the release does not
    align with the input row by row (suppressed records dropped).

    The suppressed records are released as one group: a combination listed
    here ties its records to that group's sensitive values.  That is safe
    when the group satisfies every model or its sensitive values are
    withheld (``*``), which is what anonset releases (see
    :mod:`anonset.recheck.suppressed`).  A release whose suppressed group
    shows values that break a model (``disclosure``: the models, as the
    re-check found them) gets no combination listed, only counts.
    """
    if suppressed is None or not suppressed.any():
        return None
    columns: dict[str, NDArray[np.object_]] = {}
    shown_at: dict[str, str] = {}
    for q in dataset.quasi:
        h = dataset.hierarchy(q)
        if h is None:
            continue
        level = int(levels[q]) if levels is not None else max(h.max_level - 1, 0)
        codes = dataset.encoded[q].row_codes()[suppressed]
        columns[q] = h.labels[level][h.maps[level][codes]].astype(object)
        shown_at[q] = level_text(level, h.max_level)
    if not columns:
        return None
    frame = pd.DataFrame(columns)
    combos = frame.value_counts(sort=True)
    listed = combos[combos >= k] if not disclosure else combos.iloc[:0]
    small = combos[combos < k] if not disclosure else combos
    return {
        "shown_at": shown_at,
        "combinations": [{"values": dict(zip(frame.columns, key if isinstance(key, tuple) else (key,), strict=True)),
                          "records": int(count)} for key, count in listed.items()],
        "records_in_small_combinations": int(small.sum()),
        "small_combinations": int(len(small)),
        "k": k,
        "withheld_because": (None if not disclosure else
                             "the suppressed records' released sensitive values break " + " and ".join(disclosure)
                             + " as one group, so no combination is named"),
    }


def value_counts(values: pd.Series, floor: int, *, numeric: NDArray[np.float64] | None = None,
                 suppressed_last: bool = False, in_order: bool = False) -> list[dict[str, Any]]:
    """The bars of a distribution: ``[{label, records}]``, the most frequent first (numeric: ranges in order).

    A value held by fewer than ``floor`` records is never named: all such
    values are one bar labelled by :func:`~anonset.report.floor.rare_label`
    (with ``folded``, the number of values in it).  Of the others at most
    :data:`TOP_VALUES` are shown and the rest are one ``other: N more
    values`` bar; with ``suppressed_last`` the ``*`` bar comes last.  A
    numeric column with more distinct values than that is counted in about
    :data:`NUMERIC_BINS` ranges of equal width (see :func:`_bins`).
    ``in_order``: the bars shown are sorted by the number each label starts
    with (``20-39`` before ``40-59``), when every one starts with a number.
    """
    if numeric is not None:
        finite = numeric[np.isfinite(numeric)]
        if len(np.unique(finite)) > TOP_VALUES:
            return _bins(finite, int(len(numeric) - len(finite)), floor)
    counts = label_counts(values)
    star = int(counts.get(SUPPRESSED, 0)) if suppressed_last else 0
    if suppressed_last:
        counts = counts.drop(SUPPRESSED, errors="ignore")
    rare = counts[counts < floor]
    counts = counts[counts >= floor]
    top = counts.iloc[:TOP_VALUES]
    if in_order:
        top = _by_leading_number(top)
    out = [{"label": str(label), "records": int(n)} for label, n in top.items()]
    rest = counts.iloc[TOP_VALUES:]
    if len(rest):
        out.append({"label": f"other: {len(rest):,} more value{'' if len(rest) == 1 else 's'}",
                    "records": int(rest.sum())})
    if len(rare):
        out.append({"label": rare_label(len(rare), floor), "records": int(rare.sum()), "folded": int(len(rare))})
    if star:
        out.append({"label": f"{SUPPRESSED} (suppressed or fully generalized)", "records": star})
    return out


def _examples(counts: pd.Series, floor: int, in_order: bool, limit: int = 3) -> list[str]:
    """Up to ``limit`` released labels held by at least ``floor`` records each (``*`` not counted), as examples."""
    shown = counts[(counts >= floor) & (counts.index != SUPPRESSED)]
    if in_order:
        shown = _by_leading_number(shown)
    return [str(label) for label in shown.index[:limit]]


def _by_leading_number(counts: pd.Series) -> pd.Series:
    """``counts`` sorted by the number each label starts with, when every label starts with one."""
    leading = pd.Series(counts.index.astype(str), index=counts.index).str.extract(r"^\[?(-?\d+(?:\.\d+)?)")[0]
    if leading.isna().any():
        return counts
    return counts.iloc[np.argsort(leading.astype(float).to_numpy(), kind="stable")]


def label_counts(values: pd.Series) -> pd.Series:
    """Records per value, as text, the most frequent first (a missing value counts as ``nan``).

    A categorical column is counted on its codes and any other column on
    its values; only the distinct values are turned into text, never one
    string per record.
    """
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = values.cat.codes.to_numpy()
        categories = values.cat.categories
        counts = pd.Series(np.bincount(codes[codes >= 0], minlength=len(categories)),
                           index=categories.astype(str).to_numpy())
        missing = int((codes < 0).sum())
        if missing:
            counts = pd.concat([counts, pd.Series([missing], index=["nan"])])
    else:
        counts = values.value_counts(dropna=False)
        counts.index = [str(v) for v in counts.index]
    counts = counts.groupby(level=0, sort=False).sum()
    return counts[counts > 0].sort_values(ascending=False, kind="stable")


def _bins(numbers: NDArray[np.float64], missing: int, floor: int) -> list[dict[str, Any]]:
    """About :data:`NUMERIC_BINS` ranges of a round width (``20-29`` for whole numbers), in order.

    The ranges are laid out between the ``floor``-th smallest and the
    ``floor``-th largest value, and the first and the last are open
    (``≤ 29``, ``≥ 80``), so each of those two holds at least ``floor``
    records and no range reveals how far the extremes reach.  A range in
    between that holds fewer than ``floor`` records (none included, so an
    absent range does not tell which held a few) is counted in one
    :func:`~anonset.report.floor.rare_label` bar, with the missing values
    when they are fewer than ``floor``.
    """
    n = len(numbers)
    out: list[dict[str, Any]] = []
    ranges = folded = folded_records = 0
    if n >= 2 * floor:
        ordered = np.partition(numbers, [floor - 1, n - floor])
        lo, hi = float(ordered[floor - 1]), float(ordered[n - floor])
        width = nice_step((hi - lo) / NUMERIC_BINS) if hi > lo else 1.0
        start = np.floor(lo / width) * width
        count = int((hi - start) // width) + 1
        index = np.clip(((numbers - start) // width).astype(np.int64), 0, count - 1)
        counts = np.bincount(index, minlength=count)
        whole = bool(np.all(np.mod(numbers, 1) == 0)) and float(width).is_integer()
        for i, c in enumerate(counts):
            left = start + i * width
            if count == 1:
                label = "all values"
            elif i == 0:
                label = f"≤ {left + width - 1:.0f}" if whole else f"< {_short(left + width)}"
            elif i == count - 1:
                label = f"≥ {_short(left)}"
            elif c < floor:
                ranges, folded_records = ranges + 1, folded_records + int(c)
                continue
            else:
                label = (f"{left:.0f}-{left + width - 1:.0f}" if whole and width > 1 else
                         f"{left:.0f}" if whole else f"{_short(left)}–{_short(left + width)}")
            out.append({"label": label, "records": int(c)})
    elif n:
        out.append({"label": "all values", "records": int(n)})
    folded = ranges
    if missing >= floor:
        out.append({"label": "missing", "records": missing})
    elif missing:
        folded, folded_records = folded + 1, folded_records + missing
    if folded:
        out.append({"label": rare_label(folded, floor, "range" if ranges else "value"), "records": folded_records,
                    "folded": folded})
    return out


def _short(value: float) -> str:
    return f"{value:.0f}" if abs(value) >= 100 or float(value).is_integer() else f"{value:.3g}"


def _scale(dataset: Dataset, name: str, released: pd.Series, floor: int) -> dict[str, Any] | None:
    """A number's or a date's values before and after on one line (:mod:`anonset.report.scale`), else None."""
    kind = dataset.specs[name].type
    numbers = dataset.encoded[name].numbers
    if kind not in (AttributeType.NUMERIC, AttributeType.DATE) or numbers is None:
        return None
    values = np.asarray(numbers, dtype=np.float64)[dataset.encoded[name].row_codes()]
    if kind is AttributeType.NUMERIC:
        return shared_scale(values, released, floor)
    hierarchy = dataset.hierarchy(name)
    return shared_date_scale(values, released, floor, None if hierarchy is None else hierarchy.date_format)


def _by_value(dataset: Dataset, name: str) -> NDArray[np.float64] | None:
    """Per-record numbers of a numeric column (for binning), else None."""
    if dataset.specs[name].type is not AttributeType.NUMERIC:
        return None
    numbers = dataset.encoded[name].numbers
    if numbers is None:
        return None
    return np.take(np.asarray(numbers, dtype=np.float64), dataset.encoded[name].row_codes())


def input_values(dataset: Dataset, name: str) -> pd.Series:
    """The input's values of a quasi-identifier or sensitive attribute, as categories of its codes (no strings)."""
    col = dataset.encoded[name]
    labels = np.asarray(col.categories, dtype=object).astype(str)
    codes = col.row_codes()
    if len(set(labels.tolist())) < len(labels):  # two codes spelled alike: count the spelling
        return pd.Series(labels[codes])
    return pd.Series(pd.Categorical.from_codes(codes, categories=pd.Index(labels, dtype=object)))


def _loss_per_attribute(dataset: Dataset, partition: Partition | None) -> NDArray[np.float64] | None:
    """ARX's Loss of each attribute alone (0 = original values, 1 = all suppressed), or None without a partition."""
    if partition is None:
        return None
    metric = Loss()
    sums = np.array([float(np.dot(partition.sizes, metric.class_costs(dataset, q, partition.values[q])))
                     + partition.n_suppressed for q in dataset.quasi])
    return metric.per_attribute(dataset, sums)


def _generalization(dataset: Dataset, name: str, level: int | None, partition: Partition | None,
                    examples: list[str]) -> str:
    """What was done to the attribute, in words; ``examples`` are released labels the text may quote."""
    h = dataset.hierarchy(name)
    if level is not None and h is not None:
        if level == 0:
            return "original values"
        if level == h.max_level:
            return "every value replaced by * (the top level: the attribute tells nothing)"
        kind = _builder_words(h.source, level)
        quoted = f", e.g. {', '.join(examples)}" if examples else ""
        return f"{kind}{h.size(level)} values instead of {h.n_leaves}{quoted}"
    if partition is None:
        return "each class generalized on its own"
    values = partition.values[name]
    weights = partition.sizes.astype(np.float64)
    if isinstance(values, HierarchyNodes) and h is not None and len(weights):
        share = np.bincount(values.levels.astype(np.int64), weights=weights, minlength=h.n_levels) / weights.sum()
        parts = [f"{share[i]:.0%} at {level_text(i, h.max_level)}" for i in range(h.n_levels) if share[i] >= 0.005]
        return "each class its own node of the hierarchy: " + ", ".join(parts)
    if isinstance(values, Intervals) and len(weights):
        median = float(np.median(np.repeat(np.asarray(values.hi - values.lo, dtype=np.float64), partition.sizes)))
        if values.shown is not None:
            return (f"each class released as one number (microaggregation), standing for values that span"
                    f" {median:.4g} at the median")
        return f"each class its own range; a record's range is {median:.4g} wide at the median"
    return "each class generalized on its own"


def _builder_words(source: str, level: int) -> str:
    """``bands of width 10: `` for the intervals builder's level, ``last 2 characters masked: `` for masking."""
    widths = re.match(r"intervals\(widths=\[([^\]]*)\]", source)
    if widths:
        values = [w.strip() for w in widths.group(1).split(",") if w.strip()]
        if 0 < level <= len(values):
            return f"bands of width {values[level - 1]}: "
    if source.startswith("masking("):
        return f"last {level} character{'s' if level > 1 else ''} masked: "
    return ""
