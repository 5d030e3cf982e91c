"""The checks of a release sink: check before any work, stage where nobody reads, verify, place, or discard.

A sink is described by a :class:`SinkFactory`: the factory an engine
registers (:func:`anonset.sinks.base.register_sink`), and what the checks
need to see into the store it writes (open an engine over a table there,
list what the store holds, create an output, read an output's columns).
:func:`sink_checks` yields its checks, on the synthetic patient register
(600 records, its top node released: one class):

- an output that is the input is refused (``ConfigError``), an existing one
  without replace too (``DataError``), before any work; with replace (when
  the sink can) and a free name it is accepted;
- staging adds one entry beside the output and none under its name; the
  staged release passes the sink's re-check (one class); discarding twice
  leaves the store as it was; a placed release is the output, and
  discarding it then (the run's other outputs failed) removes it;
- a replaced output is dropped only when the new release is placed: a
  discarded replacement keeps the old one, a placed one stays even when
  discarded afterwards; an output that appeared during the run is refused
  at placing (``DataError``);
- the re-check refuses a release whose suppressed records are not those the
  node's classes say (``RuntimeError``) and discarding leaves nothing;
- when the factory is the one registered for its engine's name, the
  Anonymizer releases through it: a verified release, placed as the output.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import pandas as pd

from anonset.anonymizer import Anonymizer
from anonset.core.dataset import Dataset
from anonset.core.stats import StatsRequest
from anonset.datasets import patient_register, patient_register_attributes
from anonset.engine.base import Engine
from anonset.errors import ConfigError, DataError
from anonset.privacy import DistinctLDiversity, KAnonymity, Requirements
from anonset.sinks.base import NodeRelease, sink_factory
from anonset.sinks.base import SinkFactory as MakeSink
from anonset.testing.checks import Check, expect, quiet, raises

__all__ = ["SinkFactory", "check_sink", "sink_checks"]

#: open(stack, table, attributes, request) -> (engine over the table in the store, its dataset, the input's name)
Open = Callable[[ExitStack, pd.DataFrame, dict[str, Any], StatsRequest], tuple[Engine, Dataset, Any]]


@dataclass(frozen=True)
class SinkFactory:
    """A release sink as the checks build and judge it, with what they need to see into its store.

    Attributes
    ----------
    name : str
        The name of the engines whose sink it is (as registered with
        :func:`~anonset.sinks.base.register_sink`, and as messages name it).
    make : callable
        ``make(engine, output, replace)``: the sink, as registered with
        :func:`~anonset.sinks.base.register_sink`.
    open : callable
        ``open(stack, table, attributes, request)``: an engine over ``table``
        loaded into the store, its dataset, and the input's name as an output
        would name it.  Whatever it opens goes on ``stack``.
    outputs : callable
        ``outputs(engine)``: the names of what the store holds next to an
        output (tables of the database, entries of the folder).
    create : callable
        ``create(engine, name)``: an output ``name`` that already exists,
        with one column, ``old``.
    columns : callable
        ``columns(engine, name)``: the columns of output ``name``.
    output : callable
        ``output(engine, name)``: the output called ``name`` beside the
        engine's table, as ``make`` takes it (default: the name itself).
    replaces : bool
        Whether the sink can replace an existing output.
    """

    name: str
    make: MakeSink
    open: Open
    outputs: Callable[[Engine], set[str]]
    create: Callable[[Engine, str], None]
    columns: Callable[[Engine, str], list[str]]
    output: Callable[[Engine, str], Any] = lambda engine, name: name
    replaces: bool = True


def check_sink(factory: SinkFactory) -> None:
    """Run every check of the sink; the first failure raises :class:`CheckFailure`."""
    for _, check in sink_checks(factory):
        check()


def sink_checks(factory: SinkFactory) -> Iterator[tuple[str, Check]]:
    """The sink's checks as ``(name, check)`` pairs; calling a check opens the store and runs it."""
    subject = f"sink {factory.name!r}"

    def make(name: str, body: Callable[[Store], None]) -> tuple[str, Check]:
        def run() -> None:
            register = patient_register(600)
            with ExitStack() as stack:
                engine, dataset, source = factory.open(stack, register, dict(patient_register_attributes(register)),
                                                       REQUIREMENTS.request)
                body(Store(factory, engine, dataset, source))
        return name, Check(subject, name, run)

    yield make("refuses_its_output_before_any_work", _refuses_its_output_before_any_work)
    yield make("stages_verifies_places_and_leaves_nothing_behind", _leaves_nothing_behind)
    if factory.replaces:
        yield make("drops_a_replaced_output_only_when_it_places_the_release", _replaces_only_when_placing)
    yield make("verify_checks_the_suppressed_records", _checks_the_suppressed_records)
    if sink_factory(factory.name) is factory.make:  # the sink of its engines: the Anonymizer uses it
        yield make("the_anonymizer_releases_through_it", _the_anonymizer_releases_through_it)


