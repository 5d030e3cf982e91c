"""The checks of a method, generated from its declaration (:class:`~anonset.methods.base.Method`).

:func:`method_checks` reads what a method declares and yields one check per
promise, each run on a small synthetic register (:mod:`anonset.testing.data`):

- every release passes anonset's verifier and an independent re-check from
  its released values (:mod:`anonset.testing.released`), keeps every record
  (suppressed ones marked ``*``), and the same seed gives the same bytes;
- ``randomized``: another seed gives a valid release; not randomized: the
  seed changes nothing;
- an unknown option is refused naming the allowed ones, and each option that
  can refuse a value refuses an ill-typed one naming what it accepts;
- ``models``: each declared model (every model anonset has when the
  declaration is None) is enforced, re-checked from the released values, and
  each undeclared one is refused in one line (a model class from outside
  anonset is not checked: the checks cannot make one);
- ``suppresses``: a zero budget suppresses nothing; a method that cannot
  suppress refuses a budget;
- ``ranked``: ``pick`` releases the entry it names and refuses one beyond
  the list; a method that is not ranked refuses ``pick``;
- ``family``: what ``fit`` returns is the family's result (a node, a
  grouping that places new records, a front);
- ``transform`` re-checks new rows (a verified release or a refusal);
- ``in_memory``: a method that needs the records in memory refuses a table
  in a database; one that does not gives the numpy engine's release on
  DuckDB, and releases a table inside the database;
- ``distributed``: the models no fragment can judge are refused, every other
  declared model is accepted, and the driver's options are refused in memory;
- ``warm_ups``: every warm-up of ``anonset compile`` names the method's
  options, models and the register's columns.

A method object that is not registered is registered while each check runs.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pandas as pd

from anonset.anonymizer import Anonymizer, ReleaseViolation
from anonset.core.dataset import AttributeSpec, Dataset
from anonset.datasets.synthetic import COLUMNS as REGISTER_COLUMNS
from anonset.engine.sql.duckdb import DuckDBBackend
from anonset.engine.sql.engine import SqlEngine
from anonset.engine.sql.profile import dataset_from_table
from anonset.errors import ConfigError, InfeasibleError
from anonset.methods import registry
from anonset.methods.base import Family, Method, Option
from anonset.privacy import (
    AverageRisk,
    BetaLikeness,
    DeltaDisclosure,
    DistinctLDiversity,
    EntropyLDiversity,
    HighestRisk,
    KAnonymity,
    KMap,
    PopulationUniqueness,
    PrivacyModel,
    RecursiveCLDiversity,
    Requirements,
    SampleUniqueness,
    SquaredErrorDiversity,
    TCloseness,
)
from anonset.recheck.verify import verify_release
from anonset.release.facts import FrontFacts, GroupingFacts, SearchFacts
from anonset.testing.checks import Check, expect, quiet, raises
from anonset.testing.data import method_case
from anonset.testing.released import recheck

__all__ = ["MODELS", "check_method", "method_checks"]

K, L = 3, 2
#: The seed of every fit (a second one for the checks about seeds).
SEED = 7

#: Every privacy model anonset has, by class name, as the checks instantiate it on the register
#: (``diagnosis`` categorical sensitive, ``length_of_stay`` numeric sensitive for squared-error diversity).
MODELS: dict[str, Callable[[], PrivacyModel]] = {
    "KAnonymity": lambda: KAnonymity(K),
    "HighestRisk": lambda: HighestRisk(0.25),
    "DistinctLDiversity": lambda: DistinctLDiversity("diagnosis", L),
    "EntropyLDiversity": lambda: EntropyLDiversity("diagnosis", 2.0),
    "RecursiveCLDiversity": lambda: RecursiveCLDiversity("diagnosis", 2, 3.0),
    "TCloseness": lambda: TCloseness("diagnosis", 0.6),
    "SquaredErrorDiversity": lambda: SquaredErrorDiversity("length_of_stay", 4.0),
    "AverageRisk": lambda: AverageRisk(0.2),
    "SampleUniqueness": lambda: SampleUniqueness(0.02),
    "PopulationUniqueness": lambda: PopulationUniqueness(0.02, sampling_fraction=0.1),
    "KMap": lambda: KMap(5, sampling_fraction=0.05, significance=0.05),  # a floor of 3 records
    "BetaLikeness": lambda: BetaLikeness("diagnosis", 2.0, "enhanced"),
    "DeltaDisclosure": lambda: DeltaDisclosure("diagnosis", 2.0),
}


def check_method(method: Method | str) -> None:
    """Run every check of ``method`` (a :class:`Method`, or a registered name); the first failure raises.

    Raises
    ------
    CheckFailure
        Naming the method, the check and what is wrong.
    """
    for _, check in method_checks(method):
        check()


def method_checks(method: Method | str) -> Iterator[tuple[str, Check]]:
    """The checks ``method``'s declaration calls for, as ``(name, check)`` pairs; calling a check runs it.

    Generating the checks reads the declaration only (no method code runs
    until a check is called).
    """
    spec = registry.get(method) if isinstance(method, str) else method
    subject = f"method {spec.name!r}"

    def make(name: str, body: Callable[[Method], None]) -> tuple[str, Check]:
        def run() -> None:
            with _registered(spec):
                body(spec)
        return name, Check(subject, name, run)

    yield make("release_passes_the_independent_check", _release_passes_the_independent_check)
    yield make("the_same_seed_gives_the_same_release", _the_same_seed_gives_the_same_release)
    if spec.randomized:
        yield make("another_seed_gives_a_valid_release", _another_seed_gives_a_valid_release)
    else:
        yield make("the_seed_changes_nothing", _the_seed_changes_nothing)
    yield make("an_unknown_option_names_the_allowed_ones", _an_unknown_option_names_the_allowed_ones)
    for option in spec.options:
        if option.kind != "any" or option.accepts is not None:
            yield make(f"an_ill_typed_option_names_what_it_accepts[{option.name}]", _ill_typed(option))
    for kind in MODELS:
        if spec.models is None or kind in spec.models:
            yield make(f"enforces[{kind}]", _enforces(kind))
        else:
            yield make(f"refuses[{kind}]", _refuses(kind))
    if spec.suppresses:
        yield make("a_zero_budget_suppresses_nothing", _a_zero_budget_suppresses_nothing)
    else:
        yield make("refuses_a_budget", _refuses_a_budget)
    if spec.ranked:
        yield make("pick_releases_the_entry_it_names", _pick_releases_the_entry_it_names)
    else:
        yield make("refuses_pick", _refuses_pick)
    yield make(f"fit_returns_a_{spec.family.name.lower()}", _fit_returns_its_family_result)
    yield make("transform_on_new_rows_is_rechecked", _transform_on_new_rows_is_rechecked)
    if spec.in_memory:
        yield make("refuses_a_table_in_a_database", _refuses_a_table_in_a_database)
    else:
        yield make("duckdb_gives_the_numpy_release", _duckdb_gives_the_numpy_release)
        yield make("releases_a_table_inside_the_database", _releases_a_table_inside_the_database)
    distribution = getattr(spec, "distributed", None)
    if distribution is not None:
        for kind in distribution.refuses:
            if kind in MODELS:
                yield make(f"distributed_refuses[{kind}]", _distributed_refuses(kind))
        yield make("distributed_accepts_its_other_models", _distributed_accepts_its_other_models)
        for option in distribution.options:
            if _valid_value(option) is not None:
                yield make(f"refuses_the_driver_option_in_memory[{option.name}]", _driver_option_in_memory(option))
    if hasattr(spec, "warm_ups"):
        yield make("warm_ups_name_its_options_models_and_columns", _warm_ups_are_valid)


# --------------------------------------------------------------------------- helpers
@contextmanager
def _registered(spec: Method) -> Iterator[None]:
    """The method registered under its name while the block runs (it stays if it already was)."""
    if spec.name in registry.names():
        expect(registry.get(spec.name) is spec, f"another method is registered as {spec.name!r}")
        yield
        return
    registry.register(spec)
    try:
        yield
    finally:
        registry.unregister(spec.name)


def _declares(spec: Method, kind: str) -> bool:
    return spec.models is None or kind in spec.models


def _base_models(spec: Method) -> list[PrivacyModel]:
    """k-anonymity, and distinct l-diversity where the method can take it as a requirement (a front: a floor)."""
    models: list[PrivacyModel] = [KAnonymity(K)]
    if spec.family is not Family.FRONT and _declares(spec, "DistinctLDiversity"):
        models.append(DistinctLDiversity("diagnosis", L))
    return models


def _requirements(spec: Method, *extra: PrivacyModel, budget: float | None = None) -> Requirements:
    """The base models and ``extra``, with a budget of 5% where the method suppresses."""
    if budget is None:
        budget = 0.05 if spec.suppresses else 0.0
    return Requirements([*_base_models(spec), *extra], max_suppression=budget)


def _fit(spec: Method, table: pd.DataFrame, attributes: dict[str, AttributeSpec],
         requirements: Requirements | None = None, seed: int = SEED, **kwargs: Any) -> Anonymizer:
    with quiet():
        return Anonymizer(attributes, requirements or _requirements(spec), method=spec.name, seed=seed,
                          **kwargs).fit(table)


def _claimed(model: Anonymizer, spec: Method) -> Requirements:
    """What the release claims: the requirements, or for a front the released member's own k and l."""
    return model.release_requirements_ if spec.family is Family.FRONT else model.requirements


