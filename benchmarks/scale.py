"""Ten (or a hundred) million rows on one machine: whole ``anonset anonymize`` processes, stage by stage.

The table is built once under ``--workdir`` (default ``/tmp/anonset-scale``, never in the project):

- ``patients`` (default): the built-in synthetic patient register
  (:func:`anonset.datasets.patient_register`, seed 0) written to Parquet; six quasi-identifiers (age,
  sex, zip, race, marital status, education), diagnosis sensitive, patient_id an identifier,
  length of stay passed through; above ten million records it is written ten million at a time
  (seeds 0, 1, ...);
- ``adult-mix``: the Adult table scaled by ``make_mix.py`` from the shared Adult directory (factor
  330 gives 9,953,460 records; ``;``-separated CSV), its hierarchy files read where they are.

Then, for each method, one ``anonset anonymize CONFIG --summary`` process per table size, each
fresh, with a run configuration written beside the table:

- ``optimal``: full-domain optimal search, k = 5, at most 1% suppressed records;
- ``mondrian``: median Mondrian (strict), k = 10;
- ``xu-top-down``: Xu et al.'s top-down local recoding, k = 10.

Each run prints the seconds of every stage as the run summary reports them (``stage_seconds``: load,
encode, search — engine included —, release, metrics, verify, write), the whole process's wall time
(interpreter start and imports included), its peak resident set size (the process's own
``VmHWM``) and the peak of the process and the processes it starts together (Spark's JVM and Python
workers; sampled every 0.2 s), with the 1-minute load average before and after the run: other
processes share the machine.  A run that exceeds ``--timeout`` seconds is stopped and reported as such.
``--src DIR`` runs the anonset of another source tree (an earlier commit exported with
``git archive``) for before/after figures; a version without stage times prints the total only.
``--min-level zip=2,age=1`` gives the register's quasi-identifiers a minimum generalization (their
configurations and releases are named ``..._floor``); each run then also prints the classes of the
first class table the engine counted (``bottom classes``: for Spark, the rows that reached the driver).

The ``load`` section compares the two ways a run's input is loaded, each in a fresh process: a
DataFrame of Python strings then a Dataset (``RunConfig.load_dataset``, what ``anonset anonymize``
did before it read Arrow), and the Arrow table handed to the Dataset (``read_dataset``, what it does
now), on Adult (30,162 records, nine quasi-identifiers with the shared hierarchy files), the
Adult mix at factor 33 (995,346 records) and the patient register; reading, encoding and peak RSS.
For the register it also encodes the generator's DataFrame (``generated``: the Dataset of
``patient_register_dataset``; only the encoding is timed, the peak includes generating it).
Nothing is asserted.  Usage::

    .venv/bin/python benchmarks/scale.py                                   # load, then 10M patients x 3 methods
    .venv/bin/python benchmarks/scale.py --sections runs --rows 1000000,3000000 --methods xu-top-down
    .venv/bin/python benchmarks/scale.py --sections runs --data adult-mix --methods optimal
    .venv/bin/python benchmarks/scale.py --sections runs --rows 100000000 --methods optimal --engines spark \
        --min-level zip=2
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import header, load

ROOT = Path(__file__).resolve().parents[1]
ADULT_DIR = ROOT.parent / "shared" / "data" / "adult"
ADULT_COLUMNS = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass",
                 "occupation", "salary-class")
ADULT_ROWS = 30_162
METHODS = ("optimal", "mondrian", "xu-top-down")
#: Engine and method pairs that do not run: DuckDB searches full-domain nodes only; Spark also runs Mondrian
#: (distributed), not the local-recoding methods.
UNSUPPORTED = {("duckdb", "mondrian"), ("duckdb", "xu-top-down"), ("spark", "xu-top-down")}
STAGES = ("load", "encode", "search", "release", "metrics", "verify", "write")


@dataclass(frozen=True)
class Run:
    """What one process printed and used."""

    wall: float
    peak_rss: int
    finished: bool
    tree_peak: int
    summary: dict[str, Any] | None
    error: str = ""


#: Records generated at a time when a register is built (a larger one is written chunk by chunk).
BUILD_CHUNK = 10_000_000


def patients_table(workdir: Path, rows: int) -> Path:
    """The synthetic patient register of ``rows`` records as Parquet (built, in a child process, unless there).

    The table and the hierarchy files are built by a child process: this process stays small, as
    the processes it starts inherit its memory at the fork.
    """
    target = workdir / f"patients_{rows}.parquet"
    if not target.exists() or not patients_hierarchies(workdir)["sex"].exists():
        started = time.perf_counter()
        subprocess.run([sys.executable, str(Path(__file__).resolve()), "--build-child", str(workdir), str(rows)],
                       check=True)
        print(f"built {target} ({rows:,} records) in {time.perf_counter() - started:.1f} s; {load()}", flush=True)
    return target


def build_child(workdir: Path, rows: int) -> None:
    """Write the register of ``rows`` records as Parquet and the hierarchy files of its categorical columns.

    Above :data:`BUILD_CHUNK` records the table is written in chunks of that size (seeds 0, 1, ...), so
    building it needs the memory of one chunk.
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from anonset.datasets import patient_register
    from anonset.datasets.synthetic import patient_register_attributes
    from anonset.hierarchy import Hierarchy, write_hierarchy

    target = workdir / f"patients_{rows}.parquet"
    if not target.exists():
        partial = workdir / f".{target.name}.part"
        if rows <= BUILD_CHUNK:
            pq.write_table(pa.Table.from_pandas(patient_register(rows, seed=0), preserve_index=False), partial)
        else:  # chunk i is the register of seed i, its record numbers shifted to follow the previous chunk's
            writer = None
            for i, start in enumerate(range(0, rows, BUILD_CHUNK)):
                chunk = patient_register(min(BUILD_CHUNK, rows - start), seed=i)
                width = max(7, len(str(rows)))
                numbers = np.arange(start + 1, start + len(chunk) + 1).astype(np.str_)
                chunk["patient_id"] = np.strings.add("P", np.strings.zfill(numbers, width)).astype(object)
                table = pa.Table.from_pandas(chunk, preserve_index=False)
                writer = writer or pq.ParquetWriter(partial, table.schema)
                writer.write_table(table)
            assert writer is not None
            writer.close()
        os.replace(partial, target)
    attributes = patient_register_attributes(patient_register(1_000, seed=0))  # the whole domains
    for name, path in patients_hierarchies(workdir).items():
        h = attributes[name].hierarchy
        assert isinstance(h, Hierarchy)
        write_hierarchy(h, path)


