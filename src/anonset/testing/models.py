"""The checks of a privacy model, generated from what it declares (``monotonic``, ``release_level``, ``request``).

A model is judged on the classes of the synthetic patient register (300
records; age, sex, ZIP code and marital status quasi-identifying, the
diagnosis a categorical and the length of stay a numeric sensitive
attribute), node by node of its lattice, with the numpy engine computing
only the statistics the model requests:

- it describes itself in one line, and its summary is JSON naming its class;
- it accepts the register (``validate``);
- ``satisfied`` gives one boolean per class, from the statistics it requests;
- a per-class model judges each class alone (its verdict on some classes is
  its verdict on them among all); a release-level model accepts again the
  classes it kept;
- ``monotonic``: at every node it accepts (without suppression), it accepts
  every node one level more general;
- ``size_only``: its verdict is "at least ``min_class_size`` records", and
  that floor is at least 2 (a floor of 1 protects nothing);
- ``monotonic_with_suppression``: a record that passes at a node passes at
  every node one level more general;
- ``violation_floor`` (when the model gives one): the records it counts at a
  node never exceed those violating it at that node or any more specific one;
- its verdict on a record does not depend on the order of the records (the
  register shuffled gives every record the same verdict).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pandas as pd

from anonset.core.dataset import AttributeSpec, Dataset, Role
from anonset.datasets import patient_register, patient_register_attributes
from anonset.engine.numpy.engine import NumpyEngine
from anonset.methods.full_domain.search import lattice_of
from anonset.privacy import PrivacyModel, Requirements
from anonset.testing.checks import Check, expect

__all__ = ["check_privacy_model", "privacy_model_checks", "register_table"]

_COLUMNS = ("age", "sex", "zip", "marital_status", "diagnosis", "length_of_stay")


def _register() -> tuple[pd.DataFrame, dict[str, AttributeSpec]]:
    register = patient_register(300, seed=3)
    specs = patient_register_attributes(register)
    table = register[list(_COLUMNS)]
    attributes = {c: specs[c] for c in _COLUMNS}
    attributes["length_of_stay"] = dataclasses.replace(attributes["length_of_stay"], role=Role.SENSITIVE)
    return table, attributes


def register_table() -> pd.DataFrame:
    """The records the checks judge a model on (a population a model compares with must hold them)."""
    return _register()[0]


def check_privacy_model(model: PrivacyModel) -> None:
    """Run every check of ``model``; the first failure raises :class:`CheckFailure`."""
    for _, check in privacy_model_checks(model):
        check()


def privacy_model_checks(model: PrivacyModel) -> Iterator[tuple[str, Check]]:
    """The model's checks as ``(name, check)`` pairs (its attributes must be columns of the register)."""
    subject = f"privacy model {model.describe()!r}"

    def make(name: str, body: Callable[[PrivacyModel, Dataset, NumpyEngine], None]) -> tuple[str, Check]:
        def run() -> None:
            table, attributes = _register()
            dataset = Dataset(table, attributes, source="the patient register")
            model.validate(dataset)
            with NumpyEngine(dataset, model.request) as engine:
                body(model, dataset, engine)
        return name, Check(subject, name, run)

    yield make("describes_itself_in_one_line", _describes_itself)
    yield make("one_verdict_per_class_from_what_it_requests", _one_verdict_per_class)
    if model.release_level:
        yield make("accepts_again_the_classes_it_kept", _accepts_again_what_it_kept)
    else:
        yield make("judges_each_class_alone", _judges_each_class_alone)
    if model.monotonic:
        yield make("monotone_as_declared", _monotone)
    if model.size_only:
        yield make("judges_by_its_class_size_floor", _judges_by_its_floor)
    if model.monotonic_with_suppression:
        yield make("a_passing_record_passes_above", _passing_records_pass_above)
    if model.gives_violation_floor:
        yield make("its_violation_floor_holds_below", _floor_holds_below)
    yield make("independent_of_the_order_of_the_records", _independent_of_row_order)


def _nodes(dataset: Dataset) -> list[tuple[int, ...]]:
    return [tuple(int(v) for v in node) for node in lattice_of(dataset).nodes]


def _describes_itself(model: PrivacyModel, dataset: Dataset, engine: NumpyEngine) -> None:
    text = model.describe()
    expect(text and "\n" not in text, f"describe() gives {text!r}: one non-empty line expected")
    summary = model.summary()
    expect(summary.get("model") == type(model).__name__, f"summary() names {summary.get('model')!r}, not its class")
    try:
        json.dumps(summary)
    except TypeError as exc:
        raise AssertionError(f"summary() is not JSON: {exc}") from None


def _one_verdict_per_class(model: PrivacyModel, dataset: Dataset, engine: NumpyEngine) -> None:
    for levels in _nodes(dataset)[::7]:
        stats = engine.class_stats(levels)
        verdict = np.asarray(model.satisfied(stats))
        expect(verdict.dtype == np.bool_ and verdict.shape == (stats.n_classes,),
               f"satisfied() at node {levels} gives {verdict.dtype} of shape {verdict.shape}, not one boolean per"
               f" class ({stats.n_classes})")


