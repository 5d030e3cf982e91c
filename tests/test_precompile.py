"""``anonset compile``: every registered method declares its warm-ups, and every warm-up runs."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from click.testing import CliRunner

from anonset.anonymizer import Anonymizer
from anonset.cli import main
from anonset.errors import AnonsetWarning, ConfigError
from anonset.methods import registry
from anonset.methods.base import Family, Method, WarmUp
from anonset.precompile import WarmUpRun, kernel_jobs, kernel_kind, kernel_sets, precompile, warm_up_runs


def test_every_registered_method_has_a_warm_up() -> None:
    runs = warm_up_runs()
    assert {r.method for r in runs} == set(registry.names())
    assert runs == tuple(WarmUpRun(n, w) for n in registry.names() for w in registry.get(n).warm_ups)
    assert len({r.label for r in runs}) == len(runs)  # each run says what it selects


def test_the_compile_command_runs_every_warm_up() -> None:
    result = CliRunner().invoke(main, ["compile"])
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    runs = warm_up_runs()
    assert len(lines) == len(runs) + 1
    assert [line.split(" s  ", 1)[1] for line in lines[:-1]] == [r.label for r in runs]
    assert f"of {len(registry.names())} methods" in lines[-1]


def test_a_partial_list_runs_only_those() -> None:
    runs = warm_up_runs()[:2]
    done = precompile(rows=120, runs=runs)
    assert [r for r, _ in done] == list(runs)
    assert all(seconds > 0 for _, seconds in done)


def test_kernel_sets_hold_every_run_once_in_order_the_longest_first() -> None:
    runs = warm_up_runs()
    sets = kernel_sets()
    assert sorted(i for indices in sets for i in indices) == list(range(len(runs)))
    assert all(indices == sorted(indices) for indices in sets)  # a set runs in the order declared
    seconds = [sum(runs[i].warm_up.seconds for i in indices) for indices in sets]
    assert seconds == sorted(seconds, reverse=True)
    for method in ("k-member", "optimal"):  # one set each
        assert len({n for n, indices in enumerate(sets) for i in indices if runs[i].method == method}) == 1
    # Mondrian's median kernel compiles beside its general kernel, whose runs (every criterion, every model) share it
    mondrian = [[runs[i].warm_up.label for i in indices] for indices in sets
                if any(runs[i].method == "mondrian" for i in indices)]
    assert sorted(mondrian) == [["infogain", "lsd", "selection", "entropy l-diversity", "t-closeness (equal)"],
                                ["median", "median relaxed"]]
    # the lattice methods (full-domain and fronts) share their kernels; each partitioning family has its own
    assert kernel_kind("optimal") == kernel_kind("pareto-ea") == "lattice"
    assert len({kernel_kind("mondrian"), kernel_kind("k-member"), "lattice"}) == 3
    assert kernel_kind("k-member") == kernel_kind("xu-bottom-up")


def test_kernel_jobs_share_whole_sets_the_longest_first_to_the_least_loaded() -> None:
    runs = warm_up_runs()
    sets = kernel_sets(runs)
    for jobs in (1, 2, 3, len(sets) + 2):
        shares = kernel_jobs(runs, jobs)
        assert len(shares) == min(jobs, len(sets))
        assert sorted(i for share in shares for i in share) == list(range(len(runs)))
        for indices in sets:  # a set is never split, and keeps its order
            (share,) = [share for share in shares if indices[0] in share]
            start = share.index(indices[0])
            assert share[start:start + len(indices)] == indices
    # two jobs: the longest set starts one, the next longest the other, every later set joins the lighter one
    load = [sum(runs[i].warm_up.seconds for i in indices) for indices in sets]
    first, second = kernel_jobs(runs, 2)
    assert first[:len(sets[0])] == sets[0] and second[:len(sets[1])] == sets[1]
    expected = [load[0], load[1]]
    for s in load[2:]:
        expected[expected.index(min(expected))] += s
    got = [sum(runs[i].warm_up.seconds for i in share) for share in (first, second)]
    assert got == pytest.approx(expected)


def test_warm_ups_say_nothing_about_their_synthetic_releases() -> None:
    """A warm-up's release warnings (an attribute generalized away, say) are not the user's: none is shown."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        precompile(runs=warm_up_runs(["optimal", "k-member"]))
    assert [str(w.message) for w in caught if issubclass(w.category, AnonsetWarning)] == []


