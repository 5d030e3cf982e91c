"""Release sinks and the typed, immutable Release.

The sink of an engine is found by the engine's name (a toy engine registers
its own and the Anonymizer uses it without knowing it); the database sink
refuses its output before any work, leaves nothing behind on failure and
drops a replaced table only when the checked release is placed; the file
sink stages, verifies and places a run's files.  A Release cannot be changed
after the fact, and its summary is the JSON the command writes.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from anonset.anonymizer import Anonymizer
from anonset.cli import main
from anonset.core.dataset import Dataset
from anonset.core.stats import StatsRequest
from anonset.datasets import patient_register, patient_register_attributes
from anonset.engine.base import Engine
from anonset.engine.sql.duckdb import DuckDBBackend
from anonset.engine.sql.engine import SqlEngine
from anonset.engine.sql.postgres import PostgresBackend
from anonset.engine.sql.profile import dataset_from_table
from anonset.errors import ConfigError, DataError
from anonset.io.tables import write_table
from anonset.privacy import DistinctLDiversity, KAnonymity, Requirements
from anonset.recheck.verify import VerificationReport
from anonset.release.facts import (
    FrontFacts,
    GroupingFacts,
    SearchFacts,
    SuccessListEntry,
    TransformFacts,
)
from anonset.sinks import base as sinks
from anonset.sinks.base import FileOutput, FileSink, NodeRelease, register_sink, sink_factory
from anonset.sinks.database import DatabaseSink
from anonset.testing import SinkFactory, sink_checks
from support import PG_URL, PgSchema, pg_random_project, random_table

REGISTER = patient_register(600)
ATTRS = patient_register_attributes(REGISTER)
REQUIREMENTS = Requirements([KAnonymity(5), DistinctLDiversity("diagnosis", 2)], max_suppression=0.02)


@pytest.fixture()
def duck() -> Iterator[tuple[DuckDBBackend, Dataset]]:
    """The register in an in-memory DuckDB database (table ``data``) and its profiled dataset."""
    backend = DuckDBBackend.from_dataframe(REGISTER)
    try:
        yield backend, dataset_from_table(backend, "data", ATTRS)
    finally:
        backend.close()


def _tables(backend: DuckDBBackend) -> set[str]:
    rows = backend.fetch_rows("SELECT table_name FROM information_schema.tables", (), "listing the tables")
    return {str(r[0]) for r in rows}


def _node(engine: SqlEngine, requirements: Requirements = REQUIREMENTS) -> NodeRelease:
    """The release of the top node of the register (every class one: nothing suppressed)."""
    levels = tuple(h.max_level for h in engine.dataset.hierarchies)
    stats = engine.class_stats(levels)
    verdict = requirements.judge(stats, engine.dataset.n_rows)
    suppressed = int(stats.sizes[verdict.violating].sum())
    return NodeRelease(engine=engine, levels=levels, violating_keys=stats.keys[verdict.violating],
                       suppressed_rows=suppressed, requirements=requirements)


# --------------------------------------------------------------------------- the immutable Release
def test_a_release_cannot_be_changed() -> None:
    options: dict[str, Any] = {}
    model = Anonymizer(ATTRS, REQUIREMENTS, method_options=options).fit(REGISTER)
    release = model.release_
    with pytest.raises(dataclasses.FrozenInstanceError):
        release.location = "elsewhere"  # type: ignore[misc]
    with pytest.raises(TypeError):
        release.metrics["loss"] = 0.0  # type: ignore[index]
    assert release.levels is not None
    with pytest.raises(TypeError):
        release.levels["age"] = 0  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        release.provenance.seed = 7  # type: ignore[misc]
    with pytest.raises(TypeError):
        release.provenance.method_options["x"] = 1  # type: ignore[index]
    assert isinstance(release.warnings, tuple) and isinstance(release.provenance.requirements, tuple)
    model.method_options["strategy"] = "changed later"
    assert "strategy" not in release.summary()["provenance"]["method_options"]


def test_each_family_carries_its_typed_facts() -> None:
    search = Anonymizer(ATTRS, REQUIREMENTS).fit(REGISTER).release_.search
    assert isinstance(search, SearchFacts) and search.strategy == "bound-ordered" and search.success_list is None
    assert "prefiltered" in search.details and search.optimized == "loss"

    rv = Anonymizer(ATTRS, Requirements([KAnonymity(5)], 0.02), method="rv-global").fit(REGISTER).release_
    assert isinstance(rv.search, SearchFacts) and rv.search.success_list
    assert all(isinstance(e, SuccessListEntry) for e in rv.search.success_list)
    assert rv.search.complete is True and rv.search.frequency_sets == rv.search.nodes_checked

    model = Anonymizer(ATTRS, Requirements([KAnonymity(5)]), method="mondrian").fit(REGISTER)
    grouping = model.release_.search
    assert isinstance(grouping, GroupingFacts) and grouping.classes >= model.release_.n_classes
    assert grouping.ranges_may_overlap is False  # strict by default: regions share no value
    assert model.transform(REGISTER, return_release=True).search == TransformFacts(classes=grouping.classes)

    full = Anonymizer(ATTRS, REQUIREMENTS).fit(REGISTER)
    assert full.transform(pd.concat([REGISTER] * 2, ignore_index=True), return_release=True).search == TransformFacts()


def test_the_summary_keeps_long_lists_at_the_top_level_as_the_command_writes_them() -> None:
    rv = Anonymizer(ATTRS, Requirements([KAnonymity(5)], 0.02), method="rv-global").fit(REGISTER).release_
    summary = rv.summary(seconds=1.234567, config="run.yaml")
    assert "success_list" not in summary["search"] and summary["success_list"][0]["levels"] == dict(rv.levels or {})
    assert summary["frequency_sets"] == summary["search"]["frequency_sets"]
    assert list(summary)[-3:] == ["warnings", "success_list", "frequency_sets"]
    assert summary["seconds"] == 1.2346 and list(summary["provenance"])[-1] == "config"
    assert summary["provenance"]["config"] == "run.yaml"
    assert rv.summary()["seconds"] == round(rv.seconds, 4) and "config" not in rv.summary()["provenance"]
    json.dumps(summary)

    table, hierarchies = random_table(np.random.default_rng(3), 300, 3, n_sensitive_values=5)
    attrs: dict[str, Any] = {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()}
    attrs["s"] = {"role": "sensitive"}
    front = Anonymizer(attrs, Requirements([KAnonymity(3)], 0.02), method="pareto-exhaustive",
                       method_options={"objectives": ["k", "glm"]}).fit(table.drop(columns=["x"])).release_
    assert isinstance(front.search, FrontFacts) and front.search.chosen_by == "floor"
    summary = front.summary()
    assert "front" not in summary["search"] and len(summary["front"]) == len(front.search.front)
    assert list(summary)[-2:] == ["front", "nodes_evaluated"]
    assert summary["front"][front.search.picked]["levels"] == dict(front.levels or {})
    json.dumps(summary)


def test_written_to_names_the_file_and_forgets_a_scratch_table(duck: tuple[DuckDBBackend, Dataset]) -> None:
    backend, dataset = duck
    with SqlEngine(dataset, REQUIREMENTS.request, backend, "data") as engine:
        release = Anonymizer({}, REQUIREMENTS, output_table="scratch").fit(dataset, engine=engine).release_
    assert release.location == backend.where(("scratch",)) and release.provenance.output_table == "scratch"
    assert release.summary()["provenance"]["output_table"] == "scratch"
    copied = release.written_to("out.csv")
    assert copied.location == "out.csv" and copied.provenance.output_table is None
    assert "output_table" not in copied.summary()["provenance"] and copied.summary()["output"] == "out.csv"
    assert copied.summary()["provenance"]["database"] == backend.description
    assert release.location == backend.where(("scratch",))  # the original is unchanged


# --------------------------------------------------------------------------- the sink of an engine
def test_the_sink_of_an_engine_is_found_by_its_name(duck: tuple[DuckDBBackend, Dataset]) -> None:
    backend, dataset = duck
    assert sink_factory("numpy") is None
    factory = sink_factory("duckdb")
    assert factory is not None and sink_factory("postgresql") is factory
    with SqlEngine(dataset, REQUIREMENTS.request, backend, "data") as engine:
        sink = factory(engine, "out", False)
    assert isinstance(sink, DatabaseSink) and sink.location == backend.where(("out",))
    assert sink.output_table == "out" and sink.database == backend.description


class _ToyEngine:
    """An engine of its own name that computes through an SqlEngine (stands for, say, a Spark engine)."""

    def __init__(self, inner: SqlEngine):
        self.inner = inner

    @property
    def name(self) -> str:
        return "toy"

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self.inner, attribute)


class _RecordingSink:
    """The toy engine's sink: a database sink that writes down every step it is asked for."""

    def __init__(self, inner: DatabaseSink, calls: list[str], fail_verify: bool = False):
        self.inner, self.calls, self.fail_verify = inner, calls, fail_verify
        self.location, self.database, self.output_table = inner.location, "toy store", inner.output_table

    def check(self) -> None:
        self.calls.append("check")
        self.inner.check()

    def stage(self, item: NodeRelease) -> None:
        self.calls.append("stage")
        self.inner.stage(dataclasses.replace(item, engine=item.engine.inner))  # type: ignore[attr-defined]

    def verify(self) -> VerificationReport:
        self.calls.append("verify")
        if self.fail_verify:
            raise RuntimeError("simulated failure")
        return self.inner.verify()

    def place(self) -> None:
        self.calls.append("place")
        self.inner.place()

    def discard(self) -> None:
        self.calls.append("discard")
        self.inner.discard()

    def undeclared(self, k: int) -> list[str]:
        self.calls.append("undeclared")
        return self.inner.undeclared(k)