def _csv(frame: pd.DataFrame | None) -> str:
    expect(frame is not None, "the release has no table")
    assert frame is not None
    return str(frame.to_csv(index=False))


def _first_difference(first: str, second: str) -> str:
    a, b = first.splitlines(), second.splitlines()
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"line {i + 1} of their CSV is {x!r} in one and {y!r} in the other"
    return f"one has {len(a) - 1} records, the other {len(b) - 1}"


def _rechecked(model: Anonymizer, requirements: Requirements, original: pd.DataFrame, what: str = "the release",
               n_input: int | None = None) -> None:
    """``what`` passes anonset's verifier and the independent re-check under ``requirements``."""
    release = model.release_
    expect(release.table is not None, f"{what} has no table")
    assert release.table is not None
    n = len(original) if n_input is None else n_input
    blanks = release.partition.blanks_match_any
    report = verify_release(release.table, model.dataset_, requirements, n, blanks_match_any=blanks)
    expect(report.ok, f"anonset's verifier refuses {what} under {requirements.describe()}:"
           f" {'; '.join(report.problems)}")
    problems = recheck(release.table, original, model.dataset_, requirements, n, blanks_match_any=blanks)
    expect(not problems, f"{what}, re-checked from its released values, breaks {requirements.describe()}: "
           + "; ".join(problems[:5]))


