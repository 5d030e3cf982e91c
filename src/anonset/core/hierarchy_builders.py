"""Build generalization hierarchies from a column's distinct values.

Every builder takes the attribute name and the distinct values of the column
(strings exactly as the data holds them, e.g. ``"39"`` or ``"007"``) and
returns a validated :class:`~anonset.core.hierarchy.Hierarchy` whose leaves are
those strings, unchanged.  Repeated values are dropped.  The numeric and date
builders order the leaves by value (equal values by their text), so their
result does not depend on the order of ``values``; the masking, ordered and
flat functions keep the given order.  :func:`build_hierarchy`, the form that
configurations and :class:`~anonset.core.dataset.Dataset` use, first sorts the
values naturally (:func:`natural_sorted`) unless an ``order`` is given, so a
hierarchy built from a file's rows, from a DataFrame or from a database's
value counts is the same hierarchy.

A level that holds a single group below the root (``1..4`` over the values
1 to 4, ``12*`` over ``123`` and ``124``) tells nothing the root does not and
is dropped, so the hierarchy may have fewer levels than parameters asked
for.  The last level is always a single root (``"*"`` unless ``root`` says
otherwise).

Builders
--------
:func:`interval_hierarchy`
    Numbers into intervals, by fixed widths (``[5, 10, 20]``) or by cut points,
    with optional bottom and top coding.
:func:`masking_hierarchy`
    Codes masked one more character from the right per level
    (``47911 -> 4791* -> 479** -> ...``).
:func:`ordered_grouping_hierarchy`
    Consecutive runs of an ordered domain, ``fanouts`` at a time.
:func:`date_hierarchy`
    Dates into months, years, decades and centuries.
:func:`flat_hierarchy`
    Every value straight to the root.
:func:`build_hierarchy`
    Dispatch from a configuration mapping such as
    ``{"builder": "intervals", "widths": [5, 10, 20]}``.

Bad parameters raise :class:`~anonset.errors.ConfigError`; values the builder
cannot place (a non-number for intervals, a non-date for dates) raise
:class:`~anonset.errors.HierarchyError`.  Either message names the attribute,
the offending value or parameter and the fix.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import math
import numbers
import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

import numpy as np

from anonset.core.hierarchy import Hierarchy
from anonset.errors import ConfigError, HierarchyError

__all__ = [
    "BUILDERS",
    "DATE_LEVELS",
    "build_hierarchy",
    "check_builder_spec",
    "date_hierarchy",
    "flat_hierarchy",
    "interval_hierarchy",
    "masking_hierarchy",
    "natural_sorted",
    "ordered_grouping_hierarchy",
]

#: Names accepted by ``builder:`` in a hierarchy spec, in the order messages list them.
BUILDERS: tuple[str, ...] = ("intervals", "masking", "ordered", "dates", "flat")

#: Date levels, finest first; ``date_hierarchy(levels=...)`` takes an increasing subsequence.
DATE_LEVELS: tuple[str, ...] = ("month", "year", "decade", "century")


# ---------------------------------------------------------------------------- intervals
def interval_hierarchy(
    name: str,
    values: Iterable[str],
    *,
    widths: Sequence[Any] | None = None,
    cuts: Sequence[Sequence[Any]] | None = None,
    start: Any = None,
    bottom: Any = None,
    top: Any = None,
    root: str = "*",
) -> Hierarchy:
    """Generalize numbers into intervals that get wider level by level.

    Parameters
    ----------
    name : str
        Attribute name (for messages).
    values : iterable of str
        Distinct values of the column, as written (``"39"``, ``"39.5"``,
        ``"007"``); each must parse as a finite number.  They become the
        leaves unchanged, ordered by numeric value.
    widths : sequence of number, optional
        One interval width per level above the leaves, each a whole multiple
        of the one before (``[5, 10, 20]``).  Intervals are ``[start + k*w,
        start + (k+1)*w)``.
    cuts : sequence of sequence of number, optional
        One list of cut points per level above the leaves (``[[18, 25, 35,
        50, 65], [25, 50]]``); each level's cut points must be a subset of
        the previous level's, so that every level coarsens the one below.
        Cut points ``c1 < ... < cn`` make the intervals ``<c1``,
        ``[c1, c2)``, ..., ``>=cn``.  Give exactly one of ``widths`` and
        ``cuts``.
    start : number, optional
        Where the width grid is anchored (``widths`` only).  Default: the
        largest multiple of ``widths[-1]`` that is ``<=`` the smallest value
        (the smallest value not bottom- or top-coded).
    bottom : number, optional
        Bottom coding: on every level, values ``< bottom`` form one group
        labelled ``"<{bottom}"``.
    top : number, optional
        Top coding: on every level, values ``>= top`` form one group labelled
        ``">={top}"``.
    root : str
        Label of the root level.

    Returns
    -------
    Hierarchy
        Leaves, one level per width (or cut list), then the root; a level
        with a single interval (it equals the root) is left out.

    Raises
    ------
    HierarchyError
        No values, or a value that is not a finite number.
    ConfigError
        Neither or both of ``widths`` and ``cuts``; a width that is not
        positive or not a multiple of the one before; a cut list that is empty
        or not a subset of the level below; ``start`` with ``cuts``;
        ``bottom >= top``.

    Notes
    -----
    Labels: when every value is an integer, an interval is labelled with its
    inclusive integer bounds, ``"30-39"`` (width 10 from 30); otherwise it is
    the half-open ``"[30.5, 40.5)"``.  An interval cut by bottom or top coding
    is labelled with the part that remains (bottom 18 in ``[10, 20)`` gives
    ``"18-19"``), and the open ends of a cut list are ``"<c1"`` and ``">=cn"``.
    Numbers print without a trailing ``.0`` when integral.  Arithmetic is exact
    (decimal inputs are read as fractions), so ``0.3`` lands in
    ``[0.3, 0.4)`` and not in ``[0.2, 0.3)``.
    """
    leaves = _distinct(name, values)
    numbers_ = [_leaf_number(name, v) for v in leaves]
    order = sorted(range(len(leaves)), key=lambda i: (numbers_[i], leaves[i]))
    leaves = [leaves[i] for i in order]
    numbers_ = [numbers_[i] for i in order]

    lo_code = _param_number(name, "bottom", bottom) if bottom is not None else None
    hi_code = _param_number(name, "top", top) if top is not None else None
    if lo_code is not None and hi_code is not None and lo_code >= hi_code:
        raise ConfigError(
            f"attribute {name!r}: bottom {_fmt(lo_code)} is not below top {_fmt(hi_code)};"
            " give bottom < top (or drop one of them)"
        )
    coded_low = [lo_code is not None and x < lo_code for x in numbers_]
    coded_high = [hi_code is not None and x >= hi_code for x in numbers_]
    free = [x for x, a, b in zip(numbers_, coded_low, coded_high, strict=True) if not (a or b)]

    given = _describe(widths=widths, cuts=cuts, start=start, bottom=bottom, top=top)
    if (widths is None) == (cuts is None):
        raise ConfigError(
            f"attribute {name!r}: the intervals builder needs exactly one of `widths` (e.g. [5, 10, 20])"
            f" and `cuts` (e.g. [[18, 30, 65], [30]]); got {'both' if widths is not None else 'neither'}"
        )
    if widths is not None:
        grid = _check_widths(name, widths)
        if start is None:
            anchor = math.floor(min(free) / grid[-1]) * grid[-1] if free else Fraction(0)
        else:
            anchor = _param_number(name, "start", start)
        intervals: list[list[tuple[Fraction | None, Fraction | None]]]
        intervals = [_grid_intervals(numbers_, anchor, w) for w in grid]
    else:
        if start is not None:
            raise ConfigError(
                f"attribute {name!r}: `start` only applies with `widths`; drop it or use widths instead of cuts"
            )
        assert cuts is not None
        cut_levels = _check_cuts(name, cuts)
        intervals = [_cut_intervals(numbers_, level) for level in cut_levels]

    integral = all(x.denominator == 1 for x in numbers_)
    columns: list[list[str]] = [leaves]
    for level in intervals:
        labels: list[str] = []
        # the values of one interval share its bounds (the same tuple), and so its label: keyed by the tuple's id,
        # as the bounds' own hashes are slow to take
        named: dict[int, str] = {}
        for i, interval in enumerate(level):
            if coded_low[i]:
                label = f"<{_fmt(lo_code)}"
            elif coded_high[i]:
                label = f">={_fmt(hi_code)}"
            elif id(interval) in named:
                label = named[id(interval)]
            else:
                cut_lo, cut_hi = interval
                if lo_code is not None and (cut_lo is None or cut_lo < lo_code):
                    cut_lo = lo_code
                if hi_code is not None and (cut_hi is None or cut_hi > hi_code):
                    cut_hi = hi_code
                label = named[id(interval)] = _interval_label(cut_lo, cut_hi, integral)
            labels.append(label)
        columns.append(labels)
    return _assemble(name, columns, root, f"intervals({given})")


def _grid_intervals(numbers: list[Fraction], anchor: Fraction, width: Fraction) -> list[tuple[Fraction | None,
                                                                                            Fraction | None]]:
    """For each number, the interval ``[anchor + k*width, anchor + (k+1)*width)`` holding it (exact).

    The numbers of one interval share one tuple of bounds.  Whole numbers on a whole grid (the
    usual ages and counts) are placed with integer arithmetic, which gives the same bounds as the
    fractions do, several times faster.
    """
    if anchor.denominator == 1 and width.denominator == 1 and all(x.denominator == 1 for x in numbers):
        a, w = anchor.numerator, width.numerator
        starts = [a + (x.numerator - a) // w * w for x in numbers]
        bounds = {lo: (Fraction(lo), Fraction(lo + w)) for lo in set(starts)}
        return [bounds[lo] for lo in starts]
    by_step: dict[int, tuple[Fraction | None, Fraction | None]] = {}
    out: list[tuple[Fraction | None, Fraction | None]] = []
    for x in numbers:
        k = math.floor((x - anchor) / width)
        if k not in by_step:
            by_step[k] = (anchor + k * width, anchor + (k + 1) * width)
        out.append(by_step[k])
    return out


def _cut_intervals(numbers: list[Fraction], cuts: list[Fraction]) -> list[tuple[Fraction | None, Fraction | None]]:
    """For each number, the interval between consecutive cut points holding it; ``None`` is an open end."""
    bounds = [((cuts[i - 1] if i > 0 else None), (cuts[i] if i < len(cuts) else None)) for i in range(len(cuts) + 1)]
    return [bounds[bisect.bisect_right(cuts, x)] for x in numbers]


def _interval_label(lo: Fraction | None, hi: Fraction | None, integral: bool) -> str:
    if lo is None and hi is None:
        return "*"  # a single unbounded interval; cannot arise, cut lists are non-empty
    if lo is None:
        assert hi is not None
        return f"<{_fmt(hi)}"
    if hi is None:
        return f">={_fmt(lo)}"
    if integral:
        return f"{math.ceil(lo)}-{math.ceil(hi) - 1}"
    return f"[{_fmt(lo)}, {_fmt(hi)})"


def _check_widths(name: str, widths: Sequence[Any]) -> list[Fraction]:
    if isinstance(widths, (str, bytes)) or not isinstance(widths, Sequence) or not widths:
        raise ConfigError(
            f"attribute {name!r}: `widths` must be a non-empty list of interval widths, one per level"
            f" (e.g. [5, 10, 20]); got {widths!r}"
        )
    out: list[Fraction] = []
    for i, w in enumerate(widths):
        value = _param_number(name, f"widths[{i}]", w)
        if value <= 0:
            raise ConfigError(
                f"attribute {name!r}: widths[{i}] = {w!r} is not positive; give widths > 0"
            )
        if out and (value / out[-1]).denominator != 1:
            raise ConfigError(
                f"attribute {name!r}: widths[{i}] = {w!r} is not a whole multiple of widths[{i - 1}] ="
                f" {widths[i - 1]!r}; each width must be a multiple of the one before (e.g. [5, 10, 20])"
            )
        if out and value < out[-1]:
            raise ConfigError(
                f"attribute {name!r}: widths[{i}] = {w!r} is smaller than widths[{i - 1}] = {widths[i - 1]!r};"
                " list widths from finest to coarsest, each a multiple of the one before"
            )
        out.append(value)
    return out


def _check_cuts(name: str, cuts: Sequence[Sequence[Any]]) -> list[list[Fraction]]:
    example = "(e.g. [[18, 30, 50, 65], [30, 65]])"
    if isinstance(cuts, (str, bytes)) or not isinstance(cuts, Sequence) or not cuts:
        raise ConfigError(
            f"attribute {name!r}: `cuts` must be a non-empty list with one list of cut points per level"
            f" {example}; got {cuts!r}"
        )
    out: list[list[Fraction]] = []
    for j, level in enumerate(cuts):
        if isinstance(level, (str, bytes)) or not isinstance(level, Sequence):
            raise ConfigError(
                f"attribute {name!r}: cuts[{j}] = {level!r} is not a list of cut points; give one list per level"
                f" {example}"
            )
        if not level:
            raise ConfigError(
                f"attribute {name!r}: cuts[{j}] is empty; give at least one cut point per level"
                " (the root level is added automatically)"
            )
        points = sorted({_param_number(name, f"cuts[{j}]", c) for c in level})
        if out:
            below = set(out[-1])
            extra = [c for c in points if c not in below]
            if extra:
                raise ConfigError(
                    f"attribute {name!r}: cuts[{j}] has cut point {_fmt(extra[0])} that cuts[{j - 1}] lacks;"
                    " each level's cut points must be a subset of the level below's so it coarsens it"
                )
        out.append(points)
    return out


# ---------------------------------------------------------------------------- masking
def masking_hierarchy(
    name: str,
    values: Iterable[str],
    *,
    mask_char: str = "*",
    levels: int | None = None,
    root: str = "*",
) -> Hierarchy:
    """Mask characters from the right, one more per level (``47911 -> 4791* -> 479**``).

    Parameters
    ----------
    name : str
        Attribute name (for messages).
    values : iterable of str
        Distinct values (codes such as ZIP codes), kept in the given order.
    mask_char : str
        The single character that replaces masked characters.
    levels : int, optional
        Number of masking levels, ``0 <= levels <= longest length``.  Default:
        the length of the longest value, so the last masking level masks every
        character.  The root level comes on top.
    root : str
        Label of the root level.

    Returns
    -------
    Hierarchy

    Raises
    ------
    HierarchyError
        No values.
    ConfigError
        ``mask_char`` not a single character; ``levels`` not an integer in
        range.

    Notes
    -----
    At level ``j`` a value of length ``L`` has its last ``min(j, L)``
    characters masked: a value shorter than the longest is fully masked from
    level ``L`` on (``"12"`` stays ``"**"``) and joins the others only at the
    root.  Since a label keeps the value's length and its unmasked prefix,
    two values that share a label at level ``j`` share it at every level
    above, so no node can get two parents.
    """
    leaves = _distinct(name, values)
    if not isinstance(mask_char, str) or len(mask_char) != 1:
        raise ConfigError(
            f"attribute {name!r}: mask_char {mask_char!r} must be a single character; use e.g. '*' or 'X'"
        )
    longest = max(len(v) for v in leaves)
    if levels is None:
        n = longest
    else:
        if not _is_int(levels) or not 0 <= int(levels) <= longest:
            raise ConfigError(
                f"attribute {name!r}: masking levels = {levels!r} must be a whole number from 0 to {longest}"
                " (the longest value's length); omit it to mask every character"
            )
        n = int(levels)
    columns = [leaves]
    for j in range(1, n + 1):
        columns.append([v[: len(v) - min(j, len(v))] + mask_char * min(j, len(v)) for v in leaves])
    given = _describe(mask_char=mask_char if mask_char != "*" else None, levels=levels)
    return _assemble(name, columns, root, f"masking({given})")


# ---------------------------------------------------------------------------- ordered grouping
def ordered_grouping_hierarchy(
    name: str,
    values: Iterable[str],
    *,
    fanouts: Sequence[int],
    root: str = "*",
) -> Hierarchy:
    """Group consecutive values of an ordered domain, ``fanouts[j]`` groups at a time.

    Parameters
    ----------
    name : str
        Attribute name (for messages).
    values : iterable of str
        The domain in its order (e.g. ``["none", "primary", "secondary",
        "bachelor", "master", "phd"]``).
    fanouts : sequence of int
        ``fanouts[0]`` consecutive leaves form a level-1 group,
        ``fanouts[1]`` consecutive level-1 groups form a level-2 group, and so
        on; the last group of a level may be smaller.
    root : str
        Label of the root level.

    Returns
    -------
    Hierarchy
        A group is labelled ``"first..last"`` after the leaves it covers; a
        group of a single leaf keeps the leaf's label.  A level with a single
        group (it equals the root) is left out.  Use :func:`build_hierarchy`
        to have the values sorted naturally first.

    Raises
    ------
    HierarchyError
        No values, or two groups of one level whose labels coincide (values
        that themselves contain ``".."``).
    ConfigError
        ``fanouts`` empty or not positive whole numbers.
    """
    leaves = _distinct(name, values)
    if isinstance(fanouts, (str, bytes)) or not isinstance(fanouts, Sequence) or not fanouts:
        raise ConfigError(
            f"attribute {name!r}: `fanouts` must be a non-empty list of group sizes, one per level"
            f" (e.g. [2, 3]); got {fanouts!r}"
        )
    for j, f in enumerate(fanouts):
        if not _is_int(f) or int(f) < 1:
            raise ConfigError(
                f"attribute {name!r}: fanouts[{j}] = {f!r} is not a positive whole number; give group sizes >= 1"
            )
    n = len(leaves)
    index = np.arange(n)
    columns: list[list[str]] = [leaves]
    span = 1
    for j, f in enumerate(fanouts):
        span *= int(f)
        group = index // span
        first = group * span
        last = np.minimum(first + span, n) - 1
        labels = [leaves[a] if a == b else f"{leaves[a]}..{leaves[b]}" for a, b in zip(first, last, strict=True)]
        by_label: dict[str, int] = {}
        for g, lab in zip(group, labels, strict=True):
            if by_label.setdefault(lab, int(g)) != g:
                raise HierarchyError(
                    f"attribute {name!r}: two groups at level {j + 1} are both labelled {lab!r}"
                    " (values containing '..' are ambiguous); rename the values or use a hierarchy file"
                )
        columns.append(labels)
    fan = [int(f) for f in fanouts]
    return _assemble(name, columns, root, f"ordered(fanouts={fan})")


# ---------------------------------------------------------------------------- dates
def date_hierarchy(
    name: str,
    values: Iterable[str],
    *,
    levels: Sequence[str] = ("month", "year", "decade"),
    format: str | None = None,
    root: str = "*",
) -> Hierarchy:
    """Generalize dates into months, years, decades or centuries.

    Parameters
    ----------
    name : str
        Attribute name (for messages).
    values : iterable of str
        Distinct date strings as written; leaves are ordered by date (ties
        keep the given order).
    levels : sequence of str
        An increasing subsequence of ``("month", "year", "decade",
        "century")``.
    format : str, optional
        Passed to :func:`pandas.to_datetime` (a strftime pattern such as
        ``"%d/%m/%Y"``, or ``"ISO8601"`` / ``"mixed"``).  Default: inferred
        from the first value.
    root : str
        Label of the root level.

    Returns
    -------
    Hierarchy
        Labels: month ``"2021-03"``, year ``"2021"``, decade ``"2020s"``,
        century ``"2000-2099"``.

    Raises
    ------
    HierarchyError
        No values, or a value pandas cannot parse as a date (the message
        names it and suggests ``format:``).
    ConfigError
        Unknown, repeated or out-of-order levels.
    """
    leaves = _distinct(name, values)
    if isinstance(levels, str) or not isinstance(levels, Sequence) or not levels:
        raise ConfigError(
            f"attribute {name!r}: date `levels` must be a non-empty list drawn from"
            f" {' | '.join(DATE_LEVELS)}; got {levels!r}"
        )
    rank = []
    for lev in levels:
        if lev not in DATE_LEVELS:
            raise ConfigError(
                f"attribute {name!r}: unknown date level {lev!r}; use levels from {' | '.join(DATE_LEVELS)}"
            )
        rank.append(DATE_LEVELS.index(lev))
    if any(b <= a for a, b in itertools.pairwise(rank)):
        raise ConfigError(
            f"attribute {name!r}: date levels {list(levels)!r} must go from fine to coarse without repeats"
            f" (in the order {', '.join(DATE_LEVELS)})"
        )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            import pandas as pd  # only dates need it; imported here so a config check loads no pandas

            parsed = pd.to_datetime(pd.Series(leaves, dtype=object), format=format, errors="coerce")
    except (ValueError, TypeError) as exc:
        raise ConfigError(
            f"attribute {name!r}: date format {format!r} is not usable ({exc}); fix `format:`"
        ) from None
    bad = np.flatnonzero(parsed.isna().to_numpy())
    if len(bad):
        how = (
            f"with format {format!r}"
            if format is not None
            else "with the format inferred from the first value"
        )
        raise HierarchyError(
            f"attribute {name!r}: value {leaves[int(bad[0])]!r} is not a date pandas can read {how}"
            " (or is outside 1677-2262); fix the value or give `format:` (e.g. '%d/%m/%Y', 'ISO8601' or 'mixed')"
        )
    order = np.lexsort((np.array(leaves, dtype=str), parsed.to_numpy()))
    years = parsed.dt.year.to_numpy()[order]
    months = parsed.dt.month.to_numpy()[order]
    ordered = [leaves[i] for i in order]
    columns: list[list[str]] = [ordered]
    for lev in levels:
        if lev == "month":
            columns.append([f"{y}-{m:02d}" for y, m in zip(years, months, strict=True)])
        elif lev == "year":
            columns.append([str(y) for y in years])
        elif lev == "decade":
            columns.append([f"{y // 10 * 10}s" for y in years])
        else:
            columns.append([f"{y // 100 * 100}-{y // 100 * 100 + 99}" for y in years])
    given = _describe(levels=list(levels), format=format)
    return dataclasses.replace(_assemble(name, columns, root, f"dates({given})"), date_format=format)


# ---------------------------------------------------------------------------- flat
def flat_hierarchy(name: str, values: Iterable[str], *, root: str = "*") -> Hierarchy:
    """Every value straight to ``root`` (two levels).

    Parameters
    ----------
    name : str
        Attribute name (for messages).
    values : iterable of str
        Distinct values, kept in the given order.
    root : str
        Label of the root level.

    Returns
    -------
    Hierarchy
    """
    leaves = _distinct(name, values)
    return Hierarchy.flat(name, leaves, root=str(root))


# ---------------------------------------------------------------------------- dispatch
_KEYS: dict[str, tuple[str, ...]] = {
    "intervals": ("widths", "cuts", "start", "bottom", "top", "root"),
    "masking": ("mask_char", "levels", "root"),
    "ordered": ("fanouts", "order", "root"),
    "dates": ("levels", "format", "root"),
    "flat": ("root",),
}


def build_hierarchy(name: str, spec: Mapping[str, Any], values: Iterable[str],
                    order: Sequence[str] | None = None) -> Hierarchy:
    """Build a hierarchy from a configuration mapping.

    This is the one function that turns the builder form of a hierarchy into
    a :class:`~anonset.core.hierarchy.Hierarchy`, for a configuration file
    and for the Python API alike.  The values are first sorted naturally
    (:func:`natural_sorted`: numbers by value, digit runs inside text by
    value), so the result depends on the set of values only, never on the
    order in which rows or value counts arrive.

    Parameters
    ----------
    name : str
        Attribute name.
    spec : mapping
        ``{"builder": <name>, ...parameters}``, for example
        ``{"builder": "intervals", "widths": [5, 10, 20]}``,
        ``{"builder": "masking"}``,
        ``{"builder": "ordered", "fanouts": [2, 2], "order": [...]}``,
        ``{"builder": "dates", "levels": ["month", "year"], "format": "%Y-%m-%d"}``
        or ``{"builder": "flat"}``.  The parameters are those of the
        matching function; ``ordered`` takes the domain from ``order`` when
        given (every value must appear in it), else the values in natural
        order.
    values : iterable of str
        The column's distinct values as written (leave out missing-value
        markers: the dataset adds those itself).
    order : sequence of str, optional
        The attribute's own ``order`` (its values in order); the ``ordered``
        builder uses it when ``spec`` has no ``order`` of its own.

    Returns
    -------
    Hierarchy

    Raises
    ------
    ConfigError
        Not a mapping, unknown or missing builder, unknown or missing key,
        a bad parameter, or two different orders.
    HierarchyError
        Values the builder cannot place.
    """
    builder, params = check_builder_spec(name, spec)
    leaves = natural_sorted(_distinct(name, values))
    if builder == "intervals":
        return interval_hierarchy(name, leaves, **params)
    if builder == "masking":
        return masking_hierarchy(name, leaves, **params)
    if builder == "ordered":
        domain = _ordered_domain(name, leaves, params.pop("order", None), order)
        return ordered_grouping_hierarchy(name, domain, **params)
    if builder == "dates":
        if "levels" in params and isinstance(params["levels"], list):
            params["levels"] = tuple(params["levels"])
        return date_hierarchy(name, leaves, **params)
    return flat_hierarchy(name, leaves, **params)


def check_builder_spec(name: str, spec: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The builder's name and its parameters, checked against the keys the builder accepts.

    Raises
    ------
    ConfigError
        Not a mapping, no or an unknown ``builder``, an unknown key, or
        ``ordered`` without ``fanouts``.
    """
    choices = " | ".join(BUILDERS)
    if not isinstance(spec, Mapping):
        raise ConfigError(
            f"attribute {name!r}: a hierarchy spec must be a mapping such as"
            f" {{builder: intervals, widths: [5, 10, 20]}}; got {spec!r}"
        )
    if "builder" not in spec:
        raise ConfigError(
            f"attribute {name!r}: hierarchy spec has no `builder`; use one of {choices}"
        )
    builder = spec["builder"]
    if builder not in _KEYS:
        raise ConfigError(
            f"attribute {name!r}: unknown hierarchy builder {builder!r}; use one of {choices}"
        )
    params = {str(k): v for k, v in spec.items() if k != "builder"}
    allowed = _KEYS[builder]
    for key in params:
        if key not in allowed:
            raise ConfigError(
                f"attribute {name!r}: unknown key {key!r} for the {builder} hierarchy builder;"
                f" use {' | '.join(allowed)}"
            )
    if builder == "ordered" and "fanouts" not in params:
        raise ConfigError(
            f"attribute {name!r}: the ordered hierarchy builder needs `fanouts` (group sizes per level,"
            " e.g. [2, 2])"
        )
    return str(builder), params


