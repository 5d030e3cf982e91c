"""Every output anonset writes, on small synthetic tables, normalized so that two runs can be compared with diff -r.

A refactor that should change nothing is checked by running this script on the commit before it
and on the commit after it, and comparing the two folders::

    .venv/bin/python benchmarks/output_snapshot.py /tmp/before      # on the commit before
    .venv/bin/python benchmarks/output_snapshot.py /tmp/after       # on the commit after
    diff -r /tmp/before /tmp/after                                   # no output: nothing changed

It runs ``anonset`` (the one on PATH, or ``--anonset PATH``) as a user would, one process per
command, in a temporary work folder, on a table made by anonset's own generator (``anonset demo
--save-table``, the built-in synthetic patient register):

- ``anonymize`` with ``--summary`` and ``--report`` (.json and .html) for every registered method
  (full-domain, research value, grouping, trade-off front) and several privacy models, on the
  numpy engine; the full-domain, research-value and front methods also on DuckDB and PostgreSQL,
  and on Spark (``local[2]``, every Spark run in one Python process through click's CliRunner, so
  one JVM starts), with distributed Mondrian;
- ``report`` of a written release (with and without ``--summary``), ``check`` (passing and
  failing), ``risk --json`` (of the table and of a release), ``compare``, ``evaluate`` (a small
  workload), ``init`` on the CSV, ``demo`` (small ``--rows``), ``methods`` and two bad inputs.

Each case gets a folder under OUT holding, per step, the command line and exit code, its standard
output and standard error, and every file the case's folder holds afterwards (``files/``).  What
differs from run to run is normalized: timings (JSON keys ``seconds``, ``stage_seconds``,
``*_seconds``, ``generated``; compare's row named ``seconds``; every number of a printed line or an
HTML table row that says ``seconds``; "1.2 s" in prose), timestamps, the temporary work folder, the
PostgreSQL schema and URL, anonset's version (JSON ``version``/``versions``); printed tables have
their padding collapsed (a timing can be a table's widest cell).  The records of DuckDB, PostgreSQL
and Spark releases are sorted (their order is not specified), Spark's part files are concatenated
into ``NAME.records.csv`` (with ``NAME.folder.txt`` saying how many there were), a Parquet release
is written out as sorted CSV after a line of its column types, and a release into PostgreSQL is
fetched into a sorted CSV.  numpy releases keep their order (it is specified: the input's).
Every command runs with ``COLUMNS=250`` (no wrapped table rows), ``ANONSET_THREADS=2`` and no
colour.

Options: ``--anonset PATH`` (default: ``anonset`` on PATH, else the one beside this Python),
``--pg-url URL`` (default: ``ANONSET_TEST_PG_URL`` or the test server), ``--rows N`` (the table's
size, default 1200), ``--jobs N`` (commands run at once, default 2), ``--no-spark``,
``--no-postgres`` (a skipped part is named in OUT/SKIPPED.txt), ``--only REGEX`` (cases whose name
matches), ``--keep`` (keep the work folder).  OUT must not exist or be empty.  Prints the slowest
steps; exits 1 when a step's exit code is not the one the tree of 2026-11-27 gives (every exit code
is in the snapshot too).

Another commit, without checking it out here: make a worktree and put its ``src`` first on the path
(the same virtual environment's anonset then imports it; the script prints which package ran)::

    git worktree add /tmp/snapbase COMMIT
    PYTHONPATH=/tmp/snapbase/src .venv/bin/python benchmarks/output_snapshot.py /tmp/before
    git worktree remove /tmp/snapbase

It takes 70-95 s on the 2-core python-svc machine at load 4-5 with numba's cache warm (the one Spark
process about 40 s of it, beside the others); with a cold cache (a new worktree, or kernels that
moved) each process compiles what it runs, about 4 minutes the first time (``anonset compile --jobs
2`` first avoids that).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import csv
import io
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# --------------------------------------------------------------------------- configs

ATTRIBUTES = """attributes:
  patient_id:     {role: identifier}
  age:            {role: quasi, type: numeric, hierarchy: {builder: intervals, widths: [5, 10, 20, 40]}}
  sex:            {role: quasi, hierarchy: {builder: flat}}
  zip:            {role: quasi, hierarchy: {builder: masking, levels: 3}}
  race:           {role: quasi, hierarchy: {builder: flat}}
  marital_status: {role: insensitive}
  education:      {role: insensitive}
  diagnosis:      {role: sensitive}
  length_of_stay: {role: insensitive}
