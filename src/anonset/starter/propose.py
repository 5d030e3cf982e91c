"""What the starter config proposes for each column: its role, type and hierarchy, and a lattice that fits.

What is proposed for one column: :class:`Proposal`, its attributes entry and its hierarchy's levels.

The hierarchy builder proposed for a quasi-identifier, and its parameters, by the column's type.

Numbers get ``intervals`` with round widths from a few dozen bands down to a
handful (:func:`interval_spec`), dates ``dates`` (month, year, decade, in the
format the values were found in), codes ``masking`` (up to the level that
leaves about :data:`FEW_GROUPS` groups) and categories ``flat``: the
``ordered`` builder would group them in alphabetical order, which mixes
unrelated values; meaningful groups need a hierarchy file or an ``order``,
which only the user knows.

The role proposed for each column, from its profile and its name.

Roles are proposals, and the comments say so.  A column whose values are
nearly unique per record (at least
:data:`~anonset.starter.profile.NEARLY_UNIQUE` of the records that
hold a value) or whose name says it is a direct identifier (``id``,
``name``, ``email``, ``phone``, ...) is an ``identifier`` (dropped), with a
warning, except a numeric or date column whose name says nothing of the sort:
it stays a quasi-identifier, generalized.  A column named like a sensitive
attribute (``diagnosis``, ``disease``, ``income``, ``salary``, ...) is
``sensitive``, unless it is a date or its name also names a classic
quasi-identifier (``diagnosis_date``, ``age_at_diagnosis``: an attacker may
know those); a column with one value (or none) is ``insensitive``, released
as it is, unless that value is *rare*: held by fewer than k records (k as
proposed, :func:`~anonset.starter.profile.proposed_k`), it could
single a person out (a remark written once: "John Smith, VIP, HIV+"), so the
column is an ``identifier``, with a warning that says how to release it
anyway.  A column whose values anonset cannot read as values (a list, a
struct, bytes: kind ``other``) is an ``identifier`` too.  Every other column
is a ``quasi``-identifier, with the hierarchy of
:func:`~anonset.starter.propose.quasi_proposal`.  The words looked for
are in :mod:`anonset.starter.profile`.

The quasi-identifiers' lattice kept small enough for the ``optimal`` search.

Its size, the number of candidate generalizations, is the product of the
hierarchies' heights.  When it would be larger than :data:`LATTICE_BUDGET`,
:func:`fit_lattice` takes levels out; when even one level per hierarchy is
too many, it says so (the starter config then uses ``mondrian``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from anonset.starter.profile import (
    IDENTIFIER_NAMES,
    IDENTIFIER_WORDS,
    QUASI_WORDS,
    SENSITIVE_WORDS,
    ColumnProfile,
    format_number,
    name_words,
    proposed_k,
    squashed_name,
)

__all__ = [
    "FEW_BANDS",
    "FEW_GROUPS",
    "FINE_BANDS",
    "LATTICE_BUDGET",
    "MAX_LEVELS",
    "MAX_MASKED",
    "Proposal",
    "fit_lattice",
    "interval_spec",
    "lattice_size",
    "propose",
    "quasi_proposal",
]


@dataclass(frozen=True)
class Proposal:
    """The role, type and hierarchy proposed for one column, and the comment lines that explain them."""

    profile: ColumnProfile
    role: str
    type: str | None = None
    hierarchy: dict[str, Any] | None = None
    missing: tuple[str, ...] | None = None
    notes: tuple[str, ...] = ()
    warning: str | None = None
    groups: tuple[int, ...] = ()   # intervals: bands per level; masking: groups per level

    @property
    def shape(self) -> str | None:
        """A sentence on the hierarchy's levels (None without a multi-level builder)."""
        h = self.hierarchy or {}
        if h.get("builder") == "intervals":
            widths = ", ".join(format_number(w) for w in h["widths"])
            bands = ", ".join(str(b) for b in self.groups)
            return f"Intervals {widths} wide (about {bands} bands), then *."
        if h.get("builder") == "dates":
            return f"Dates generalized to {', '.join(h['levels'])}, then * (format {h['format']})."
        if h.get("builder") == "masking":
            length = self.profile.code_length or 0
            example = self.profile.example or "x" * length
            masked = [example[: length - j] + "*" * j for j in range(1, h["levels"] + 1)]
            return (f"A code of {length} characters, masked from the right: {example} -> {' -> '.join(masked)}"
                    f" -> * ({self.groups[h['levels'] - 1]:,} groups at the coarsest level).")
        return None

    @property
    def entry(self) -> dict[str, Any]:
        """The column's mapping in ``attributes``."""
        out: dict[str, Any] = {"role": self.role}
        if self.type is not None:
            out["type"] = self.type
        if self.missing is not None:
            out["missing"] = list(self.missing)
        if self.hierarchy is not None:
            out["hierarchy"] = self.hierarchy
        return out

    @property
    def levels(self) -> int:
        """Levels of its hierarchy between the values and ``*`` (quasi-identifiers; 0 for flat)."""
        h = self.hierarchy or {}
        if h.get("builder") == "intervals":
            return len(h["widths"])
        if h.get("builder") in ("masking", "dates"):
            value = h.get("levels", 0)
            return value if isinstance(value, int) else len(value)
        return 0


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


