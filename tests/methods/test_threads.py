"""The thread count of the parallel kernels: the user's, else the free cores; never more than the cores."""

from __future__ import annotations

import os
from pathlib import Path

import numba
import pandas as pd
import pytest
from click.testing import CliRunner

from anonset.cli import main
from anonset.errors import ConfigError
from anonset.methods import threads
from anonset.methods.threads import THREADS_VARIABLE, thread_count, use_threads


def test_the_users_count_is_taken_up_to_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(threads, "_usable_cores", lambda: 4)
    monkeypatch.setenv(THREADS_VARIABLE, "3")
    assert thread_count() == 3
    monkeypatch.setenv(THREADS_VARIABLE, "64")
    assert thread_count() == 4


@pytest.mark.parametrize("value", ["0", "two", "-1", "1.5"])
def test_a_bad_count_is_one_line(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(THREADS_VARIABLE, value)
    with pytest.raises(ConfigError, match=f"{THREADS_VARIABLE}='{value}': give a whole number of threads >= 1"):
        thread_count()


@pytest.mark.parametrize(("others", "expected"), [(0.0, 4), (0.4, 4), (1.0, 3), (2.6, 1), (8.0, 1)])
def test_without_a_choice_the_free_cores_are_used(monkeypatch: pytest.MonkeyPatch, others: float,
                                                  expected: int) -> None:
    """Four cores; the other runnable work takes its share (rounded), at least one thread is left."""
    monkeypatch.delenv(THREADS_VARIABLE, raising=False)
    monkeypatch.setattr(threads, "_usable_cores", lambda: 4)
    monkeypatch.setattr(threads, "_other_runnable", lambda: others)
    assert thread_count() == expected


def test_the_other_runnable_tasks_are_read_from_proc_loadavg(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three runnable tasks, this process one of them: two others."""
    import builtins
    import io

    real_open = builtins.open

    def fake_open(path: object, *args: object, **kwargs: object) -> object:
        if path == "/proc/loadavg":
            return io.StringIO("0.50 0.40 0.30 3/120 999\n")
        return real_open(path, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(builtins, "open", fake_open)
    assert threads._other_runnable() == 2.0


def test_use_threads_sets_numbas_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(THREADS_VARIABLE, "1")
    assert use_threads() == 1 and numba.get_num_threads() == 1


def test_the_command_sets_the_count_for_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(THREADS_VARIABLE, raising=False)
    pd.DataFrame({"zip": [f"1{i % 4}" for i in range(40)], "age": [str(20 + i % 9) for i in range(40)]}).to_csv(
        tmp_path / "t.csv", index=False)
    (tmp_path / "c.yaml").write_text("input: {path: t.csv}\nattributes: {zip: {role: quasi}, age: {role: quasi,"
                                     " type: numeric}}\nprivacy: {k: 4}\nmethod: xu-bottom-up\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["--threads", "1", "anonymize", str(tmp_path / "c.yaml"), "-q"])
    assert result.exit_code == 0, result.output
    assert os.environ[THREADS_VARIABLE] == "1" and numba.get_num_threads() == 1
    monkeypatch.delenv(THREADS_VARIABLE)