"""
QUASI = "age,sex,zip,race"

#: privacy sections by name
PRIVACY = {
    "k": "privacy: {k: 5, max_suppression: 0.03}\n",
    "entropy": "privacy: {k: 5, l_diversity: {attribute: diagnosis, l: 2, variant: entropy}, max_suppression: 0.03}\n",
    "distinct": "privacy: {k: 4, l_diversity: {attribute: diagnosis, l: 2}}\n",
    "distinct-budget": "privacy: {k: 4, l_diversity: {attribute: diagnosis, l: 2}, max_suppression: 0.03}\n",
    "recursive": "privacy: {k: 3, l_diversity: {attribute: diagnosis, l: 2, variant: recursive, c: 3},"
                 " max_suppression: 0.05}\n",
    "t-equal": "privacy: {k: 5, t_closeness: {attribute: diagnosis, t: 0.35}, max_suppression: 0.03}\n",
    "t-hierarchical": "privacy: {k: 5, t_closeness: {attribute: diagnosis, t: 0.35, distance: hierarchical},"
                      " max_suppression: 0.03}\n",
    "k-only": "privacy: {k: 5}\n",
    "mondrian-entropy": "privacy: {k: 5, l_diversity: {attribute: diagnosis, l: 2, variant: entropy}}\n",
    "mondrian-t": "privacy: {k: 5, t_closeness: {attribute: diagnosis, t: 0.4}}\n",
}


def config(*, privacy: str, method: str, input_: str = "{path: ../register.csv}", output: str | None,
           engine: str | None = None, attributes: str = ATTRIBUTES, extra: str = "") -> str:
    """A run config in YAML: the register's attributes, a privacy section, a method and an output."""
    text = f"input: {input_}\n{attributes}{PRIVACY[privacy]}method: {method}\n"
    if output is not None:
        text += f"output: {output}\n"
    if engine is not None:
        text += f"engine: {engine}\n"
    return text + extra + "seed: 0\n"


SPARK = "spark: {master: 'local[2]', options: {spark.sql.shuffle.partitions: '4', spark.default.parallelism: '2'}}\n"

# --------------------------------------------------------------------------- cases


@dataclass
class Step:
    """One anonset command of a case, run in the case's folder."""

    name: str
    args: list[str]
    expect: int = 0                      # the exit code the current tree gives (a mismatch is reported)


@dataclass
class Case:
    """A folder of its own: files written before the steps, then the steps in order."""

    name: str
    files: dict[str, str]
    steps: list[Step]
    where: str = "process"               # process: one anonset process per step; spark: the one Spark process
    sorted_outputs: tuple[str, ...] = ()  # outputs whose records come in no specified order
    tables: tuple[str, ...] = ()         # PostgreSQL output tables to fetch (name in the schema)