def patients_hierarchies(workdir: Path) -> dict[str, Path]:
    """Where the hierarchy files of the register's categorical columns are (see :func:`build_child`)."""
    return {name: workdir / f"patients_{name}.csv" for name in ("sex", "race", "marital_status", "education",
                                                                 "diagnosis")}


def patients_config(workdir: Path, table: Path, method: str, engine: str = "numpy",
                    floors: dict[str, int] | None = None) -> Path:
    """The run configuration of ``method`` on a patient register table; ``floors``: ``min_level`` by attribute."""
    files = patients_hierarchies(workdir)
    education = [line.split(";")[0] for line in files["education"].read_text(encoding="utf-8").splitlines()]
    age = "{role: quasi, type: numeric, hierarchy: {builder: intervals, widths: [5, 10, 20, 40], start: 0, top: 100}}"
    lines = [f"input: {{path: {json.dumps(str(table))}}}", "attributes:",
             "  patient_id: {role: identifier}",
             f"  age: {age}",
             f"  sex: {{role: quasi, hierarchy: {json.dumps(str(files['sex']))}}}",
             "  zip: {role: quasi, hierarchy: {builder: masking, levels: 3}}",
             f"  race: {{role: quasi, hierarchy: {json.dumps(str(files['race']))}}}",
             f"  marital_status: {{role: quasi, hierarchy: {json.dumps(str(files['marital_status']))}}}",
             f"  education: {{role: quasi, type: ordinal, order: {json.dumps(education)},"
             f" hierarchy: {json.dumps(str(files['education']))}}}",
             f"  diagnosis: {{role: sensitive, hierarchy: {json.dumps(str(files['diagnosis']))}}}",
             "  length_of_stay: {role: insensitive}"]
    for name, level in (floors or {}).items():
        at = next(i for i, line in enumerate(lines) if line.startswith(f"  {name}: {{role: quasi"))
        lines[at] = lines[at][:-1] + f", min_level: {level}}}"
    return _write_config(workdir, table.stem + ("_floor" if floors else ""), method, lines, engine)