def test_a_partitioning_method_also_places_new_records(monkeypatch: pytest.MonkeyPatch) -> None:
    """Placing new records in the learned classes (``transform``) runs kernels the fit does not."""
    placed: list[str] = []
    original = Anonymizer.transform

    def transform(self: Anonymizer, data: Any, **kwargs: Any) -> Any:
        placed.append(self.method)
        return original(self, data, **kwargs)

    monkeypatch.setattr(Anonymizer, "transform", transform)
    runs = warm_up_runs(["k-member", "optimal"])
    precompile(rows=120, runs=runs)
    assert placed == [r.method for r in runs if r.method == "k-member"]


def test_every_mondrian_criterion_and_model_runs_one_compiled_loop() -> None:
    """The criteria (and the criterion a selection hands over to) share one type, the models another: one loop."""
    from anonset.methods.mondrian.compiled.grow import grow

    precompile(rows=120, runs=warm_up_runs(["mondrian"]))
    assert len(grow.signatures) == 1
    (signature,) = grow.signatures  # (space, order, keys, criterion, models, ...)
    assert signature[3].instance_class.__name__ == "CriterionArrays"
    assert signature[4].instance_class.__name__ == "ModelArrays"


def test_one_share_runs_only_its_warm_ups() -> None:
    runs = warm_up_runs()
    result = CliRunner().invoke(main, ["compile", "--runs", "0,2"])
    assert result.exit_code == 0, result.output
    assert [line.split(" s  ", 1)[1] for line in result.output.strip().splitlines()] == \
        [runs[0].label, runs[2].label]


def test_compile_only_the_methods_named() -> None:
    result = CliRunner().invoke(main, ["compile", "--methods", "optimal, rv-local"])
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert [line.split(" s  ", 1)[1] for line in lines[:-1]] == \
        [r.label for r in warm_up_runs() if r.method in ("optimal", "rv-local")]
    assert "compiled the kernels of 2 methods" in lines[-1]
    assert warm_up_runs(["rv-local", "optimal"]) == warm_up_runs(["optimal", "rv-local"])  # the registry's order


def test_compile_with_jobs_passes_the_methods_to_every_job() -> None:
    result = CliRunner().invoke(main, ["compile", "--methods", "xu-top-down,optimal", "--jobs", "2", "--quiet"])
    assert result.exit_code == 0, result.output
    assert result.output.strip().splitlines() == [result.output.strip().splitlines()[-1]]
    assert "compiled the kernels of 2 methods" in result.output


def test_one_method_is_counted_as_one() -> None:
    result = CliRunner().invoke(main, ["compile", "--methods", "exhaustive", "--quiet"])
    assert result.exit_code == 0, result.output
    assert "compiled the kernels of 1 method in " in result.output


def test_an_unknown_method_is_named() -> None:
    result = CliRunner().invoke(main, ["compile", "--methods", "optimal,mondrain"])
    assert result.exit_code == 2
    assert "unknown method 'mondrain'" in result.output
    with pytest.raises(ConfigError, match="unknown method 'mondrain'"):
        warm_up_runs(["mondrain"])


def test_a_method_registered_from_outside_is_compiled_by_its_declaration() -> None:
    mondrian = registry.get("mondrian")
    toy = Method(name="toy-warm", family=Family.GROUPING, summary="Mondrian again", suppresses=False,
                 fit=mondrian.fit, options=mondrian.options,
                 warm_ups=(WarmUp("median"), WarmUp("relaxed", options={"strict": False})))
    registry.register(toy)
    try:
        runs = [r for r in warm_up_runs() if r.method == "toy-warm"]
        assert [r.label for r in runs] == ["toy-warm, median", "toy-warm, relaxed"]
        assert kernel_kind("toy-warm") == kernel_kind("mondrian")  # its fit lives in the mondrian package
        assert [r for r, _ in precompile(rows=120, runs=runs)] == runs
        assert warm_up_runs(["toy-warm"]) == tuple(runs)
    finally:
        registry.unregister("toy-warm")
    quiet = Method(name="toy-quiet", family=Family.GROUPING, summary="compiles nothing", fit=toy.fit, warm_ups=())
    assert quiet.warm_ups == () and Method(name="x", family=Family.NODE, summary="", fit=toy.fit).warm_ups == (
        WarmUp(),)
