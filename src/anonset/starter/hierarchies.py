"""The hierarchy builder proposed for a quasi-identifier, and its parameters, by the column's type.

Numbers get ``intervals`` with round widths from a few dozen bands down to a
handful (:func:`interval_spec`), dates ``dates`` (month, year, decade, in the
format the values were found in), codes ``masking`` (up to the level that
leaves about :data:`FEW_GROUPS` groups) and categories ``flat``: the
``ordered`` builder would group them in alphabetical order, which mixes
unrelated values; meaningful groups need a hierarchy file or an ``order``,
which only the user knows.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from anonset.starter.column_profile import ColumnProfile
from anonset.starter.number_format import format_number
from anonset.starter.proposal import Proposal

__all__ = ["FEW_BANDS", "FEW_GROUPS", "FINE_BANDS", "MAX_LEVELS", "MAX_MASKED", "interval_spec", "quasi_proposal"]

#: Bands wanted at the finest interval level (about), and at most this many at the coarsest.
FINE_BANDS = 30
FEW_BANDS = 5
#: At most this many levels between the values and ``*`` for intervals and masking.
MAX_LEVELS = 3
#: A masking level is coarse enough when it leaves at most this many groups.
FEW_GROUPS = 10
#: At most this many masked characters.
MAX_MASKED = 4


def quasi_proposal(p: ColumnProfile, markers: tuple[str, ...] | None, review: tuple[str, ...],
                   warning: str | None) -> Proposal:
    """The ``quasi`` proposal for a numeric, date, code or categorical column: its builder and parameters.

    ``markers`` are the missing markers to declare (None: none), ``review``
    the notes on the role and ``warning`` the one on near-uniqueness (only
    numbers and dates carry it: other nearly unique columns are identifiers).
    """
    if p.kind == "numeric":
        return _numeric_quasi(p, markers, review, warning)
    if p.kind == "date":
        fmt = p.date_format or "ISO8601"
        notes = []
        if p.date_ambiguous:
            other = {"%d/%m/%Y": "%m/%d/%Y", "%d-%m-%Y": "%m-%d-%Y"}.get(fmt, fmt)
            notes.append(f"Ambiguous: the values read as day-first ({fmt}) and as month-first ({other});"
                         f" if they are month-first, set format: '{other}'.")
        return Proposal(p, "quasi", type="date", missing=markers, warning=warning,
                        hierarchy={"builder": "dates", "levels": ["month", "year", "decade"], "format": fmt},
                        notes=(*notes, *review))
    if p.kind == "code":
        return _code_quasi(p, markers, review)
    notes = []
    if p.distinct > 100:
        notes.append(f"{p.distinct:,} values: a flat hierarchy can only keep them or hide them all; a hierarchy file"
                     " with groups keeps more.")
    return Proposal(p, "quasi", hierarchy={"builder": "flat"}, notes=(*notes, *review))


def _numeric_quasi(p: ColumnProfile, markers: tuple[str, ...] | None, review: tuple[str, ...],
                   warning: str | None) -> Proposal:
    if p.distinct <= 2:
        return Proposal(p, "quasi", type="numeric", missing=markers, hierarchy={"builder": "flat"}, warning=warning,
                        notes=("Only two values: released or replaced by *.", *review))
    assert p.numbers is not None
    hierarchy, bands, coded = interval_spec(p.numbers, p.integral)
    notes = [coded] if coded else []
    return Proposal(p, "quasi", type="numeric", missing=markers, hierarchy=hierarchy, warning=warning,
                    notes=(*notes, *review), groups=tuple(bands))


def _code_quasi(p: ColumnProfile, markers: tuple[str, ...] | None, review: tuple[str, ...]) -> Proposal:
    assert p.code_length is not None
    groups = p.prefix_groups
    if not groups or groups[-1] >= p.distinct:
        return Proposal(p, "quasi", missing=markers, hierarchy={"builder": "flat"},
                        notes=(f"A code of {p.code_length} characters whose values differ in the first one already:"
                               " masking would group nothing, so flat.", *review))
    levels = min(next((j for j, g in enumerate(groups, start=1) if g <= FEW_GROUPS), len(groups)), MAX_MASKED)
    return Proposal(p, "quasi", missing=markers, hierarchy={"builder": "masking", "levels": levels},
                    notes=review, groups=groups)


def interval_spec(numbers: tuple[float, float, float, float],
                  integral: bool) -> tuple[dict[str, Any], list[int], str | None]:
    """An ``intervals`` builder mapping for values spanning ``numbers`` (min, 0.5%, 99.5%, max).

    The finest width is the smallest round number (1, 2 or 5 times a power of
    ten) that cuts the range into at most :data:`FINE_BANDS` bands (at least 2
    for whole numbers); each next width is the next round multiple (x2, x5, x2,
    ...), until at most :data:`FEW_BANDS` bands remain or there are
    :data:`MAX_LEVELS` levels.  When the extreme 1% of the records stretch
    the range more than threefold, the widths follow the other 99% and the
    extremes are bottom- and top-coded.  Returns the mapping, the bands per
    level and a sentence on the coding (or None).
    """
    low, p_low, p_high, high = numbers
    span_low, span_high, coded = low, high, False
    if p_high > p_low and high - low > 3 * (p_high - p_low):
        span_low, span_high, coded = p_low, p_high, True
    width, mantissa = _round_at_least(Fraction(span_high - span_low) / FINE_BANDS if span_high > span_low
                                      else Fraction(1))
    if integral and width < 2:
        width, mantissa = Fraction(2), 2
    widths = [width]
    while _bands(span_low, span_high, widths[-1]) > FEW_BANDS and len(widths) < MAX_LEVELS:
        width, mantissa = (width * 2, 2) if mantissa == 1 else (width * 5, 1) if mantissa == 2 else (width * 2, 1)
        widths.append(width)
    spec: dict[str, Any] = {"builder": "intervals", "widths": [_plain(w) for w in widths]}
    sentence = None
    if coded:
        coarse = widths[-1]
        bottom = Fraction(math.floor(Fraction(span_low) / coarse)) * coarse
        top = Fraction(math.ceil(Fraction(span_high) / coarse)) * coarse
        parts = []
        if Fraction(low) < bottom:
            spec["bottom"] = _plain(bottom)
            parts.append(f"below {format_number(bottom)} one group <{format_number(bottom)}")
        if Fraction(high) >= top:
            spec["top"] = _plain(top)
            parts.append(f"from {format_number(top)} up one group >={format_number(top)}")
        if parts:
            sentence = (f"A few extreme values would stretch the bands: values {' and '.join(parts)}"
                        " (bottom and top coding).")
    return spec, [_bands(span_low, span_high, w) for w in widths], sentence


def _round_at_least(x: Fraction) -> tuple[Fraction, int]:
    """The smallest 1, 2 or 5 times a power of ten that is at least ``x`` (> 0), and that 1, 2 or 5."""
    exponent = math.floor(math.log10(float(x))) if x > 0 else 0
    for e in (exponent - 1, exponent, exponent + 1):
        for m in (1, 2, 5):
            value = m * Fraction(10) ** e
            if value >= x:
                return value, m
    return Fraction(10) ** (exponent + 2), 1


def _bands(low: float, high: float, width: Fraction) -> int:
    return int(math.floor(Fraction(high) / width) - math.floor(Fraction(low) / width)) + 1


def _plain(x: Fraction) -> int | float:
    """A width for YAML: an int when whole, else the float of the decimal (exact for 1, 2, 5 x 10^-n)."""
    return int(x) if x.denominator == 1 else float(format_number(x))