def _judges_each_class_alone(model: PrivacyModel, dataset: Dataset, engine: NumpyEngine) -> None:
    rng = np.random.default_rng(0)
    for levels in _nodes(dataset)[::5]:
        stats = engine.class_stats(levels)
        every = np.asarray(model.satisfied(stats))
        some = np.flatnonzero(rng.random(stats.n_classes) < 0.5)
        alone = np.asarray(model.satisfied(stats.subset(some)))
        expect(np.array_equal(alone, every[some]), f"at node {levels} its verdict on some classes differs from"
               " its verdict on them among all: a per-class model must judge each class alone (or declare"
               " release_level = True)")


def _accepts_again_what_it_kept(model: PrivacyModel, dataset: Dataset, engine: NumpyEngine) -> None:
    for levels in _nodes(dataset)[::5]:
        stats = engine.class_stats(levels)
        kept = np.asarray(model.satisfied(stats))
        if kept.any():
            again = np.asarray(model.satisfied(stats.subset(kept)))
            expect(again.all(), f"at node {levels} it refuses {int((~again).sum())} of the classes it kept: the"
                   " classes a release-level model keeps must satisfy it")


def _monotone(model: PrivacyModel, dataset: Dataset, engine: NumpyEngine) -> None:
    requirements = Requirements([model])
    tops = [h.max_level for h in dataset.hierarchies]
    feasible: dict[tuple[int, ...], bool] = {}

    def holds(levels: tuple[int, ...]) -> bool:
        if levels not in feasible:
            feasible[levels] = requirements.judge(engine.class_stats(levels), dataset.n_rows).feasible
        return feasible[levels]

    for levels in _nodes(dataset):
        if not holds(levels):
            continue
        for j, top in enumerate(tops):
            if levels[j] < top:
                up: Any = levels[:j] + (levels[j] + 1,) + levels[j + 1:]
                expect(holds(up), f"it declares monotonic = True, yet it holds at node {levels} and not at the"
                       f" more general node {up}")


def _judges_by_its_floor(model: PrivacyModel, dataset: Dataset, engine: NumpyEngine) -> None:
    floor = model.min_class_size
    expect(floor >= 2, f"it declares size_only = True but its min_class_size is {floor}: a floor of one record"
           " protects nothing")
    for levels in _nodes(dataset)[::3]:
        stats = engine.class_stats(levels)
        differ = int((np.asarray(model.satisfied(stats)) != (stats.sizes >= floor)).sum())
        expect(differ == 0, f"it declares size_only = True, yet at node {levels} its verdict differs from 'at least"
               f" {floor} records' on {differ} classes")


def _passing_records_pass_above(model: PrivacyModel, dataset: Dataset, engine: NumpyEngine) -> None:
    tops = [h.max_level for h in dataset.hierarchies]
    for levels in _nodes(dataset)[::2]:
        row_class, stats = engine.row_classes(levels)
        passing = np.asarray(model.satisfied(stats))[row_class]
        for j, top in enumerate(tops):
            if levels[j] < top:
                up = levels[:j] + (levels[j] + 1,) + levels[j + 1:]
                up_class, up_stats = engine.row_classes(up)
                dropped = int((passing & ~np.asarray(model.satisfied(up_stats))[up_class]).sum())
                expect(dropped == 0, f"it declares monotonic_with_suppression = True, yet {dropped} records that"
                       f" pass at node {levels} fail at the more general node {up}")


def _floor_holds_below(model: PrivacyModel, dataset: Dataset, engine: NumpyEngine) -> None:
    nodes = _nodes(dataset)
    floors, violating = [], []
    for levels in nodes:
        stats = engine.class_stats(levels)
        floor = model.violation_floor(stats)
        expect(floor is not None and np.asarray(floor).shape == (stats.n_classes,),
               f"violation_floor() at node {levels} gives {floor!r}, not one count per class")
        floors.append(int(np.asarray(floor).sum()))
        violating.append(int(stats.sizes[~np.asarray(model.satisfied(stats))].sum()))
    grid = np.array(nodes)
    fewest = np.array(violating)
    for i, levels in enumerate(nodes):
        below = np.flatnonzero((grid <= grid[i]).all(axis=1))  # the node and every more specific one
        j = below[np.argmin(fewest[below])]
        expect(fewest[j] >= floors[i], f"its violation floor at node {levels} is {floors[i]} records, yet only"
               f" {fewest[j]} records violate it at node {nodes[j]}, which divides those classes further")


def _independent_of_row_order(model: PrivacyModel, dataset: Dataset, engine: NumpyEngine) -> None:
    table, attributes = _register()
    order = np.random.default_rng(1).permutation(len(table))
    shuffled = Dataset(table.iloc[order].reset_index(drop=True), attributes, source="the register, shuffled")
    nodes = _nodes(dataset)[::4]
    verdicts = []
    for data in (dataset, shuffled):
        model.validate(data)  # what it learns from the table, from this table
        with NumpyEngine(data, model.request) as each:
            per_record = []
            for levels in nodes:
                row_class, stats = each.row_classes(levels)
                per_record.append(np.asarray(model.satisfied(stats))[row_class])
        verdicts.append(per_record)
    for levels, first, second in zip(nodes, *verdicts, strict=True):
        moved = int((first[order] != second).sum())
        expect(moved == 0, f"at node {levels} {moved} records get another verdict when the records come in another"
               " order")
