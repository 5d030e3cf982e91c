"""The method contract: what every anonymization method declares and how it is called.

A method is one :class:`Method` object in one module, listed once in
:mod:`anonset.methods.registry`.  The object declares

* its ``name`` and ``family`` (what ``fit`` returns: a full-domain node, a
  grouping of the records, or a front of nodes);
* its options (:class:`Option`: type, default, allowed values), validated in
  one place for the API and the YAML config alike;
* its capabilities: whether it needs the records in memory, whether it is
  randomized (takes the seed), which privacy models it can enforce, whether
  it can suppress records within a budget, whether it can run distributed
  (:class:`Distribution`: the table cut into fragments, each fitted on a
  worker);
* ``fit(problem)``, which receives a :class:`Problem` (the dataset, the
  requirements, the engine, the metric, the weights, the seed and the checked
  options) and returns the family's typed result.

The module of a method imports its implementation inside ``fit``, so reading
the declarations (for a config check or ``anonset methods``) loads no method
code.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

from anonset.errors import ConfigError

if TYPE_CHECKING:
    from anonset.core.dataset import Dataset
    from anonset.core.grouping import Grouping
    from anonset.engine.base import Engine
    from anonset.methods.full_domain.search import SearchResult
    from anonset.methods.pareto.objectives import ParetoResult
    from anonset.metrics.base import Metric
    from anonset.privacy.base import Requirements

    #: What ``fit`` returns: its family's result.
    FitResult = SearchResult | Grouping | ParetoResult

__all__ = ["MODEL_WORDS", "Distribution", "Family", "Method", "Option", "Problem", "WarmUp"]


class Family(str, Enum):
    """What a method's ``fit`` returns, which decides how its release is made and re-applied."""

    #: one node of the full-domain lattice (a :class:`~anonset.methods.full_domain.search.SearchResult`)
    NODE = "full-domain"
    #: classes of the records and the rule that places new ones (a :class:`~anonset.core.grouping.Grouping`)
    GROUPING = "grouping"
    #: a front of lattice nodes trading privacy against loss (a :class:`~anonset.methods.pareto.ParetoResult`)
    FRONT = "front"


#: Option kinds and what they accept.
_KINDS = {
    "bool": "true or false",
    "int": "an integer",
    "float": "a number",
    "str": "a string",
    "names": "a list of names",
    "numbers": "a list of numbers",
    "any": "a value",
}


@dataclass(frozen=True)
class Option:
    """One option of a method: its type, default and allowed values.

    Parameters
    ----------
    name : str
        The key, in ``method_options`` and under ``method:`` in a config.
    kind : {"bool", "int", "float", "str", "names", "numbers", "any"}
        The type of value.  ``names`` takes a non-empty list of strings,
        ``numbers`` a non-empty list of numbers.
    default : Any
        The value when the option is not given.
    doc : str
        One line for the docs and ``anonset methods``.
    choices : tuple of str, optional
        The allowed values (of a ``str``, or of each name of ``names``).
    low, high : float, optional
        Inclusive bounds of a number (of each number of ``numbers``).
    optional : bool
        Whether ``None`` (null) is allowed: "not set".
    accepts : callable, optional
        For ``any``: whether a value is allowed.
    shape : str, optional
        For ``any``: what the value looks like, in words (``a list of predicates``).
    """

    name: str
    kind: str
    default: Any
    doc: str
    choices: tuple[str, ...] | None = None
    low: float | None = None
    high: float | None = None
    optional: bool = False
    accepts: Callable[[Any], bool] | None = None
    shape: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"option {self.name!r}: kind must be one of {', '.join(_KINDS)}")

    def describe(self) -> str:
        """What the option accepts, in words: ``an integer >= 1``, ``one of union | increase``."""
        if self.shape is not None:
            what = self.shape
        elif self.choices is not None:
            what = f"one of {' | '.join(self.choices)}" if self.kind == "str" else (
                f"a list of {' | '.join(self.choices)}")
        else:
            what = _KINDS[self.kind]
            bounds = [f">= {_number(self.low)}" if self.low is not None else "",
                      f"<= {_number(self.high)}" if self.high is not None else ""]
            if any(bounds):
                what += " " + " and ".join(b for b in bounds if b)
        return what + (" (or null)" if self.optional else "")

    def check(self, method: str, value: Any) -> Any:
        """The value, normalized (``names`` as a tuple), or a one-line ``ConfigError`` naming what is allowed."""
        if value is None and self.optional:
            return None
        bad = ConfigError(f"method {method!r}: option {self.name!r} must be {self.describe()}; got {value!r}")
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise bad
            return value
        if self.kind in ("int", "float"):
            if not self._number_ok(value, integer=self.kind == "int"):
                raise bad
            return int(value) if self.kind == "int" else float(value)
        if self.kind == "str":
            if not isinstance(value, str) or (self.choices is not None and value not in self.choices):
                raise bad
            return value
        if self.kind == "names":
            items = value
            if not isinstance(items, (list, tuple)) or not items or not all(isinstance(v, str) for v in items):
                raise bad
            if self.choices is not None and any(v not in self.choices for v in items):
                raise bad
            return tuple(items)
        if self.kind == "numbers":
            if not isinstance(value, (list, tuple)) or not value or not all(self._number_ok(v) for v in value):
                raise bad
            return tuple(float(v) for v in value)
        if self.accepts is not None and not self.accepts(value):
            raise bad
        return value

    def _number_ok(self, value: Any, integer: bool = False) -> bool:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        if integer and not isinstance(value, int):
            return False
        if not math.isfinite(value):
            return False
        return not ((self.low is not None and value < self.low) or (self.high is not None and value > self.high))


