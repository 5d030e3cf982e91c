"""Progress reporting: what the searches, clusterings and the evaluation report, and where the terminal bars go.

A recording reporter stands in for the terminal: it keeps every task the
library opens (description, total, unit, nesting depth) and every value the
task reached, so the tests check what a user would see — a search whose bar
reaches its total, k-member's records clustered, one step per evaluation
split — without timing anything.  The kernels' counters are checked by
calling the kernels directly; the terminal reporter is checked for silence
on a pipe (whatever ``FORCE_COLOR`` says) and for drawing on a fake terminal.
"""

from __future__ import annotations

import io
import sys
import threading
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pytest
from rich.console import Console

from anonset import Anonymizer, DistinctLDiversity, KAnonymity, Requirements
from anonset.datasets import patient_register_dataset
from anonset.evaluation import evaluate
from anonset.methods.cluster.bottomup import _bottomup_kernel
from anonset.methods.cluster.constraints import constraints_for, kanonymity_only
from anonset.methods.cluster.kmember import greedy_k_member, kmember_labels
from anonset.methods.cluster.qi_space import Records, height_costs, leaf_share_costs, meet_tables, prepare_attributes
from anonset.methods.cluster.topdown import _topdown_kernel, xu_top_down
from anonset.progress import NULL_TASK, current_reporter, poll, reporting, task, terminal_progress

# ---------------------------------------------------------------------------------------------- a recording reporter


@dataclass(eq=False)
class Recorded:
    """One task as the library reported it."""

    description: str
    total: float | None
    unit: str
    depth: int
    completed: float = 0
    closed: bool = False
    history: list[float] = field(default_factory=list)  # every value ``completed`` took
    descriptions: list[str] = field(default_factory=list)
    seen: threading.Condition = field(default_factory=threading.Condition)

    def advance(self, n: float = 1) -> None:
        self._set(self.completed + n)

    def update(self, *, completed: float | None = None, total: float | None = None,
               description: str | None = None) -> None:
        if total is not None:
            self.total = total
        if description is not None:
            self.descriptions.append(description)
        if completed is not None:
            self._set(completed)

    def _set(self, value: float) -> None:
        assert not self.closed, f"{self.description!r} advanced after it was closed"
        with self.seen:
            self.completed = value
            self.history.append(value)
            self.seen.notify_all()


class Recorder:
    """Keeps every task opened while it is installed; checks that tasks close in last-in first-out order."""

    def __init__(self) -> None:
        self.tasks: list[Recorded] = []
        self.stack: list[Recorded] = []

    def open(self, description: str, total: float | None, unit: str) -> Recorded:
        recorded = Recorded(description, total, unit, depth=len(self.stack))
        self.tasks.append(recorded)
        self.stack.append(recorded)
        return recorded

    def close(self, task: object) -> None:
        assert self.stack and self.stack[-1] is task, "tasks must close in the order they were opened, innermost first"
        self.stack.pop().closed = True

    def named(self, prefix: str) -> list[Recorded]:
        return [t for t in self.tasks if t.description.startswith(prefix)]


# ---------------------------------------------------------------------------------------------- the seam


def test_nobody_listens_by_default_and_a_task_then_costs_nothing() -> None:
    assert current_reporter() is None
    with task("anything", total=10, unit="nodes") as bar:
        assert bar is NULL_TASK
        bar.advance()
        bar.update(completed=5, total=20, description="still nothing")
    before = threading.active_count()
    with poll(NULL_TASK, np.zeros(2, dtype=np.int64)):
        assert threading.active_count() == before  # no polling thread without a listener


def test_reporting_installs_a_reporter_for_the_block_only() -> None:
    recorder = Recorder()
    with reporting(recorder):
        assert current_reporter() is recorder
        with task("outer", total=2, unit="folds") as outer, task("inner") as inner:
            inner.advance(3)
            outer.advance()
        with reporting(None), task("hidden") as hidden:  # silenced inside
            assert hidden is NULL_TASK
    assert current_reporter() is None
    assert [(t.description, t.depth, t.total, t.completed, t.closed) for t in recorder.tasks] == [
        ("outer", 0, 2, 1, True), ("inner", 1, None, 3, True)]