def propose(profiles: Sequence[ColumnProfile]) -> list[Proposal]:
    """One proposal per profile: see the module docstring for the rules."""
    return [_propose(p) for p in profiles]


def _propose(p: ColumnProfile) -> Proposal:
    words, squashed = name_words(p.name), squashed_name(p.name)
    markers = ("", *p.markers) if p.markers else None
    if p.kind == "empty":
        return Proposal(p, "insensitive", notes=("Every value is missing: released as it is (nothing to protect).",))
    if p.kind == "other":
        return Proposal(p, "identifier", notes=(
            f"Its values are {p.arrow_type}, which anonset cannot generalize or check, so it is removed from the"
            " release. To release it, turn it into columns of text or numbers first (or declare it insensitive to"
            " release it as it is, knowingly).",))
    named_identifier = squashed in IDENTIFIER_NAMES or bool(words & IDENTIFIER_WORDS)
    if named_identifier:
        why = "its name says it identifies a person or a record"
        if p.nearly_unique:
            why += f", and it is nearly unique per row ({p.unique_share:.0%} of the records with a value)"
        return Proposal(p, "identifier", warning=f"{why}: it would single out people if released.",
                        notes=("Removed from the release.",))
    mentions = sorted(words & SENSITIVE_WORDS)
    # a date (of a diagnosis) or an age (at diagnosis) is what an attacker may know, whatever it is about
    sensitive = bool(mentions) and p.kind != "date" and not words & QUASI_WORDS
    if p.nearly_unique and p.kind not in ("numeric", "date"):
        return Proposal(p, "identifier", warning=f"nearly unique per row ({p.unique_share:.0%} of the records"
                        " with a value hold a value of their own, like names, record numbers or free text): it"
                        " would single out people if released.",
                        notes=("Removed from the release." + (
                            " If it is a code that an attacker could know (a postcode), make it quasi with a"
                            " hierarchy instead." if p.kind == "code" else ""),))
    if p.kind == "constant":
        rare = p.rare_values(proposed_k(p.rows))
        if rare:
            return _rare(p, rare)
        return Proposal(p, "insensitive", notes=("One value in every record (or missing): it cannot tell people"
                                                 " apart; released as it is.",))
    unique_warning = (f"nearly unique per row ({p.unique_share:.0%} of the records with a value hold a value of"
                      " their own): released only generalized.") if p.nearly_unique else None
    if sensitive:
        notes = ["Sensitive, by its name: an attacker must not learn it. It is released as it is; protect it with"
                 " l-diversity or t-closeness (privacy, below). If an attacker may already know it, make it quasi."]
        return Proposal(p, "sensitive", type="numeric" if p.kind == "numeric" else None, missing=markers,
                        notes=tuple(notes))
    review: tuple[str, ...] = () if words & QUASI_WORDS or p.kind == "date" else (
        "Review: quasi, because an attacker may know it. If it must not be learned, make it sensitive; if nobody"
        " could link it to a person, insensitive.",)
    if mentions:
        known = "it is a date" if p.kind == "date" else f"also {' and '.join(sorted(words & QUASI_WORDS))}"
        review = (f"Its name mentions {' and '.join(mentions)}, but {known}, which an attacker may know: quasi."
                  " If it must not be learned, make it sensitive.",)
    return quasi_proposal(p, markers, review, unique_warning)


def _rare(p: ColumnProfile, rare: int) -> Proposal:
    """The proposal for a column that would be released as it is but holds ``rare`` values fewer than k records hold."""
    k = proposed_k(p.rows)
    values = "1 non-empty value" if rare == 1 else f"{rare:,} non-empty values"
    each = "" if rare == 1 else " each"
    return Proposal(p, "identifier", warning=f"{values} held by fewer than {k} records{each}: a value this rare can"
                    " single a person out; dropped.",
                    notes=("If it must be released, make it quasi (generalized) or insensitive (released as it is,"
                           " knowingly).",))


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