@dataclass(frozen=True)
class Distribution:
    """A method's capability to run distributed (``engine: spark``): the table cut into fragments, each fitted alone.

    The driver cuts the table into fragments and fits the method on each
    fragment on a worker, with the method's options less the driver's own
    (:attr:`options`).  The release flow of such a method is
    :mod:`anonset.distributed.mondrian`.

    Parameters
    ----------
    options : tuple of Option
        The options only the driver reads (``fragments``, ``sample_rows``).
        They are options of the method like the others (the
        :class:`Method` appends them to its ``options``, so the config, the
        docs and ``anonset methods`` list them), but no fragment's fit
        receives them, and a fit in memory refuses them.
    refuses : mapping of str to str
        Class names of the privacy models no fragment can judge alone, each
        with why, in words that follow the model's description in a one-line
        message (``TCloseness``: compares every class with the whole table).
    """

    options: tuple[Option, ...] = ()
    refuses: Mapping[str, str] = field(default_factory=dict, hash=False)

    def option_names(self) -> tuple[str, ...]:
        """The names of the driver's options."""
        return tuple(o.name for o in self.options)


@dataclass(frozen=True)
class WarmUp:
    """One small run ``anonset compile`` makes so that numba's cache holds a set of the method's kernels.

    The run fits the method on a few hundred records of the synthetic patient
    register (:func:`anonset.datasets.patient_register`).  A method declares
    one warm-up per choice that selects other kernels: a privacy model, a
    split criterion, a target column.

    Parameters
    ----------
    label : str
        What the run selects, in words (``entropy l-diversity``); ``anonset
        compile`` prints it after the method's name ("" for the name alone).
    models : tuple of str
        Class names of the privacy models (as in :attr:`Method.models`), each
        with a small fixed parameter (:meth:`privacy_models`).
    max_suppression : float
        The suppression budget.
    options : mapping
        The method's options for the run.
    sensitive : str
        The register's column the l-diversity, t-closeness and squared-error
        models judge (``length_of_stay`` is then a numeric sensitive attribute).
    distance : str
        t-closeness's ground distance.
    targets : tuple of str
        The register's columns given role ``target`` (for a split criterion).
    kernels : str
        Which of the family's kernels the run compiles, when they are not
        those its other warm-ups share ("": the shared ones).  ``anonset
        compile --jobs`` keeps each set of runs in one process, in the order
        declared (a run reuses what the runs before it compiled), and
        compiles different sets side by side.
    seconds : float
        About how long the run compiles, on an empty cache after the runs
        declared before it in its set (two-core machine; default: a run that
        reuses what the runs before it compiled); ``anonset compile --jobs``
        shares the sets among its processes by these.
    """

    label: str = ""
    models: tuple[str, ...] = ("KAnonymity",)
    max_suppression: float = 0.0
    options: Mapping[str, Any] = field(default_factory=dict, hash=False)
    sensitive: str = "diagnosis"
    distance: str = "equal"
    targets: tuple[str, ...] = ()
    kernels: str = ""
    seconds: float = 0.1

    def privacy_models(self) -> list[Any]:
        """The models of the run: k = 3, l = 2 (entropy 1.5; recursive c = 3), t = 0.5, β = δ = 1, risks up to 0.2.

        Raises ``ValueError`` for a class name anonset has no model of.
        """
        from anonset.privacy import (
            AverageRisk,
            BetaLikeness,
            DeltaDisclosure,
            DistinctLDiversity,
            EntropyLDiversity,
            HighestRisk,
            KAnonymity,
            PopulationUniqueness,
            RecursiveCLDiversity,
            SampleUniqueness,
            SquaredErrorDiversity,
            TCloseness,
        )

        s = self.sensitive
        made: dict[str, Callable[[], Any]] = {
            "KAnonymity": lambda: KAnonymity(3),
            "HighestRisk": lambda: HighestRisk(0.34),
            "DistinctLDiversity": lambda: DistinctLDiversity(s, 2),
            "EntropyLDiversity": lambda: EntropyLDiversity(s, 1.5),
            "RecursiveCLDiversity": lambda: RecursiveCLDiversity(s, 2, 3.0),
            "TCloseness": lambda: TCloseness(s, 0.5, self.distance),
            "BetaLikeness": lambda: BetaLikeness(s, 1.0),
            "DeltaDisclosure": lambda: DeltaDisclosure(s, 1.0),
            "SquaredErrorDiversity": lambda: SquaredErrorDiversity(s, 1.0),
            "AverageRisk": lambda: AverageRisk(0.2),
            "SampleUniqueness": lambda: SampleUniqueness(0.05),
            "PopulationUniqueness": lambda: PopulationUniqueness(0.05, sampling_fraction=0.1),
        }
        unknown = [m for m in self.models if m not in made]
        if unknown:
            raise ValueError(f"warm-up {self.label!r}: no privacy model is called {unknown[0]!r}; use one of"
                             f" {', '.join(made)}")
        return [made[m]() for m in self.models]