def _ordered_domain(name: str, values: list[str], spec_order: Any,
                    attribute_order: Sequence[str] | None) -> list[str]:
    """The domain of the ordered builder: its ``order``, else the attribute's, else ``values`` as given."""
    if spec_order is not None and (isinstance(spec_order, (str, bytes)) or not isinstance(spec_order, Iterable)):
        raise ConfigError(f"attribute {name!r}: `order` must be a list of values; got {spec_order!r}")
    given = [str(v) for v in spec_order] if spec_order is not None else None
    own = [str(v) for v in attribute_order] if attribute_order else None
    if given is not None and own is not None and given != own:
        raise ConfigError(
            f"attribute {name!r}: the attribute's `order` and the ordered builder's `order` differ;"
            " give the order once (on the attribute)"
        )
    domain = given if given is not None else own
    if domain is None:
        return values
    known = set(domain)
    missing = [v for v in values if v not in known]
    if missing:
        raise ConfigError(
            f"attribute {name!r}: value {missing[0]!r} is not in `order`; list every value of the column"
        )
    return domain


# ---------------------------------------------------------------------------- helpers
def natural_sorted(values: Iterable[str]) -> list[str]:
    """The distinct values in natural order: numbers by value, else text with digit runs compared as numbers.

    When every value is a finite number (``"9"``, ``"10"``, ``"-1.5"``) they
    are sorted by value; otherwise by text, case-insensitively, with each run
    of digits compared as a number (``"A9" < "A10"``).  Ties (``"10"`` and
    ``"10.0"``, ``"a"`` and ``"A"``) are broken by the exact text, so the
    result depends on the set of values only.
    """
    distinct = list(dict.fromkeys(str(v) for v in values))
    numbers_ = [_finite_number(v) for v in distinct]
    if all(x is not None for x in numbers_):
        return [v for _, v in sorted(zip(numbers_, distinct, strict=True))]
    return sorted(distinct, key=_natural_key)