#: What the staged releases are re-checked against.
REQUIREMENTS = Requirements([KAnonymity(5), DistinctLDiversity("diagnosis", 2)], max_suppression=0.02)


@dataclass
class Store:
    """The store of one check: the engine over the register, its dataset, the input's name."""

    factory: SinkFactory
    engine: Engine
    dataset: Dataset
    source: Any

    def sink(self, name: str, replace: bool = False) -> Any:
        return self.factory.make(self.engine, self.factory.output(self.engine, name), replace)

    def outputs(self) -> set[str]:
        return set(self.factory.outputs(self.engine))

    def node(self) -> NodeRelease:
        """The release of the register's top node (every record in one class: nothing suppressed)."""
        levels = tuple(h.max_level for h in self.dataset.hierarchies)
        stats = self.engine.class_stats(levels)
        verdict = REQUIREMENTS.judge(stats, self.dataset.n_rows)
        suppressed = int(stats.sizes[verdict.violating].sum())
        return NodeRelease(engine=self.engine, levels=levels, violating_keys=stats.keys[verdict.violating],
                           suppressed_rows=suppressed, requirements=REQUIREMENTS)


def _refuses_its_output_before_any_work(store: Store) -> None:
    replace = store.factory.replaces
    with raises(ConfigError, "the input as the output"):
        store.factory.make(store.engine, store.source, replace).check()
    store.factory.create(store.engine, "taken")
    with raises(DataError, "an output that exists, without replace", ("already exists",)):
        store.sink("taken").check()
    if replace:
        store.sink("taken", replace=True).check()
    store.sink("free").check()


def _leaves_nothing_behind(store: Store) -> None:
    before = store.outputs()  # with the engine's working tables
    sink = store.sink("out")
    sink.stage(store.node())
    staged = store.outputs()
    expect(len(staged) == len(before) + 1 and before <= staged and "out" not in staged,
           f"staging should add one entry beside the output, none under its name: added {sorted(staged - before)}")
    report = sink.verify()
    expect(report.ok and report.classes == 1, f"the staged top node should pass its re-check as one class: ok"
           f" {report.ok}, {report.classes} classes, problems {list(report.problems)}")
    sink.discard()
    sink.discard()
    expect(store.outputs() == before, f"discarding left {sorted(store.outputs() - before)} behind")

    sink = store.sink("out")
    sink.stage(store.node())
    sink.verify()
    sink.place()
    expect(store.outputs() == before | {"out"}, f"placing gave {sorted(store.outputs() - before)}, not the output")
    sink.discard()  # placed ahead of other outputs that failed: nothing was replaced, so it goes
    expect(store.outputs() == before, "discarding a placed release that replaced nothing did not remove it")


def _replaces_only_when_placing(store: Store) -> None:
    store.factory.create(store.engine, "out")
    before = store.outputs()
    sink = store.sink("out", replace=True)
    sink.stage(store.node())
    sink.discard()
    expect(store.factory.columns(store.engine, "out") == ["old"], "a discarded replacement did not keep the old"
           " output")

    sink = store.sink("out", replace=True)
    sink.stage(store.node())
    sink.verify()
    sink.place()
    expect("old" not in store.factory.columns(store.engine, "out"), "a placed replacement left the old output")
    sink.discard()  # the old output is gone: the new one stays
    expect("out" in store.outputs(), "discarding removed a release that had replaced an output")

    sink = store.sink("out")
    sink.stage(store.node())
    with raises(DataError, "placing over an output that appeared during the run"):
        sink.place()
    sink.discard()
    expect(store.outputs() == before, f"the store changed: {sorted(store.outputs() ^ before)}")


def _checks_the_suppressed_records(store: Store) -> None:
    before = store.outputs()
    sink = store.sink("out")
    sink.stage(dataclasses.replace(store.node(), suppressed_rows=1))
    with raises(RuntimeError, "a release that suppressed 0 records where the node's classes say 1"):
        sink.verify()
    sink.discard()
    expect(store.outputs() == before, f"discarding left {sorted(store.outputs() - before)} behind")


def _the_anonymizer_releases_through_it(store: Store) -> None:
    before = store.outputs()
    with quiet():
        model = Anonymizer({}, REQUIREMENTS, output_table=store.factory.output(store.engine, "released")).fit(
            store.dataset, engine=store.engine)
    release = model.release_
    expect(release.verified and release.engine == store.engine.name, "the Anonymizer's release through the sink"
           " is not verified, or names another engine")
    expect(store.outputs() == before | {"released"}, f"the Anonymizer's release placed"
           f" {sorted(store.outputs() - before)}, not the output")