def adult_table(workdir: Path, factor: int) -> Path:
    """The Adult table scaled by ``make_mix.py`` (built unless already there)."""
    target = workdir / f"adult_mix{factor}.csv"
    if not target.exists():
        started = time.perf_counter()
        partial = workdir / f".{target.name}.part"
        subprocess.run([sys.executable, str(ADULT_DIR / "make_mix.py"), str(factor), str(partial),
                        str(ADULT_DIR / "adult.csv")], check=True)
        os.replace(partial, target)
        print(f"built {target} (factor {factor}) in {time.perf_counter() - started:.1f} s; {load()}", flush=True)
    return target


def adult_config(workdir: Path, table: Path, method: str, engine: str = "numpy") -> Path:
    """The run configuration of ``method`` on a scaled Adult table: every column a quasi-identifier."""
    lines = [f"input: {{path: {json.dumps(str(table))}, delimiter: ';'}}", "attributes:"]
    for column in ADULT_COLUMNS:
        hierarchy = json.dumps(str(ADULT_DIR / "hierarchies" / f"{column}.csv"))
        numeric = ", type: numeric" if column == "age" else ""
        lines.append(f"  {column}: {{role: quasi{numeric}, hierarchy: {hierarchy}}}")
    return _write_config(workdir, table.stem, method, lines, engine)


def _write_config(workdir: Path, stem: str, method: str, lines: list[str], engine: str = "numpy") -> Path:
    privacy = "{k: 5, max_suppression: 0.01}" if method == "optimal" else "{k: 10}"
    name = f"{stem}_{method}" + ("" if engine == "numpy" else f"_{engine}")
    lines += [f"privacy: {privacy}", f"method: {{name: {method}}}",
              f"output: {{path: {json.dumps(str(workdir / f'{name}_released.csv'))}}}"]
    if engine != "numpy":
        lines.append(f"engine: {engine}")
    if engine == "spark":
        lines.append("spark: {master: 'local[2]'}")
    path = workdir / f"{name}.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(config: Path, timeout: float, src: Path | None) -> Run:
    """One ``anonset anonymize`` process: wall time, its own peak RSS, and its summary.

    The peak is the high-water mark of the process's memory (``VmHWM``), written by the process
    as it exits: a child's ``ru_maxrss`` would also count the memory of this process at the fork.
    """
    summary_path = config.with_suffix(".summary.json")
    peak_path = config.with_suffix(".peak")
    for stale in (summary_path, peak_path):
        stale.unlink(missing_ok=True)
    released = config.with_name(config.stem + "_released.csv")
    if released.is_dir():  # a Spark release is a folder, and an existing one is refused
        shutil.rmtree(released)
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", _PEAK_WRAPPER, str(peak_path), "anonymize", str(config),
                             "--summary", str(summary_path), "--quiet"], env=_environment(src),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    sampler = SessionMemory(proc.pid)
    sampler.start()
    try:
        _, err = proc.communicate(timeout=timeout)
        finished = True
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        finished = False
    finally:
        sampler.stop()
    wall = time.perf_counter() - started
    error = err.decode("utf-8", "replace").strip()
    summary = json.loads(summary_path.read_text()) if finished and proc.returncode == 0 else None
    if finished and proc.returncode != 0:
        error = f"exit {proc.returncode}: {error.splitlines()[-1] if error else ''}"
    peak = int(peak_path.read_text()) if peak_path.exists() else 0
    return Run(wall=wall, peak_rss=peak, finished=finished, tree_peak=sampler.peak, summary=summary, error=error)


class SessionMemory(threading.Thread):
    """The peak of the summed resident memory of every process in a session, sampled every 0.2 s.

    A run's own ``VmHWM`` leaves out the processes it starts: Spark's JVM and its Python workers.
    This sums them (and the run) as they are at each sample, so a peak shorter than a sample
    can be missed.
    """

    def __init__(self, session: int) -> None:
        super().__init__(daemon=True)
        self.session = session
        self.peak = 0
        self._done = threading.Event()

    def run(self) -> None:
        page = os.sysconf("SC_PAGE_SIZE")
        while not self._done.wait(0.2):
            total = 0
            for stat in Path("/proc").glob("[0-9]*/stat"):
                try:
                    text = stat.read_text()
                except OSError:  # the process ended meanwhile
                    continue
                fields = text[text.rindex(")") + 2:].split()
                if int(fields[3]) == self.session:  # fields after the name: state, ppid, pgrp, session, ...
                    total += int(fields[21]) * page  # rss, in pages
            self.peak = max(self.peak, total)

    def stop(self) -> None:
        self._done.set()
        self.join()


