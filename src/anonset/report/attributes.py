"""The report's per-attribute sections: the generalization applied, its loss, the distributions before and after.

Also the breakdown of the suppressed records, which must not disclose what
suppression hid: their quasi-identifiers are counted at the generalization
the release applied (labels the release already shows), and any count below
k is folded into one "fewer than k each" line.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from anonset.core.dataset import AttributeType, Dataset
from anonset.core.partition import HierarchyNodes, Intervals, Partition
from anonset.metrics.loss import Loss
from anonset.release.release import SUPPRESSED
from anonset.report.svg import nice_step

if TYPE_CHECKING:
    from collections.abc import Mapping

    from numpy.typing import NDArray

__all__ = ["attribute_sections", "level_text", "suppressed_breakdown", "value_counts"]

#: Bars shown per distribution; the rest are one "other" bar.
TOP_VALUES = 12
#: Equal-width bins for a numeric or date column with more distinct values than TOP_VALUES.
NUMERIC_BINS = 10


def level_text(level: int, max_level: int) -> str:
    """``level 2 of 4`` (the top level is the one where every value is ``*``)."""
    return f"level {level} of {max_level}"


def attribute_sections(dataset: Dataset, released: pd.DataFrame, partition: Partition | None,
                       levels: Mapping[str, int] | None) -> list[dict[str, Any]]:
    """One section per quasi-identifier: generalization, loss, distributions before and after."""
    loss = _loss_per_attribute(dataset, partition)
    out = []
    for j, q in enumerate(dataset.quasi):
        h = dataset.hierarchy(q)
        level = None if levels is None else int(levels[q])
        section: dict[str, Any] = {
            "name": q, "type": dataset.specs[q].type.value,
            "hierarchy": None if h is None else h.source,
            "level": level, "max_level": None if h is None else h.max_level,
            "generalization": _generalization(dataset, q, level, partition),
            "loss": None if loss is None else float(loss[j]),
            "distinct_before": int((dataset.encoded[q].counts() > 0).sum()),
            "distinct_after": _distinct_released(released[q]),
            "before": value_counts(_input_values(dataset, q), numeric=_by_value(dataset, q)),
            "after": value_counts(released[q], suppressed_last=True,
                                  in_order=dataset.specs[q].type is not AttributeType.CATEGORICAL),
        }
        out.append(section)
    return out


def suppressed_breakdown(dataset: Dataset, released: pd.DataFrame, suppressed: NDArray[np.bool_] | None,
                         levels: Mapping[str, int] | None, k: int) -> dict[str, Any] | None:
    """Which quasi-identifier combinations the suppressed records had, without disclosing small groups.

    Each suppressed record's quasi-identifiers are shown at the level the
    release generalized them to (full-domain), or one level below the top of
    the hierarchy (other methods; numeric columns without a hierarchy are
    left out).  Combinations with at least ``k`` suppressed records are
    listed; the others are only counted.  None when the release does not
    align with the input row by row (suppressed records dropped).
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
    listed = combos[combos >= k]
    return {
        "shown_at": shown_at,
        "combinations": [{"values": dict(zip(frame.columns, key if isinstance(key, tuple) else (key,), strict=True)),
                          "records": int(count)} for key, count in listed.items()],
        "records_in_small_combinations": int(combos[combos < k].sum()),
        "small_combinations": int((combos < k).sum()),
        "k": k,
    }


