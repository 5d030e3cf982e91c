"""One conformance suite for every registered method, read from the registry (no hand-kept list).

For each method, on small random tables: the release passes the independent
re-check (classes recomputed here with pandas from the released values, and
anonset's verifier); the same seed gives the same bytes; an unknown or
ill-typed option is a ``ConfigError`` naming what is allowed; a privacy model
the method does not declare is refused in one line, and one it declares is
enforced; a budget is refused by a method that suppresses nothing;
``transform`` on new rows is re-checked; and a method that runs in a database
gives the numpy engine's release on DuckDB.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from anonset.anonymizer import Anonymizer, ReleaseViolation
from anonset.core.dataset import Dataset
from anonset.engine.sql.duckdb import DuckDBBackend
from anonset.engine.sql.engine import SqlEngine
from anonset.errors import ConfigError, InfeasibleError
from anonset.methods import registry
from anonset.methods.base import Family, Method
from anonset.privacy import DistinctLDiversity, KAnonymity, Requirements, TCloseness
from anonset.release.release import SUPPRESSED
from anonset.release.verify import verify_release
from support import random_table

METHODS = registry.names()
K, L = 3, 2


def _table(seed: int, n_rows: int = 120) -> tuple[pd.DataFrame, dict[str, Any]]:
    rng = np.random.default_rng(seed)
    table, hierarchies = random_table(rng, n_rows, 3, n_sensitive_values=4)
    attrs: dict[str, Any] = {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()}
    attrs["s"] = {"role": "sensitive"}
    attrs["x"] = {"role": "insensitive"}
    return table, attrs


def _requirements(method: Method, *extra: Any) -> Requirements:
    """k-anonymity, distinct l-diversity where the method can take it as a requirement, a budget where it suppresses."""
    models: list[Any] = [KAnonymity(K)]
    if method.family is not Family.FRONT and (method.models is None or "DistinctLDiversity" in method.models):
        models.append(DistinctLDiversity("s", L))
    return Requirements([*models, *extra], max_suppression=0.05 if method.suppresses else 0.0)


def _independent_check(release_table: pd.DataFrame, requirements: Requirements, n_input: int) -> None:
    """Classes from the released values alone: every unsuppressed class meets k and l; the budget holds."""
    quasi = ["q0", "q1", "q2"]
    suppressed = (release_table[quasi].astype(str) == SUPPRESSED).all(axis=1)
    kept = release_table[~suppressed]
    assert n_input - len(kept) <= requirements.max_suppression * n_input + 1e-9
    if not len(kept):
        return
    groups = kept.groupby(quasi, dropna=False)["s"]
    k = min(m.k for m in requirements.models if isinstance(m, KAnonymity))
    assert groups.size().min() >= k
    for model in requirements.models:
        if isinstance(model, DistinctLDiversity):
            assert groups.nunique().min() >= model.l


def _fit(name: str, table: pd.DataFrame, attrs: dict[str, Any], requirements: Requirements | None = None,
         **kwargs: Any) -> Anonymizer:
    method = registry.get(name)
    return Anonymizer(attrs, requirements or _requirements(method), method=name, seed=7, **kwargs).fit(table)


@pytest.mark.parametrize("name", METHODS)
def test_release_passes_the_independent_check(name: str) -> None:
    table, attrs = _table(1)
    model = _fit(name, table, attrs)
    release = model.release_
    assert release.verified and release.table is not None
    assert len(release.table) == len(table)  # suppressed records are marked, never dropped silently
    requirements = model.release_requirements_ if registry.get(name).family is Family.FRONT else model.requirements
    report = verify_release(release.table, model.dataset_, requirements, len(table))
    assert report.ok, report.problems
    _independent_check(release.table, requirements, len(table))


@pytest.mark.parametrize("name", METHODS)
def test_the_same_seed_gives_the_same_bytes(name: str) -> None:
    table, attrs = _table(2)
    first = _fit(name, table, attrs).release_.table
    second = _fit(name, table, attrs).release_.table
    assert first is not None and second is not None
    assert first.to_csv(index=False) == second.to_csv(index=False)


@pytest.mark.parametrize("name", METHODS)
def test_an_unknown_option_names_the_allowed_ones(name: str) -> None:
    method = registry.get(name)
    with pytest.raises(ConfigError) as caught:
        Anonymizer({}, _requirements(method), method=name, method_options={"no_such_option": 1})
    message = str(caught.value)
    assert "\n" not in message and "no option 'no_such_option'" in message
    assert all(option.name in message for option in method.options)
    if not method.options:
        assert "takes no options" in message


@pytest.mark.parametrize(("name", "option"), [(n, o.name) for n in METHODS for o in registry.get(n).options])
def test_an_ill_typed_option_names_what_it_accepts(name: str, option: str) -> None:
    method = registry.get(name)
    declared = method.option(option)
    assert declared is not None
    with pytest.raises(ConfigError) as caught:
        Anonymizer({}, _requirements(method), method=name, method_options={option: object()})
    message = str(caught.value)
    assert "\n" not in message and f"option {option!r} must be" in message and declared.describe() in message


@pytest.mark.parametrize("name", METHODS)
def test_models_outside_the_declaration_are_refused_and_inside_it_enforced(name: str) -> None:
    method = registry.get(name)
    table, attrs = _table(4)
    closeness = TCloseness("s", 0.6)
    if method.models is not None and "TCloseness" not in method.models:
        with pytest.raises(ConfigError) as caught:
            Anonymizer(attrs, _requirements(method, closeness), method=name)
        assert "\n" not in str(caught.value) and "cannot enforce" in str(caught.value)
        return
    requirements = _requirements(method, closeness)
    try:
        model = _fit(name, table, attrs, requirements)
    except InfeasibleError:
        pytest.fail(f"{name} declares every model but found no release under {requirements.describe()}")
    assert model.release_.table is not None
    report = verify_release(model.release_.table, model.dataset_, requirements, len(table))
    assert report.ok, report.problems


@pytest.mark.parametrize("name", [n for n in METHODS if not registry.get(n).suppresses])
def test_a_method_that_suppresses_nothing_refuses_a_budget(name: str) -> None:
    requirements = Requirements([KAnonymity(K)], max_suppression=0.1)
    with pytest.raises(ConfigError, match=f"method '{name}' suppresses no records"):
        Anonymizer({}, requirements, method=name)


@pytest.mark.parametrize("name", METHODS)
def test_transform_on_new_rows_is_rechecked(name: str) -> None:
    """New rows get the learned recoding and a fresh check: a verified release, or a refusal, never a silent one.

    The fitted rows twice over are new rows whose classes all stay valid for
    a full-domain node; a partitioning method places each row by its rule
    (with overlapping classes a row may land in another class than the one it
    was fitted in), so the check may refuse them: then ``on_violation='warn'``
    returns the release marked unverified.
    """
    table, attrs = _table(5)
    model = _fit(name, table, attrs)
    doubled = pd.concat([table, table], ignore_index=True)
    requirements = model.release_requirements_ if registry.get(name).family is Family.FRONT else model.requirements
    try:
        release = model.transform(doubled, return_release=True)
    except InfeasibleError:
        assert registry.get(name).family is Family.GROUPING
        model.on_violation = "warn"
        with pytest.warns(ReleaseViolation):
            release = model.transform(doubled, return_release=True)
        assert not release.verified
    else:
        assert release.verified and release.table is not None and len(release.table) == len(doubled)
        _independent_check(release.table, requirements, len(doubled))
    model.on_violation = "raise"
    with pytest.raises(InfeasibleError):  # two records cannot form a class of k = 3
        model.transform(table.iloc[:2], return_release=True)


@pytest.mark.parametrize("name", [n for n in METHODS if not registry.get(n).in_memory])
def test_the_duckdb_engine_gives_the_numpy_release(name: str) -> None:
    table, attrs = _table(6)
    method = registry.get(name)
    requirements = _requirements(method)
    on_numpy = _fit(name, table, attrs, requirements)
    dataset = Dataset(table, attrs)
    with DuckDBBackend.from_dataframe(table) as backend, \
            SqlEngine(dataset, requirements.request, backend, "data") as engine:
        on_duckdb = Anonymizer(attrs, requirements, method=name, seed=7).fit(dataset, engine=engine)
    assert on_duckdb.levels_ == on_numpy.levels_
    assert on_duckdb.release_.table is not None and on_numpy.release_.table is not None
    assert on_duckdb.release_.table.to_csv(index=False) == on_numpy.release_.table.to_csv(index=False)
