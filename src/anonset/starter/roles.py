"""The role proposed for each column, from its profile and its name.

Roles are proposals, and the comments say so.  A column whose values are
nearly unique per record (at least
:data:`~anonset.starter.column_profile.NEARLY_UNIQUE` of the records that
hold a value) or whose name says it is a direct identifier (``id``,
``name``, ``email``, ``phone``, ...) is an ``identifier`` (dropped), with a
warning, except a numeric or date column whose name says nothing of the sort:
it stays a quasi-identifier, generalized.  A column named like a sensitive
attribute (``diagnosis``, ``disease``, ``income``, ``salary``, ...) is
``sensitive``, unless it is a date or its name also names a classic
quasi-identifier (``diagnosis_date``, ``age_at_diagnosis``: an attacker may
know those); a column with one value (or none) is ``insensitive``, released
as it is, unless that value is *rare*: held by fewer than k records (k as
proposed, :func:`~anonset.starter.column_profile.proposed_k`), it could
single a person out (a remark written once: "John Smith, VIP, HIV+"), so the
column is an ``identifier``, with a warning that says how to release it
anyway.  A column whose values anonset cannot read as values (a list, a
struct, bytes: kind ``other``) is an ``identifier`` too.  Every other column
is a ``quasi``-identifier, with the hierarchy of
:func:`~anonset.starter.hierarchies.quasi_proposal`.  The words looked for
are in :mod:`anonset.starter.names`.
"""

from __future__ import annotations

from collections.abc import Sequence

from anonset.starter.column_profile import ColumnProfile, proposed_k
from anonset.starter.hierarchies import quasi_proposal
from anonset.starter.names import (
    IDENTIFIER_NAMES,
    IDENTIFIER_WORDS,
    QUASI_WORDS,
    SENSITIVE_WORDS,
    name_words,
    squashed_name,
)
from anonset.starter.proposal import Proposal

__all__ = ["propose"]


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