def _valid_value(option: Option) -> Any:
    """A value ``option`` accepts other than its default (None when none can be made up from the declaration)."""
    candidates: list[Any]
    if option.kind == "bool":
        candidates = [not option.default if isinstance(option.default, bool) else True]
    elif option.kind in ("int", "float"):
        low = option.low if option.low is not None else 1
        candidates = [int(np.ceil(low)) if option.kind == "int" else float(low), 2, 1, 0.5]
    elif option.kind == "str":
        candidates = list(option.choices or ()) or ["x"]
    elif option.kind == "names":
        candidates = [[option.choices[0]]] if option.choices else [["x"]]
    elif option.kind == "numbers":
        candidates = [[float(option.low) if option.low is not None else 1.0]]
    else:
        return None
    for value in candidates:
        if value == option.default:
            continue
        try:
            return option.check("", value)
        except ConfigError:
            continue
    return None


# --------------------------------------------------------------------------- the checks
def _release_passes_the_independent_check(spec: Method) -> None:
    table, attrs = method_case(1)
    model = _fit(spec, table, attrs)
    release = model.release_
    expect(release.verified, "the release is not marked verified (release.verified is False)")
    expect(release.table is not None, "an in-memory fit gave no release table")
    assert release.table is not None
    expect(len(release.table) == len(table), f"the release has {len(release.table)} records, the input"
           f" {len(table)}: suppressed records must be marked '*', never dropped silently")
    _rechecked(model, _claimed(model, spec), table)
    if spec.family is Family.FRONT:  # the released member also meets the floors the user stated
        _rechecked(model, model.requirements, table, "the released member")