def test_a_task_is_closed_when_its_block_raises() -> None:
    recorder = Recorder()
    with reporting(recorder), pytest.raises(ValueError, match="boom"), task("failing", total=3):
        raise ValueError("boom")
    assert recorder.tasks[0].closed and not recorder.stack


def test_poll_copies_a_kernel_counter_while_the_block_runs_and_once_at_the_end() -> None:
    recorder = Recorder()
    counter = np.array([0, 0], dtype=np.int64)
    with reporting(recorder), task("kernel", unit="records") as bar:
        assert isinstance(bar, Recorded)
        with poll(bar, counter, interval=0.005):
            counter[:] = (7, 40)  # what a kernel writes from compiled code
            with bar.seen:
                assert bar.seen.wait_for(lambda: bar.completed == 7, timeout=10), "the poll never copied the counter"
            assert bar.total == 40
            counter[0] = 40
        assert bar.completed == 40  # the last copy, when the block ends
        assert bar.history == sorted(bar.history)


# ---------------------------------------------------------------------------------------------- the hooks


def test_the_optimal_search_reports_the_lattice_until_its_total() -> None:
    recorder = Recorder()
    dataset = patient_register_dataset(3000)
    with reporting(recorder):
        model = Anonymizer({}, Requirements([KAnonymity(5)], max_suppression=0.02), method="optimal").fit(dataset)
    assert model.result_ is not None
    (fit,) = recorder.named("anonymizing (optimal)")
    (search,) = recorder.named("optimal: searching")
    (release,) = recorder.named("releasing")
    assert fit.depth == 0 and search.depth == 1 and release.depth == 1
    assert search.unit == "nodes" and search.total == model.result_.lattice_size > 1
    assert search.completed == search.total
    # it moved through the lattice node by node, never backwards
    assert len(search.history) >= 2 and search.history[0] < search.total
    assert search.history == sorted(search.history)
    # render, every metric, the re-check
    assert release.total == 2 + len(model.release_.metrics) and release.completed == release.total
    assert all(t.closed for t in recorder.tasks) and not recorder.stack


def test_the_exhaustive_search_counts_every_node_it_judges() -> None:
    recorder = Recorder()
    table = patient_register_dataset(400).table
    assert table is not None
    attributes = {"age": {"role": "quasi", "type": "numeric", "hierarchy": {"builder": "intervals",
                                                                           "widths": [5, 10, 20]}},
                  "sex": {"role": "quasi", "hierarchy": {"builder": "flat"}}}
    with reporting(recorder):
        model = Anonymizer(attributes, Requirements([KAnonymity(3)]), method="exhaustive").fit(
            table[["age", "sex"]])
    (search,) = recorder.named("exhaustive: judging nodes")
    assert model.result_ is not None
    assert search.total == model.result_.lattice_size == model.result_.checks == search.completed
    assert search.history == list(range(1, int(search.completed) + 1))


def test_k_member_reports_the_records_it_has_clustered() -> None:
    recorder = Recorder()
    dataset = patient_register_dataset(600)
    with reporting(recorder):
        labels = greedy_k_member(dataset, 5)
    (bar,) = recorder.named("k-member: forming clusters")
    assert bar.unit == "records" and bar.total == dataset.n_rows == bar.completed
    assert len(np.unique(labels)) == dataset.n_rows // 5  # the clustering itself is unchanged by the hook


def test_the_k_member_kernel_counts_the_records_clustered() -> None:
    """The kernel's own counter: every record but fewer than k leftovers when the last cluster is formed."""
    dataset = patient_register_dataset(203)
    prep = prepare_attributes(dataset, None)
    cons = kanonymity_only(5, dataset.n_rows)
    counter = np.zeros(2, dtype=np.int64)
    labels = kmember_labels(prep.records, prep.costs(height_costs(prep)), 5, 0, cons.sens, cons.l_diversity,
                            cons.labels, cons.n_labels, 0.0, counter)
    assert counter[0] == 200  # 40 clusters of 5; the 3 leftovers join clusters afterwards
    assert np.bincount(labels).min() >= 5


