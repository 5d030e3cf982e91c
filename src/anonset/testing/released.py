"""A release re-checked from its released values alone, with pandas, sharing no code with the judges it checks.

:func:`recheck` groups the released records on their quasi-identifier
labels and judges every privacy model anonset has from the groups' sizes
and sensitive values: k-anonymity (and highest risk), the three
l-diversities, t-closeness with the equal and ordered distances,
squared-error diversity, average risk and sample uniqueness, β-likeness
and δ-disclosure privacy (against the input's frequencies), and estimated
k-map (the class sizes against the floor derived from the model's
parameters and the input's size, by this module's own arithmetic).  Population
uniqueness counts the classes here and takes the model's own estimator of
those counts (the estimator is the model's definition).  A model anonset
does not know (one added from outside), and t-closeness with the
hierarchical distance, are left to :func:`anonset.recheck.verify.verify_release`.

The group whose quasi-identifiers are all ``*`` holds the suppressed
records when other records are released with values and it fits the
suppression budget (with any records missing from the release); otherwise
it is a class like any other.  When it is the suppressed group and shows a
sensitive value, it must satisfy every model on the values it shows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from anonset.core.dataset import AttributeType, Dataset
from anonset.privacy import (
    AverageRisk,
    BetaLikeness,
    DeltaDisclosure,
    DeltaPresence,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    KMap,
    PopulationKMap,
    PopulationUniqueness,
    PrivacyModel,
    RecursiveCLDiversity,
    Requirements,
    SampleUniqueness,
    SquaredErrorDiversity,
    TCloseness,
)
from anonset.privacy.population import PopulationModel
from anonset.recheck.columns import SUPPRESSED

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["rechecked_models", "recheck"]

_EPS = 1e-9


def rechecked_models() -> tuple[type[PrivacyModel], ...]:
    """The model classes :func:`recheck` judges itself (and their subclasses, such as highest risk)."""
    return (KAnonymity, DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity, TCloseness,
            SquaredErrorDiversity, AverageRisk, SampleUniqueness, PopulationUniqueness, BetaLikeness,
            DeltaDisclosure, KMap, PopulationKMap, DeltaPresence)


def recheck(released: pd.DataFrame, original: pd.DataFrame, dataset: Dataset, requirements: Requirements,
            n_input: int | None = None, blanks_match_any: bool = False) -> list[str]:
    """What is wrong with ``released`` under ``requirements``, one sentence each (empty: it holds).

    Parameters
    ----------
    released : pandas.DataFrame
        The released records (quasi-identifiers as released labels).
    original : pandas.DataFrame
        The input records (t-closeness compares each class with their distribution).
    dataset : Dataset
        The input's dataset: which columns are quasi-identifiers, the missing
        marker, the declared order of an ordinal attribute.  Nothing is computed from it.
    requirements : Requirements
        The models and the suppression budget.
    n_input : int, optional
        Records in the input (default: ``len(original)``); records missing from the release count as suppressed.
    blanks_match_any : bool
        A ``*`` is a blanked value matching any value (local suppression):
        k-anonymity judges each class by the released records that agree
        with it wherever both show a value, counted here pair by pair.
    """
    quasi = list(dataset.quasi)
    n_in = len(original) if n_input is None else n_input
    problems: list[str] = []
    dropped = n_in - len(released)
    if dropped < 0:
        return [f"the release has {len(released)} records but the input had {n_in}"]
    keys = released[quasi].astype(object).where(released[quasi].notna(), "").astype(str)
    star = (keys == SUPPRESSED).all(axis=1).to_numpy() if quasi else np.zeros(len(released), dtype=np.bool_)
    budget = math.floor(requirements.max_suppression * n_in + _EPS)
    n_star = int(star.sum())
    suppressed_group = 0 < n_star < len(released) and n_star + dropped <= budget
    suppressed = dropped + (n_star if suppressed_group else 0)
    if suppressed > budget:
        problems.append(f"{suppressed} records are suppressed (missing, or released with every quasi-identifier"
                        f" '*'), more than the budget of {budget} ({requirements.max_suppression:g} of {n_in})")
    kept = released[~star] if suppressed_group else released
    if len(kept):
        kept_keys = keys[~star] if suppressed_group else keys
        codes = kept_keys.groupby(quasi, sort=False).ngroup().to_numpy() if quasi else np.zeros(len(kept), np.int64)
        matched = _matched_pair_by_pair(kept_keys, codes, keys) if blanks_match_any else None
        problems += _judge(kept, codes, kept_keys, quasi, original, dataset, requirements.models, n_in=n_in,
                           matched=matched)
    if suppressed_group:
        group = released[star]
        sensitive = [a for a in dataset.sensitive if a in group.columns]
        if any((group[a].astype(str) != SUPPRESSED).any() for a in sensitive):
            problems += [f"the suppressed records, released as one group showing sensitive values: {p}"
                         for p in _judge(group, np.zeros(len(group), np.int64), keys[star], quasi, original, dataset,
                                         requirements.models, whole=True)]
    return problems


def _matched_pair_by_pair(kept_keys: pd.DataFrame, codes: NDArray[np.int64],
                          all_keys: pd.DataFrame) -> NDArray[np.int64]:
    """Per class of ``codes``: the released records (all of ``all_keys``) agreeing with it wherever both show a value.

    sdcMicro's counting: a record with every value blanked matches everyone,
    but one that shows every value does not count it (with two or more
    quasi-identifiers).
    """
    first = pd.Series(np.arange(len(codes))).groupby(codes).first().to_numpy()
    mine = kept_keys.to_numpy().astype(str)[first]
    theirs, counts = np.unique(all_keys.to_numpy().astype(str), axis=0, return_counts=True)
    d = mine.shape[1]
    out = np.zeros(len(mine), dtype=np.int64)
    for c, key in enumerate(mine):
        mine_shown = key != SUPPRESSED
        if not mine_shown.any():
            out[c] = len(all_keys)
            continue
        their_shown = theirs != SUPPRESSED
        agree = np.all((theirs == key) | ~their_shown | ~mine_shown, axis=1)
        if d >= 2 and mine_shown.all():
            agree &= their_shown.any(axis=1)
        out[c] = int(counts[agree].sum())
    return out


def _judge(part: pd.DataFrame, codes: NDArray[np.int64], keys: pd.DataFrame, quasi: list[str],
           original: pd.DataFrame, dataset: Dataset, models: Sequence[PrivacyModel], whole: bool = False,
           n_in: int | None = None, matched: NDArray[np.int64] | None = None) -> list[str]:
    """Problems of the classes ``codes`` of ``part`` under each model (release-level ones over all of ``part``).

    ``matched``: per class, the records it cannot be told from (blanks matching any value), which k-anonymity
    judges instead of the class's own size.
    """
    n_classes = int(codes.max()) + 1 if len(codes) else 0
    sizes = np.bincount(codes, minlength=n_classes) if matched is None else matched
    first = pd.Series(np.arange(len(codes))).groupby(codes).first().to_numpy()

    def name(c: int) -> str:
        if whole:
            return "the group"
        labels = ", ".join(f"{q} {keys.iloc[first[c]][q]!r}" for q in quasi)
        return f"class ({labels})"

    def shown(attribute: str) -> tuple[NDArray[np.int64], NDArray[np.str_]]:
        """The class and text of each value of ``attribute`` the release shows (the missing marker for none)."""
        marker = dataset.specs[attribute].missing[0] if attribute in dataset.specs else ""
        values = part[attribute].astype(object)
        text = values.where(values.notna(), marker).astype(str).to_numpy()
        keep = text != SUPPRESSED if whole else np.ones(len(text), dtype=np.bool_)  # withheld: no value
        return codes[keep], text[keep]

    def counts(attribute: str) -> NDArray[np.int64]:
        """(classes, values) counts of the values of ``attribute`` each class shows."""
        classes, text = shown(attribute)
        values, value = np.unique(text, return_inverse=True)
        flat = np.bincount(classes * len(values) + value, minlength=n_classes * len(values))
        return flat.reshape(n_classes, len(values)).astype(np.int64)

    problems: list[str] = []
    for model in models:
        what = model.describe()
        if isinstance(model, KAnonymity):
            bad = np.flatnonzero(sizes < model.k)
            problems += [f"{name(c)} holds {sizes[c]} records, fewer than k = {model.k} ({what})" for c in bad[:3]]
        elif isinstance(model, DistinctLDiversity):
            distinct = (counts(model.attribute) > 0).sum(axis=1)
            bad = np.flatnonzero(distinct < model.l - _EPS)
            problems += [f"{name(c)} holds {distinct[c]} distinct values of {model.attribute!r} ({what})"
                         for c in bad[:3]]
        elif isinstance(model, EntropyLDiversity):
            h = counts(model.attribute).astype(np.float64)
            p = h / np.maximum(h.sum(axis=1, keepdims=True), 1.0)
            entropy = -np.sum(p * np.log(np.where(p > 0, p, 1.0)), axis=1)
            bad = np.flatnonzero(entropy < math.log(model.l) - _EPS)
            problems += [f"{name(c)} has entropy {entropy[c]:.4f} < log l = {math.log(model.l):.4f} ({what})"
                         for c in bad[:3]]
        elif isinstance(model, RecursiveCLDiversity):
            ranked = -np.sort(-counts(model.attribute), axis=1)
            l_int = int(model.l)
            width = ranked.shape[1]
            tail = ranked[:, l_int - 1:].sum(axis=1) if width >= l_int else np.zeros(len(ranked), dtype=np.int64)
            most = ranked[:, 0] if width else np.zeros(len(ranked), dtype=np.int64)
            bad = np.flatnonzero(~(most < model.c * tail))
            problems += [f"{name(c)}: its most frequent value appears {most[c]} times, not fewer than c = {model.c:g}"
                         f" times the {tail[c]} of its values from the l-th on ({what})" for c in bad[:3]]
        elif isinstance(model, TCloseness):
            distances = _closeness(*shown(model.attribute), n_classes, original, dataset, model)
            if distances is not None:
                bad = np.flatnonzero(distances > model.t + _EPS)
                problems += [f"{name(c)} is at distance {distances[c]:.4f} from the table's distribution of"
                             f" {model.attribute!r}, more than t = {model.t:g} ({what})" for c in bad[:3]]
        elif isinstance(model, SquaredErrorDiversity):
            classes, text = shown(model.attribute)
            x = pd.to_numeric(pd.Series(text)).to_numpy(dtype=np.float64)
            n = np.bincount(classes, minlength=n_classes)
            mean = np.bincount(classes, weights=x, minlength=n_classes) / np.maximum(n, 1)
            sse = np.bincount(classes, weights=(x - mean[classes]) ** 2, minlength=n_classes)
            sumsq = np.bincount(classes, weights=x * x, minlength=n_classes)
            bad = np.flatnonzero(sse < model.error - _EPS * np.maximum(1.0, sumsq))
            problems += [f"{name(c)} has a sum of squared errors of {model.attribute!r} of {sse[c]:g}, below"
                         f" {model.error:g} ({what})" for c in bad[:3]]
        elif isinstance(model, AverageRisk):
            risk = n_classes / max(len(part), 1)
            if risk > model.r + _EPS:
                problems.append(f"the released classes have an average risk of {risk:.4f} ({n_classes} classes of"
                                f" {len(part)} records), above {model.r:g} ({what})")
        elif isinstance(model, SampleUniqueness):
            share = int((sizes == 1).sum()) / max(len(part), 1)
            if share > model.u + _EPS:
                problems.append(f"{share:.4f} of the released records are unique, above {model.u:g} ({what})")
        elif isinstance(model, KMap):
            floor = _kmap_floor(model, len(original) if n_in is None else n_in)
            bad = np.flatnonzero(sizes < floor)
            problems += [f"{name(c)} holds {sizes[c]} records, fewer than the {floor} k-map derives ({what})"
                         for c in bad[:3]]
        elif isinstance(model, (BetaLikeness, DeltaDisclosure)):
            q, p, present = _frequencies(*shown(model.attribute), n_classes, original, dataset, model.attribute)
            if isinstance(model, BetaLikeness):
                bound = np.full(len(p), model.beta) if model.variant == "basic" else np.minimum(model.beta, -np.log(p))
                gain = np.where(present, (q - p) / p, -np.inf)
                worst = gain.max(axis=1, initial=-np.inf)
                bad = np.flatnonzero((gain > bound + _EPS).any(axis=1))
                problems += [f"{name(c)} raises a value of {model.attribute!r} by {worst[c]:.4f} relative to the"
                             f" input, more than its bound ({what})" for c in bad[:3]]
            else:
                gap = np.abs(np.log2(np.where(present, q, p) / p))  # p > 0: the input holds every value shown
                worst = gap.max(axis=1, initial=0.0)
                bad = np.flatnonzero(worst >= model.delta + _EPS)
                problems += [f"{name(c)} moves a value of {model.attribute!r} by a factor of 2^{worst[c]:.4f} from the"
                             f" input's frequency, not below 2^{model.delta:g} ({what})" for c in bad[:3]]
        elif isinstance(model, PopulationModel):
            matched = _population_matches(keys.iloc[first], quasi, dataset, model) if not whole else \
                np.array([model.population_records])
            if isinstance(model, PopulationKMap):
                bad = np.flatnonzero(matched < model.k)
                problems += [f"{name(c)} matches {matched[c]} records of {model.population_name}, fewer than"
                             f" k = {model.k} ({what})" for c in bad[:3]]
            elif isinstance(model, DeltaPresence):
                share = sizes / np.maximum(matched, 1)
                bad = np.flatnonzero((matched == 0) | (share < model.min - _EPS) | (share > model.max + _EPS))
                problems += [f"{name(c)} holds {sizes[c]} of the {matched[c]} records of {model.population_name}"
                             f" it matches, outside [{model.min:g}, {model.max:g}] ({what})" for c in bad[:3]]
        elif isinstance(model, PopulationUniqueness) and (sizes == 1).any():
            figure = model.figure(sizes.astype(np.int64))
            if figure is None or figure > model.u + _EPS:
                estimate = "not available" if figure is None else f"{figure:.4f}"
                problems.append(f"the estimated population uniqueness of the released classes is {estimate}, above"
                                f" {model.u:g} ({what})")
    return problems


def _population_matches(labels: pd.DataFrame, quasi: list[str], dataset: Dataset,
                        model: PopulationModel) -> NDArray[np.int64]:
    """Per class (its released labels), the population records whose values generalize to them.

    A record matches when, for every quasi-identifier, the class's label is
    its value or one of its value's ancestors in the hierarchy (``*`` matches
    anything).  Each record's ancestors are listed level by level, and every
    class is compared with all of them: simple rather than fast.
    """
    population = model.population
    frame = population.to_pandas() if hasattr(population, "to_pandas") else population
    ancestors: dict[str, NDArray[np.str_]] = {}  # per quasi-identifier: (levels, records) labels
    for q in quasi:
        h = dataset.require_hierarchy(q)
        marker = dataset.specs[q].missing[0] if dataset.specs[q].missing else ""
        values = frame[q].astype(object).where(frame[q].notna(), marker).astype(str).to_numpy()
        leaf = pd.Series(range(h.n_leaves), index=[str(label) for label in h.labels[0]])
        position = leaf.reindex(values).to_numpy()
        known = ~np.isnan(position)
        index = np.where(known, position, 0).astype(np.int64)
        chain = [np.where(known, np.asarray(h.labels[level], dtype=object).astype(str)[h.maps[level][index]], values)
                 for level in range(h.n_levels)]
        ancestors[q] = np.vstack(chain).astype(str)
    out = np.zeros(len(labels), dtype=np.int64)
    for c, (_, row) in enumerate(labels.iterrows()):
        hit = np.ones(len(frame), dtype=np.bool_)
        for q in quasi:
            label = str(row[q])
            if label != SUPPRESSED:
                hit &= (ancestors[q] == label).any(axis=0)
        out[c] = int(hit.sum())
    return out


def _kmap_floor(model: KMap, n_input: int) -> int:
    """The class-size floor of estimated k-map, recomputed from its definition (not from the model's arithmetic).

    Poisson: 2 + the smallest c with P(X <= c) >= 1 - α; zero-truncated: 1 +
    the smallest c >= 1 with P(X <= c | X >= 1) >= 1 - α; at most k.
    """
    if model.population_size is not None:
        fraction = n_input / model.population_size
    else:
        assert model.sampling_fraction is not None
        fraction = model.sampling_fraction
    lam = fraction * model.k
    c = np.arange(model.k + 1, dtype=np.float64)
    log_terms = c * math.log(lam) - lam - np.array([math.lgamma(x + 1) for x in c])
    terms = np.exp(log_terms)
    if model.estimator == "poisson":
        reached = np.flatnonzero(np.cumsum(terms) >= 1.0 - model.significance)
        return min(int(reached[0]) + 2, model.k) if len(reached) else model.k
    truncated = np.cumsum(terms[1:]) / (1.0 - math.exp(-lam))
    reached = np.flatnonzero(truncated >= 1.0 - model.significance)
    return min(int(reached[0]) + 2, model.k) if len(reached) else model.k


def _frequencies(codes: NDArray[np.int64], released: NDArray[np.str_], n_classes: int, original: pd.DataFrame,
                 dataset: Dataset, attribute: str) -> tuple[NDArray[np.float64], NDArray[np.float64],
                                                             NDArray[np.bool_]]:
    """Each class's share of each value of ``attribute`` it shows, the input's shares, and which values it shows."""
    marker = dataset.specs[attribute].missing[0]
    reference = original[attribute].astype(object).where(original[attribute].notna(), marker)
    p = reference.astype(str).value_counts(normalize=True)
    position = {v: i for i, v in enumerate(p.index)}
    column = pd.Series(released).map(position)
    known = column.notna().to_numpy()  # a value the input never had is the verifier's to report
    flat = np.bincount(codes[known] * len(p) + column[known].to_numpy(dtype=np.int64), minlength=n_classes * len(p))
    h = flat.reshape(n_classes, len(p)).astype(np.float64)
    q = h / np.maximum(h.sum(axis=1, keepdims=True), 1.0)
    return q, p.to_numpy(dtype=np.float64), h > 0


def _closeness(codes: NDArray[np.int64], released: NDArray[np.str_], n_classes: int, original: pd.DataFrame,
               dataset: Dataset, model: TCloseness) -> NDArray[np.float64] | None:
    """Each class's Earth Mover's Distance to the input's distribution (None for the hierarchical distance)."""
    if model.distance not in ("equal", "ordered"):
        return None
    marker = dataset.specs[model.attribute].missing[0]
    reference = original[model.attribute].astype(object).where(original[model.attribute].notna(), marker)
    q = reference.astype(str).value_counts(normalize=True)
    values = list(q.index)
    if model.distance == "ordered":
        spec = dataset.specs[model.attribute]
        if spec.type is AttributeType.NUMERIC:
            values.sort(key=float)
        elif spec.order:
            position = {v: i for i, v in enumerate(spec.order)}
            values.sort(key=lambda v: position.get(v, len(position)))
        else:
            values.sort()
    position = {v: i for i, v in enumerate(values)}
    column = pd.Series(released).map(position)
    known = column.notna().to_numpy()  # a value the input never had is the verifier's to report
    flat = np.bincount(codes[known] * len(values) + column[known].to_numpy(dtype=np.int64),
                       minlength=n_classes * len(values))
    h = flat.reshape(n_classes, len(values)).astype(np.float64)
    diff = h / np.maximum(h.sum(axis=1, keepdims=True), 1.0) - q.reindex(values).to_numpy()[None, :]
    if model.distance == "equal":
        return np.asarray(0.5 * np.abs(diff).sum(axis=1), dtype=np.float64)
    m = len(values)
    if m <= 1:
        return np.zeros(n_classes)
    return np.asarray(np.abs(np.cumsum(diff, axis=1)[:, :-1]).sum(axis=1) / (m - 1), dtype=np.float64)