#: Runs ``anonset`` with the arguments after the first, then writes the process's peak RSS (bytes) to the first.
_PEAK_WRAPPER = """
import atexit, sys
from pathlib import Path

def peak(path=Path(sys.argv[1])):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            path.write_text(str(int(line.split()[1]) * 1024))

atexit.register(peak)
import anonset.cli as cli
sys.argv = ["anonset", *sys.argv[2:]]
(getattr(cli, "run", None) or cli.main)()  # the installed program's entry (a tree from before it: main)
"""


def _peak_rss() -> int:
    """This process's own peak RSS in bytes (``VmHWM``; unlike ``ru_maxrss`` it does not count its parent's)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def report(method: str, rows: int, result: Run, before: str, timeout: float) -> None:
    """One line per run: stages, whole process, peak memory, load average before and after."""
    after = load()
    head = f"{method:<20} {rows:>11,} rows:"
    if not result.finished:
        print(f"{head} stopped after {timeout:.0f} s (--timeout), peak RSS {result.peak_rss / 1e9:.2f} GB"
              f" (with its child processes {result.tree_peak / 1e9:.2f} GB);"
              f" {before} -> {after}", flush=True)
        return
    if result.summary is None:
        print(f"{head} failed ({result.error}); {before} -> {after}", flush=True)
        return
    s = result.summary
    stages = s.get("stage_seconds")
    text = "" if stages is None else (" = " + ", ".join(f"{name} {stages[name]:.2f}" for name in STAGES)
                                      + f"; load+encode {stages['load'] + stages['encode']:.2f} s")
    counted = ((s.get("risk") or {}).get("input") or {}).get("classes")
    bottom = "" if counted is None else f", bottom classes {counted:,}"
    print(f"{head} process {result.wall:.1f} s, peak RSS {result.peak_rss / 1e9:.2f} GB (with its child processes"
          f" {result.tree_peak / 1e9:.2f} GB); run {s['seconds']:.1f} s"
          f"{text}; {s['classes']:,} classes, {s['suppressed_rows']:,} suppressed{bottom}; {before} -> {after}",
          flush=True)


def _environment(src: Path | None) -> dict[str, str]:
    """The child's environment: this one, with ``src`` first on the module path when given."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(src), *filter(None, [env.get("PYTHONPATH")])])
    return env


# --------------------------------------------------------------------------- loading
def load_child(config: Path, way: str) -> None:
    """Load a run's input one way in this (fresh) process; print JSON: read and encode seconds, peak RSS.

    The modules either way uses are imported before the clock starts.
    """
    import anonset.io.tables  # noqa: F401  (imported for the clock's sake)
    from anonset.config import load_config
    from anonset.core.dataset import Dataset

    cfg = load_config(config)
    if way == "generated":  # the register's DataFrame of Python strings, as patient_register_dataset builds it
        from anonset.datasets.synthetic import patient_register, patient_register_attributes

        path = Path(str(config)).parent / str(cfg.raw["input"]["path"])
        frame = patient_register(int(path.stem.split("_")[-1]), seed=0)
        attributes = patient_register_attributes(frame)
    started = time.perf_counter()
    if way == "generated":
        dataset = Dataset(frame, attributes, source="patient_register")
    elif hasattr(cfg, "load_dataset"):  # an earlier version: the config loaded its own input
        dataset = cfg.load_dataset()
    else:  # the run layer reads the input (Arrow, encoded without a DataFrame of strings)
        from anonset.runs.memory import MemoryRun

        dataset, _ = MemoryRun(cfg).load()
    total = time.perf_counter() - started
    encode = getattr(dataset, "encode_seconds", None)  # None: a version that does not time encoding
    print(json.dumps({"rows": dataset.n_rows, "total": total, "encode": encode, "peak": _peak_rss()}))