def test_the_top_down_kernel_counts_records_split_then_groups_fixed() -> None:
    dataset = patient_register_dataset(500)
    prep = prepare_attributes(dataset, None)
    cons = kanonymity_only(7, dataset.n_rows)
    counter = np.zeros(2, dtype=np.int64)
    _topdown_kernel(prep.records, prep.costs(leaf_share_costs(prep, dataset)), meet_tables(prep.maps, prep.codes),
                    7, 0, 3, 5, cons.sens, cons.l_diversity, 64, counter)
    groups = counter[1] - 500
    assert groups >= 500 // 13  # every split group has fewer than 2k records
    assert counter[0] == 500 + groups - 1  # the fix-up went through every group
    recorder = Recorder()
    with reporting(recorder):
        xu_top_down(dataset, 7)
    (bar,) = recorder.named("xu-top-down")
    assert bar.total == bar.completed == 500 + groups


@pytest.mark.parametrize("l_diverse", [False, True])
def test_the_bottom_up_kernel_counts_the_records_in_closed_groups(l_diverse: bool) -> None:
    """Merging ends when no group is open, so every record is then in a closed group (counted as merges go)."""
    dataset = patient_register_dataset(400)
    requirements = Requirements([KAnonymity(4), *([DistinctLDiversity("diagnosis", 2)] if l_diverse else [])])
    cons = constraints_for(dataset, requirements, "xu-bottom-up")
    prep = prepare_attributes(dataset, None)
    key = np.column_stack([prep.values, prep.codes.astype(np.float64)])
    _, first, inverse, counts = np.unique(key, axis=0, return_index=True, return_inverse=True, return_counts=True)
    distinct = Records(np.ascontiguousarray(prep.values[first]), np.ascontiguousarray(prep.codes[first]))
    counter = np.zeros(2, dtype=np.int64)
    root = _bottomup_kernel(distinct, counts.astype(np.int64), prep.costs(leaf_share_costs(prep, dataset)), 4,
                            cons.histograms(np.asarray(inverse).reshape(-1), len(first)), cons.l_diversity, True,
                            counter)
    assert len(np.unique(root)) > 1  # several groups were left, each closed
    assert counter[0] == 400


def test_xu_bottom_up_reports_the_records_in_closed_groups() -> None:
    recorder = Recorder()
    dataset = patient_register_dataset(500)
    with reporting(recorder):
        Anonymizer({}, Requirements([KAnonymity(6)]), method="xu-bottom-up").fit(dataset)
    (merging,) = recorder.named("xu-bottom-up: merging")
    (splitting,) = recorder.named("xu-bottom-up: splitting")
    assert merging.total == merging.completed == 500
    assert merging.history == sorted(merging.history)
    assert splitting.completed == splitting.total


def test_the_pareto_ea_reports_its_generations() -> None:
    recorder = Recorder()
    dataset = patient_register_dataset(500)
    with reporting(recorder):
        Anonymizer({}, Requirements([KAnonymity(2)], max_suppression=0.05), method="pareto-ea",
                   method_options={"iterations": 4, "population": 6}).fit(dataset)
    (generations,) = recorder.named("pareto-ea: generations")
    assert generations.history == [1, 2, 3, 4, 5] and generations.total == 5


def test_mondrian_reports_its_phases() -> None:
    recorder = Recorder()
    with reporting(recorder):
        Anonymizer({}, Requirements([KAnonymity(5)]), method="mondrian").fit(patient_register_dataset(500))
    (phases,) = recorder.named("mondrian")
    assert phases.history == [1, 2, 3] and phases.total == 3
    assert phases.descriptions == ["mondrian: cutting (median)", "mondrian: assembling"]