def _the_same_seed_gives_the_same_release(spec: Method) -> None:
    table, attrs = method_case(2)
    first = _csv(_fit(spec, table, attrs).release_.table)
    second = _csv(_fit(spec, table, attrs).release_.table)
    expect(first == second, f"two fits with seed {SEED} gave different releases: {_first_difference(first, second)}")


def _another_seed_gives_a_valid_release(spec: Method) -> None:
    table, attrs = method_case(2)
    model = _fit(spec, table, attrs, seed=SEED + 1)
    _rechecked(model, _claimed(model, spec), table, f"the release with seed {SEED + 1}")


def _the_seed_changes_nothing(spec: Method) -> None:
    table, attrs = method_case(2)
    first = _csv(_fit(spec, table, attrs).release_.table)
    for seed in (SEED + 1, 2**31 - 1):
        other = _csv(_fit(spec, table, attrs, seed=seed).release_.table)
        expect(first == other, f"it is declared deterministic (randomized=False) but seed {seed} gives another"
               f" release than seed {SEED} ({_first_difference(first, other)}): declare randomized=True, or make"
               " fit ignore problem.seed")


def _an_unknown_option_names_the_allowed_ones(spec: Method) -> None:
    contains = ("no option 'no_such_option'", *(o.name for o in spec.options))
    if not spec.options:
        contains += ("takes no options",)
    with raises(ConfigError, "an unknown option", contains):
        Anonymizer({}, _requirements(spec), method=spec.name, method_options={"no_such_option": 1})


def _ill_typed(option: Option) -> Callable[[Method], None]:
    def check(spec: Method) -> None:
        with raises(ConfigError, f"option {option.name!r} given an object()",
                    (f"option {option.name!r} must be", option.describe())):
            Anonymizer({}, _requirements(spec), method=spec.name, method_options={option.name: object()})
    return check


def _model_case(spec: Method, kind: str) -> tuple[Requirements, dict[str, Any], bool]:
    """The requirements, the method options and whether length_of_stay is sensitive, to enforce model ``kind``."""
    model = MODELS[kind]()
    options: dict[str, Any] = {}
    if model.release_level:  # alone: k-anonymity would make most risk bounds hold by themselves
        requirements = Requirements([model], max_suppression=0.05 if spec.suppresses else 0.0)
    elif any(type(m) is type(model) for m in _base_models(spec)):
        requirements = _requirements(spec)
    else:
        requirements = _requirements(spec, model)
    objectives = spec.option("objectives")
    if spec.family is Family.FRONT and kind == "DistinctLDiversity" and objectives is not None \
            and objectives.choices and "l" in objectives.choices:  # a front measures l through its objective
        options["objectives"] = [*objectives.default, "l"]
    return requirements, options, isinstance(model, SquaredErrorDiversity)


def _enforces(kind: str) -> Callable[[Method], None]:
    def check(spec: Method) -> None:
        requirements, options, numeric = _model_case(spec, kind)
        table, attrs = method_case(4, numeric_sensitive=numeric)
        try:
            model = _fit(spec, table, attrs, requirements, method_options=options)
        except InfeasibleError as exc:
            raise AssertionError(f"it declares {kind} but found no release under {requirements.describe()}"
                                 f" ({exc})") from None
        _rechecked(model, _claimed(model, spec), table)
        if spec.family is Family.FRONT:
            _rechecked(model, requirements, table, "the released member")
    return check


def _refuses(kind: str) -> Callable[[Method], None]:
    def check(spec: Method) -> None:
        requirements, _, _ = _model_case(spec, kind)
        with raises(ConfigError, f"{kind}, which it does not declare", ("cannot enforce",)):
            Anonymizer({}, requirements, method=spec.name)
    return check


