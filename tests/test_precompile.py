"""``anonset compile``: every registered method has a warm-up, and every warm-up runs."""

from __future__ import annotations

from click.testing import CliRunner

from anonset.cli import main
from anonset.methods import registry
from anonset.precompile import WARM_UPS, precompile, shares


def test_every_registered_method_has_a_warm_up() -> None:
    assert {r.method for r in WARM_UPS} == set(registry.names())


def test_the_compile_command_runs_every_warm_up() -> None:
    result = CliRunner().invoke(main, ["compile"])
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == len(WARM_UPS) + 1
    assert [line.split(" s  ", 1)[1] for line in lines[:-1]] == [r.label for r in WARM_UPS]
    assert f"of {len(registry.names())} methods" in lines[-1]


def test_a_partial_list_runs_only_those() -> None:
    done = precompile(rows=120, runs=WARM_UPS[:2])
    assert [r for r, _ in done] == list(WARM_UPS[:2])
    assert all(seconds > 0 for _, seconds in done)


def test_shares_split_every_run_once_and_keep_each_kind_together() -> None:
    for jobs in (1, 2, 3, 8):
        split = shares(jobs)
        assert 1 <= len(split) <= jobs
        assert sorted(i for share in split for i in share) == list(range(len(WARM_UPS)))
        for method in ("mondrian", "k-member", "optimal"):
            holding = {n for n, share in enumerate(split) for i in share if WARM_UPS[i].method == method}
            assert len(holding) == 1  # a method's kernels are compiled by one process
    assert len(shares(2)) == 2


def test_one_share_runs_only_its_warm_ups() -> None:
    result = CliRunner().invoke(main, ["compile", "--runs", "0,2"])
    assert result.exit_code == 0, result.output
    assert [line.split(" s  ", 1)[1] for line in result.output.strip().splitlines()] == \
        [WARM_UPS[0].label, WARM_UPS[2].label]
