"""The privacy-model contract and the suppression budget.

A privacy model judges equivalence classes: ``satisfied(stats)`` returns one
boolean per class (a release-level model, ``release_level``, such as average
risk: the classes it keeps so that its figure over them holds).  It declares
which statistics it needs (``request``), whether it is monotone under generalization without suppression
(``monotonic``: if a node satisfies it, every more general node does), the
fewest records a class that satisfies it holds (``min_class_size``; a model
that is that floor and nothing more, such as k-anonymity, says so with
``size_only``), and validates its parameters against a dataset
(``validate``, which may also derive what it judges by from the data, as
estimated k-map derives its class-size floor).  A model may also decide the
release before the data is seen (differential privacy): the share of
records sampled (``sampling_probability``) and the node (``fixed_levels``).
A model may also say how many records of a group of records violate it
however the group is divided into classes (``violation_floor``): the exact
searches read it on groups of one or two attributes to rule nodes out
without judging them.

:class:`Requirements` bundles the models with a suppression budget: the
records of every violating class are suppressed, and a node is feasible when
they are at most ``max_suppression`` of all records.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, SupportsFloat, cast

import numpy as np

from anonset.core.stats import ClassStats, StatsRequest
from anonset.errors import ConfigError

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from anonset.core.dataset import Dataset


__all__ = ["PrivacyModel", "Requirements", "Verdict", "group_floor"]


def group_floor(k: int) -> int:
    """``max(k, 2)``: the fewest records a group anonset names or lets through may hold.

    No page shows an input value held by fewer records, no warning names
    one, and a column the configuration does not name is refused when a
    value of it, or a group beside the released classes, is smaller.  At
    least 2, so that a value held by one record is never let through, also
    when the requirements have no k-anonymity (an l-diversity model alone).
    """
    return max(int(k), 2)


class PrivacyModel(ABC):
    """A syntactic privacy model judged per equivalence class."""

    #: True when satisfying the model at a node implies satisfying it at every more general node.
    monotonic: bool = True
    #: True for a property of the whole release (e.g. average risk): ``satisfied`` then returns which classes
    #: to keep so that the figure over the kept classes holds, and :meth:`Requirements.judge` applies the
    #: model after the per-class models, on the classes they kept.
    release_level: bool = False
    #: True when a class satisfies the model exactly when it holds at least :attr:`min_class_size` records
    #: (k-anonymity, highest risk, estimated k-map): such models stay monotone with a suppression budget, the
    #: searches prune and pre-filter on the floor, and a partitioning method enforces them by class size alone.
    size_only: bool = False
    #: The probability with which each record is sampled before anything else, when the model releases a random
    #: sample (differential privacy); None: every record.  Such a model is the only one of its requirements.
    sampling_probability: float | None = None

    @property
    def monotonic_with_suppression(self) -> bool:
        """True when a record passing at a node passes at every more general one (class-size floors, population counts).

        With a suppression budget too, a node's feasibility then carries upwards.
        """
        return self.size_only

    def fixed_levels(self, dataset: Dataset) -> tuple[int, ...] | None:
        """The full-domain node the model releases, chosen without looking at the records; None: a search decides."""
        del dataset
        return None

    def attributes_for(self, attributes: Mapping[str, Any]) -> dict[str, Any]:
        """The attribute specs the input is to be encoded with: as given unless the model says otherwise.

        A model comparing the input with a population builds the
        quasi-identifiers' hierarchies from that population.
        """
        return dict(attributes)

    @property
    def min_class_size(self) -> int:
        """The fewest records a class satisfying the model can hold (1: the model sets no floor).

        A model that derives its floor from the data (estimated k-map)
        knows it once :meth:`validate` has run.
        """
        return 1

    @property
    def request(self) -> StatsRequest:
        """Statistics the model needs beyond class sizes."""
        return StatsRequest()

    @property
    def gives_violation_floor(self) -> bool:
        """Whether :meth:`violation_floor` gives a floor (not None): class-size floors do, others say so."""
        return self.size_only

    def floor_cells(self, bottom: ClassStats) -> ClassStats:
        """The bottom node's classes with what :meth:`violation_floor` needs of groups of them (as given by default).

        A model comparing with a population adds the population's own
        tuples (no record of the input) and every cell's population count.
        """
        return bottom

    def violation_floor(self, stats: ClassStats) -> NDArray[np.int64] | None:
        """Per class of ``stats``, taken as a group of records: the fewest that violate the model however it is divided.

        Every division of the group into classes (every more specific node,
        since its classes refine the group) leaves at least this many of the
        group's records in classes that violate the model.  A class-size floor
        (:attr:`size_only`) gives the group's records when it is smaller than
        :attr:`min_class_size` (every part of it is smaller too), else 0; other
        models say so by overriding this and :attr:`gives_violation_floor`; None: the model gives no such floor.
        """
        if not self.size_only:
            return None
        return np.where(stats.sizes < self.min_class_size, stats.sizes, 0).astype(np.int64)

    @property
    def protects(self) -> bool:
        """Whether the model protects anything: False when every table satisfies it (1-anonymity, 1-diversity, ...).

        True unless a model says otherwise.
        """
        return True

    @abstractmethod
    def satisfied(self, stats: ClassStats) -> NDArray[np.bool_]:
        """Boolean per class: does the class satisfy the model?"""

    def validate(self, dataset: Dataset) -> None:  # noqa: B027 - an optional hook: most models check nothing more
        """Check the model's parameters against the data (raise ConfigError)."""

    @abstractmethod
    def describe(self) -> str:
        """Short human-readable description, e.g. ``5-anonymity``."""

    def summary(self) -> dict[str, object]:
        """Parameters as a JSON-ready dict."""
        return {"model": type(self).__name__, **{k: v for k, v in vars(self).items() if not k.startswith("_")}}


