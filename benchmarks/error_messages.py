"""Print the message of every bad-input case as the ``anonset`` command shows it (docs/errors.md).

Each case starts from a tiny valid project (an 8-record ``data.csv`` with the
columns ``age;sex;zip;disease``, hierarchies ``age.csv`` and ``sex.csv``, and
a ``run.yaml`` asking for 2-anonymity, distinct 2-diversity on ``disease`` and
no suppression) written into a temporary folder, breaks one thing, and runs
``anonset anonymize run.yaml --summary out/summary.json`` (or ``anonset check
...`` for the cases so named).  The cases are those of
``tests/test_bad_input.py``, which also asserts that each one exits with the
code shown, prints one line and writes nothing.

Prints Markdown rows: case, exception class, exit code, the stderr line with
the temporary folder left out of its paths.  Usage::

    python benchmarks/error_messages.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
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
        return result.exit_code, text


def output_messages() -> list[tuple[str, int, str]]:
    """The output-path cases: the release path or the summary path is a folder; the output folder is a file."""
    out = []
    for case in ("output path is a directory", "`--summary` path is a directory", "output folder exists as a file"):
        with tempfile.TemporaryDirectory() as folder:
            project = make_project(Path(folder))
            if not case.startswith("output folder"):
                project.out_dir.mkdir()
            if case.startswith("output path"):
                project.output.mkdir(parents=True)
            elif case.startswith("`--summary`"):
                project.summary.mkdir(parents=True)
            else:
                project.out_dir.write_text("not a folder\n", encoding="utf-8")
            result = invoke(project.anonymize_args())
            text = result.stderr.strip().replace(str(Path(folder).resolve()) + "/", "").replace(folder + "/", "")
            out.append((case, result.exit_code, text))
    return out


def row(case: str, error: str, code: int, text: str) -> str:
    shown = text.replace("|", "\\|")
    return f"| {case} | `{error}` | {code} | `{shown}` |"


def main() -> None:
    header("benchmarks/error_messages.py")
    print()
    print("| case | exception | exit | message (stderr) |")
    print("|---|---|---|---|")
    for case in CASES:
        code, text = message(case)
        print(row(case.id, case.error.__name__, code, text))
    for case, code, text in output_messages():
        print(row(case, "DataError", code, text))


if __name__ == "__main__":
    main()