def _a_zero_budget_suppresses_nothing(spec: Method) -> None:
    table, attrs = method_case(3)
    requirements = _requirements(spec, budget=0.0)
    model = _fit(spec, table, attrs, requirements)
    expect(model.release_.suppressed_rows == 0, f"with max_suppression = 0 the release suppressed"
           f" {model.release_.suppressed_rows} records")
    _rechecked(model, _claimed(model, spec), table)


def _refuses_a_budget(spec: Method) -> None:
    requirements = Requirements([KAnonymity(K)], max_suppression=0.1)
    with raises(ConfigError, "a suppression budget (it declares suppresses=False)",
                (f"method {spec.name!r} suppresses no records",)):
        Anonymizer({}, requirements, method=spec.name)


def _pick_releases_the_entry_it_names(spec: Method) -> None:
    table, attrs = method_case(1)
    first = _fit(spec, table, attrs)
    search = first.release_.search
    if isinstance(search, FrontFacts):
        entries = [dict(zip(first.dataset_.quasi, member.levels, strict=True)) for member in first.front_.front]
        chosen = search.picked
        picked = _fit(spec, table, attrs, pick=chosen)
        facts = picked.release_.search
        expect(isinstance(facts, FrontFacts) and facts.picked == chosen and facts.chosen_by == "pick",
               f"pick={chosen} did not release member {chosen} chosen by pick")
        expect(_csv(picked.release_.table) == _csv(first.release_.table),
               f"pick={chosen} (the member the floors chose) gave another release than the floors")
    else:
        expect(isinstance(search, SearchFacts) and search.success_list,
               "a ranked full-domain method must report its ranked list (release.search.success_list)")
        assert isinstance(search, SearchFacts) and search.success_list is not None
        entries = [dict(e.levels) for e in search.success_list]
        chosen = len(entries) - 1
        picked = _fit(spec, table, attrs, pick=chosen)
        facts = picked.release_.search
        expect(isinstance(facts, SearchFacts) and facts.picked == chosen, f"pick={chosen} is not recorded")
    expect(picked.levels_ == entries[chosen], f"pick={chosen} released levels {picked.levels_}, not entry"
           f" {chosen}'s {entries[chosen]}")
    _rechecked(picked, _claimed(picked, spec), table, f"the release of pick={chosen}")
    with raises(ConfigError, f"pick={len(entries)}, beyond the {len(entries)} entries", (str(len(entries)),)):
        _fit(spec, table, attrs, pick=len(entries))


def _refuses_pick(spec: Method) -> None:
    with raises(ConfigError, "pick (it declares ranked=False)", ("pick", repr(spec.name))):
        Anonymizer({}, _requirements(spec), method=spec.name, pick=0)


def _fit_returns_its_family_result(spec: Method) -> None:
    table, attrs = method_case(1)
    model = _fit(spec, table, attrs)
    search, dataset = model.release_.search, model.dataset_
    if spec.family is Family.NODE:
        from anonset.methods.full_domain.search import SearchResult

        expect(isinstance(model.result_, SearchResult), f"fit returned {type(model.result_).__name__}, not a"
               " SearchResult")
        assert model.result_ is not None
        _levels_in_range(tuple(model.result_.levels), dataset)
        expect(isinstance(search, SearchFacts), f"the release's facts are {type(search).__name__}, not SearchFacts")
    elif spec.family is Family.GROUPING:
        grouping = model.grouping_
        row_class = np.asarray(grouping.row_class)
        expect(row_class.dtype == np.int64 and row_class.shape == (len(table),),
               f"grouping.row_class is {row_class.dtype} of shape {row_class.shape}, not int64 of ({len(table)},)")
        n_classes = int(row_class.max()) + 1 if len(row_class) else 0
        expect(row_class.min() >= -1, "grouping.row_class holds a class below -1")
        if not spec.suppresses:
            expect(row_class.min() >= 0, "grouping.row_class suppresses records (-1) but the method declares"
                   " suppresses=False")
        placed = np.asarray(grouping.assign(dataset))
        expect(placed.dtype == np.int64 and placed.shape == (len(table),), f"grouping.assign(dataset) is"
               f" {placed.dtype} of shape {placed.shape}, not int64 of ({len(table)},)")
        expect(placed.min() >= -1 and placed.max() < n_classes, "grouping.assign placed a record in a class the"
               " fit did not form")
        expect(model.levels_ is None, "a grouping released full-domain levels")
        expect(isinstance(search, GroupingFacts), f"the release's facts are {type(search).__name__}, not"
               " GroupingFacts")
    else:
        from anonset.methods.pareto.objectives import ParetoResult

        front = model.front_
        expect(isinstance(front, ParetoResult) and len(front.front) >= 1, "fit returned no front of members")
        expect(isinstance(search, FrontFacts), f"the release's facts are {type(search).__name__}, not FrontFacts")
        assert isinstance(search, FrontFacts)
        for member in front.front:
            _levels_in_range(tuple(member.levels), dataset)
        expect(model.levels_ == dict(zip(dataset.quasi, front.front[search.picked].levels, strict=True)),
               "the released levels are not those of the member the release names")