def test_an_evaluation_reports_its_splits_with_each_fit_and_its_models_inside() -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(0, 100, 300)
    data = pd.DataFrame({"x": x.astype(str), "z": rng.choice(list("pqrs"), 300),
                         "label": np.where(x >= 50, "yes", "no")})
    attributes = {"x": {"role": "quasi", "type": "numeric"}, "z": {"role": "quasi"}, "label": {"role": "target"}}
    recorder = Recorder()
    with reporting(recorder):
        result = evaluate(data, attributes, requirements=Requirements([KAnonymity(5)]), folds=3,
                          models=["decision_tree", "naive_bayes"])
    assert len(result.splits) == 3
    (splits,) = recorder.named("evaluating mondrian")
    assert splits.depth == 0 and splits.unit == "splits" and splits.history == [1, 2, 3]
    # each split: encoding, fitting (the fit and the method's phases nested inside), recoding, one step per model
    split_tasks = recorder.named("split ")
    assert [(t.description, t.depth, t.total, t.completed) for t in split_tasks] == [
        (f"split {i} of 3: encoding", 1, 5, 5) for i in (1, 2, 3)]
    assert split_tasks[0].descriptions == ["split 1 of 3: fitting", "split 1 of 3: recoding",
                                           "split 1 of 3: training the models"]
    assert [t.depth for t in recorder.named("anonymizing (mondrian)")] == [2, 2, 2]
    assert [t.depth for t in recorder.named("mondrian")] == [3, 3, 3]


# ---------------------------------------------------------------------------------------------- terminal bars


class _FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _tty_console() -> tuple[Console, _FakeTerminal]:
    screen = _FakeTerminal()
    return Console(file=screen, force_terminal=True, force_interactive=True, width=120, color_system=None), screen


def test_nothing_is_drawn_when_stderr_is_not_a_terminal(capfd: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # CI often sets these for colours; rich would then treat the pipe as a terminal
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    assert not sys.stderr.isatty()
    with terminal_progress(enabled=True, delay=0) as drawing:
        assert drawing is False and current_reporter() is None
        Anonymizer({}, Requirements([KAnonymity(5)], max_suppression=0.02)).fit(patient_register_dataset(2000))
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")


def test_bars_are_drawn_on_a_terminal_nested_under_their_parent() -> None:
    console, screen = _tty_console()
    with terminal_progress(enabled=True, console=console, delay=0) as drawing:
        assert drawing is True and current_reporter() is not None
        with task("evaluating mondrian", total=3, unit="splits") as outer:
            outer.advance()
            with task("optimal: searching", total=12960, unit="nodes") as inner:
                inner.update(completed=1234)
    assert current_reporter() is None
    drawn = screen.getvalue()
    assert "evaluating mondrian" in drawn and "0/3 splits" in drawn
    # the inner task is indented under its parent, its count shown with its unit
    assert "\n  optimal: searching" in drawn and "/12,960 nodes" in drawn
    assert "━" in drawn  # a bar


def test_a_real_fit_draws_on_a_terminal() -> None:
    console, screen = _tty_console()
    with terminal_progress(enabled=True, console=console, delay=0):
        Anonymizer({}, Requirements([KAnonymity(5)], max_suppression=0.02)).fit(patient_register_dataset(2000))
    drawn = screen.getvalue()
    assert "anonymizing (optimal)" in drawn and "optimal: searching" in drawn


def test_short_runs_and_quiet_runs_draw_nothing_on_a_terminal() -> None:
    console, screen = _tty_console()
    with terminal_progress(enabled=True, console=console, delay=30):  # the run ends long before the delay
        Anonymizer({}, Requirements([KAnonymity(5)], max_suppression=0.02)).fit(patient_register_dataset(500))
    with terminal_progress(enabled=False, console=console, delay=0) as drawing:  # --quiet
        assert drawing is False and current_reporter() is None
        Anonymizer({}, Requirements([KAnonymity(5)], max_suppression=0.02)).fit(patient_register_dataset(500))
    assert screen.getvalue() == ""