@dataclass(frozen=True)
class Verdict:
    """Result of judging a candidate's classes against the requirements."""

    feasible: bool
    violating: NDArray[np.bool_]  # bool per class
    suppressed_rows: int
    budget_rows: int

    @property
    def kept(self) -> NDArray[np.bool_]:
        """Bool per class: not suppressed."""
        return ~self.violating


class Requirements:
    """Privacy models plus a suppression budget.

    Parameters
    ----------
    models : sequence of PrivacyModel
        All must hold in every released class.
    max_suppression : float
        Fraction of records that may be suppressed (0 to 1).
    """

    def __init__(self, models: Sequence[PrivacyModel], max_suppression: float = 0.0):
        if not models:
            raise ConfigError("no privacy model given; set at least `k` (k-anonymity)")
        _check_fraction(max_suppression)
        self.models = tuple(models)
        self.max_suppression = float(max_suppression)
        sampling = [m for m in self.models if m.sampling_probability is not None]
        if sampling:
            if len(self.models) > 1:
                raise ConfigError(f"{sampling[0].describe()} is the only privacy model of its release (its guarantee"
                                  " is about the sample it draws): remove the other models")
            if self.max_suppression not in (0.0, 1.0):
                raise ConfigError(f"{sampling[0].describe()} suppresses every class of fewer than k records, however"
                                  f" many that takes; leave max_suppression out (got {max_suppression:g})")
            self.max_suppression = 1.0

    @property
    def request(self) -> StatsRequest:
        """Union of the models' statistics requests."""
        out = StatsRequest()
        for m in self.models:
            out = out | m.request
        return out

    @property
    def monotonic(self) -> bool:
        """True when feasibility of a node implies feasibility of every more general node.

        That holds when all models are monotone and nothing may be suppressed,
        and with a budget for models whose records pass upwards
        (:attr:`PrivacyModel.monotonic_with_suppression`: records in classes
        smaller than k never increase when classes merge).  l-diversity and
        t-closeness with a budget are not monotone.
        """
        if all(m.monotonic for m in self.models) and self.max_suppression == 0:
            return True
        return all(m.monotonic_with_suppression for m in self.models)

    @property
    def size_only(self) -> bool:
        """True when every model is a class-size floor (:attr:`PrivacyModel.size_only`): the class sizes decide."""
        return all(m.size_only for m in self.models)

    @property
    def sampling_model(self) -> PrivacyModel | None:
        """The model that releases a random sample (:attr:`PrivacyModel.sampling_probability`), or None."""
        return next((m for m in self.models if m.sampling_probability is not None), None)

    @property
    def sampling_probability(self) -> float | None:
        """The probability of a record to be in the released sample (None: every record is)."""
        model = self.sampling_model
        return None if model is None else model.sampling_probability

    @property
    def floors_groups(self) -> bool:
        """Whether a model gives a :meth:`~PrivacyModel.violation_floor` (a class-size floor, or one of its own)."""
        return any(m.gives_violation_floor for m in self.models)

    @property
    def floors_beyond_sizes(self) -> bool:
        """Whether a model other than a class-size floor gives a :meth:`~PrivacyModel.violation_floor`."""
        return any(m.gives_violation_floor and not m.size_only for m in self.models)

    def violation_floor(self, stats: ClassStats) -> NDArray[np.int64] | None:
        """Per group of records (a class of ``stats``): the fewest that are suppressed however it is divided.

        The largest :meth:`PrivacyModel.violation_floor` of the models (a
        record violating any model is suppressed); None when no model gives
        one.  Summed over a node's classes it bounds the records suppressed
        at every more specific node, and it never grows upwards: a floor of
        a union of groups is at most the sum of theirs.
        """
        floors = [f for m in self.models if (f := m.violation_floor(stats)) is not None]
        if not floors:
            return None
        return np.maximum.reduce(floors) if len(floors) > 1 else floors[0]

    def attributes_for(self, attributes: Mapping[str, Any]) -> dict[str, Any]:
        """The attribute specs the input is encoded with: each model's :meth:`PrivacyModel.attributes_for` in turn."""
        out = dict(attributes)
        for m in self.models:
            out = m.attributes_for(out)
        return out

    def fixed_levels(self, dataset: Dataset) -> tuple[int, ...] | None:
        """The node a model fixes before seeing the data (:meth:`PrivacyModel.fixed_levels`), or None."""
        return next((levels for m in self.models if (levels := m.fixed_levels(dataset)) is not None), None)

    @property
    def protects(self) -> bool:
        """Whether any model protects anything (:attr:`PrivacyModel.protects`); else the release is the input."""
        return any(m.protects for m in self.models)

    @property
    def k(self) -> int:
        """The fewest records a released class may hold: the largest :attr:`~PrivacyModel.min_class_size`.

        The k of k-anonymity; an estimated k-map's derived floor once validated; 1 when no model sets one.
        """
        return max(m.min_class_size for m in self.models)

    def validate(self, dataset: Dataset, new_rows: bool = False) -> None:
        """Validate every model against the dataset.

        With ``new_rows`` (a learned recoding applied to new records) the
        class-size floors are not validated again: a table smaller than k is
        not an input error (its classes will simply violate the floor, which
        the re-check reports), and a floor derived from the fitted table (estimated
        k-map) stays the one the recoding was learned under.
        """
        for m in self.models:
            if new_rows and m.size_only:
                continue
            m.validate(dataset)

    def budget_rows(self, n_rows: int) -> int:
        """How many records may be suppressed."""
        return math.floor(self.max_suppression * n_rows + 1e-9)

    def judge(self, stats: ClassStats, n_rows: int | None = None) -> Verdict:
        """Judge a candidate's classes: which violate, how many rows that suppresses, feasible or not."""
        ok = np.ones(stats.n_classes, dtype=np.bool_)
        release_level = [m for m in self.models if m.release_level]
        # a per-class verdict does not depend on the other classes: judging every class and combining costs less
        # than copying the statistics of the classes an earlier model kept
        for m in self.models:
            if not m.release_level:
                ok &= m.satisfied(stats)
        # the release-level models on the classes the per-class ones kept, until none removes more (each
        # removal can break another's figure; every pass only removes classes, so this ends)
        while release_level and _narrow(ok, release_level, stats):
            pass
        violating = ~ok
        suppressed = int(stats.sizes[violating].sum())
        total = stats.n_rows if n_rows is None else n_rows
        budget = self.budget_rows(total)
        return Verdict(suppressed <= budget, violating, suppressed, budget)

    def violated_by_group(self, stats: ClassStats) -> list[str]:
        """The models (as described) that one group of records, judged as a class on its own, violates.

        ``stats`` holds that single class.  A release-level model is judged
        on the group as if it were the whole release.  This is how the
        suppressed records are judged: they are released as one group whose
        quasi-identifiers are all ``*``.
        """
        if stats.n_classes != 1:
            raise ValueError(f"violated_by_group judges one group; got {stats.n_classes} classes")
        return [m.describe() for m in self.models if not bool(m.satisfied(stats)[0])]

    def describe(self) -> str:
        """E.g. ``5-anonymity, entropy 3-diversity on occupation, suppression <= 1%``."""
        return ", ".join(self.parts())

    def parts(self) -> list[str]:
        """Each model as described, then the suppression budget when there is one."""
        parts = [m.describe() for m in self.models]
        if self.max_suppression and self.sampling_model is None:  # a sampling model sets its own budget
            parts.append(f"suppression <= {self.max_suppression:g} of records")
        return parts