@pytest.mark.parametrize("fail", [False, True])
def test_a_registered_sink_is_what_the_anonymizer_uses(duck: tuple[DuckDBBackend, Dataset],
                                                       monkeypatch: pytest.MonkeyPatch, fail: bool) -> None:
    backend, dataset = duck
    calls: list[str] = []
    monkeypatch.setitem(sinks._SINKS, "toy", lambda engine, table, replace: _RecordingSink(
        DatabaseSink(engine.inner.backend, table, replace=replace, source=engine.inner.table), calls, fail))
    before = _tables(backend)
    with SqlEngine(dataset, REQUIREMENTS.request, backend, "data") as inner:
        model = Anonymizer({}, REQUIREMENTS, output_table="toy_out")
        if fail:
            with pytest.raises(RuntimeError, match="simulated failure"):
                model.fit(dataset, engine=_ToyEngine(inner))  # type: ignore[arg-type]
        else:
            release = model.fit(dataset, engine=_ToyEngine(inner)).release_  # type: ignore[arg-type]
    if fail:
        assert calls == ["check", "stage", "verify", "discard"]
        assert _tables(backend) == before
        return
    assert calls == ["check", "stage", "verify", "undeclared", "place"]  # undeclared columns checked before placing
    assert release.engine == "toy" and release.provenance.database == "toy store" and release.verified
    assert _tables(backend) == before | {"toy_out"} and isinstance(model.sink_, _RecordingSink)


