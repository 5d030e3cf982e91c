"""Independent re-check of a release: classes recomputed from the released values themselves.

Nothing here uses a method's bookkeeping (its partition, codes or engine):
the released quasi-identifier strings are grouped afresh, the sensitive
values are read from the released table, and every privacy model judges the
classes so obtained.  Records whose quasi-identifiers are all ``*`` are the
suppressed records when other records are released with values and they (plus
any records missing from the release) fit the suppression budget; otherwise
they are a class of their own and must satisfy the models.

The suppressed records are released as one group, so when any of their
sensitive values is released (not ``*``), that group must satisfy every model
too, judged on the values it shows (see :mod:`anonset.recheck.suppressed`):
whoever learns that a person was suppressed links them to it.  A model
judged against a population table has the population records matching
each class counted from the released labels and the hierarchies
(:mod:`anonset.recheck.population`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from anonset.core.dataset import AttributeType, Dataset
from anonset.core.hierarchy import Hierarchy
from anonset.core.memory import give_back_freed_memory
from anonset.core.stats import ClassStats
from anonset.privacy.base import Requirements
from anonset.privacy.population import PopulationModel
from anonset.recheck.columns import SUPPRESSED, text_codes
from anonset.recheck.population import population_counts_of_labels
from anonset.risk.survey import key_frequencies

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["VerificationReport", "classes_of_table", "judge_released_classes", "matched_class_sizes",
           "require_verified", "stats_of_value_counts", "verify_release"]


@dataclass
class VerificationReport:
    """What the independent re-check found."""

    ok: bool
    classes: int
    min_class_size: int
    suppressed_rows: int
    violating_rows: int
    problems: list[str] = field(default_factory=list)
    #: Records whose quasi-identifiers are all ``*`` judged as a class of their own (not as suppressed).
    root_class_rows: int = 0
    #: Sizes of the released classes as the re-check grouped them (suppressed records left out).
    released_sizes: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64), compare=False)
    #: The models (as described) that some released class violates.
    violated: tuple[str, ...] = ()
    #: The models the suppressed records, released as one group with sensitive values, violate (empty: none).
    suppressed_disclosure: tuple[str, ...] = ()
    #: With blanks matching any value: per released class (as ``released_sizes``), the records it matches.
    released_matched: NDArray[np.int64] | None = field(default=None, compare=False)


def require_verified(report: VerificationReport, *, culprit: str = "anonset") -> None:
    """Raise RuntimeError when a release failed its re-check: a bug in ``culprit`` (anonset, or an outside method)."""
    if not report.ok:
        raise RuntimeError(f"independent verification of the release failed (this is a bug in {culprit}): "
                           + "; ".join(report.problems))


def classes_of_table(table: pd.DataFrame, quasi: tuple[str, ...]) -> NDArray[np.int64]:
    """Class index of every row, grouping on the released quasi-identifier strings.

    Classes are numbered in the order of their values, compared column by
    column as text.
    """
    return _grouped(table, quasi)[0].astype(np.int64, copy=False)


def _grouped(table: pd.DataFrame, quasi: tuple[str, ...]) -> tuple[NDArray[np.signedinteger[Any]], NDArray[np.bool_]]:
    """Class index of every row (see :func:`classes_of_table`; 4-byte while the classes fit), and whether its
    quasi-identifiers are all ``*``.

    The columns are folded into one key per row, one column at a time; when
    the keys could outgrow 64 bits they are first replaced by their ranks.
    """
    keys = np.zeros(len(table), dtype=np.int64)
    all_star = np.ones(len(table), dtype=np.bool_)
    space = 1
    for q in quasi:
        codes, texts = text_codes(table[q], "nan", sort=True)
        all_star &= (texts == SUPPRESSED)[codes]
        radix = max(len(texts), 1)
        if space * radix >= 2**62:
            keys = _ranks(*_factorized(keys)).astype(np.int64)  # folded into further, in place
            space = int(keys.max()) + 1 if len(keys) else 1
        keys *= radix  # in place: no second array of keys per column
        keys += codes
        del codes
        space *= radix
    if not quasi:
        return keys, all_star
    first, distinct = _factorized(keys)
    del keys  # given back before the ranks are built
    return _ranks(first, distinct), all_star


def _factorized(keys: NDArray[np.int64]) -> tuple[NDArray[np.int32], NDArray[np.int64]]:
    """Each key's index among the distinct keys in order of first appearance, and the distinct keys.

    Arrow's hash table (``dictionary_encode``) grows with the distinct keys
    and answers in 4-byte indices; ``pd.factorize`` sizes its table for
    every key (about 270 MB transient at ten million records).  Neither is
    the hash kernel the numpy engine groups the records with, so the
    re-check stays an independent path.
    """
    encoded = pc.dictionary_encode(pa.array(keys))
    return (encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32, copy=False),
            encoded.dictionary.to_numpy(zero_copy_only=False).astype(np.int64, copy=False))


def _ranks(first: NDArray[np.int32], distinct: NDArray[np.int64]) -> NDArray[np.signedinteger[Any]]:
    """Each key's rank among the distinct keys (``np.unique``'s inverse), from :func:`_factorized`'s answer: by
    hashing rather than sorting every key.  4-byte ranks while they fit."""
    order = np.argsort(distinct, kind="stable")
    wide = len(distinct) > np.iinfo(np.int32).max
    rank: NDArray[np.signedinteger[Any]] = np.empty(len(distinct), dtype=np.int64 if wide else np.int32)
    rank[order] = np.arange(len(distinct))
    return rank[first]


def verify_release(table: pd.DataFrame, dataset: Dataset, requirements: Requirements,
                   n_input_rows: int | None = None,
                   hierarchies: Mapping[str, Hierarchy | None] | None = None,
                   blanks_match_any: bool = False) -> VerificationReport:
    """Re-check a released table against the requirements.

    Parameters
    ----------
    table : pandas.DataFrame
        The released records (quasi-identifiers as released labels).
    dataset : Dataset
        The input the release was made from (gives attribute roles, the
        sensitive value domains and t-closeness's reference distribution).
    requirements : Requirements
        The models and the suppression budget.
    n_input_rows : int, optional
        Records in the input; records missing from ``table`` count as suppressed.
    hierarchies : mapping of str to Hierarchy, optional
        The hierarchies that say which population values a released label
        covers, for a model judged against a population table (default: the
        dataset's).
    blanks_match_any : bool
        A ``*`` is a blanked value that matches any value (local
        suppression): each class is judged by the records that agree with it
        wherever both show a value (:func:`matched_class_sizes`).
    """
    quasi = dataset.quasi
    n_in = dataset.n_rows if n_input_rows is None else n_input_rows
    row_class, all_star = _grouped(table, quasi)
    give_back_freed_memory()
    n_classes = int(row_class.max()) + 1 if len(row_class) else 0
    withheld = _withheld_cells(table, dataset, all_star)
    stats = _stats(table, dataset, requirements, row_class, n_classes, withheld,
                   {q: dataset.hierarchy(q) for q in quasi} if hierarchies is None else hierarchies)
    star = np.zeros(n_classes, dtype=np.bool_)
    star[np.unique(row_class[all_star])] = True
    shown = any(bool((all_star & ~w).any()) for w in withheld.values())
    matched = matched_class_sizes(table, quasi, row_class, stats.sizes) if blanks_match_any else None
    return judge_released_classes(stats, star, requirements, n_in, star_shows_sensitive=shown, matched=matched)


def matched_class_sizes(table: pd.DataFrame, quasi: tuple[str, ...], row_class: NDArray[np.signedinteger[Any]],
                        sizes: NDArray[np.int64]) -> NDArray[np.int64]:
    """Per released class: the records that agree with it wherever both show a value, a ``*`` matching any value.

    Counted as sdcMicro counts a key's frequency with missing values
    (:func:`anonset.risk.survey.key_frequencies`, alpha 1), over the classes'
    released texts.
    """
    n_classes = len(sizes)
    first = np.full(n_classes, -1, dtype=np.int64)
    first[row_class[::-1]] = np.arange(len(row_class) - 1, -1, -1)
    keys = np.zeros((n_classes, len(quasi)), dtype=np.int64)
    for j, q in enumerate(quasi):
        codes, texts = text_codes(table[q], "nan", sort=True)
        keys[:, j] = np.where(texts[codes[first]] == SUPPRESSED, -1, codes[first])
    fk = key_frequencies(keys, counts=sizes).fk
    return np.rint(fk).astype(np.int64)


def _withheld_cells(table: pd.DataFrame, dataset: Dataset, all_star: NDArray[np.bool_]) -> dict[str, NDArray[np.bool_]]:
    """Per sensitive column of the release: the withheld cells (``*`` where every quasi-identifier is ``*``)."""
    out: dict[str, NDArray[np.bool_]] = {}
    for a in dataset.sensitive:
        if a not in table.columns:
            continue
        codes, texts = text_codes(table[a], "nan")
        out[a] = all_star & (texts == SUPPRESSED)[codes] if len(texts) else np.zeros(len(table), dtype=np.bool_)
    return out


def judge_released_classes(stats: ClassStats, all_star: NDArray[np.bool_], requirements: Requirements,
                           n_input_rows: int, star_shows_sensitive: bool = True,
                           matched: NDArray[np.int64] | None = None) -> VerificationReport:
    """Judge the classes of a released table, already grouped on its released values.

    Shared by :func:`verify_release` (a pandas table) and the SQL release's
    check (classes grouped inside the database).  The group whose
    quasi-identifiers are all ``*`` holds the suppressed records when other
    records are released with values and the group (with any records missing
    from the release) fits the suppression budget; otherwise it is a class
    like any other (records generalized to the root of every hierarchy, or a
    partition's class whose values differ in every quasi-identifier), judged
    by the models.

    Parameters
    ----------
    stats : ClassStats
        One entry per group of identical released quasi-identifier values,
        with the sensitive statistics the requirements ask for; its sizes sum
        to the released records.
    all_star : numpy.ndarray
        Bool per class: the group whose quasi-identifiers are all ``*``.
    requirements : Requirements
        The models and the suppression budget.
    n_input_rows : int
        Records in the input; records missing from the release count as suppressed.
    star_shows_sensitive : bool
        Whether any sensitive value of the all-``*`` group is released (not
        withheld as ``*``).  When the group is the suppressed records and it
        shows one, the group must satisfy every model on the values it shows
        (``stats`` counts only those for it).
    matched : numpy.ndarray, optional
        Per class, the records it cannot be told from when a ``*`` matches
        any value (:func:`matched_class_sizes`): the per-class models judge
        classes of these sizes, and the smallest class is the smallest of them.
    """
    n_released = stats.n_rows
    dropped = n_input_rows - n_released
    problems: list[str] = []
    if dropped < 0:
        problems.append(f"the release has {n_released} records but the input had {n_input_rows}")
    dropped = max(dropped, 0)
    per_class = [m for m in requirements.models if not m.release_level]
    judged = stats if matched is None else replace(stats, sizes=matched)
    verdicts = {id(m): m.satisfied(judged) for m in per_class}
    ok = np.logical_and.reduce([*verdicts.values(), np.ones(stats.n_classes, dtype=np.bool_)])
    budget = requirements.budget_rows(n_input_rows)
    released = np.ones(stats.n_classes, dtype=np.bool_)
    star = np.flatnonzero(all_star)
    if len(star) > 1:
        raise ValueError("the records whose quasi-identifiers are all '*' must form one group")
    root_class = 0
    disclosure: list[str] = []
    if len(star):
        size = int(stats.sizes[star[0]])
        if _suppressed_group(size, n_released, dropped, budget, bool(ok[star[0]])):
            released[star[0]] = False
            if star_shows_sensitive:
                disclosure = requirements.violated_by_group(stats.subset(star))
        else:
            root_class = size
    # a release-level model (average risk, uniqueness) holds for the release as a whole: its figure over the
    # released classes, the suppressed records left out, must be within its bound, so it must keep every one
    kept = np.flatnonzero(released)
    for m in requirements.models:
        if m.release_level:
            verdict = np.ones(stats.n_classes, dtype=np.bool_)
            verdict[kept] = m.satisfied(stats.subset(released))
            verdicts[id(m)] = verdict
            ok &= verdict
    violated = []
    for model in requirements.models:
        satisfied = verdicts[id(model)]
        bad = ~satisfied & released
        if bad.any():
            violated.append(model.describe())
            problems.append(f"{int(bad.sum())} released class(es) with {int(stats.sizes[bad].sum())} records"
                            f" violate {model.describe()}")
    if disclosure:
        problems.append(f"the {int(stats.sizes[star[0]])} suppressed records are released as one group with their"
                        f" sensitive values, and that group violates {' and '.join(disclosure)}: whoever learns that"
                        " a person was suppressed learns them (withhold them: '*')")
    if root_class and not ok[star[0]]:
        problems.append(f"the {root_class} records whose quasi-identifiers are all '*' are more than the"
                        f" suppression budget ({budget}) allows, so they are a class, and it violates the models")
    suppressed = int(stats.sizes[~released].sum()) + dropped
    if suppressed > budget:
        problems.append(f"{suppressed} records suppressed but the budget allows {budget}")
    sizes = stats.sizes[released]
    smallest = sizes if matched is None else matched[released]
    return VerificationReport(
        ok=not problems, classes=int(released.sum()), min_class_size=int(smallest.min()) if len(sizes) else 0,
        suppressed_rows=suppressed, violating_rows=int(stats.sizes[~ok & released].sum()), problems=problems,
        root_class_rows=root_class, released_sizes=np.asarray(sizes, dtype=np.int64), violated=tuple(violated),
        suppressed_disclosure=tuple(disclosure),
        released_matched=None if matched is None else np.asarray(matched[released], dtype=np.int64),
    )


def stats_of_value_counts(dataset: Dataset, requirements: Requirements, sizes: NDArray[np.int64],
                          value_counts: dict[str, tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]],
                          ) -> ClassStats:
    """The class statistics of released classes counted where the release is (in SQL, on Spark).

    ``sizes`` holds each class's records; ``value_counts[a]`` gives, for a
    sensitive attribute the requirements judge, triples (class index, the
    value's code in ``dataset``, count) as arrays.  Histograms and the sums
    of numeric values are assembled here, on the driver.
    """
    request = requirements.request
    n_classes = len(sizes)
    hists: dict[str, NDArray[np.int64]] = {}
    sums: dict[str, NDArray[np.float64]] = {}
    sumsq: dict[str, NDArray[np.float64]] = {}
    for a, (cls, codes, counts) in value_counts.items():
        if a in request.histograms:
            m = dataset.encoded[a].n_categories
            flat = np.bincount(cls * m + codes, weights=counts, minlength=n_classes * m)
            hists[a] = flat.reshape(n_classes, m).astype(np.int64)
        if a in request.moments:
            numbers = dataset.encoded[a].numbers
            if numbers is None:
                raise ValueError(f"{a!r} is not numeric")
            x = numbers[codes]
            sums[a] = np.bincount(cls, weights=counts * x, minlength=n_classes).astype(np.float64)
            sumsq[a] = np.bincount(cls, weights=counts * x * x, minlength=n_classes).astype(np.float64)
    return ClassStats(sizes=np.asarray(sizes, dtype=np.int64), keys=np.zeros((n_classes, 0), dtype=np.int32),
                      histograms=hists, sums=sums, sumsq=sumsq)


def _suppressed_group(size: int, n_released: int, dropped: int, budget: int, satisfies: bool) -> bool:
    """Is the group of all-``*`` records the suppressed records (rather than a class of its own)?

    When every released record is in it, it is the table generalized to the
    root, a class, as long as it satisfies the models; when other records
    are released with values, it is the suppressed records as long as they
    fit the budget.
    """
    if size == n_released and satisfies:
        return False
    return size + dropped <= budget


def _stats(table: pd.DataFrame, dataset: Dataset, requirements: Requirements,
           row_class: NDArray[np.signedinteger[Any]],
           n_classes: int, withheld: dict[str, NDArray[np.bool_]],
           hierarchies: Mapping[str, Hierarchy | None]) -> ClassStats:
    """Class sizes and the sensitive statistics of the released values; a withheld cell counts in no statistic."""
    req = requirements.request
    sizes = np.bincount(row_class, minlength=n_classes).astype(np.int64)
    hists: dict[str, NDArray[np.int64]] = {}
    for a in sorted(req.histograms):
        col = dataset.encoded[a]
        # the input's own spelling first (``39.0`` may be the value of leaf ``39``), then the labels
        index = {str(v): i for i, v in enumerate(col.categories)}
        index.update(dataset.value_codes(a))
        marker = dataset.specs[a].missing[0] if dataset.specs[a].missing else ""
        inverse, values = text_codes(table[a], marker, sort=True)
        code_of = np.array([index.get(str(v), -1) for v in values], dtype=np.int64)
        hidden = withheld.get(a, np.zeros(len(table), dtype=np.bool_))
        unknown_rows = (code_of[inverse] < 0) & ~hidden
        if unknown_rows.any():
            unknown = values[inverse[np.flatnonzero(unknown_rows)[0]]]
            raise ValueError(f"released value {unknown!r} of {a!r} is not a value of the input")
        shown = ~hidden
        codes = code_of[inverse][shown]
        m = col.n_categories
        cells = row_class[shown].astype(np.int64) * m + codes
        hists[a] = np.bincount(cells, minlength=n_classes * m).reshape(n_classes, m).astype(np.int64)
    sums: dict[str, NDArray[np.float64]] = {}
    sumsq: dict[str, NDArray[np.float64]] = {}
    for a in sorted(req.moments):
        if dataset.specs[a].type is not AttributeType.NUMERIC:
            raise ValueError(f"{a!r} is not numeric")
        shown = ~withheld.get(a, np.zeros(len(table), dtype=np.bool_))
        v = pd.to_numeric(table[a][shown], errors="raise").to_numpy(dtype=np.float64)
        sums[a] = cast("NDArray[np.float64]", np.bincount(row_class[shown], weights=v, minlength=n_classes))
        sumsq[a] = cast("NDArray[np.float64]", np.bincount(row_class[shown], weights=v * v, minlength=n_classes))
    population: dict[str, NDArray[np.int64]] = {}
    compared = [model for model in requirements.models if isinstance(model, PopulationModel)]
    if compared:
        first = np.full(n_classes, -1, dtype=np.int64)
        first[row_class[::-1]] = np.arange(len(row_class) - 1, -1, -1)
        labels = {q: table[q].astype(object).where(table[q].notna(), "nan").astype(str).to_numpy()[first]
                  for q in dataset.quasi}
        for model in compared:
            population[model.population_key] = population_counts_of_labels(labels, model.population, dataset,
                                                                           hierarchies)
    return ClassStats(sizes=sizes, keys=np.zeros((n_classes, 0), dtype=np.int32), histograms=hists,
                      sums=sums, sumsq=sumsq, population=population)
