"""The anonset command on good input: the issue's config example, the summary JSON, check, demo."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
from click.testing import CliRunner

from anonset.cli import main
from support import SHARED, require_adult

EXAMPLE = """\
input: {path: ../shared/data/adult/adult.csv, delimiter: ";"}
attributes:
  age:        {role: quasi, type: numeric, hierarchy: ../shared/data/adult/hierarchies/age.csv}
  sex:        {role: quasi, hierarchy: ../shared/data/adult/hierarchies/sex.csv}
  occupation: {role: sensitive}
  # the other columns, released as they are on purpose (an undeclared column that could single people out,
  # native-country here, is refused)
  race: {role: insensitive}
  marital-status: {role: insensitive}
  education: {role: insensitive}
  native-country: {role: insensitive}
  workclass: {role: insensitive}
  salary-class: {role: insensitive}
privacy:
  k: 5
  l_diversity: {attribute: occupation, l: 3, variant: entropy}   # distinct | entropy | recursive (+ c)
  t_closeness: {attribute: occupation, t: 0.2, distance: equal}  # equal | ordered | hierarchical
  max_suppression: 0.01
method: {name: optimal, metric: loss}                            # optimal | exhaustive; later issues add more
output: {path: adult-anonymized.csv}
seed: 0
"""


def test_issue_config_example_runs_as_written(tmp_path: Path) -> None:
    require_adult()
    (tmp_path / "shared").symlink_to(SHARED)
    project = tmp_path / "project"
    project.mkdir()
    config = project / "config.yaml"
    config.write_text(EXAMPLE)
    result = CliRunner().invoke(main, ["anonymize", str(config), "--summary", str(project / "s.json")])
    assert result.exit_code == 0, result.output
    summary = json.loads((project / "s.json").read_text())
    for key in ["method", "levels", "classes", "min_class_size", "suppressed_rows", "metrics", "verified", "seconds"]:
        assert key in summary
    assert summary["verified"] is True
    released = pd.read_csv(project / "adult-anonymized.csv", sep=";", dtype=str, keep_default_na=False)
    assert len(released) == 30162
    assert summary["min_class_size"] >= 5
    # recheck from the written file: classes of (age, sex) are 5-anonymous
    star = (released["age"] == "*") & (released["sex"] == "*")
    assert released.loc[~star].groupby(["age", "sex"]).size().min() >= 5 or star.all()


def test_check_command_on_a_release(tmp_path: Path) -> None:
    data = tmp_path / "r.csv"
    pd.DataFrame({"a": ["x"] * 4 + ["y"] * 3, "s": ["1", "2", "3", "1", "2", "3", "1"]}).to_csv(data, index=False)
    ok = CliRunner().invoke(main, ["check", str(data), "--quasi", "a", "-k", "3"])
    assert ok.exit_code == 0 and "smallest class: 3" in ok.output
    bad = CliRunner().invoke(main, ["check", str(data), "--quasi", "a", "-k", "4"])
    assert bad.exit_code == 1 and "smallest class: 3" in bad.output
    ldiv = CliRunner().invoke(main, ["check", str(data), "--quasi", "a", "-k", "3", "--sensitive", "s", "--l", "3"])
    assert ldiv.exit_code == 0


def test_demo_prints_a_verified_release() -> None:
    result = subprocess.run([sys.executable, "-m", "anonset.cli", "demo", "--rows", "3000"],
                            check=False, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "verified" in result.stdout and "yes" in result.stdout


def test_readme_config_example_runs_as_written(tmp_path: Path) -> None:
    """The YAML block of README.md's quick start is a working config (paths relative to the project root)."""
    require_adult()
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Anonymize a CSV with a config", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    project = tmp_path / "project"
    project.mkdir()
    (project / "adult.csv").symlink_to(SHARED / "data" / "adult" / "adult.csv")
    (project / "hierarchies").symlink_to(SHARED / "data" / "adult" / "hierarchies")
    (project / "config.yaml").write_text(block)
    result = CliRunner().invoke(main, ["anonymize", str(project / "config.yaml"), "-q"])
    assert result.exit_code == 0, result.output + result.stderr
    assert (project / "adult-anonymized.csv").exists()


def test_a_config_error_loads_no_table_or_compiler_library(tmp_path: Path) -> None:
    """A one-line config error is reported before pandas, numba or scipy is imported (what keeps it fast)."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("input: {path: x.csv}\nattributes: {a: {role: quasi}}\nprivacy: {k: 2}\n"
                   "method: {name: mondrian, strict: maybe}\n")
    code = ("import sys\nfrom anonset.cli import main\n"
            f"try:\n    main(['anonymize', {str(bad)!r}])\nexcept SystemExit as exc:\n    code = exc.code\n"
            "print(code, 'pandas' in sys.modules, 'numba' in sys.modules, 'scipy' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["2", "False", "False", "False"]
    assert "option 'strict' must be true or false; got 'maybe'" in done.stderr


def test_the_installed_program_runs_main_in_a_process_tuned_for_one_run() -> None:
    """The ``anonset`` script is :func:`anonset.cli.run`: full collections rarer, the heap frozen at exit."""
    from importlib.metadata import entry_points

    from anonset.cli import PROCESS_GC_THRESHOLDS

    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "anonset"]
    assert script.value == "anonset.cli:run"
    probe = ("import atexit, gc, sys\n"
             "from anonset.cli import run\n"
             "atexit.register(lambda: print('gc', *gc.get_threshold(), gc.get_freeze_count() > 0, file=sys.stderr))\n"
             "sys.argv = ['anonset', '--version']\n"
             "run()\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "anonset" in done.stdout
    assert done.stderr.split() == ["gc", *map(str, PROCESS_GC_THRESHOLDS), "True"]