def _levels_in_range(levels: tuple[int, ...], dataset: Dataset) -> None:
    expect(len(levels) == len(dataset.quasi), f"levels {levels} do not give one level per quasi-identifier"
           f" ({len(dataset.quasi)})")
    for q, level in zip(dataset.quasi, levels, strict=True):
        top = dataset.require_hierarchy(q).max_level
        expect(0 <= int(level) <= top, f"level {level} of {q!r} is outside its hierarchy (0 to {top})")


def _transform_on_new_rows_is_rechecked(spec: Method) -> None:
    """New rows get the learned recoding and a fresh check: a verified release, or a refusal, never a silent one.

    The fitted rows twice over are new rows whose classes all stay valid for
    a full-domain node; a partitioning method places each row by its rule
    (with overlapping classes a row may land in another class than the one it
    was fitted in), so the check may refuse them: then ``on_violation='warn'``
    returns the release marked unverified.
    """
    table, attrs = method_case(5)
    model = _fit(spec, table, attrs)
    doubled = pd.concat([table, table], ignore_index=True)
    requirements = _claimed(model, spec)
    try:
        with quiet():
            release = model.transform(doubled, return_release=True)
    except InfeasibleError:
        expect(spec.family is Family.GROUPING, "transform refused the fitted records twice over, whose classes"
               " all stay valid for a full-domain node")
        model.on_violation = "warn"
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            release = model.transform(doubled, return_release=True)
        expect(any(issubclass(w.category, ReleaseViolation) for w in seen),
               "transform with on_violation='warn' issued no ReleaseViolation for a release that breaks the"
               " requirements")
        expect(not release.verified, "transform with on_violation='warn' marked a violating release verified")
    else:
        expect(release.verified and release.table is not None and len(release.table) == len(doubled),
               "transform returned a release that is not verified, or not of every new record")
        problems = recheck(release.table, doubled, model.dataset_, requirements, len(doubled))
        expect(not problems, "the release of new records, re-checked from its released values: "
               + "; ".join(problems[:5]))
    model.on_violation = "raise"
    with raises(InfeasibleError, f"a transform of two records (no class of k = {K} can hold them)"), quiet():
        model.transform(table.iloc[:2], return_release=True)


def _refuses_a_table_in_a_database(spec: Method) -> None:
    table, attrs = method_case(6)
    requirements = _requirements(spec)
    with DuckDBBackend.from_dataframe(table) as backend:
        dataset = dataset_from_table(backend, "data", attrs)
        with SqlEngine(dataset, requirements.request, backend, "data") as engine, \
                raises(ConfigError, "a table in a database (it declares in_memory=True)", (repr(spec.name),)):
            Anonymizer(attrs, requirements, method=spec.name, output_table="released").fit(dataset, engine=engine)


