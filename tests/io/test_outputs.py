"""Output staging: open files of the process written into, symbolic links kept, a killed run's leftovers removed."""

from __future__ import annotations

import os
import signal
import socket
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from anonset.cli import main
from anonset.errors import DataError
from anonset.io.outputs import (
    StagedOutputs,
    atomic_write,
    check_output_paths,
    is_stdout,
    is_stream,
    remove_stale_temporaries,
    temporary_prefix,
)

PROC_FD = Path("/proc/self/fd")
needs_proc = pytest.mark.skipif(not PROC_FD.is_dir(), reason="no /proc/self/fd on this system")


def _writer(text: str):  # type: ignore[no-untyped-def]
    def write(tmp: Path) -> None:
        tmp.write_text(text, encoding="utf-8")

    return write


def _project(folder: Path) -> Path:
    """A small table and a config that anonymizes it; the config's path."""
    rows = 60
    pd.DataFrame({"age": [str(20 + i % 40) for i in range(rows)], "sex": ["M", "F"] * (rows // 2),
                  "disease": ["flu", "cold", "hiv"] * (rows // 3)}).to_csv(folder / "data.csv", index=False)
    config = folder / "c.yaml"
    config.write_text("input: {path: data.csv}\nattributes:\n"
                      "  age: {role: quasi, type: numeric, hierarchy: {builder: intervals, widths: [10, 20]}}\n"
                      "  sex: {role: quasi, hierarchy: {builder: flat}}\n  disease: {role: sensitive}\n"
                      "privacy: {k: 3}\noutput: {path: out.csv}\n", encoding="utf-8")
    return config


def _dead_pid() -> int:
    """The id of a process that has exited (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


# ---------------------------------------------------------------- open files of the process, devices


@needs_proc
def test_a_link_to_this_process_standard_output_is_standard_output(tmp_path: Path) -> None:
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    assert is_stdout(link) and is_stream(link) and is_stdout("-")
    other = tmp_path / "stderr"
    other.symlink_to("/proc/self/fd/2")
    assert is_stream(other) and not is_stdout(other)
    assert not is_stream(tmp_path / "file.csv") and not is_stdout(tmp_path / "file.csv")


@needs_proc
@pytest.mark.parametrize("report", ["report.json", "report.html"])
def test_report_to_a_link_to_standard_output_reaches_the_redirect_and_the_link_stays(tmp_path: Path,
                                                                                      report: str) -> None:
    """``--report /dev/stdout > so.txt`` as root: the link was replaced by a regular file and so.txt was empty.

    The link here is one of our own to /proc/self/fd/1 (what /dev/stdout is on Linux): the same path through
    the kernel, without touching the machine's /dev/stdout when the test fails.
    """
    config = _project(tmp_path)
    link = tmp_path / f"stdout-{report}"
    link.symlink_to("/proc/self/fd/1")
    with open(tmp_path / "so.txt", "wb") as redirect:
        done = subprocess.run([sys.executable, "-m", "anonset.cli", "anonymize", str(config), "-q", "--report",
                               str(link)], stdout=redirect, stderr=subprocess.PIPE, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr.decode()
    assert link.is_symlink() and os.readlink(link) == "/proc/self/fd/1"
    written = (tmp_path / "so.txt").read_text(encoding="utf-8")
    assert written.startswith("{" if report.endswith(".json") else "<!DOCTYPE html>"), written[:200]


@needs_proc
def test_summary_to_a_link_to_standard_error_is_written_into_it(tmp_path: Path) -> None:
    config = _project(tmp_path)
    link = tmp_path / "stderr"
    link.symlink_to("/proc/self/fd/2")
    with open(tmp_path / "err.txt", "wb") as redirect:
        done = subprocess.run([sys.executable, "-m", "anonset.cli", "anonymize", str(config), "-q", "--summary",
                               str(link)], stdout=subprocess.PIPE, stderr=redirect, cwd=tmp_path, timeout=300)
    assert done.returncode == 0
    assert link.is_symlink()
    assert '"method": "optimal"' in (tmp_path / "err.txt").read_text(encoding="utf-8")


def test_a_link_to_standard_output_counts_as_standard_output_in_the_checks(tmp_path: Path) -> None:
    if not (Path("/dev/stdout").is_symlink() and PROC_FD.is_dir()):
        pytest.skip("/dev/stdout is not a link into /proc here")
    assert is_stdout("/dev/stdout")
    with pytest.raises(Exception, match="cannot both go to standard output"):
        check_output_paths({"release": Path("-"), "summary": Path("/dev/stdout")}, {})


def test_a_named_pipe_is_written_into(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    child = subprocess.Popen([sys.executable, "-c", f"import sys; sys.stdout.write(open({str(fifo)!r}).read())"],
                             stdout=subprocess.PIPE)
    atomic_write(fifo, _writer("through the pipe\n"))
    out, _ = child.communicate(timeout=60)
    assert out == b"through the pipe\n" and stat.S_ISFIFO(fifo.lstat().st_mode)


# ---------------------------------------------------------------- symbolic links


def test_a_link_to_a_file_is_kept_and_the_file_it_points_to_is_written(tmp_path: Path) -> None:
    (tmp_path / "releases").mkdir()
    target = tmp_path / "releases" / "2026.csv"
    target.write_text("old\n", encoding="utf-8")
    link = tmp_path / "latest.csv"
    link.symlink_to(Path("releases") / "2026.csv")
    check_output_paths({"release": link}, {})
    atomic_write(link, _writer("new\n"))
    assert link.is_symlink() and os.readlink(link) == str(Path("releases") / "2026.csv")
    assert target.read_text(encoding="utf-8") == "new\n"
    assert sorted(p.name for p in (tmp_path / "releases").iterdir()) == ["2026.csv"]  # no temporary file left


def test_a_link_to_a_file_not_yet_written_creates_it(tmp_path: Path) -> None:
    link = tmp_path / "latest.csv"
    link.symlink_to(tmp_path / "new.csv")
    atomic_write(link, _writer("made\n"))
    assert link.is_symlink() and (tmp_path / "new.csv").read_text(encoding="utf-8") == "made\n"


def test_a_link_into_a_missing_folder_or_a_loop_is_refused_before_any_work(tmp_path: Path) -> None:
    dangling = tmp_path / "out.csv"
    dangling.symlink_to(tmp_path / "nowhere" / "out.csv")
    with pytest.raises(DataError, match="folder .*nowhere does not exist"):
        check_output_paths({"release": dangling}, {})
    loop = tmp_path / "loop.csv"
    loop.symlink_to(loop)
    with pytest.raises(DataError, match="loop of links"):
        check_output_paths({"release": loop}, {})
    assert dangling.is_symlink() and loop.is_symlink()


def test_a_link_to_an_input_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data.csv"
    data.write_text("a\n1\n", encoding="utf-8")
    link = tmp_path / "out.csv"
    link.symlink_to(data)
    with pytest.raises(Exception, match="would overwrite the input table"):
        check_output_paths({"release": link}, {"input table": data})


# ---------------------------------------------------------------- leftovers of a killed run


def _leftover(folder: Path, name: str, pid: int, host: str | None = None, duckdb: bool = False) -> Path:
    host = socket.gethostname() if host is None else host
    clean_host = "".join(c for c in host if c.isalnum())[:32]
    path = folder / f"{'tmp_' if duckdb else ''}.{name}.anonset-{pid}-{clean_host}.k2j4x9q1.tmp"
    path.write_text("age,sex\n30-39,F\n", encoding="utf-8")
    return path


def test_temporary_names_carry_the_process_and_the_host(tmp_path: Path) -> None:
    seen: list[str] = []
    atomic_write(tmp_path / "out.csv", lambda tmp: seen.append(tmp.name) or tmp.write_text("x"))
    assert seen[0].startswith(temporary_prefix("out.csv")) and seen[0].endswith(".tmp")
    assert f".anonset-{os.getpid()}-" in seen[0]


def test_stale_temporary_files_are_removed_and_live_or_foreign_ones_kept(tmp_path: Path) -> None:
    dead = _dead_pid()
    stale = _leftover(tmp_path, "out.csv", dead)
    stale_duckdb = _leftover(tmp_path, "out.csv", dead, duckdb=True)
    stale_other_output = _leftover(tmp_path, "summary.json", dead)
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        running = _leftover(tmp_path, "out.csv", alive.pid)
        foreign = _leftover(tmp_path, "out.csv", dead, host="another-host")
        unrelated = tmp_path / ".out.csv.k2j4x9q1.tmp"   # not anonset's pattern
        unrelated.write_text("x", encoding="utf-8")
        atomic_write(tmp_path / "out.csv", _writer("a\n"))
        assert not stale.exists() and not stale_duckdb.exists() and not stale_other_output.exists()
        assert running.exists() and foreign.exists() and unrelated.exists()
        assert (tmp_path / "out.csv").read_text(encoding="utf-8") == "a\n"
    finally:
        alive.kill()
        alive.wait()
    assert remove_stale_temporaries(tmp_path) == [running]


def test_a_killed_writer_leaves_a_release_that_the_next_run_removes(tmp_path: Path) -> None:
    """SIGKILL while a release is staged: the temporary file holds it; the next write in the folder removes it."""
    ready = tmp_path / "ready"
    script = textwrap.dedent(f"""
        import time
        from pathlib import Path
        from anonset.io.outputs import StagedOutputs

        def write(tmp):
            tmp.write_text("age,sex\\n30-39,F\\n")
            note = Path({str(ready)!r} + ".part")
            note.write_text(str(tmp))
            note.replace({str(ready)!r})  # whole, or not there: the test reads it as soon as it exists
            time.sleep(120)

        with StagedOutputs() as staged:
            staged.stage(Path({str(tmp_path / "out.csv")!r}), write)
    """)
    child = subprocess.Popen([sys.executable, "-c", script])
    try:
        deadline = time.monotonic() + 120
        while not ready.exists() and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.05)
        assert ready.exists(), "the writer never staged its file"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    leftover = Path(ready.read_text())
    assert leftover.exists() and "30-39" in leftover.read_text()
    assert leftover.name.startswith(f".out.csv.anonset-{child.pid}-")

    with StagedOutputs() as staged:
        staged.stage(tmp_path / "out.csv", _writer("age,sex\n*,*\n"))
        staged.commit()
    assert not leftover.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv", "ready"]


def test_the_next_anonymize_run_removes_a_killed_run_s_leftovers(tmp_path: Path) -> None:
    config = _project(tmp_path)
    stale = _leftover(tmp_path, "out.csv", _dead_pid())
    stale_summary = _leftover(tmp_path, "s.json", _dead_pid(), duckdb=True)
    result = CliRunner().invoke(main, ["anonymize", str(config), "-q", "--summary", str(tmp_path / "s.json")])
    assert result.exit_code == 0, result.output
    assert not stale.exists() and not stale_summary.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml", "data.csv", "out.csv", "s.json"]


def test_a_failed_write_leaves_neither_its_file_nor_duckdb_s(tmp_path: Path) -> None:
    def write(tmp: Path) -> None:
        tmp.write_text("partial")
        tmp.with_name(f"tmp_{tmp.name}").write_text("partial")   # what DuckDB's COPY writes first
        raise OSError(28, "No space left on device")

    with pytest.raises(DataError, match="No space left"):
        atomic_write(tmp_path / "out.csv", write)
    assert list(tmp_path.iterdir()) == []
