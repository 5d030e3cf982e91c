"""anonset.testing: the contract checks shipped with the library pass on good extensions and catch broken ones.

Toy methods are written as modules in a temporary folder and registered by
their import path, as a method from outside anonset would be; a toy engine
wraps the numpy engine under another name.  A correct toy passes every
check; a broken one fails with a message naming it and what is wrong.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from anonset.core.dataset import Dataset
from anonset.core.stats import ClassStats, StatsRequest
from anonset.engine.base import Engine
from anonset.engine.numpy.engine import NumpyEngine
from anonset.methods import registry
from anonset.privacy import (
    AverageRisk,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    RecursiveCLDiversity,
    Requirements,
    SampleUniqueness,
    SquaredErrorDiversity,
    TCloseness,
)
from anonset.testing import (
    CheckFailure,
    EngineFactory,
    check_engine,
    check_method,
    engine_checks,
    method_checks,
    parametrize_with_checks,
    recheck,
)
from anonset.testing.data import method_case

#: A toy method module: ``{fit}`` is the body of its fit, ``{declared}`` more arguments of its declaration.
TOY = '''
"""A toy method written outside anonset."""

from typing import Any

import numpy as np

from anonset.methods.base import Family, Method, Option, Problem


class Classes:
    """Fitted classes; new records all go to class 0."""

    def __init__(self, row_class: np.ndarray) -> None:
        self.row_class = row_class

    def assign(self, dataset: Any) -> np.ndarray:
        return np.zeros(dataset.n_rows, dtype=np.int64)


def _fit(problem: Problem) -> Any:
    n = problem.dataset.n_rows
{fit}


METHOD = Method(name="{name}", family=Family.GROUPING, summary="a toy", fit=_fit, suppresses=False,
                options=(Option("loud", "bool", False, "an option to show validation"),),
                models=frozenset({{"KAnonymity", "DistinctLDiversity"}}){declared})
'''

#: Every record in one class: valid whenever the whole table is.
ONE_CLASS = "    return Classes(np.zeros(n, dtype=np.int64))"
#: Sorted by diagnosis and cut into runs of three: 3-anonymous, but most classes hold one diagnosis.
IGNORES_L = """    codes = problem.dataset.encoded["diagnosis"].row_codes()
    row_class = np.empty(n, dtype=np.int64)
    row_class[np.argsort(codes, kind="stable")] = np.minimum(np.arange(n) // 3, n // 3 - 1)
    return Classes(row_class)"""
#: Two random halves: valid, but another seed gives another release.
SEEDED = """    row_class = np.zeros(n, dtype=np.int64)
    row_class[np.random.default_rng(problem.seed).permutation(n)[: n // 2]] = 1
    return Classes(row_class)"""
#: Not a grouping at all.
WRONG_FAMILY = "    return {'classes': np.zeros(n, dtype=np.int64)}"


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Write a toy method module under a name of its own and register it by its import path."""
    monkeypatch.syspath_prepend(str(tmp_path))
    added: list[str] = []

    def write(name: str, fit: str, declared: str = "") -> str:
        module = f"toy_{name.replace('-', '_')}"
        (tmp_path / f"{module}.py").write_text(TOY.format(name=name, fit=fit, declared=declared))
        registry.register(module, name=name)
        added.append(name)
        return name

    yield write
    for name in added:
        registry.unregister(name)


def test_a_correct_toy_method_passes_every_check(toy: Any) -> None:
    name = toy("toy-one-class", ONE_CLASS)
    names = [n for n, _ in method_checks(name)]
    assert "enforces[DistinctLDiversity]" in names and "refuses[TCloseness]" in names
    assert "the_seed_changes_nothing" in names and "refuses_a_budget" in names
    assert "refuses_a_table_in_a_database" in names and "fit_returns_a_grouping" in names
    check_method(name)


def test_a_toy_that_ignores_a_declared_model_is_caught(toy: Any) -> None:
    name = toy("toy-ignores-l", IGNORES_L)
    checks = dict(method_checks(name))
    with pytest.raises(CheckFailure) as caught:
        checks["enforces[DistinctLDiversity]"]()
    message = str(caught.value)
    assert "method 'toy-ignores-l'" in message and "enforces[DistinctLDiversity]" in message
    assert "2-diversity" in message  # what is wrong: the model it breaks
    with pytest.raises(CheckFailure, match="method 'toy-ignores-l'"):
        check_method(name)


def test_a_toy_declared_deterministic_that_uses_the_seed_is_caught(toy: Any) -> None:
    name = toy("toy-seeded", SEEDED)
    checks = dict(method_checks(name))
    checks["the_same_seed_gives_the_same_release"]()  # the same seed: the same release
    with pytest.raises(CheckFailure) as caught:
        checks["the_seed_changes_nothing"]()
    message = str(caught.value)
    assert "method 'toy-seeded'" in message and "declared deterministic (randomized=False)" in message
    assert "declare randomized=True" in message


def test_the_same_toy_declared_randomized_passes(toy: Any) -> None:
    name = toy("toy-seeded-declared", SEEDED, declared=", randomized=True")
    names = [n for n, _ in method_checks(name)]
    assert "another_seed_gives_a_valid_release" in names and "the_seed_changes_nothing" not in names
    check_method(name)


def test_a_toy_returning_another_family_s_result_is_caught(toy: Any) -> None:
    name = toy("toy-wrong-family", WRONG_FAMILY)
    with pytest.raises(CheckFailure, match="method 'toy-wrong-family' fails check 'fit_returns_a_grouping'.*returned"
                                           " dict, not a Grouping"):
        dict(method_checks(name))["fit_returns_a_grouping"]()


def test_a_method_object_is_registered_only_while_its_checks_run() -> None:
    from anonset.methods.base import Family, Method

    class OneClass:
        def __init__(self, n: int) -> None:
            self.row_class = np.zeros(n, dtype=np.int64)

        def assign(self, dataset: Dataset) -> np.ndarray:
            return np.zeros(dataset.n_rows, dtype=np.int64)

    method = Method(name="toy-object", family=Family.GROUPING, summary="one class",
                    fit=lambda problem: OneClass(problem.dataset.n_rows), suppresses=False,
                    models=frozenset({"KAnonymity"}))
    check_method(method)
    assert "toy-object" not in registry.names()


def test_checks_name_every_declared_promise() -> None:
    """The checks come from the declarations: a ranked front, a database method, a distributed one."""
    ea = [n for n, _ in method_checks("pareto-ea")]
    assert "pick_releases_the_entry_it_names" in ea and "another_seed_gives_a_valid_release" in ea
    assert "releases_a_table_inside_the_database" in ea and "refuses[TCloseness]" in ea
    mondrian = [n for n, _ in method_checks("mondrian")]
    assert "refuses_pick" in mondrian and "enforces[TCloseness]" in mondrian
    if registry.get("mondrian").distributed is not None:
        assert "distributed_refuses[TCloseness]" in mondrian
        assert "refuses_the_driver_option_in_memory[fragments]" in mondrian
    optimal = [n for n, _ in method_checks("optimal")]
    assert "a_zero_budget_suppresses_nothing" in optimal and "enforces[PopulationUniqueness]" in optimal
    assert "an_ill_typed_option_names_what_it_accepts[assume_practical_monotonicity]" in optimal


def test_pytest_is_optional() -> None:
    """Importing anonset.testing loads no pytest; only parametrize_with_checks needs it."""
    code = "import sys, anonset.testing; print('pytest' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_parametrize_with_checks_gives_one_id_per_check() -> None:
    mark = parametrize_with_checks(["rv-local"])
    ((argnames, checks), kwargs) = mark.args, mark.kwargs
    assert argnames == "check"
    assert kwargs["ids"] == [f"rv-local-{n}" for n, _ in method_checks("rv-local")]
    assert len(checks) == len(kwargs["ids"])


# --------------------------------------------------------------------------- engines
class ToyEngine:
    """The numpy engine under another name, optionally miscounting the first class of every node."""

    def __init__(self, inner: NumpyEngine, wrong: bool = False) -> None:
        self.inner, self.wrong = inner, wrong

    @property
    def name(self) -> str:
        return "toy"

    def class_stats(self, levels: tuple[int, ...]) -> ClassStats:
        stats = self.inner.class_stats(levels)
        if not self.wrong:
            return stats
        sizes = stats.sizes.copy()
        sizes[0] += 1
        return ClassStats(sizes=sizes, keys=stats.keys, histograms=stats.histograms, sums=stats.sums,
                          sumsq=stats.sumsq, levels=stats.levels)

    def __enter__(self) -> ToyEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self.inner, attribute)


def _toy_factory(wrong: bool) -> EngineFactory:
    def build(stack: ExitStack, table: pd.DataFrame, attributes: dict[str, Any], request: StatsRequest, *,
              cache_cells: int, direct_rows: int) -> tuple[Engine, Dataset]:
        dataset = Dataset(table, attributes)
        inner = stack.enter_context(NumpyEngine(dataset, request, cache_cells=cache_cells, floor=dataset.min_levels))
        return ToyEngine(inner, wrong), dataset  # type: ignore[return-value]

    return EngineFactory("toy", build, database=False)


def test_a_toy_engine_passes_every_check() -> None:
    check_engine(_toy_factory(wrong=False))


def test_a_toy_engine_that_miscounts_is_caught() -> None:
    checks = dict(engine_checks(_toy_factory(wrong=True)))
    with pytest.raises(CheckFailure) as caught:
        checks["every_node_matches_the_reference[0]"]()
    assert "engine 'toy' fails check 'every_node_matches_the_reference[0]'" in str(caught.value)
    assert "node" in str(caught.value) and "records" in str(caught.value)


# --------------------------------------------------------------------------- the independent re-check
def _released(diagnoses: list[list[str]], stays: list[list[str]] | None = None) -> pd.DataFrame:
    """A release of classes ``age 20-29``, ``age 30-39``, ...: one per list of diagnoses."""
    rows = []
    for c, values in enumerate(diagnoses):
        for i, value in enumerate(values):
            stay = stays[c][i] if stays else "1"
            rows.append({"age": f"{20 + 10 * c}-{29 + 10 * c}", "sex": "*", "zip": "*", "diagnosis": value,
                         "length_of_stay": stay})
    return pd.DataFrame(rows, dtype=object)


@pytest.mark.parametrize(("model", "good", "bad"), [
    (KAnonymity(3), [["a", "b", "c"], ["a", "b", "c"]], [["a", "b", "c"], ["a", "b"]]),
    (DistinctLDiversity("diagnosis", 2), [["a", "b", "a"], ["b", "c", "c"]], [["a", "b", "a"], ["c", "c", "c"]]),
    (EntropyLDiversity("diagnosis", 2), [["a", "b"], ["c", "d"]], [["a", "b"], ["c", "c", "c", "d"]]),
    (RecursiveCLDiversity("diagnosis", 2, 2.0), [["a", "b", "c"], ["a", "b", "c"]],
     [["a", "b", "c"], ["a", "a", "a", "b"]]),
    (TCloseness("diagnosis", 0.3), [["a", "b"], ["a", "b"]], [["a", "a"], ["b", "b"]]),
    (AverageRisk(0.4), [["a", "b", "c"], ["a", "b", "c"]], [["a", "b"], ["a", "b"], ["c"]]),
    (SampleUniqueness(0.2), [["a", "b"], ["a", "b", "c"], ["d"]], [["a"], ["b"], ["c", "d"]]),
])
def test_the_recheck_judges_each_model_from_the_released_values(model: Any, good: list[list[str]],
                                                                bad: list[list[str]]) -> None:
    table, attrs = method_case(1)
    for diagnoses, holds in ((good, True), (bad, False)):
        released = _released(diagnoses)
        dataset = Dataset(table, attrs)
        original = released.copy()  # t-closeness compares each class with the input's distribution
        problems = recheck(released, original, dataset, Requirements([model]))
        assert (not problems) is holds, (model.describe(), diagnoses, problems)
        if not holds:
            assert model.describe() in problems[0]


def test_the_recheck_judges_squared_errors_and_the_budget() -> None:
    table, attrs = method_case(1, numeric_sensitive=True)
    dataset = Dataset(table, attrs)
    model = SquaredErrorDiversity("length_of_stay", 2.0)
    good = _released([["a", "a"], ["b", "b"]], [["1", "3"], ["2", "5"]])
    bad = _released([["a", "a"], ["b", "b"]], [["1", "3"], ["2", "2"]])
    assert recheck(good, good, dataset, Requirements([model])) == []
    assert "squared errors" in recheck(bad, bad, dataset, Requirements([model]))[0]
    # records missing from the release are suppressed ones: two of six, over a budget of none
    problems = recheck(good, good, dataset, Requirements([KAnonymity(2)]), n_input=6)
    assert problems and "more than the budget of 0" in problems[0]


def test_the_recheck_judges_the_suppressed_group_when_it_shows_values() -> None:
    table, attrs = method_case(1)
    dataset = Dataset(table, attrs)
    kept = _released([["a", "b"], ["c", "d"]])
    group = pd.DataFrame({"age": "*", "sex": "*", "zip": "*", "diagnosis": ["a", "a", "a"],
                          "length_of_stay": "1"}, dtype=object)
    requirements = Requirements([DistinctLDiversity("diagnosis", 2)], max_suppression=3 / 7)
    shown = pd.concat([kept, group], ignore_index=True)
    problems = recheck(shown, shown, dataset, requirements)
    assert len(problems) == 1 and problems[0].startswith("the suppressed records, released as one group")
    withheld = pd.concat([kept, group.assign(diagnosis="*")], ignore_index=True)
    assert recheck(withheld, shown, dataset, requirements) == []
    # beyond the budget the all-'*' group is a class like any other, judged by the models
    assert recheck(shown, shown, dataset, Requirements([DistinctLDiversity("diagnosis", 2)], 1 / 7))[0].startswith(
        "class (age '*'")


def test_the_recheck_passes_every_release_a_method_makes() -> None:
    """The same verdict as anonset's verifier on real releases (the suite runs it on every method)."""
    from anonset.anonymizer import Anonymizer

    table, attrs = method_case(2)
    requirements = Requirements([KAnonymity(3), DistinctLDiversity("diagnosis", 2)], max_suppression=0.05)
    model = Anonymizer(attrs, requirements, method="optimal").fit(table)
    assert model.release_.table is not None
    assert recheck(model.release_.table, table, model.dataset_, requirements) == []
    broken = model.release_.table.copy()
    broken.loc[broken.index[0], "age"] = "0-0"  # one record alone in a class of its own
    assert any("fewer than k = 3" in p for p in recheck(broken, table, model.dataset_, requirements))


def test_messages_of_a_check_name_the_subject_and_the_check() -> None:
    code = textwrap.dedent("""
        from anonset.testing import Check, CheckFailure
        try:
            Check("method 'x'", "the_check", lambda: 1 / 0)()
        except CheckFailure as exc:
            print(exc)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "method 'x' fails check 'the_check': it raised ZeroDivisionError: division by zero"


@pytest.mark.parametrize("seed", range(4))
def test_distinct_rows_of_the_independent_stats_are_numpy_s_unique_rows(seed: int) -> None:
    """Grouping records by one number per record (digits: the codes) gives np.unique's rows and inverse."""
    from anonset.testing.engines import _distinct_rows

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    columns = [rng.integers(-1, int(rng.integers(1, 9)), n) for _ in range(int(rng.integers(1, 6)))]
    rows, inverse = _distinct_rows(columns)
    expected_rows, expected_inverse = np.unique(np.column_stack(columns), axis=0, return_inverse=True)
    assert np.array_equal(rows, expected_rows) and np.array_equal(inverse, expected_inverse.reshape(-1))
    wide = [rng.integers(-1, 2**40, n) for _ in range(2)]  # digits past 2**62: np.unique's rows directly
    rows, inverse = _distinct_rows(wide)
    expected_rows, expected_inverse = np.unique(np.column_stack(wide), axis=0, return_inverse=True)
    assert np.array_equal(rows, expected_rows) and np.array_equal(inverse, expected_inverse.reshape(-1))
