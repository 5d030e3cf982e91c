"""Helpers shared by the tests: reference data paths, random tables and hierarchies, a PostgreSQL schema."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from anonset.core.dataset import Dataset
from anonset.engine.sql.base import redact_url
from anonset.hierarchy import Hierarchy
from anonset.methods import registry
from anonset.methods.base import Family

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
ADULT = SHARED / "data" / "adult"
#: The test server (ANONSET_TEST_PG_URL overrides it).
PG_URL = os.environ.get("ANONSET_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")


class PgSchema:
    """A schema of its own on the test server, dropped by :meth:`close`.

    Skips the calling test (with the reason) when the server is unreachable.
    """

    def __init__(self, url: str = PG_URL):
        import psycopg

        try:
            self.con = psycopg.connect(url, autocommit=True, connect_timeout=5)
        except psycopg.Error as exc:
            pytest.skip(f"PostgreSQL not reachable at {redact_url(url)}: {' '.join(str(exc).split())}")
        self.url = url
        self.name = f"anonset_test_{secrets.token_hex(4)}"
        self.con.execute(f'CREATE SCHEMA "{self.name}"')
        self._count = 0

    def load(self, frame: pd.DataFrame, name: str | None = None) -> tuple[str, str]:
        """A text table holding ``frame`` (None -> NULL, '' stays ''), loaded with COPY; its (schema, name)."""
        self._count += 1
        table = name or f"t{self._count}"
        cols = ", ".join(f'"{c}" text' for c in frame.columns)
        self.con.execute(f'CREATE TABLE "{self.name}"."{table}" ({cols})')
        null = "\\N-anonset-null"
        text = frame.to_csv(index=False, header=False, quoting=1, na_rep=null, lineterminator="\n")
        force = ", ".join(f'"{c}"' for c in frame.columns)
        with self.con.cursor() as cur, cur.copy(
                f"COPY \"{self.name}\".\"{table}\" FROM STDIN (FORMAT csv, NULL '{null}', FORCE_NULL ({force}))"
        ) as copy:
            copy.write(text)
        return self.name, table

    def tables(self) -> set[str]:
        """Names of the tables in the schema."""
        rows = self.con.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = %s",
                                (self.name,)).fetchall()
        return {r[0] for r in rows}

    def fetch(self, table: str) -> pd.DataFrame:
        """A table of the schema as a DataFrame of objects."""
        cur = self.con.execute(f'SELECT * FROM "{self.name}"."{table}"')
        return pd.DataFrame(cur.fetchall(), columns=[d.name for d in cur.description or []], dtype=object)

    def close(self) -> None:
        """Drop the schema and everything in it."""
        self.con.execute(f'DROP SCHEMA IF EXISTS "{self.name}" CASCADE')
        self.con.close()


def require_adult() -> Path:
    """Path of the Adult reference data; skip loudly when it is absent."""
    if not (ADULT / "adult.csv").exists():
        pytest.skip(f"reference data not found at {ADULT} (tests read ../shared/data/adult)")
    return ADULT


#: Java options of the tests' Spark session: the JIT's first tier only, the serial collector.
JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


@dataclass(frozen=True)
class JvmStderr:
    """The standard error of the tests' Spark JVM: a file of its own (the JVM inherits it when it starts).

    ``at_start`` is how many bytes it held once the session was up: what Spark's start-up printed.
    """

    path: Path
    at_start: int

    def size(self) -> int:
        """Bytes written so far."""
        return self.path.stat().st_size

    def lines(self, start: int = 0, end: int | None = None) -> list[str]:
        """The non-blank lines written between byte ``start`` and ``end`` (default: all written so far)."""
        data = self.path.read_bytes()[start:end]
        return [line for line in data.decode("utf-8", "replace").splitlines() if line.strip()]


def require_spark(folder: Path) -> tuple[Any, JvmStderr]:
    """A local Spark session (``local[1]``), started once per process, and its JVM's standard error (in ``folder``).

    Skips loudly without pyspark or Java; in CI (the environment variable ``CI`` set) a missing
    pyspark or Java fails instead: there every service the suite needs is installed.  The session
    is started by anonset's own :func:`~anonset.engine.spark.session.spark_session`, as a run
    starts it, with the JVM's standard error sent to a file rather than to whatever captured
    the test that happened to start it, so that tests can read what Spark said.
    """
    from anonset.engine.spark.session import spark_session
    from anonset.errors import ConfigError

    log = folder / "spark-stderr.log"
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with log.open("wb") as target:
            os.dup2(target.fileno(), 2)  # the JVM, a child process, inherits this descriptor
        # the tests' tables are small: one task thread, two shuffle partitions, the JVM's first compiler tier and
        # the serial collector cost the least here (a tenth of the Spark tests' CPU time); Spark's results are the
        # same (a shuffle still has two partitions)
        session = spark_session("local[1]", options={"spark.sql.shuffle.partitions": "2",
                                                     "spark.default.parallelism": "1",
                                                     "spark.driver.extraJavaOptions": JVM_OPTIONS})
    except ConfigError as exc:
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail(f"Spark is required in CI: {exc}")
        pytest.skip(f"Spark unavailable: {exc}")
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
    return session, JvmStderr(log, log.stat().st_size)


def random_hierarchy(rng: np.random.Generator, name: str, n_leaves: int, depth: int) -> Hierarchy:
    """A random equal-depth hierarchy: each level groups the level below into fewer nodes, then a root."""
    rows = [[f"{name}{i}"] for i in range(n_leaves)]
    current = np.arange(n_leaves)
    for level in range(1, depth - 1):
        n_prev = int(current.max()) + 1
        n_next = max(1, int(np.ceil(n_prev / rng.integers(2, 4))))
        parent_of = np.concatenate([np.arange(n_next), rng.integers(0, n_next, n_prev - n_next)])
        rng.shuffle(parent_of)
        current = parent_of[current]
        for i, row in enumerate(rows):
            row.append(f"{name}L{level}g{current[i]}")
    for row in rows:
        row.append("*")
    return Hierarchy.from_rows(name, rows, source="random")


def random_table(rng: np.random.Generator, n_rows: int, n_quasi: int, n_sensitive_values: int = 5):
    """A random table with quasi-identifiers q0.., a categorical sensitive `s` and a numeric `x`."""
    hierarchies = {}
    data = {}
    for j in range(n_quasi):
        name = f"q{j}"
        h = random_hierarchy(rng, name, int(rng.integers(2, 7)), int(rng.integers(2, 5)))
        hierarchies[name] = h
        weights = rng.dirichlet(np.ones(h.n_leaves))
        data[name] = np.array(h.leaves, dtype=object)[rng.choice(h.n_leaves, n_rows, p=weights)]
    data["s"] = np.array([f"s{v}" for v in rng.integers(0, n_sensitive_values, n_rows)], dtype=object)
    data["x"] = rng.integers(0, 50, n_rows).astype(str).astype(object)
    return pd.DataFrame(data), hierarchies


def clustering_dataset(seed: int, n_rows: int, n_quasi: int) -> Dataset:
    """A random table for the clustering methods: hierarchy quasi-identifiers plus a numeric one, ``x``."""
    rng = np.random.default_rng(seed)
    table, hierarchies = random_table(rng, n_rows, n_quasi)
    attrs: dict = {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()}
    attrs["s"] = {"role": "sensitive"}
    attrs["x"] = {"role": "quasi", "type": "numeric"}
    return Dataset(table, attrs)


def ncp_by_definition(ds: Dataset, labels: np.ndarray) -> float:
    """Table NCP straight from Xu et al.'s definition (an independent reference for the compiled methods)."""
    total = 0.0
    for g in np.unique(labels):
        members = np.flatnonzero(labels == g)
        d = 0.0
        for q in ds.quasi:
            enc = ds.encoded[q]
            codes = enc.row_codes()
            if ds.specs[q].type.value == "numeric":
                assert enc.numbers is not None
                v = enc.numbers[codes]
                span = v.max() - v.min()
                d += (v[members].max() - v[members].min()) / span if span > 0 else 0.0
            else:
                h = ds.require_hierarchy(q)
                leaves = codes[members]
                lv = next(lv for lv in range(h.n_levels) if len(set(h.maps[lv][leaves].tolist())) == 1)
                anc = h.maps[lv]
                size = int((anc == anc[leaves[0]]).sum())
                d += size / h.n_leaves if size > 1 else 0.0
        total += len(members) * d
    return total