def _duckdb_gives_the_numpy_release(spec: Method) -> None:
    table, attrs = method_case(6)
    requirements = _requirements(spec)
    on_numpy = _fit(spec, table, attrs, requirements)
    dataset = Dataset(table, attrs)
    with DuckDBBackend.from_dataframe(table) as backend, \
            SqlEngine(dataset, requirements.request, backend, "data") as engine, quiet():
        on_duckdb = Anonymizer(attrs, requirements, method=spec.name, seed=SEED).fit(dataset, engine=engine)
    expect(on_duckdb.levels_ == on_numpy.levels_, f"on DuckDB it released levels {on_duckdb.levels_}, with the"
           f" numpy engine {on_numpy.levels_}")
    first, second = _csv(on_numpy.release_.table), _csv(on_duckdb.release_.table)
    expect(first == second, f"the releases on numpy and on DuckDB differ: {_first_difference(first, second)}")


def _releases_a_table_inside_the_database(spec: Method) -> None:
    table, attrs = method_case(6)
    requirements = _requirements(spec)
    on_numpy = _fit(spec, table, attrs, requirements)
    with DuckDBBackend.from_dataframe(table) as backend:
        dataset = dataset_from_table(backend, "data", attrs)
        with SqlEngine(dataset, requirements.request, backend, "data") as engine, quiet():
            model = Anonymizer(attrs, requirements, method=spec.name, seed=SEED,
                               output_table="released").fit(dataset, engine=engine)
        expect(model.release_.verified and model.release_.table is None,
               "a release inside the database is not verified, or was read into memory")
        rows = backend.fetch_rows('SELECT * FROM "released"', (), "reading the release back")
        released = pd.DataFrame(rows, columns=backend.columns(("released",)), dtype=object)
    expected = on_numpy.release_.table
    assert expected is not None
    expect(list(released.columns) == list(expected.columns), f"the table in the database has columns"
           f" {list(released.columns)}, the in-memory release {list(expected.columns)}")
    ours = sorted(released.astype(str).itertuples(index=False, name=None))
    theirs = sorted(expected.astype(str).itertuples(index=False, name=None))
    expect(ours == theirs, "the table released inside the database holds other records than the in-memory"
           " release")


def _distributed_refuses(kind: str) -> Callable[[Method], None]:
    def check(spec: Method) -> None:
        distribution = spec.distributed
        assert distribution is not None
        model = MODELS[kind]()
        requirements = Requirements([KAnonymity(K), model] if kind != "KAnonymity" else [model])
        with raises(ConfigError, f"{kind} on a distributed run (its declaration refuses it)",
                    (model.describe(), distribution.refuses[kind])):
            spec.check_distributed(requirements)
    return check


def _distributed_accepts_its_other_models(spec: Method) -> None:
    distribution = spec.distributed
    assert distribution is not None
    for kind in MODELS:
        if _declares(spec, kind) and kind not in distribution.refuses:
            model = MODELS[kind]()
            try:
                spec.check_distributed(Requirements([KAnonymity(K), model] if kind != "KAnonymity" else [model]))
            except ConfigError as exc:
                raise AssertionError(f"a distributed run refuses {kind}, which it declares and does not list among"
                                     f" the models a fragment cannot judge: {exc}") from None


def _driver_option_in_memory(option: Option) -> Callable[[Method], None]:
    def check(spec: Method) -> None:
        table, attrs = method_case(1)
        value = _valid_value(option)
        with raises(ConfigError, f"the driver's option {option.name}={value!r} in memory", (option.name,)):
            _fit(spec, table, attrs, method_options={option.name: value})
    return check


def _warm_ups_are_valid(spec: Method) -> None:
    for warm_up in spec.warm_ups:
        where = f"warm-up {warm_up.label or '(unlabelled)'!r}"
        try:
            spec.check_options(warm_up.options)
        except ConfigError as exc:
            raise AssertionError(f"{where}: {exc}") from None
        for kind in warm_up.models:
            expect(_declares(spec, kind), f"{where} runs {kind}, which the method does not declare")
        expect(spec.suppresses or not warm_up.max_suppression, f"{where} has a suppression budget but the method"
               " declares suppresses=False")
        for column in (warm_up.sensitive, *warm_up.targets):
            expect(column in REGISTER_COLUMNS, f"{where} names {column!r}, which is no column of the patient"
                   f" register ({', '.join(REGISTER_COLUMNS)})")
        try:
            warm_up.privacy_models()
        except ValueError as exc:
            raise AssertionError(f"{where}: {exc}") from None