def _narrow(ok: NDArray[np.bool_], models: Sequence[PrivacyModel], stats: ClassStats) -> bool:
    """Judge each model on the classes every earlier one accepted (``ok``, updated); did any class drop out?"""
    changed = False
    for m in models:
        alive = np.flatnonzero(ok)
        if len(alive) == 0:
            break
        verdict = m.satisfied(stats) if len(alive) == stats.n_classes else m.satisfied(stats.subset(alive))
        if not verdict.all():
            ok[alive] = verdict
            changed = True
    return changed


def _check_fraction(value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (0.0 <= float(value) <= 1.0):
        raise ConfigError(
            f"The 'max_suppression' parameter must be a fraction in [0, 1]. Got {value!r} instead"
            " (write 0.01 for 1%)."
        )


def require_int(owner: str, name: str, value: object, minimum: int) -> int:
    """Validate an integer parameter; ``owner`` names the model in user words (``k-anonymity``)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or int(value) < minimum:
        raise ConfigError(f"{owner}: the '{name}' parameter must be an int >= {minimum}; got {value!r}")
    return int(value)


def require_number(owner: str, name: str, value: object, low: float, high: float | None = None,
                   strict: bool = False) -> float:
    """Validate a real parameter in ``[low, high]`` (``(low, high]`` when ``strict``)."""
    ok = not isinstance(value, bool) and isinstance(value, (int, float, np.floating, np.integer))
    if ok:
        v = float(cast(SupportsFloat, value))
        ok = (v > low if strict else v >= low) and (high is None or v <= high) and math.isfinite(v)
    if not ok:
        if high is not None:
            span = f"in {'(' if strict else '['}{low:g}, {high:g}]"
        else:
            span = f"{'>' if strict else '>='} {low:g}"
        raise ConfigError(f"{owner}: the '{name}' parameter must be a number {span}; got {value!r}")
    return float(cast(SupportsFloat, value))


def require_sensitive(owner: str, dataset: Dataset, attribute: str) -> None:
    """The attribute must exist and be sensitive."""
    if attribute not in dataset.specs:
        raise ConfigError(f"{owner}: {attribute!r} is not a column of {dataset.source}")
    if attribute not in dataset.sensitive:
        raise ConfigError(
            f"{owner}: {attribute!r} must have role sensitive (it is {dataset.specs[attribute].role.value});"
            " set `role: sensitive` on it"
        )