def il_by_definition(ds: Dataset, labels: np.ndarray, weights: dict[str, float] | None = None) -> dict[int, float]:
    """Byun et al.'s IL of every cluster straight from Definition 5 (an independent reference for the metric).

    Per cluster: |e| times the sum over attributes of (max − min) / range for an
    attribute compared by value (numeric, date or ordinal with a number on
    every record), else the level of the lowest common ancestor of the
    cluster's leaves over the hierarchy's height; each weighted (1 when not given).
    """
    weights = weights or {}
    out = {}
    for g in np.unique(labels):
        members = np.flatnonzero(labels == g)
        d = 0.0
        for q in ds.quasi:
            w = float(weights.get(q, 1.0))
            enc = ds.encoded[q]
            codes = enc.row_codes()
            by_value = ds.specs[q].type.value in ("numeric", "date", "ordinal") and enc.numbers is not None
            v = np.asarray(enc.numbers, dtype=float)[codes] if by_value else None
            if v is not None and np.isfinite(v).all():
                span = v.max() - v.min()
                d += w * (v[members].max() - v[members].min()) / span if span > 0 else 0.0
            else:
                h = ds.require_hierarchy(q)
                leaves = codes[members]
                lv = next(lv for lv in range(h.n_levels) if len(set(h.maps[lv][leaves].tolist())) == 1)
                d += w * lv / h.max_level if h.max_level > 0 else 0.0
        out[int(g)] = len(members) * d
    return out