_DIGITS = re.compile(r"(\d+)")


def _natural_key(value: str) -> tuple[tuple[str | int, ...], str]:
    parts = _DIGITS.split(value.casefold())
    return tuple(int(p) if i % 2 else p for i, p in enumerate(parts)), value


def _finite_number(value: str) -> float | None:
    try:
        x = float(value)
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def _assemble(name: str, columns: list[list[str]], root: Any, source: str) -> Hierarchy:
    """The hierarchy of ``columns`` (leaves first) under ``root``; a level of a single group is dropped.

    Such a level already covers every value below the root, so it tells the
    reader nothing the root does not, while metrics would count it as less
    general than the root.
    """
    kept = [columns[0]] + [col for col in columns[1:] if len(set(col)) > 1]
    kept.append([str(root)] * len(columns[0]))
    return Hierarchy.from_rows(name, [list(row) for row in zip(*kept, strict=True)], source=source)


def _distinct(name: str, values: Iterable[str]) -> list[str]:
    """The values as strings, first occurrences only, in the given order."""
    if isinstance(values, (str, bytes)):
        raise ConfigError(
            f"attribute {name!r}: give the values as a list of strings, not one string {values!r}"
        )
    out = list(dict.fromkeys(str(v) for v in values))
    if not out:
        raise HierarchyError(
            f"attribute {name!r}: no values to build a hierarchy from; the column is empty"
        )
    return out