def cases(pg: str | None) -> list[Case]:
    """Every case; ``pg`` is ``URL|SCHEMA`` when PostgreSQL is used (the input table is SCHEMA.register)."""
    out: list[Case] = []

    def anonymize_case(name: str, method: str, privacy: str, *, reports: bool = True, extra: str = "",
                       expect: int = 0, attributes: str = ATTRIBUTES) -> None:
        args = ["anonymize", "config.yaml", "--summary", "summary.json"]
        if reports:
            args += ["--report", "report.json", "--report", "report.html"]
        out.append(Case(name, {"config.yaml": config(privacy=privacy, method=method, output="{path: release.csv}",
                                                       extra=extra, attributes=attributes)},
                        [Step("anonymize", args, expect)]))

    # numpy: every registered method, with reports
    anonymize_case("numpy-optimal-entropy", "{name: optimal, metric: loss}", "entropy")
    anonymize_case("numpy-optimal-t-equal", "{name: optimal}", "t-equal")
    anonymize_case("numpy-optimal-t-hierarchical", "{name: optimal, metric: glm}", "t-hierarchical",
                   attributes=ATTRIBUTES.replace("diagnosis:      {role: sensitive}",
                                                 "diagnosis:      {role: sensitive, hierarchy: {builder: ordered,"
                                                 " fanouts: [3, 2]}}"))
    anonymize_case("numpy-optimal-recursive", "{name: optimal, metric: discernibility}", "recursive")
    anonymize_case("numpy-exhaustive", "{name: exhaustive, metric: loss}", "k")
    for rv in ("rv-global", "rv-local", "rv-hybrid", "rv-partitioned"):
        anonymize_case(f"numpy-{rv}", f"{{name: {rv}}}", "k", extra="research_value: {weights: auto}\n")
    anonymize_case("numpy-pareto-exhaustive", "{name: pareto-exhaustive}", "k")
    anonymize_case("numpy-pareto-ea", "{name: pareto-ea, population: 8, iterations: 4}", "k")
    anonymize_case("numpy-k-member", "{name: k-member}", "distinct")
    anonymize_case("numpy-xu-top-down", "{name: xu-top-down}", "distinct")
    anonymize_case("numpy-xu-bottom-up", "{name: xu-bottom-up}", "k-only")
    anonymize_case("numpy-mondrian", "{name: mondrian}", "mondrian-entropy")
    anonymize_case("numpy-mondrian-t", "{name: mondrian, strict: false}", "mondrian-t")
    # a front without a member chosen prints the front and releases nothing
    out.append(Case("numpy-pareto-front-only", {"config.yaml": config(
        privacy="k", method="{name: pareto-exhaustive}", output=None).replace("k: 5, ", "")},
        [Step("anonymize", ["anonymize", "config.yaml"])]))
    # --json: the summary on standard output
    out.append(Case("numpy-json", {"config.yaml": config(privacy="entropy", method="{name: optimal}",
                                                         output="{path: release.csv}")},
                    [Step("anonymize", ["anonymize", "config.yaml", "--json"])]))

    # DuckDB: the methods that run in a database; then report, check and risk on its written release
    for method, privacy in (("optimal", "entropy"), ("rv-global", "k"), ("pareto-exhaustive", "k")):
        extra = "research_value: {weights: auto}\n" if method.startswith("rv") else ""
        out.append(Case(f"duckdb-{method}", {"config.yaml": config(
            privacy=privacy, method=f"{{name: {method}}}", output="{path: release.csv}", engine="duckdb",
            extra=extra)}, [Step("anonymize", ["anonymize", "config.yaml", "--summary", "summary.json"])],
            sorted_outputs=("release.csv",)))
    out.append(Case("duckdb-parquet", {"config.yaml": config(
        privacy="entropy", method="{name: optimal}", output="{path: release.parquet}", engine="duckdb")},
        [Step("anonymize", ["anonymize", "config.yaml", "--summary", "summary.json"])],
        sorted_outputs=("release.parquet",)))

    # the commands on a written release (numpy's, and DuckDB's)
    for engine in ("numpy", "duckdb"):
        quasi = ["--quasi", QUASI, "-k", "5", "--sensitive", "diagnosis", "--l", "2", "--variant", "entropy",
                 "--max-suppression", "0.03"]
        out.append(Case(f"commands-on-{engine}-release", {"config.yaml": config(
            privacy="entropy", method="{name: optimal}", output="{path: release.csv}", engine=engine)}, [
            Step("anonymize", ["anonymize", "config.yaml", "--summary", "summary.json", "-q"]),
            Step("report", ["report", "config.yaml", "release.csv", "-o", "report.html", "-o", "report.json"]),
            Step("report-summary", ["report", "config.yaml", "release.csv", "--summary", "summary.json",
                                    "-o", "report-summary.html", "-o", "report-summary.json"]),
            Step("check", ["check", "release.csv", *quasi]),
            Step("check-fails", ["check", "release.csv", "--quasi", QUASI, "-k", "40"], expect=1),
            Step("risk-table", ["risk", "config.yaml", "--json", "risk-table.json"]),
            Step("risk-release", ["risk", "config.yaml", "--release", "release.csv", "--sampling-fraction", "0.1",
                                  "--json", "risk-release.json"]),
        ], sorted_outputs=("release.csv",) if engine != "numpy" else ()))

    # compare
    out.append(Case("compare", {
        "optimal.yaml": config(privacy="entropy", method="{name: optimal}", output="{path: optimal.csv}"),
        "mondrian.yaml": config(privacy="mondrian-entropy", method="{name: mondrian}", output="{path: mondrian.csv}"),
        "k-member.yaml": config(privacy="distinct", method="{name: k-member}", output="{path: k-member.csv}"),
    }, [Step("compare", ["compare", "optimal.yaml", "mondrian.yaml", "k-member.yaml", "--queries", "200",
                         "--json", "compare.json", "--report", "compare.html"])]))

    # evaluate: the protocol (a classification target) and the utility checks of one release
    evaluated = ATTRIBUTES.replace("marital_status: {role: insensitive}", "marital_status: {role: target}")
    out.append(Case("evaluate", {"config.yaml": config(
        privacy="k-only", method="{name: mondrian, criterion: infogain}", output=None, attributes=evaluated,
        extra="evaluation:\n  task: classification\n  models: [decision_tree, naive_bayes]\n  folds: 3\n"
              "  queries: {count: 200, dimension: 2, selectivity: 0.2}\n  patterns: {depth: 2}\n")},
        [Step("evaluate", ["evaluate", "config.yaml", "--summary", "summary.json"])]))

    # init on the CSV, then the starter config as written
    out.append(Case("init", {}, [
        Step("init", ["init", "../register.csv", "-o", "starter.yaml"]),
        Step("init-stdout", ["init", "../register.csv", "--delimiter", ","]),
    ]))

    # bad input: an unknown key, a column the table lacks
    out.append(Case("bad-input", {
        "unknown-key.yaml": config(privacy="k", method="{name: optimal}", output="{path: a.csv}", extra="sead: 1\n"),
        "missing-column.yaml": config(privacy="k", method="{name: optimal}", output="{path: b.csv}",
                                      attributes=ATTRIBUTES + "  ward:           {role: quasi}\n"),
    }, [Step("unknown-key", ["anonymize", "unknown-key.yaml"], expect=2),
        Step("missing-column", ["anonymize", "missing-column.yaml"], expect=2)]))

    out.append(Case("methods", {}, [Step("methods", ["methods"]), Step("methods-markdown", ["methods", "--markdown"])]))

    # Spark (local[2], all in one process): the full-domain, research-value and front methods, distributed Mondrian
    if "spark" in ENABLED:
        for method, privacy, suffix, output in (
                ("optimal", "entropy", "", "{path: release.csv}"),
                ("rv-global", "k", "", "{path: release.csv, suppressed: drop}"),
                ("optimal", "entropy", "-parquet", "{path: release.parquet}"),
                ("pareto-exhaustive", "k", "", "{path: release.csv}"),
                ("mondrian", "mondrian-entropy", "", "{path: release.csv}")):
            extra = SPARK + ("research_value: {weights: auto}\n" if method.startswith("rv") else "")
            out.append(Case(f"spark-{method}{suffix}", {"config.yaml": config(
                privacy=privacy, method=f"{{name: {method}}}", output=output, engine="spark", extra=extra)},
                [Step("anonymize", ["anonymize", "@config.yaml", "--summary", "summary.json"])],
                where="spark", sorted_outputs=("release.csv", "release.parquet")))

    # PostgreSQL: the input table in a schema of its own, the releases written beside it
    if pg is not None:
        url, schema = pg.split("|")
        sql_input = f"{{sql: {{url: '{url}', table: {schema}.register}}}}"
        for method, privacy in (("optimal", "entropy"), ("rv-global", "k"), ("pareto-exhaustive", "k")):
            extra = "research_value: {weights: auto}\n" if method.startswith("rv") else ""
            table = f"released_{method.replace('-', '_')}"
            out.append(Case(f"postgresql-{method}", {"config.yaml": config(
                privacy=privacy, method=f"{{name: {method}}}", input_=sql_input,
                output=f"{{table: {schema}.{table}}}", extra=extra)},
                [Step("anonymize", ["anonymize", "config.yaml", "--summary", "summary.json"])], tables=(table,)))
        out.append(Case("postgresql-risk", {"config.yaml": config(
            privacy="k", method="{name: optimal}", input_=sql_input, output=f"{{table: {schema}.unused}}")},
            [Step("risk", ["risk", "config.yaml", "--json", "risk.json"])]))
    return out