def load_section(workdir: Path, rows: list[int], src: Path | None) -> None:
    """Both ways of loading, each in a fresh process, on Adult, the Adult mix (factor 33) and the register.

    With ``src`` (an earlier source tree) only its way, the DataFrame, is measured.
    """
    print("\nloading: DataFrame of strings then Dataset (before) vs Arrow table handed to the Dataset (now)"
          + ("" if src is None else f"; the anonset in {src}"))
    configs = [("adult", adult_config(workdir, ADULT_DIR / "adult.csv", "optimal")),
               ("adult mix33", adult_config(workdir, adult_table(workdir, 33), "optimal"))]
    configs += [("patients", patients_config(workdir, patients_table(workdir, n), "optimal")) for n in rows]
    for name, config in configs:
        ways = ["dataframe"] if src is not None else ["dataframe", "arrow"]
        for way in ways + (["generated"] if name == "patients" else []):
            before = load()
            proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--load-child", str(config), way],
                                  capture_output=True, text=True, check=False, env=_environment(src))
            if proc.returncode != 0:
                print(f"{name} ({way}): failed: {proc.stderr.strip().splitlines()[-1:]}", flush=True)
                continue
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            split = ("" if r["encode"] is None or way == "generated"
                     else f"read {r['total'] - r['encode']:.2f} s, encode {r['encode']:.2f} s, ")
            print(f"{name:<12} {r['rows']:>11,} rows, {way:<9}: {split}together {r['total']:.2f} s,"
                  f" peak RSS {r['peak'] / 1e9:.2f} GB; {before} -> {load()}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", choices=("patients", "adult-mix"), default="patients")
    parser.add_argument("--rows", default="10000000",
                        help="comma-separated table sizes (patients; adult-mix uses --factor)")
    parser.add_argument("--factor", type=int, default=330, help="make_mix.py factor of adult-mix (330: 9,953,460)")
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--engines", default="numpy",
                        help="comma-separated engines of the runs: numpy, duckdb, spark (duckdb runs optimal only,"
                             " spark optimal and mondrian)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds before a run is stopped")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/anonset-scale"))
    parser.add_argument("--sections", default="load,runs", help="load, runs (default both)")
    parser.add_argument("--src", type=Path, help="run the anonset of this source tree (an earlier commit)")
    parser.add_argument("--min-level", default="", help="NAME=LEVEL,...: a minimum generalization (patients)")
    parser.add_argument("--load-child", nargs=2, metavar=("CONFIG", "WAY"), help=argparse.SUPPRESS)
    parser.add_argument("--build-child", nargs=2, metavar=("WORKDIR", "ROWS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.load_child:
        load_child(Path(args.load_child[0]), args.load_child[1])
        return
    if args.build_child:
        build_child(Path(args.build_child[0]), int(args.build_child[1]))
        return
    header("benchmarks/scale.py")
    args.workdir.mkdir(parents=True, exist_ok=True)
    methods = [m for m in args.methods.split(",") if m]
    unknown = sorted(set(methods) - set(METHODS))
    if unknown:
        parser.error(f"unknown method(s) {', '.join(unknown)}; choose from {', '.join(METHODS)}")
    sizes = [int(n) for n in args.rows.split(",")]
    sections = set(args.sections.split(","))
    if "load" in sections:
        load_section(args.workdir, sizes, args.src)
    if "runs" not in sections:
        return
    print(f"\nruns{'' if args.src is None else f' of the anonset in {args.src}'}:")
    if args.data == "patients":
        tables = [(rows, patients_table(args.workdir, rows)) for rows in sizes]
    else:
        tables = [(ADULT_ROWS * args.factor, adult_table(args.workdir, args.factor))]
    engines = [e for e in args.engines.split(",") if e]
    floors = {name: int(level) for name, level in (item.split("=") for item in args.min_level.split(",") if item)}
    for rows, table in tables:
        for method in methods:
            for engine in engines:
                if (engine, method) in UNSUPPORTED:
                    continue
                config = (patients_config(args.workdir, table, method, engine, floors) if args.data == "patients"
                          else adult_config(args.workdir, table, method, engine))
                before = load()
                report(f"{method} {engine}", rows, run(config, args.timeout, args.src), before, args.timeout)


if __name__ == "__main__":
    main()