def _leaf_number(name: str, value: str) -> Fraction:
    """Exact numeric value of a leaf string; HierarchyError when it is not a finite number."""
    try:
        f = float(value)
    except ValueError:
        f = math.nan
    if not math.isfinite(f):
        raise HierarchyError(
            f"attribute {name!r}: value {value!r} is not a finite number, but the intervals builder needs numbers;"
            " fix the value, declare it a missing marker, or use another builder (masking, flat)"
        )
    try:
        return Fraction(value.strip().replace("_", ""))
    except ValueError:
        return Fraction(repr(f))


def _param_number(name: str, param: str, value: Any) -> Fraction:
    """Exact value of a numeric parameter (int, float, decimal string); ConfigError otherwise."""
    if isinstance(value, bool):
        raise ConfigError(f"attribute {name!r}: {param} = {value!r} is not a number; give a number")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, numbers.Integral):
        return Fraction(int(value))
    if isinstance(value, Decimal) and value.is_finite():
        return Fraction(value)
    if isinstance(value, numbers.Real) and math.isfinite(float(value)):
        return Fraction(repr(float(value)))
    if isinstance(value, str):
        try:
            if math.isfinite(float(value)):
                return Fraction(value.strip().replace("_", ""))
        except ValueError:
            pass
    raise ConfigError(
        f"attribute {name!r}: {param} = {value!r} is not a finite number; give a number"
    )


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _fmt(x: Fraction | None) -> str:
    """A number for a label: ``30`` not ``30.0``; exact decimals (``0.3``) otherwise."""
    assert x is not None
    if x.denominator == 1:
        return str(x.numerator)
    d = x.denominator
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    if d != 1:  # not a terminating decimal
        return repr(float(x))
    with localcontext() as ctx:
        ctx.prec = 60
        text = format((Decimal(x.numerator) / Decimal(x.denominator)).normalize(), "f")
    return text


def _describe(**params: Any) -> str:
    """``"widths=[5, 10], bottom=18"`` from the parameters that were given."""
    return ", ".join(f"{k}={v!r}" for k, v in params.items() if v is not None)