ENABLED: set[str] = set()

# --------------------------------------------------------------------------- normalization

_TIMING_KEY = re.compile(r"(^|_)(seconds|elapsed|duration)$|^(stage_seconds|timings|generated|started|finished)$")
_ISO_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?( UTC)?")
# "1.23 s", "0.4s", "12 ms", "3.1 seconds" (a figure of time in prose)
_TEXT_SECONDS = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?(?:e-?\d+)?(\s?)(s|ms|sec|seconds)(?![\w])")
_JSON_SECONDS = re.compile(r'("(?:\w+_)?(?:seconds|elapsed|duration|generated|started|finished)"\s*:\s*)'
                           r'(-?[\d.eE+-]+|"[^"]*"|\{[^{}]*\})')
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e-?\d+)?(?![\w])")
_SECONDS = re.compile(r"\bseconds\b")
_HTML_ROW = re.compile(r"<tr>(?:(?!</tr>).)*?</tr>", re.S)
_BOX = re.compile(r"[│┃┆┊║|][^\n]*")


@dataclass
class Normalizer:
    """What differs from run to run, and its placeholder."""

    replacements: list[tuple[str, str]] = field(default_factory=list)

    def paths(self, value: str) -> str:
        """The work folder, the schema, the server's URL and the version as placeholders (records get only these)."""
        for old, new in self.replacements:
            value = value.replace(old, new)
        return value

    def _common(self, value: str) -> str:
        value = self.paths(value)
        value = _JSON_SECONDS.sub(lambda m: m.group(1) + '"<time>"', value)
        value = _ISO_TIME.sub("<timestamp>", value)
        return _TEXT_SECONDS.sub(lambda m: f"<t>{m.group(1)}{m.group(2)}", value)

    def text(self, value: str) -> str:
        """Printed output: every number of a line that says ``seconds`` (a summary's timing rows) is a time.

        A table's padding follows its widest cell, which may be a timing: lines drawn as a table
        have their runs of spaces and rules collapsed, and every line its edges stripped.
        """
        lines = []
        for line in self._common(value).split("\n"):
            if _SECONDS.search(line):
                line = _NUMBER.sub("<t>", line)
            if _BOX.search(line) or set(line.strip()) <= set("─━═┌┐└┘├┤┬┴┼╭╮╰╯┏┓┗┛┡┩╇ "):
                line = re.sub(r"([─━═])+", r"\1", re.sub(r" {2,}", " ", line))
            lines.append(line.strip())
        return "\n".join(lines)

    def html(self, value: str) -> str:
        """A page: the numbers of a table row that says ``seconds`` (the run's timings) are times."""
        value = self._common(value)
        return _HTML_ROW.sub(lambda m: _NUMBER.sub("<t>", m.group(0)) if _SECONDS.search(m.group(0)) else m.group(0),
                             value)

    def json(self, value: Any, key: str = "") -> Any:
        if _TIMING_KEY.search(key):
            return "<time>"
        if key in ("version", "versions", "anonset_version"):
            return "<version>" if not isinstance(value, dict) else {k: "<version>" for k in sorted(value)}
        if isinstance(value, dict):
            if _TIMING_KEY.search(str(value.get("name", ""))):  # a row of figures named "seconds" (compare)
                return {k: ("<time>" if k in ("value", "values") else self.json(v, str(k))) for k, v in value.items()}
            return {k: self.json(v, str(k)) for k, v in value.items()}
        if isinstance(value, list):
            return [self.json(v) for v in value]
        if isinstance(value, str):
            return self._common(value)
        return value


