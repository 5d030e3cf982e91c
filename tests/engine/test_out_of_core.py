"""A Parquet file twice the process's memory limit, anonymized by the DuckDB engine within that limit.

The limit is a memory cgroup of the run's own (the kernel kills a process that exceeds it: exit
137), 400 MiB; the file is a million synthetic records with an incompressible notes column of 840
characters, about 815 MiB (the bytes, not the records, are what must not fit; fewer, wider records
make the same bytes with less of the work that goes by records).  Rows this wide also hold the
release's Parquet writer to row groups of bounded bytes: at DuckDB's 122,880 records a row group of
notes alone is about 100 MB, more than the writer can hold under a 128 MB limit.  DuckDB is
told to hold at most 128 MB and to spill to a temporary folder.  The release is re-checked here by
plain DuckDB SQL over the released file (k-anonymity of the released labels, the record count), not
by anonset.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import duckdb

from anonset.datasets.large import write_large_register
from support import run_with_memory_limit

LIMIT = 400 * 2**20
CONFIG = """
input: {path: register.parquet}
attributes:
  patient_id:     {role: identifier}
  age:            {role: quasi, type: numeric, hierarchy: {builder: intervals, widths: [5, 10, 20, 40]}}
  sex:            {role: quasi, hierarchy: {builder: flat}}
  race:           {role: quasi, hierarchy: {builder: flat}}
  marital_status: {role: quasi, hierarchy: {builder: flat}}
  education:      {role: quasi, hierarchy: {builder: flat}}
  diagnosis:      {role: sensitive}
  zip:            {role: insensitive}
  notes:          {role: insensitive}
privacy: {k: 5, max_suppression: 0.01}
method: {name: optimal}
engine: duckdb
duckdb: {memory_limit: 128MB, threads: 1, temp_directory: spill, preserve_insertion_order: false}
output: {path: released.parquet}
"""
QUASI = ("age", "sex", "race", "marital_status", "education")


def test_a_parquet_file_twice_the_memory_limit(tmp_path: Path) -> None:
    rows = 1_000_000
    # input row groups of 12,500 records: a group's notes (10 MB) as large as the default's narrower rows give
    size = write_large_register(tmp_path / "register.parquet", rows, notes_bytes=420, chunk=250_000, row_group=12_500)
    assert size >= 2 * LIMIT
    (tmp_path / "run.yaml").write_text(CONFIG, encoding="utf-8")
    anonset = str(Path(sys.executable).with_name("anonset"))
    proc, cgroup_peak, rss_peak = run_with_memory_limit(
        [anonset, "anonymize", "run.yaml", "-q", "--summary", "summary.json"], LIMIT, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert 0 < rss_peak <= cgroup_peak <= LIMIT
    summary = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert summary["engine"] == "duckdb" and summary["verified"]
    released = str(tmp_path / "released.parquet")
    con = duckdb.connect()
    groups = ", ".join(QUASI)
    star = " AND ".join(f"{q} = '*'" for q in QUASI)
    count, stars = con.execute(f"SELECT count(*), count(*) FILTER (WHERE {star}) FROM read_parquet(?)",
                               [released]).fetchone()
    smallest = con.execute(f"SELECT min(n) FROM (SELECT count(*) AS n FROM read_parquet(?) WHERE NOT ({star})"
                           f" GROUP BY {groups})", [released]).fetchone()[0]
    assert count == rows and stars == summary["suppressed_rows"] <= rows // 100
    assert smallest >= 5