def total_il_by_definition(ds: Dataset, labels: np.ndarray, weights: dict[str, float] | None = None) -> float:
    """Byun et al.'s Total-IL (Definition 6): the sum of :func:`il_by_definition`."""
    return sum(il_by_definition(ds, labels, weights).values())


def registered(family: Family | None = None, package: str | None = None) -> list[str]:
    """Registered method names, in registry order: those of ``family``, declared under ``package`` (e.g. ``cluster``).

    Tests read the methods from the registry, never from a list of their own,
    so a new method is tested the moment it is registered.
    """
    names = [n for n in registry.names() if family is None or registry.get(n).family is family]
    if package is not None:
        names = [n for n in names if registry.origin(n).startswith(f"anonset.methods.{package}.")]
    return names


def pg_random_project(pg: PgSchema, directory: Path, output: str) -> tuple[Path, str]:
    """A config over a random 200-record table loaded into ``pg`` (hierarchy quasi-identifiers q0, q1; sensitive s).

    ``output`` is the config's ``output`` mapping body with ``{schema}`` for the table's schema, e.g.
    ``"table: {schema}.released, replace: true"``.  The config's path and the input table's name.
    """
    table, hierarchies = random_table(np.random.default_rng(3), 200, 2, n_sensitive_values=4)
    schema, name = pg.load(table.drop(columns=["x"]))
    for q, h in hierarchies.items():
        (directory / f"{q}.csv").write_text("\n".join(";".join(row) for row in h.rows()) + "\n")
    config = directory / "run.yaml"
    config.write_text(f"input: {{sql: {{url: '{pg.url}', table: {schema}.{name}}}}}\n"
                      "attributes:\n  q0: {role: quasi, hierarchy: q0.csv}\n  q1: {role: quasi, hierarchy:"
                      " q1.csv}\n  s: {role: sensitive}\n"
                      f"privacy: {{k: 2}}\noutput: {{{output.format(schema=schema)}}}\n")
    return config, name


#: The cgroup-v1 memory controller, where a test can give one process a memory limit the kernel enforces.
MEMORY_CGROUP = Path("/sys/fs/cgroup/memory")


def run_with_memory_limit(command: list[str], limit_bytes: int, cwd: Path,
                          timeout: float = 600) -> tuple[subprocess.CompletedProcess[str], int, int]:
    """Run ``command`` in a memory cgroup of its own limited to ``limit_bytes``; the process, and the peaks.

    Returns the completed process (a run killed for exceeding the limit exits with 137), the
    cgroup's peak usage (``memory.max_usage_in_bytes``: the process and the page cache it caused)
    and the command's peak resident set size (GNU time's ``%M``, in bytes).  Skips loudly when the
    controller cannot be written (not root, no cgroup v1), except under CI, where it fails.
    """
    group = MEMORY_CGROUP / f"anonset-test-{secrets.token_hex(4)}"
    try:
        group.mkdir()
    except OSError as exc:
        message = (f"cannot make a memory cgroup under {MEMORY_CGROUP} ({exc.strerror}); the test needs root and"
                   " cgroup v1")
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail(message)
        pytest.skip(message)
    try:
        (group / "memory.limit_in_bytes").write_text(str(limit_bytes))
        wrapped = ["bash", "-c", f'echo $$ > {group / "cgroup.procs"}; exec /usr/bin/time -f "peak-rss %M" "$@"',
                   "anonset-memory-limit", *command]
        proc = subprocess.run(wrapped, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)
        peak = int((group / "memory.max_usage_in_bytes").read_text())
    finally:
        group.rmdir()
    rss = [line for line in proc.stderr.splitlines() if line.startswith("peak-rss ")]
    return proc, peak, int(rss[-1].split()[1]) * 1024 if rss else -1


def matched_by_hand(table: pd.DataFrame, quasi: tuple[str, ...] | list[str]) -> np.ndarray:
    """Per released row: the rows agreeing with it wherever both show a value (a ``*`` matches any value).

    sdcMicro's counting, pair of distinct keys by pair: a row showing no value matches every row; with two
    quasi-identifiers or more a row showing every value does not count one showing none.
    """
    keys = table[list(quasi)].astype(str).to_numpy().astype(str)
    distinct, row_key, counts = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
    shown = distinct != "*"
    out = np.zeros(len(distinct), dtype=np.int64)
    for a in range(len(distinct)):
        if not shown[a].any():
            out[a] = len(table)
            continue
        agree = np.all((distinct == distinct[a]) | ~shown | ~shown[a], axis=1)
        if len(quasi) >= 2 and shown[a].all():
            agree &= shown.any(axis=1)
        out[a] = int(counts[agree].sum())
    return out[np.asarray(row_key).reshape(-1)]