def sorted_csv(text: str) -> str:
    """A CSV's header, then its records sorted (as lines: the data holds no quoted line breaks)."""
    lines = text.splitlines()
    if not lines:
        return ""
    return "\n".join([lines[0], *sorted(lines[1:])]) + "\n"


def parquet_as_csv(paths: list[Path]) -> str:
    """Parquet file(s) as one sorted CSV, after a line of the columns' types."""
    import pandas as pd

    frame = pd.concat([pd.read_parquet(p) for p in paths], ignore_index=True)
    types = ";".join(f"{c}:{t}" for c, t in frame.dtypes.items())
    body = frame.astype(str).to_csv(index=False, lineterminator="\n")
    return f"# types {types}\n" + sorted_csv(body)


def copy_normalized(source: Path, target: Path, norm: Normalizer, sort: bool) -> None:
    """One output of a case into the snapshot, normalized (a Spark output folder becomes one file)."""
    name = source.name
    if source.is_dir():
        parts = sorted(p for p in source.iterdir() if p.name.startswith("part-") and not p.name.endswith(".crc"))
        others = sorted({re.sub(r"^\.?part-.*", "part-*", p.name) for p in source.iterdir()})
        if parts and parts[0].suffix == ".parquet" or name.endswith(".parquet"):
            body = parquet_as_csv(parts) if parts else ""
        else:
            header, rows = None, []
            for p in parts:
                lines = p.read_text(encoding="utf-8").splitlines()
                if lines:
                    header = header or lines[0]
                    rows.extend(lines[1:])
            body = "\n".join([header or "", *sorted(rows)]) + "\n"
        target.with_name(name + ".folder.txt").write_text(
            f"a folder of {len(parts)} part file(s); entries: {', '.join(others)}\n")
        target.with_name(name + ".records.csv").write_text(norm.paths(body))
        return
    if name.endswith((".parquet", ".pq")):
        target.with_name(name + ".records.csv").write_text(norm.paths(parquet_as_csv([source])))
        return
    raw = source.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        shutil.copyfile(source, target)
        return
    if name.endswith(".json"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            target.write_text(norm.text(text))
            return
        target.write_text(json.dumps(norm.json(data), indent=1, sort_keys=True, ensure_ascii=False) + "\n")
        return
    if name.endswith((".html", ".htm")):
        target.write_text(norm.html(text))
    elif name.endswith((".csv", ".tsv", ".yaml", ".yml")):  # records and configs: only the paths
        text = norm.paths(text)
        target.write_text(sorted_csv(text) if sort and name.endswith(".csv") else text)
    else:
        target.write_text(norm.text(text))


def json_output(text: str, norm: Normalizer) -> str:
    """Standard output that is one JSON document (anonymize --json), normalized like a JSON file."""
    try:
        return json.dumps(norm.json(json.loads(text)), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    except json.JSONDecodeError:
        return norm.text(text)

# --------------------------------------------------------------------------- running


#: Runs anonset's CLI through click's CliRunner for a list of steps, in one process (one Spark session).
SPARK_RUNNER = r"""
import json, os, sys, time, traceback
from click.testing import CliRunner
from anonset.cli import main
jobs = json.load(sys.stdin)
results = []
for job in jobs:
    os.chdir(job["cwd"])
    started = time.perf_counter()
    try:
        result = CliRunner().invoke(main, job["args"], catch_exceptions=True)
        error = "".join(traceback.format_exception(result.exception)) if (
            result.exception is not None and not isinstance(result.exception, SystemExit)) else ""
        results.append({"code": result.exit_code, "stdout": result.stdout, "stderr": result.stderr + error})
    except BaseException as exc:
        results.append({"code": -1, "stdout": "", "stderr": "".join(traceback.format_exception(exc))})
    results[-1]["seconds"] = time.perf_counter() - started
with open(os.environ["ANONSET_SNAPSHOT_RESULTS"], "w") as f:
    json.dump(results, f)
"""


@dataclass
class Result:
    """What a step gave: exit code, standard output and error, and its seconds (reported, never written)."""

    code: int
    stdout: str
    stderr: str
    seconds: float = 0.0


def python_of(anonset: str) -> str:
    """The Python interpreter of an ``anonset`` console script (its shebang), else this one."""
    try:
        first = Path(anonset).read_bytes()[:400].split(b"\n", 1)[0].decode()
    except OSError:
        return sys.executable
    if first.startswith("#!") and "python" in first:
        return first[2:].strip().split()[0]
    return sys.executable


def run_process(anonset: str, args: list[str], cwd: Path, env: dict[str, str]) -> Result:
    started = time.perf_counter()
    proc = subprocess.run([anonset, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=900,
                          check=False)
    return Result(proc.returncode, proc.stdout, proc.stderr, time.perf_counter() - started)


def run_spark(python: str, jobs: list[tuple[Path, list[str]]], work: Path, env: dict[str, str]) -> list[Result]:
    """Every Spark step in one Python process (one JVM), through the CLI's ``main``."""
    results_path = work / "spark-results.json"
    jvm_dir = work / "spark-jvm"  # where Spark leaves its own files (derby.log, spark-warehouse)
    jvm_dir.mkdir()
    payload = json.dumps([{"cwd": str(cwd), "args": args} for cwd, args in jobs])
    proc = subprocess.run([python, "-c", SPARK_RUNNER], input=payload, cwd=jvm_dir, text=True, capture_output=True,
                          env={**env, "ANONSET_SNAPSHOT_RESULTS": str(results_path)}, timeout=1800, check=False)
    if not results_path.exists():
        sys.stderr.write(proc.stderr[-4000:])
        raise SystemExit(f"the Spark runner failed (exit {proc.returncode})")
    return [Result(r["code"], r["stdout"], r["stderr"], r["seconds"]) for r in json.loads(results_path.read_text())]


def load_postgres(url: str, schema: str, csv_path: Path) -> None:
    """The register as a text table ``schema.register`` on the server."""
    import psycopg

    with open(csv_path, encoding="utf-8", newline="") as f:
        header = next(csv.reader(f))
    with psycopg.connect(url, autocommit=True, connect_timeout=5) as con:
        con.execute(f'CREATE SCHEMA "{schema}"')
        columns = ", ".join(f'"{c}" text' for c in header)
        con.execute(f'CREATE TABLE "{schema}".register ({columns})')
        with con.cursor() as cur, cur.copy(f'COPY "{schema}".register FROM STDIN (FORMAT csv, HEADER true)') as copy:
            copy.write(csv_path.read_bytes())


def fetch_postgres(url: str, schema: str, table: str) -> str:
    """A table of the schema as CSV, its records sorted (NULL written as \\N)."""
    import psycopg

    with psycopg.connect(url, autocommit=True, connect_timeout=5) as con:
        exists = con.execute("SELECT 1 FROM information_schema.tables WHERE table_schema = %s AND table_name = %s",
                             (schema, table)).fetchone()
        if exists is None:
            return "(no such table)\n"
        cur = con.execute(f'SELECT * FROM "{schema}"."{table}"')
        names = [d.name for d in cur.description or []]
        types = con.execute("SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = %s"
                            " AND table_name = %s ORDER BY ordinal_position", (schema, table)).fetchall()
        rows = [["\\N" if v is None else str(v) for v in row] for row in cur.fetchall()]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(names)
    writer.writerows(sorted(rows))
    return f"# types {';'.join(f'{c}:{t}' for c, t in types)}\n" + buffer.getvalue()


def drop_postgres(url: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True, connect_timeout=5) as con:
        con.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="the snapshot folder (must not exist, or be empty)")
    parser.add_argument("--anonset", default=None, help="the anonset command (default: anonset on PATH)")
    parser.add_argument("--pg-url", default=os.environ.get("ANONSET_TEST_PG_URL",
                                                           "postgresql://postgres@127.0.0.1:5432/test"))
    parser.add_argument("--rows", type=int, default=1200, help="records of the synthetic table (default 1200)")
    parser.add_argument("--jobs", type=int, default=2, help="commands run at once (default 2)")
    parser.add_argument("--no-spark", action="store_true", help="skip the Spark runs")
    parser.add_argument("--no-postgres", action="store_true", help="skip the PostgreSQL runs")
    parser.add_argument("--only", default=None, help="only the cases whose name matches this regular expression")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (its path is printed)")
    options = parser.parse_args()

    started = time.perf_counter()
    beside = Path(sys.executable).with_name("anonset")  # the interpreter's own, when none is on PATH
    anonset = options.anonset or shutil.which("anonset") or (str(beside) if beside.exists() else None)
    if anonset is None:
        parser.error("no anonset on PATH nor beside this Python: activate the virtual environment, or give"
                     " --anonset PATH")
    anonset = str(Path(anonset).resolve()) if os.sep in anonset or Path(anonset).exists() else anonset
    out: Path = options.out
    if out.exists() and any(out.iterdir()):
        parser.error(f"{out} exists and is not empty")
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="anonset-snapshot-")).resolve()
    env = {**os.environ, "COLUMNS": "250", "LINES": "50", "TERM": "dumb", "NO_COLOR": "1",
           "ANONSET_THREADS": "2", "PYTHONUNBUFFERED": "1"}
    for name in ("FORCE_COLOR", "PYTHONWARNINGS"):
        env.pop(name, None)
    skipped: list[str] = []
    python = python_of(anonset)

    version = run_process(anonset, ["--version"], work, env)
    where = subprocess.run([python, "-c", "import anonset, sys; print(anonset.__file__)"], env=env,
                           capture_output=True, text=True, check=False).stdout.strip()
    print(f"anonset: {anonset} ({version.stdout.strip()}; package {where}); work folder {work}", file=sys.stderr)
    norm = Normalizer([(str(work), "<work>")])
    if tempfile.gettempdir() != str(work.parent):
        norm.replacements.append((str(Path(tempfile.gettempdir())), "<tmp>"))
    match = re.search(r"version (\S+)", version.stdout)
    if match:
        norm.replacements.append((f"anonset {match.group(1)}", "anonset <version>"))
        norm.replacements.append((f"anonset, version {match.group(1)}", "anonset, version <version>"))

    # the input: the built-in synthetic register, written by anonset demo (also the demo case)
    demo = work / "demo"
    demo.mkdir()
    demo_step = Step("demo", ["demo", "--rows", str(options.rows), "--seed", "3", "--save-table", "register.csv",
                              "-o", "release.csv", "--report", "report.html", "--report", "report.json"])
    demo_result = run_process(anonset, demo_step.args, demo, env)
    if demo_result.code != 0 or not (demo / "register.csv").exists():
        sys.stderr.write(demo_result.stderr)
        raise SystemExit("anonset demo --save-table failed: no input table")
    shutil.copyfile(demo / "register.csv", work / "register.csv")
    results: dict[str, list[tuple[Step, Result]]] = {"demo": [(demo_step, demo_result)]}
    all_cases = [Case("demo", {}, [demo_step])]

    pg: str | None = None
    schema = f"anonset_snapshot_{secrets.token_hex(4)}"
    if options.no_postgres:
        skipped.append("postgresql (--no-postgres)")
    else:
        load_postgres(options.pg_url, schema, work / "register.csv")
        pg = f"{options.pg_url}|{schema}"
        norm.replacements[:0] = [(schema, "<schema>"), (options.pg_url, "<pg-url>")]
    if options.no_spark:
        skipped.append("spark (--no-spark)")
    else:
        ENABLED.add("spark")
    try:
        todo = [c for c in cases(pg) if options.only is None or re.search(options.only, c.name)]
        all_cases += todo
        for case in todo:
            folder = work / case.name
            folder.mkdir()
            for name, text in case.files.items():
                (folder / name).write_text(text, encoding="utf-8")

        def run_case(case: Case) -> list[tuple[Step, Result]]:
            return [(step, run_process(anonset, step.args, work / case.name, env)) for step in case.steps]

        spark_cases = [c for c in todo if c.where == "spark"]
        with concurrent.futures.ThreadPoolExecutor(max(1, options.jobs)) as pool:
            spark_future = None
            if spark_cases:
                jobs = [(work / c.name, [str(work / c.name / a[1:]) if a.startswith("@") else a for a in s.args])
                        for c in spark_cases for s in c.steps]
                spark_future = pool.submit(run_spark, python, jobs, work, env)
            futures = {c.name: pool.submit(run_case, c) for c in todo if c.where == "process"}
            for name, future in futures.items():
                results[name] = future.result()
            if spark_future is not None:
                got = iter(spark_future.result())
                for c in spark_cases:
                    results[c.name] = [(s, next(got)) for s in c.steps]

        failures = write_snapshot(out, work, all_cases, results, norm, options.pg_url if pg else None, schema)
    finally:
        if pg is not None:
            drop_postgres(options.pg_url, schema)
        if options.keep:
            print(f"work folder kept: {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    if skipped:
        (out / "SKIPPED.txt").write_text("".join(f"{s}\n" for s in skipped))
    seconds = time.perf_counter() - started
    print(f"snapshot of {len(all_cases)} cases ({sum(len(c.steps) for c in all_cases)} commands) written to {out}"
          f" in {seconds:.0f} s", file=sys.stderr)
    steps = sorted(((r.seconds, f"{name} / {step.name}") for name, done in results.items() for step, r in done),
                   reverse=True)
    print("slowest steps: " + ", ".join(f"{what} {seconds:.1f} s" for seconds, what in steps[:8]), file=sys.stderr)
    for failure in failures:
        print(f"unexpected: {failure}", file=sys.stderr)
    return 1 if failures else 0


def write_snapshot(out: Path, work: Path, all_cases: list[Case], results: dict[str, list[tuple[Step, Result]]],
                   norm: Normalizer, pg_url: str | None, schema: str) -> list[str]:
    """Each case's steps and files into ``out``; the steps whose exit code was not the expected one."""
    failures = []
    for case in all_cases:
        target = out / case.name
        target.mkdir()
        for i, (step, result) in enumerate(results.get(case.name, []), start=1):
            stem = f"{i:02d}-{step.name}"
            shown = " ".join(a.replace("@", "", 1) if a.startswith("@") else a for a in step.args)
            (target / f"{stem}.command.txt").write_text(f"$ anonset {shown}\nexit {result.code}\n")
            stdout = json_output(result.stdout, norm) if "--json" in step.args and "anonymize" in step.args \
                else norm.text(result.stdout)
            (target / f"{stem}.stdout.txt").write_text(stdout)
            (target / f"{stem}.stderr.txt").write_text(norm.text(_spark_noise(result.stderr)))
            if result.code != step.expect:
                failures.append(f"{case.name} / {step.name}: exit {result.code} (expected {step.expect});"
                                f" see {target / f'{stem}.stderr.txt'}")
        folder = work / case.name
        files = target / "files"
        files.mkdir()
        for path in sorted(folder.iterdir()) if folder.exists() else []:
            copy_normalized(path, files / path.name, norm, sort=path.name in case.sorted_outputs)
        if pg_url is not None:
            for table in case.tables:
                (files / f"postgresql-{table}.records.csv").write_text(norm.paths(fetch_postgres(pg_url, schema,
                                                                                                  table)))
    return failures


def _spark_noise(text: str) -> str:
    """The JVM's own note on its modules is printed by Java, not anonset: kept out of the comparison."""
    return "".join(line for line in text.splitlines(keepends=True)
                   if not line.startswith("WARNING: Using incubator modules"))

if __name__ == "__main__":
    raise SystemExit(main())