@dataclass(frozen=True)
class Problem:
    """What a method's ``fit`` receives.

    ``engine`` is the engine the caller passed (the full-domain and front
    families need one; ``None`` means build the numpy engine), ``options``
    the method's options, checked and completed with their defaults.
    """

    dataset: Dataset
    requirements: Requirements
    engine: Engine | None
    metric: Metric
    weights: Mapping[str, float] | None
    seed: int
    options: Mapping[str, Any] = field(default_factory=dict)

    def node_engine(self) -> Engine:
        """The engine, which the Anonymizer always passes to a full-domain search."""
        if self.engine is None:
            raise RuntimeError("a full-domain search was called without an engine (this is a bug in the caller)")
        return self.engine


@dataclass(frozen=True)
class Method:
    """An anonymization method: its declarations and its ``fit``.

    Parameters
    ----------
    name : str
        The name users give (``method: NAME``).
    family : Family
        What ``fit`` returns.
    summary : str
        One line for the docs and ``anonset methods``, citing the paper by title.
    fit : callable
        ``fit(problem) -> result`` of the family's type.
    options : tuple of Option
        Its options.
    in_memory : bool
        Needs the records in memory (it cannot run on a table that stays in a
        database).  A partitioning (``GROUPING``) method always does: declaring
        it False raises ``ValueError``.
    randomized : bool
        Uses the seed (the same seed gives the same release).
    models : frozenset of str, optional
        Class names of the privacy models it enforces
        (``KAnonymity``, ``DistinctLDiversity``, ...); None for every model.
    suppresses : bool
        Can suppress records within ``max_suppression``; a method that cannot
        refuses a budget above 0.
    default_metric : str
        The metric it optimizes when none is named.
    metrics : frozenset of str, optional
        The metrics it can optimize; None for every search metric.
    ranked : bool
        Returns a ranked list of candidate releases (a search's success list,
        a front), from which ``pick`` chooses one.
    distributed : Distribution, optional
        How it runs distributed on Spark (the driver's options, the models
        no fragment can judge); None for a method that runs on one machine
        only.  Its options are appended to ``options``.
    warm_ups : tuple of WarmUp
        The runs ``anonset compile`` makes to compile its kernels (default:
        one run under k-anonymity; ``()`` for a method that compiles nothing).
    blanks_match_any : bool
        Its releases blank single values (``*``), and a blank matches any
        value: a release is judged by the records each record cannot be told
        from, not by its identical rows alone (local suppression).
    min_levels : bool
        It searches the full-domain lattice from each quasi-identifier's
        ``min_level`` (a minimum generalization); a method that does not
        refuses a dataset that sets one.
    """

    name: str
    family: Family
    summary: str
    fit: Callable[[Problem], FitResult]
    options: tuple[Option, ...] = ()
    in_memory: bool = True
    randomized: bool = False
    models: frozenset[str] | None = None
    suppresses: bool = True
    default_metric: str = "loss"
    metrics: frozenset[str] | None = None
    ranked: bool = False
    distributed: Distribution | None = None
    warm_ups: tuple[WarmUp, ...] = (WarmUp(),)
    blanks_match_any: bool = False
    min_levels: bool = False

    def __post_init__(self) -> None:
        if self.family is Family.GROUPING and not self.in_memory:
            raise ValueError(f"method {self.name!r}: a partitioning method needs the records in memory; declare"
                             " in_memory=True (anonset groups records in memory, or on Spark through distributed=...)")
        if self.distributed is not None:  # the driver's options are options of the method (declared once)
            known = {o.name for o in self.options}
            added = tuple(o for o in self.distributed.options if o.name not in known)
            object.__setattr__(self, "options", (*self.options, *added))

    def option(self, name: str) -> Option | None:
        """The option called ``name``, if the method has one."""
        return next((o for o in self.options if o.name == name), None)

    def check_options(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        """Every option, checked and completed with its default; unknown or ill-typed ones raise ``ConfigError``."""
        given = dict(given or {})
        for key in given:
            if self.option(key) is None:
                allowed = ", ".join(o.name for o in self.options)
                raise ConfigError(f"method {self.name!r} has no option {key!r}; "
                                  + (f"its options are {allowed}" if allowed else "it takes no options"))
        return {o.name: o.check(self.name, given[o.name]) if o.name in given else o.default for o in self.options}

    def check_requirements(self, requirements: Requirements) -> None:
        """Refuse, in one line, privacy models the method cannot enforce and a budget it cannot use."""
        if self.models is not None:
            for model in requirements.models:
                if type(model).__name__ not in self.models:
                    enforced = ", ".join(MODEL_WORDS.get(m, m) for m in sorted(self.models))
                    raise ConfigError(f"method {self.name!r} cannot enforce {model.describe()}; it enforces"
                                      f" {enforced}: remove that model or choose a method that enforces it"
                                      " (anonset methods lists them)")
        if not self.suppresses and requirements.max_suppression:
            raise ConfigError(f"method {self.name!r} suppresses no records; set max_suppression to 0")
        sampling = requirements.sampling_model
        if sampling is not None and (self.family is not Family.NODE or self.ranked):
            raise ConfigError(f"method {self.name!r} cannot release {sampling.describe()}: its generalization is"
                              " fixed before the data is seen and released as it is, by an exact full-domain method"
                              " (optimal or exhaustive)")

    def check_distributed(self, requirements: Requirements) -> None:
        """Refuse, in one line, what the method cannot enforce fragment by fragment (see :class:`Distribution`).

        A method without :attr:`distributed` is refused too (the caller names
        the methods that run distributed: ``registry.distributed()``).
        """
        if self.distributed is None:
            raise ConfigError(f"method {self.name!r} cannot run distributed")
        for model in requirements.models:
            why = self.distributed.refuses.get(type(model).__name__)
            if why is not None:
                raise ConfigError(f"engine: spark with method: {self.name}: {model.describe()} {why}")
        if not self.suppresses and requirements.max_suppression:
            raise ConfigError(f"{self.name} suppresses no records; set max_suppression to 0"
                              f" (got {requirements.max_suppression:g})")


#: Privacy model classes in words, for messages.
MODEL_WORDS = {
    "KAnonymity": "k-anonymity",
    "DistinctLDiversity": "distinct l-diversity",
    "EntropyLDiversity": "entropy l-diversity",
    "RecursiveCLDiversity": "recursive (c,l)-diversity",
    "TCloseness": "t-closeness",
    "SquaredErrorDiversity": "squared-error diversity",
    "HighestRisk": "highest risk",
    "AverageRisk": "average risk",
    "SampleUniqueness": "sample uniqueness",
    "PopulationUniqueness": "population uniqueness",
    "KMap": "estimated k-map",
    "PopulationKMap": "k-map against a population table",
    "DeltaPresence": "δ-presence",
    "BetaLikeness": "β-likeness",
    "DeltaDisclosure": "δ-disclosure privacy",
    "DifferentialPrivacy": "differential privacy",
}


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