def test_an_engine_without_a_sink_is_refused_for_a_database_table(duck: tuple[DuckDBBackend, Dataset]) -> None:
    backend, dataset = duck
    with SqlEngine(dataset, REQUIREMENTS.request, backend, "data") as inner, \
            pytest.raises(ConfigError, match="the rows of this dataset stay in a database"):
        Anonymizer({}, REQUIREMENTS, output_table="x").fit(dataset, engine=_ToyEngine(inner))  # type: ignore[arg-type]


def test_register_sink_adds_a_factory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sinks, "_SINKS", dict(sinks._SINKS))
    factory = sink_factory("duckdb")
    assert factory is not None
    register_sink("spark", factory)
    assert sink_factory("spark") is factory


# --------------------------------------------------------------------------- the database sink
def _open_duckdb(stack: ExitStack, table: pd.DataFrame, attributes: dict[str, Any],
                 request: StatsRequest) -> tuple[Engine, Dataset, str]:
    """The register in an in-memory DuckDB database (table ``data``), its profiled dataset and an engine."""
    backend = stack.enter_context(DuckDBBackend.from_dataframe(table))
    dataset = dataset_from_table(backend, "data", attributes)
    return stack.enter_context(SqlEngine(dataset, request, backend, "data")), dataset, "data"


def _open_postgres(stack: ExitStack, table: pd.DataFrame, attributes: dict[str, Any],
                   request: StatsRequest) -> tuple[Engine, Dataset, tuple[str, str]]:
    """The register in a schema of its own on the test server (skips when it is unreachable)."""
    pg = PgSchema(PG_URL)
    stack.callback(pg.close)
    ref = pg.load(table)
    backend = stack.enter_context(PostgresBackend(pg.url))
    dataset = dataset_from_table(backend, ref, attributes)
    return stack.enter_context(SqlEngine(dataset, request, backend, ref)), dataset, ref


def _beside(engine: Any, name: str) -> tuple[str, ...]:
    """Output ``name`` in the schema of the engine's table (DuckDB: no schema)."""
    return (*engine.table[:-1], name) if isinstance(engine.table, tuple) else (name,)


def _outputs(engine: Any) -> set[str]:
    where = _beside(engine, "")[:-1]
    if not where:
        return _tables(engine.backend)
    rows = engine.backend.fetch_rows("SELECT table_name FROM information_schema.tables WHERE table_schema = %s",
                                     where, "listing the tables")
    return {str(r[0]) for r in rows}


def _create(engine: Any, name: str) -> None:
    ref = engine.backend.table_ref(_beside(engine, name))
    engine.backend.execute(f"CREATE TABLE {ref} AS SELECT 1 AS old", (), "creating an earlier output")


