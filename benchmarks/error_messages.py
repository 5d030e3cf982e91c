"""Print the message of every bad-input case as the ``anonset`` command shows it (docs/errors.md).

Each case starts from a tiny valid project (an 8-record ``data.csv`` with the
columns ``age;sex;zip;disease``, hierarchies ``age.csv`` and ``sex.csv``, and
a ``run.yaml`` asking for 2-anonymity, distinct 2-diversity on ``disease`` and
no suppression) written into a temporary folder, breaks one thing, and runs
``anonset anonymize run.yaml --summary out/summary.json`` (or ``anonset check
...`` for the cases so named).  The cases are those of
``tests/commands/test_bad_input.py``, which also asserts that each one exits with the
code shown, prints one line and writes nothing.

Prints Markdown rows: case, exception class, exit code, the stderr line with
the temporary folder left out of its paths.  With ``--pg-url`` it also runs
the PostgreSQL cases against that server (in a scratch schema it drops
afterwards; the unreachable-server case uses port 5433 of the same host).
Usage::

    python benchmarks/error_messages.py [--pg-url postgresql://postgres@127.0.0.1:5432/test]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "commands"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _report import header
from test_bad_input import CASES, invoke, make_project


def message(case) -> tuple[int, str]:
    """Exit code and the stderr text of one case, paths relative to the project folder."""
    with tempfile.TemporaryDirectory() as folder:
        project = make_project(Path(folder), case)
        project.out_dir.mkdir(exist_ok=True)
        args = case.args(project) if case.args else project.anonymize_args()
        result = invoke(args)
        text = result.stderr.strip().replace(str(Path(folder).resolve()) + "/", "").replace(folder + "/", "")
        return result.exit_code, text.replace(str(Path(folder).resolve()), "<folder>").replace(folder, "<folder>")


def output_messages() -> list[tuple[str, int, str]]:
    """The output-path cases: the release path or the summary path is a folder; the output folder is a file."""
    out = []
    for case in ("output path is a directory", "`--summary` path is a directory", "output folder exists as a file"):
        with tempfile.TemporaryDirectory() as folder:
            project = make_project(Path(folder))
            if not case.startswith("output folder"):
                project.out_dir.mkdir(exist_ok=True)
            if case.startswith("output path"):
                project.output.mkdir(parents=True, exist_ok=True)
            elif case.startswith("`--summary`"):
                project.summary.mkdir(parents=True, exist_ok=True)
            else:
                if project.out_dir.is_dir():
                    project.out_dir.rmdir()
                project.out_dir.write_text("not a folder\n", encoding="utf-8")
            result = invoke(project.anonymize_args())
            text = result.stderr.strip().replace(str(Path(folder).resolve()) + "/", "").replace(folder + "/", "")
            out.append((case, result.exit_code, text))
    return out


def row(case: str, error: str, code: int, text: str) -> str:
    shown = text.replace("|", "\\|")
    return f"| {case} | `{error}` | {code} | `{shown}` |"


SCHEMA = "anonset_errdemo"
SECTIONS = ("Files and tables", "Hierarchies", "Values and attribute types", "Privacy parameters", "Configuration",
            "Releases that would protect nothing", "Outputs", "Infeasible requirements",
            "`anonset check` on bad input", "`anonset risk` on bad input", "Output paths")


def section_of(case_id: str) -> str:
    """The docs/errors.md section a case of tests/commands/test_bad_input.py belongs to."""
    if case_id.startswith("check:"):
        return "`anonset check` on bad input"
    if case_id.startswith("risk:"):
        return "`anonset risk` on bad input"
    if case_id.startswith(("output path is the", "summary path is", "output folder does not")):
        return "Outputs"
    if "hierarchy" in case_id and not case_id.startswith(("non-numeric", "numeric quasi", "missing hierarchy",
                                                           "empty hierarchy")):
        return "Hierarchies"
    if case_id.startswith(("non-numeric", "numeric quasi")):
        return "Values and attribute types"
    if case_id.startswith(("k ", "l ", "t ", "max_suppression", "average risk", "population table")):
        return "Privacy parameters"
    if case_id.startswith(("unknown", "YAML", "duplicate YAML", "config path", "row-level", "output delimiter",
                           "--pick")):
        return "Configuration"
    if case_id.startswith(("requirements that protect", "no quasi", "pareto method")):
        return "Releases that would protect nothing"
    if case_id.startswith("infeasible"):
        return "Infeasible requirements"
    if case_id.startswith(("missing", "empty", "header", "ragged", "duplicate", "configured")):
        return "Files and tables"
    return "Other"


def sql_messages(url: str) -> list[tuple[str, str, int, str]]:
    """The PostgreSQL cases: (case, exception class, exit code, message)."""
    import psycopg

    host_part = url.split("@", 1)[-1]
    host, _, rest = host_part.partition(":")
    database = rest.split("/", 1)[1] if "/" in rest else "test"
    user = url.split("//", 1)[1].split("@", 1)[0] if "@" in url else "postgres"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
        conn.execute(f"CREATE SCHEMA {SCHEMA}")
        conn.execute(f"CREATE TABLE {SCHEMA}.src (age int, sex text, disease text)")
        conn.execute(f"INSERT INTO {SCHEMA}.src VALUES (21, 'Male', 'flu'), (22, 'Male', 'cold'),"
                     " (31, 'Female', 'flu'), (32, 'Female', 'cold')")
        conn.execute(f"CREATE TABLE {SCHEMA}.out (x int)")
    cases = [
        ("server not reachable", "DataError",
         {"url": f"postgresql://{user}@{host}:5433/{database}", "table": f"{SCHEMA}.src"}, {"table": f"{SCHEMA}.r"}),
        ("wrong database in the URL", "DataError",
         {"url": f"postgresql://{user}@{host}:{rest.split('/')[0]}/nodb", "table": f"{SCHEMA}.src"},
         {"table": f"{SCHEMA}.r"}),
        ("missing table", "DataError", {"url": url, "table": "no_such_table"}, {"table": f"{SCHEMA}.r"}),
        ("output table exists (no `replace: true`)", "DataError", {"url": url, "table": f"{SCHEMA}.src"},
         {"table": f"{SCHEMA}.out"}),
        ("`output.path` for a table input", "ConfigError", {"url": url, "table": f"{SCHEMA}.src"},
         {"path": "released.csv"}),
    ]
    out = []
    try:
        for case, error, sql, output in cases:
            with tempfile.TemporaryDirectory() as folder:
                config = {"input": {"sql": sql},
                          "attributes": {"age": {"role": "quasi", "type": "numeric",
                                                 "hierarchy": {"builder": "intervals", "widths": [10]}},
                                         "sex": {"role": "quasi"}, "disease": {"role": "sensitive"}},
                          "privacy": {"k": 2}, "method": {"name": "optimal"}, "output": output}
                path = Path(folder) / "c.yaml"
                path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
                result = invoke(["anonymize", str(path)])
                text = result.stderr.strip().replace(str(Path(folder).resolve()) + "/", "").replace(folder + "/", "")
                out.append((case, error, result.exit_code, text))
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pg-url", help="a PostgreSQL server for the database cases")
    args = parser.parse_args()
    header("benchmarks/error_messages.py")
    rows: dict[str, list[str]] = {}
    for case in CASES:
        code, text = message(case)
        rows.setdefault(section_of(case.id), []).append(row(case.id, case.error.__name__, code, text))
    for case, code, text in output_messages():
        rows.setdefault("Output paths", []).append(row(case, "DataError", code, text))
    for section in [*SECTIONS, "Other"]:
        if section in rows:
            print(f"\n### {section}\n")
            print("| case | exception | exit | message (stderr) |")
            print("|---|---|---|---|")
            print("\n".join(rows[section]))
    if args.pg_url:
        print("\n### Tables in a database\n")
        print("| case | exception | exit | message (stderr) |")
        print("|---|---|---|---|")
        for case, error, code, text in sql_messages(args.pg_url):
            print(row(case, error, code, text))


if __name__ == "__main__":
    main()