def value_counts(values: pd.Series, *, numeric: NDArray[np.float64] | None = None,
                 suppressed_last: bool = False, in_order: bool = False) -> list[dict[str, Any]]:
    """The bars of a distribution: ``[{label, records}]``, the most frequent first (numeric: bins in order).

    At most :data:`TOP_VALUES` bars and one ``other (N values)`` bar; with
    ``suppressed_last`` the ``*`` bar comes last.  A numeric column with
    more distinct values than that is binned into :data:`NUMERIC_BINS`
    equal-width bins.  ``in_order``: the bars shown are sorted by the
    number each label starts with (``20-39`` before ``40-59``), when every
    one starts with a number.
    """
    if numeric is not None:
        finite = numeric[np.isfinite(numeric)]
        if len(np.unique(finite)) > TOP_VALUES:
            return _bins(finite, int(len(numeric) - len(finite)))
    counts = label_counts(values)
    star = int(counts.get(SUPPRESSED, 0)) if suppressed_last else 0
    if suppressed_last:
        counts = counts.drop(SUPPRESSED, errors="ignore")
    top = counts.iloc[:TOP_VALUES]
    if in_order:
        top = _by_leading_number(top)
    out = [{"label": str(label), "records": int(n)} for label, n in top.items()]
    rest = counts.iloc[TOP_VALUES:]
    if len(rest):
        out.append({"label": f"other ({len(rest)} values)", "records": int(rest.sum())})
    if star:
        out.append({"label": f"{SUPPRESSED} (suppressed or fully generalized)", "records": star})
    return out


def _by_leading_number(counts: pd.Series) -> pd.Series:
    """``counts`` sorted by the number each label starts with, when every label starts with one."""
    leading = pd.Series(counts.index.astype(str), index=counts.index).str.extract(r"^\[?(-?\d+(?:\.\d+)?)")[0]
    if leading.isna().any():
        return counts
    return counts.iloc[np.argsort(leading.astype(float).to_numpy(), kind="stable")]


def _distinct_released(column: pd.Series) -> int:
    """Distinct released values of a column, ``*`` (suppressed or fully generalized) not counted."""
    counts = label_counts(column)
    return int(len(counts) - (SUPPRESSED in counts.index))


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


def _bins(numbers: NDArray[np.float64], missing: int) -> list[dict[str, Any]]:
    """About :data:`NUMERIC_BINS` bins of a round width (``20-29`` for whole numbers), in order."""
    lo, hi = float(numbers.min()), float(numbers.max())
    width = nice_step((hi - lo) / NUMERIC_BINS) if hi > lo else 1.0
    start = np.floor(lo / width) * width
    count = int(np.floor((hi - start) / width)) + 1
    index = np.minimum(((numbers - start) // width).astype(np.int64), count - 1)
    counts = np.bincount(index, minlength=count)
    whole = bool(np.all(np.mod(numbers, 1) == 0)) and float(width).is_integer()
    out = []
    for i, c in enumerate(counts):
        left = start + i * width
        label = (f"{left:.0f}-{left + width - 1:.0f}" if whole and width > 1 else
                 f"{left:.0f}" if whole else f"{_short(left)}–{_short(left + width)}")
        out.append({"label": label, "records": int(c)})
    if missing:
        out.append({"label": "missing", "records": missing})
    return out


def _short(value: float) -> str:
    return f"{value:.0f}" if abs(value) >= 100 or float(value).is_integer() else f"{value:.3g}"


def _by_value(dataset: Dataset, name: str) -> NDArray[np.float64] | None:
    """Per-record numbers of a numeric column (for binning), else None."""
    if dataset.specs[name].type is not AttributeType.NUMERIC:
        return None
    numbers = dataset.encoded[name].numbers
    if numbers is None:
        return None
    return np.asarray(numbers, dtype=np.float64)[dataset.encoded[name].row_codes()]


def _input_values(dataset: Dataset, name: str) -> pd.Series:
    """The input's values of a quasi-identifier, as categories of its codes (no per-record strings)."""
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


def _generalization(dataset: Dataset, name: str, level: int | None, partition: Partition | None) -> str:
    """What was done to the attribute, in words."""
    h = dataset.hierarchy(name)
    if level is not None and h is not None:
        if level == 0:
            return "original values"
        if level == h.max_level:
            return "every value replaced by * (the top level: the attribute tells nothing)"
        shown = [str(v) for v in h.labels[level][:3]]
        kind = _builder_words(h.source, level)
        return (f"{kind}{h.size(level)} values instead of {h.n_leaves}, e.g. {', '.join(shown)}")
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