def _database_sink(name: str, store: Any) -> SinkFactory:
    """The database sink (the one registered for ``name``) over ``store``, as anonset.testing checks it."""
    make = sink_factory(name)
    assert make is not None
    return SinkFactory(name, make, store, outputs=_outputs, create=_create, output=_beside,
                       columns=lambda engine, table: engine.backend.columns(_beside(engine, table)))


DATABASE_SINKS = {"duckdb": _database_sink("duckdb", _open_duckdb),
                  "postgresql": _database_sink("postgresql", _open_postgres)}
#: Every check of a sink, by name (the same for each database sink).
SINK_CHECKS = [name for name, _ in sink_checks(DATABASE_SINKS["duckdb"])]


@pytest.mark.parametrize("sink", list(DATABASE_SINKS))
@pytest.mark.parametrize("check", SINK_CHECKS)
def test_the_database_sink_conforms(sink: str, check: str) -> None:
    """Refused before any work, nothing left behind, a replaced table dropped only when placed, suppression checked."""
    dict(sink_checks(DATABASE_SINKS[sink]))[check]()


def test_the_database_sink_says_what_it_refuses(duck: tuple[DuckDBBackend, Dataset]) -> None:
    backend, dataset = duck
    backend.execute("CREATE TABLE taken AS SELECT 1 AS old", (), "creating a table")
    with pytest.raises(ConfigError, match="the output table is the input table"):
        DatabaseSink(backend, "data", replace=True, source="data").check()
    with pytest.raises(DataError, match="already exists"):
        DatabaseSink(backend, "taken", source="data").check()
    with SqlEngine(dataset, REQUIREMENTS.request, backend, "data") as engine:
        sink = DatabaseSink.for_engine(engine, "taken")
        sink.stage(_node(engine))
        with pytest.raises(DataError, match="appeared during the run"):
            sink.place()
        sink.discard()
        sink = DatabaseSink.for_engine(engine, "out")
        sink.stage(dataclasses.replace(_node(engine), suppressed_rows=1))
        with pytest.raises(RuntimeError, match="the release suppressed 0 records but the node's classes say 1"):
            sink.verify()
        sink.discard()


# --------------------------------------------------------------------------- the file sink
def test_the_file_sink_stages_verifies_and_places_files(tmp_path: Path) -> None:
    source = tmp_path / "in.csv"
    write_table(REGISTER.head(3), source)
    with pytest.raises(ConfigError, match="would overwrite the input"):
        FileSink({"release": source}, {"input": source}).check()
    release, summary = tmp_path / "r.csv", tmp_path / "s.json"
    with FileSink({"release": release, "summary": summary}, {"input": source}) as files:
        files.check()
        assert files.location == str(release)
        files.stage(FileOutput(release, lambda tmp: tmp.write_text("a\n1\n")))
        files.stage(FileOutput(summary, lambda tmp: tmp.write_text("{}\n")))
        assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == ["in.csv"]
        files.verify()
        files.place()
    assert release.read_text() == "a\n1\n" and summary.read_text() == "{}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv", "r.csv", "s.json"]
    assert FileSink({"release": Path("-")}).location == "standard output" and FileSink({}).location is None


def test_the_file_sink_notices_a_staged_file_that_changed(tmp_path: Path) -> None:
    target = tmp_path / "r.csv"
    with FileSink({"release": target}) as files:
        files.stage(FileOutput(target, lambda tmp: tmp.write_text("a\n1\n")))
        (staged,) = [p for p in tmp_path.iterdir() if p.name.startswith(".")]
        staged.write_text("a\n")
        with pytest.raises(DataError, match="removed or changed before it was put in place"):
            files.verify()
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- the command
@pytest.mark.skipif(not Path("/dev/full").exists(), reason="/dev/full is not available")
def test_a_failing_summary_removes_a_new_table_even_with_replace_but_keeps_one_that_replaced(
        tmp_path: Path) -> None:
    """replace: true over no table is a new table, dropped again; one that replaced a table stays."""
    pg = PgSchema(PG_URL)
    try:
        config, name = pg_random_project(pg, tmp_path, "table: {schema}.released, replace: true")
        schema = pg.name
        failed = CliRunner().invoke(main, ["anonymize", str(config), "--summary", "/dev/full", "-q"])
        assert failed.exit_code == 2 and "No space left" in failed.stderr
        assert pg.tables() == {name}
        pg.con.execute(f'CREATE TABLE "{schema}".released AS SELECT 1 AS old')
        failed = CliRunner().invoke(main, ["anonymize", str(config), "--summary", "/dev/full", "-q"])
        assert failed.exit_code == 2
        assert pg.tables() == {name, "released"} and "old" not in pg.fetch("released").columns
    finally:
        pg.close()
