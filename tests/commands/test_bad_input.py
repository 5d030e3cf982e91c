"""Bad input through the ``anonset`` CLI and the API.

The contract (see docs/errors.md): every bad input gives exactly one line on
stderr that names the file / column / value and says how to fix it, exit code
2 (1 when the requirements are infeasible), no traceback, and nothing written:
neither the release, nor the ``--summary`` file, nor a leftover temporary file
in the output folder.

Each case starts from a tiny valid project written into ``tmp_path`` (8
records, an age and a sex hierarchy, a sensitive ``disease`` column) and
breaks one thing.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner, Result

from anonset.anonymizer import Anonymizer
from anonset.cli import main
from anonset.config import load_config, parse_config
from anonset.core.dataset import Dataset
from anonset.errors import (
    AnonsetError,
    ConfigError,
    DataError,
    HierarchyError,
    InfeasibleError,
    InputError,
    UndeclaredColumnError,
)
from anonset.hierarchy import Hierarchy, read_hierarchy
from anonset.io.tables import read_table, write_table
from anonset.privacy import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    Requirements,
    TCloseness,
)
from anonset.runs.base import read_in_memory

ADULT = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "adult"
ANONSET = Path(sys.executable).with_name("anonset")

HEADER = "age;sex;zip;disease\n"
RECORDS = [
    "21;Male;1300;flu",
    "22;Male;1301;cold",
    "23;Male;1302;flu",
    "24;Male;1303;cancer",
    "31;Female;1400;flu",
    "32;Female;1401;cold",
    "33;Female;1402;cancer",
    "34;Female;1403;cold",
]
DATA = HEADER + "\n".join(RECORDS) + "\n"
AGE_HIERARCHY = "".join(
    f"{a};{lo}-{lo + 4};{lo - lo % 10}-{lo - lo % 10 + 9};*\n"
    for a in (21, 22, 23, 24, 31, 32, 33, 34)
    for lo in [a - (a % 5)]
)
SEX_HIERARCHY = "Male;*\nFemale;*\n"

FILES = {"data.csv": DATA, "age.csv": AGE_HIERARCHY, "sex.csv": SEX_HIERARCHY}


def base_config() -> dict[str, Any]:
    """A configuration that works on the fixture files (relative paths)."""
    return {
        "input": {"path": "data.csv", "delimiter": ";"},
        "attributes": {
            "age": {"role": "quasi", "type": "numeric", "hierarchy": "age.csv"},
            "sex": {"role": "quasi", "hierarchy": "sex.csv"},
            "zip": {"role": "insensitive"},  # released as is, on purpose
            "disease": {"role": "sensitive"},
        },
        "privacy": {
            "k": 2,
            "l_diversity": {"attribute": "disease", "l": 2},
            "max_suppression": 0.0,
        },
        "method": {"name": "optimal", "metric": "loss"},
        "output": {"path": "out/released.csv"},
        "seed": 0,
    }


@dataclass
class Project:
    """A fixture project in a folder: data, hierarchies, config, output folder."""

    root: Path

    @property
    def config(self) -> Path:
        return self.root / "run.yaml"

    @property
    def out_dir(self) -> Path:
        return self.root / "out"

    @property
    def output(self) -> Path:
        return self.out_dir / "released.csv"

    @property
    def summary(self) -> Path:
        return self.out_dir / "summary.json"

    def anonymize_args(self) -> list[str]:
        return ["anonymize", str(self.config), "--summary", str(self.summary)]


@dataclass
class Case:
    """One bad input: what to break, the expected exit code and facts in the message."""

    id: str
    facts: tuple[str, ...]
    files: dict[str, str | None] = field(default_factory=dict)
    edit: Callable[[dict[str, Any]], None] | None = None
    raw_config: str | None = None
    args: Callable[[Project], list[str]] | None = None
    code: int = 2
    error: type[AnonsetError] = InputError
    cli_only: bool = False  # output paths and --pick: the command's concern, not the API's


def make_project(root: Path, case: Case | None = None) -> Project:
    """Write the fixture files and config, with the case's changes applied."""
    project = Project(root)
    project.out_dir.mkdir()  # anonset writes into existing folders only
    files: dict[str, str | None] = dict(FILES)
    if case is not None:
        files.update(case.files)
    for name, text in files.items():
        if text is not None:
            (root / name).write_text(text, encoding="utf-8")
    if case is not None and case.raw_config is not None:
        project.config.write_text(case.raw_config, encoding="utf-8")
    else:
        cfg = base_config()
        if case is not None and case.edit is not None:
            case.edit(cfg)
        project.config.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    return project


def invoke(args: list[str]) -> Result:
    """Run the CLI in-process; stdout and stderr are kept apart (click >= 8.2)."""
    return CliRunner().invoke(main, args)


def assert_nothing_written(project: Project) -> None:
    """Neither the release nor the summary nor a temporary file exists in the output folder."""
    assert not project.output.exists()
    assert not project.summary.exists()
    if project.out_dir.exists():
        assert sorted(p.name for p in project.out_dir.iterdir()) == []
    leftovers = [p.name for p in project.root.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


def assert_one_line_error(result: Result, code: int, facts: tuple[str, ...]) -> str:
    """Exit code, exactly one non-empty stderr line holding every fact, no traceback."""
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == code, (result.exit_code, result.stderr, result.stdout)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    line = lines[0]
    assert line.strip()
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    for fact in facts:
        assert fact in line, f"{fact!r} not in {line!r}"
    return line


# ---------------------------------------------------------------------- edits
def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """An edit that sets ``a.b.c`` in the config to ``value``."""

    def edit(cfg: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node = cfg
        for key in parents:
            node = node[key]
        node[last] = value

    return edit


def _edits(*edits: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    """Several edits in a row."""

    def edit(cfg: dict[str, Any]) -> None:
        for e in edits:
            e(cfg)

    return edit


def _rows(*records: str, header: str = HEADER) -> str:
    return header + "\n".join(records) + "\n"


def _replace_record(index: int, record: str) -> str:
    records = list(RECORDS)
    records[index] = record
    return _rows(*records)


YAML_BROKEN = """input: {path: data.csv, delimiter: ";"}
attributes:
  age: {role: quasi, type: numeric, hierarchy: age.csv
  sex: {role: quasi, hierarchy: sex.csv}
privacy: {k: 2}
"""

CASES: list[Case] = [
    # ------------------------------------------------------------- files
    Case("missing data file", ("data.csv", "not found"), files={"data.csv": None}, error=DataError),
    Case("missing config file", ("nowhere.yaml", "not found"),
         args=lambda p: ["anonymize", str(p.root / "nowhere.yaml"), "--summary", str(p.summary)],
         error=ConfigError),
    Case("missing hierarchy file", ("sex.csv", "'sex'", "not found"), files={"sex.csv": None},
         error=HierarchyError),
    Case("empty data file", ("data.csv", "empty"), files={"data.csv": ""}, error=DataError),
    Case("empty config file", ("run.yaml", "mapping"), raw_config="", error=ConfigError),
    Case("empty hierarchy file", ("sex.csv", "'sex'", "empty"), files={"sex.csv": ""},
         error=HierarchyError),
    Case("header only", ("data.csv", "header", "no records"), files={"data.csv": HEADER},
         error=DataError),
    Case("ragged row, too many fields", ("data.csv", "ragged", "Expected 4 columns", "got 5", "23;Male;1302;flu;x"),
         files={"data.csv": _replace_record(2, "23;Male;1302;flu;x")}, error=DataError),
    Case("ragged row, too few fields", ("data.csv", "ragged", "Expected 4 columns", "got 3", "23;Male;1302"),
         files={"data.csv": _replace_record(2, "23;Male;1302")}, error=DataError),
    Case("duplicate column names", ("data.csv", "duplicate column name 'sex'"),
         files={"data.csv": _rows(*RECORDS, header="age;sex;sex;disease\n")}, error=DataError),
    Case("configured column absent", ("data.csv", "'zipcode'", "not in the data", "age, sex, zip, disease"),
         edit=_set("attributes.zipcode", {"role": "quasi"}), error=DataError),
    Case("column the config does not name singles people out",
         ("data.csv", "column 'zip'", "not named in the configuration", "nearly unique", "role: identifier"),
         edit=lambda cfg: cfg["attributes"].pop("zip"), error=UndeclaredColumnError),
    # ------------------------------------------------------------- hierarchies
    Case("values missing from hierarchy", ("data.csv", "'sex'", "2 value(s)", "sex.csv", "'Other'", "'unknown'"),
         files={"data.csv": _rows(*RECORDS, "33;Other;1404;flu", "34;unknown;1405;flu")},
         error=HierarchyError),
    Case("many values missing from hierarchy (first 5 shown)",
         ("data.csv", "'sex'", "7 value(s)", "sex.csv", "'s1', 's2', 's3', 's4', 's5';"),
         files={"data.csv": _rows(*RECORDS, *(f"33;s{i};1404;flu" for i in range(1, 8)))},
         error=HierarchyError),
    Case("numeric value missing from hierarchy", ("data.csv", "'age'", "1 value(s)", "age.csv", "'99'"),
         files={"data.csv": _replace_record(0, "99;Male;1300;flu")}, error=HierarchyError),
    Case("hierarchy: value with two parents", ("age.csv", "'20-24'", "two parents", "'20-29'", "'30-39'"),
         files={"age.csv": AGE_HIERARCHY.replace("22;20-24;20-29;*", "22;20-24;30-39;*")},
         error=HierarchyError),
    Case("hierarchy: leaf listed twice", ("sex.csv", "'Male'", "listed twice", "line 3"),
         files={"sex.csv": "Male;*\nFemale;*\nMale;*\n"}, error=HierarchyError),
    Case("hierarchy: ragged depth", ("age.csv", "line 3", "'23'", "3 levels", "line 1 has 4"),
         files={"age.csv": AGE_HIERARCHY.replace("23;20-24;20-29;*", "23;20-29;*")},
         error=HierarchyError),
    Case("hierarchy: no single root", ("sex.csv", "2 values", "'*'", "'ANY'", "single root"),
         files={"sex.csv": "Male;*\nFemale;ANY\n"}, error=HierarchyError),
    # ------------------------------------------------------------- values
    Case("non-numeric value, numeric column without hierarchy", ("data.csv", "'age'", "'abc'", "not a number"),
         files={"data.csv": _replace_record(0, "abc;Male;1300;flu")},
         edit=_set("attributes.age", {"role": "quasi", "type": "numeric"}), error=DataError),
    Case("non-numeric value, numeric sensitive column", ("data.csv", "'zip'", "'13O2'", "not a number"),
         files={"data.csv": _replace_record(2, "23;Male;13O2;flu")},
         edit=_set("attributes.zip", {"role": "sensitive", "type": "numeric"}), error=DataError),
    Case("non-numeric value, numeric column with hierarchy", ("data.csv", "'age'", "'abc'", "age.csv"),
         files={"data.csv": _replace_record(0, "abc;Male;1300;flu")}, error=HierarchyError),
    Case("numeric quasi-identifier with a missing marker and no hierarchy (partitioning methods)",
         ("data.csv", "'age'", "missing values ('?')", "no hierarchy to place them", "lists the marker"),
         files={"data.csv": _replace_record(2, "?;Male;1302;flu")},
         edit=_edits(_set("attributes.age", {"role": "quasi", "type": "numeric", "missing": ["?"]}),
                     _set("method", {"name": "mondrian"}), _set("privacy", {"k": 2})), error=DataError),
    Case("numeric quasi-identifier without hierarchy", ("data.csv", "'age'", "no hierarchy", "builder"),
         edit=_set("attributes.age", {"role": "quasi", "type": "numeric"}), error=ConfigError),
    # ------------------------------------------------------------- privacy parameters
    Case("k = 0", ("run.yaml", "k-anonymity: the 'k' parameter", "int >= 1", "got 0"),
         edit=_set("privacy.k", 0), error=ConfigError),
    Case("k = -3", ("run.yaml", "k-anonymity: the 'k' parameter", "int >= 1", "got -3"),
         edit=_set("privacy.k", -3), error=ConfigError),
    Case("k = 2.5", ("run.yaml", "k-anonymity: the 'k' parameter", "int >= 1", "got 2.5"),
         edit=_set("privacy.k", 2.5), error=ConfigError),
    Case("k = 'five'", ("run.yaml", "k-anonymity: the 'k' parameter", "int >= 1", "got 'five'"),
         edit=_set("privacy.k", "five"),
         error=ConfigError),
    Case("k larger than the table", ("data.csv", "k = 9", "8 records", "lower k"), edit=_set("privacy.k", 9),
         error=ConfigError),
    Case("l larger than the distinct sensitive values", ("'disease'", "l = 4", "(3)", "lower l"),
         edit=_set("privacy.l_diversity.l", 4), error=ConfigError),
    Case("t > 1", ("run.yaml", "t-closeness on 'disease': the 't' parameter", "[0, 1]", "got 1.5"),
         edit=_set("privacy.t_closeness", {"attribute": "disease", "t": 1.5}), error=ConfigError),
    Case("t < 0", ("run.yaml", "t-closeness on 'disease': the 't' parameter", "[0, 1]", "got -0.1"),
         edit=_set("privacy.t_closeness", {"attribute": "disease", "t": -0.1}), error=ConfigError),
    Case("max_suppression > 1", ("run.yaml", "'max_suppression'", "[0, 1]", "Got 1.5", "0.01"),
         edit=_set("privacy.max_suppression", 1.5), error=ConfigError),
    Case("max_suppression < 0", ("run.yaml", "'max_suppression'", "[0, 1]", "Got -0.1"),
         edit=_set("privacy.max_suppression", -0.1), error=ConfigError),
    Case("max_suppression = '1%'", ("run.yaml", "'max_suppression'", "[0, 1]", "Got '1%'", "0.01"),
         edit=_set("privacy.max_suppression", "1%"), error=ConfigError),
    # ------------------------------------------------------------- config
    Case("unknown method", ("run.yaml", "unknown method 'greedy'", "optimal", "exhaustive"),
         edit=_set("method.name", "greedy"), error=ConfigError),
    Case("unknown metric", ("run.yaml", "unknown metric 'accuracy'", "loss"),
         edit=_set("method.metric", "accuracy"), error=ConfigError),
    Case("unknown top-level key", ("run.yaml", "unknown key outptu", "output"),
         edit=_set("outptu", {"path": "x.csv"}), error=ConfigError),
    Case("unknown attribute key", ("run.yaml", "unknown key attributes.age.hierachy", "hierarchy"),
         edit=_set("attributes.age.hierachy", "age.csv"), error=ConfigError),
    Case("unknown privacy key", ("run.yaml", "unknown key privacy.kk", "k, k_map, l_diversity"),
         edit=_set("privacy.kk", 5), error=ConfigError),
    Case("YAML syntax error", ("run.yaml", "YAML syntax error", "line 4"), raw_config=YAML_BROKEN,
         error=ConfigError),
    Case("duplicate YAML key", ("run.yaml", "'seed' appears twice", "keep one"),
         raw_config=yaml.safe_dump(base_config(), sort_keys=False) + "seed: 1\n", error=ConfigError),
    Case("config path is a folder", ("is a directory", "YAML config file"),
         args=lambda p: ["anonymize", str(p.root), "--summary", str(p.summary)], error=ConfigError),
    Case("row-level metric as the search metric", ("run.yaml", "'non_uniform_entropy'", "cannot guide the search"),
         edit=_set("method.metric", "non_uniform_entropy"), error=ConfigError),
    Case("output delimiter of two characters", ("run.yaml", "output.delimiter", "single character"),
         edit=_set("output.delimiter", ";;"), error=DataError),
    Case("input delimiter that is not ASCII", ("run.yaml", "input.delimiter", "'é'", "not an ASCII character"),
         edit=_set("input.delimiter", "é"), error=DataError),
    Case("--pick for a method with one release", ("--pick", "returns one release"),
         args=lambda p: [*p.anonymize_args(), "--pick", "1"], error=ConfigError, cli_only=True),
    # ------------------------------------------------------------- releases that would protect nothing
    Case("requirements that protect nothing", ("1-anonymity", "protect nothing", "--allow-unprotected"),
         edit=_set("privacy", {"k": 1}), error=ConfigError),
    Case("no quasi-identifier", ("data.csv", "no attribute has role quasi"),
         edit=_set("attributes", {"disease": {"role": "sensitive"}}), error=ConfigError),
    Case("pareto method without --pick or a floor, with an output", ("pareto-exhaustive", "--pick N", "privacy.k"),
         edit=_edits(_set("method", {"name": "pareto-exhaustive"}), _set("privacy", {"max_suppression": 0.0})),
         error=ConfigError),
    # ------------------------------------------------------------- outputs that would destroy a file
    Case("output path is the input table", ("data.csv", "would overwrite the input table", "never writes over"),
         edit=_set("output.path", "data.csv"), error=ConfigError, cli_only=True),
    Case("output path is the population table", ("population.csv", "would overwrite the population table",
                                                 "never writes over"),
         files={"population.csv": DATA},
         edit=lambda cfg: (_set("privacy.k_map", {"k": 2, "population": "population.csv"})(cfg),
                           _set("output.path", "population.csv")(cfg)), error=ConfigError, cli_only=True),
    Case("summary path is the config", ("run.yaml", "would overwrite the config", "never writes over"),
         args=lambda p: ["anonymize", str(p.config), "--summary", str(p.config)], error=ConfigError, cli_only=True),
    Case("summary path is a hierarchy file", ("sex.csv", "hierarchy file of 'sex'", "never writes over"),
         args=lambda p: ["anonymize", str(p.config), "--summary", str(p.root / "sex.csv")], error=ConfigError,
         cli_only=True),
    Case("summary path is the release", ("released.csv", "same file"),
         args=lambda p: ["anonymize", str(p.config), "--summary", str(p.output)], error=ConfigError, cli_only=True),
    Case("output folder does not exist", ("relaese", "does not exist", "create it first"),
         edit=_set("output.path", "relaese/released.csv"), error=DataError, cli_only=True),
    # ------------------------------------------------------------- infeasible
    Case("infeasible requirements",
         ("infeasible:", "entropy 3-diversity on disease", "best node", "would suppress 4 records",
          "budget allows 2", "max_suppression"),
         files={"data.csv": _rows(*(r.rsplit(";", 1)[0] + ";" + d for r, d in
                                    zip(RECORDS, ["flu", "cold", "cancer", "measles"] + ["flu"] * 4, strict=True)))},
         edit=_edits(_set("privacy.l_diversity", {"attribute": "disease", "l": 3, "variant": "entropy"}),
                     _set("privacy.max_suppression", 0.25)),
         code=1, error=InfeasibleError),
    # ------------------------------------------------------------- check on bad input
    Case("check: missing file", ("nowhere.csv", "not found"),
         args=lambda p: ["check", str(p.root / "nowhere.csv"), "--quasi", "age,sex", "-k", "2"],
         error=DataError),
    Case("check: quasi-identifier not in the data", ("data.csv", "'zipcode'", "not in the data"),
         args=lambda p: ["check", str(p.root / "data.csv"), "--quasi", "age,zipcode", "-k", "2"],
         error=DataError),
    Case("check: k = 0", ("k-anonymity: the 'k' parameter", "int >= 1", "got 0"),
         args=lambda p: ["check", str(p.root / "data.csv"), "--quasi", "age,sex", "-k", "0"],
         error=ConfigError),
    Case("check: --input-records below 1", ("--input-records -1", "whole number >= 1"),
         args=lambda p: ["check", str(p.root / "data.csv"), "--quasi", "age,sex", "-k", "2", "--input-records", "-1"],
         error=ConfigError, cli_only=True),
    Case("check: --input-records 0", ("--input-records 0", "whole number >= 1"),
         args=lambda p: ["check", str(p.root / "data.csv"), "--quasi", "age,sex", "-k", "2", "--input-records", "0"],
         error=ConfigError, cli_only=True),
    Case("check: --input-records fewer than the release", ("--input-records 5", "fewer than the 8 records", "data.csv"),
         args=lambda p: ["check", str(p.root / "data.csv"), "--quasi", "age,sex", "-k", "2", "--input-records", "5"],
         error=ConfigError, cli_only=True),
    Case("check: delimiter that is not ASCII", ("--delimiter", "'é'", "not an ASCII character"),
         args=lambda p: ["check", str(p.root / "data.csv"), "--quasi", "age,sex", "-k", "2", "--delimiter", "é"],
         error=DataError, cli_only=True),
    Case("average risk bound outside (0, 1]", ("average risk", "1.5"), edit=_set("privacy.average_risk", 1.5),
         error=ConfigError),
    Case("population table without a quasi-identifier", ("population.csv", "no column 'sex'", "every quasi-identifier"),
         files={"population.csv": "age;disease\n21;flu\n"},
         edit=_set("privacy.k_map", {"k": 2, "population": "population.csv"}), error=ConfigError),
    Case("population table the input is no sample of",
         ("data.csv", "holds 1 record with (age '21', sex 'Male')", "population.csv", "only 0", "sample of"),
         files={"population.csv": HEADER + "\n".join(RECORDS[1:]) + "\n"},
         edit=_set("privacy.delta_presence", {"min": 0.1, "max": 1.0, "population": "population.csv"}),
         error=ConfigError),
    Case("risk: sampling fraction outside (0, 1]", ("--sampling-fraction 1.5", "(0, 1]"),
         args=lambda p: ["risk", str(p.config), "--sampling-fraction", "1.5"], error=ConfigError, cli_only=True),
    Case("risk: population smaller than the table", ("--population-size 3", "smaller than the table (8 records)"),
         args=lambda p: ["risk", str(p.config), "--population-size", "3"], error=ConfigError, cli_only=True),
    Case("risk: sampling fraction too small to compute with", ("--sampling-fraction 1e-17", "2^53", "at least"),
         args=lambda p: ["risk", str(p.config), "--sampling-fraction", "1e-17"], error=ConfigError, cli_only=True),
    Case("risk: population size not a whole number", ("--population-size 406.5", "finite whole number"),
         args=lambda p: ["risk", str(p.config), "--population-size", "406.5"], error=ConfigError, cli_only=True),
    Case("risk: population size not finite", ("--population-size inf", "finite whole number"),
         args=lambda p: ["risk", str(p.config), "--population-size", "inf"], error=ConfigError, cli_only=True),
    Case("risk: population size too large to compute with", ("--population-size 1e+20", "9,007,199,254,740,992"),
         args=lambda p: ["risk", str(p.config), "--population-size", "1e20"], error=ConfigError, cli_only=True),
    Case("risk: input delimiter that is not ASCII", ("run.yaml", "input.delimiter", "'é'", "not an ASCII character"),
         edit=_set("input.delimiter", "é"), args=lambda p: ["risk", str(p.config)], error=DataError, cli_only=True),
    Case("risk: threshold outside (0, 1]", ("--threshold 0", "(0, 1]"),
         args=lambda p: ["risk", str(p.config), "--threshold", "0"], error=ConfigError, cli_only=True),
    Case("risk: release without the quasi-identifiers", ("postcode.csv", "column 'age'", "not in the release"),
         files={"postcode.csv": "postcode;disease\n1302;flu\n"},
         args=lambda p: ["risk", str(p.config), "--release", str(p.root / "postcode.csv")], error=DataError,
         cli_only=True),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_cli_bad_input(tmp_path: Path, case: Case) -> None:
    project = make_project(tmp_path, case)
    args = case.args(project) if case.args else project.anonymize_args()
    result = invoke(args)
    line = assert_one_line_error(result, case.code, case.facts)
    assert line.startswith("error: " if case.code == 2 else "infeasible: ")
    assert result.stdout == ""
    assert_nothing_written(project)


API_CASES = [c for c in CASES if not c.cli_only]


@pytest.mark.parametrize("case", API_CASES, ids=[c.id for c in API_CASES])
def test_api_raises_the_class(tmp_path: Path, case: Case) -> None:
    """The same inputs through the API raise the documented exception class."""
    project = make_project(tmp_path, case)
    if case.args is not None:
        args = case.args(project)
        if args[0] == "check":
            with pytest.raises(case.error):
                table = read_table(args[1])
                names = args[3].split(",")
                Dataset(table, {q: {"role": "quasi"} for q in names}, source=args[1])
                KAnonymity(int(args[5]))
            return
        config_path = Path(args[1])
    else:
        config_path = project.config
    with pytest.raises(case.error) as info:
        cfg = load_config(config_path)
        dataset = read_in_memory(cfg, "the API")
        Anonymizer({}, cfg.requirements, method=cfg.method, metric=cfg.metric).fit(dataset)
    assert type(info.value) is case.error
    assert_nothing_written(project)


def test_fixture_project_works(tmp_path: Path) -> None:
    """The unbroken fixture anonymizes, writes release and summary, and the release checks out."""
    project = make_project(tmp_path)
    result = invoke(project.anonymize_args() + ["--quiet"])
    assert result.exit_code == 0, (result.stderr, result.stdout)
    assert result.stderr == ""
    released = pd.read_csv(project.output, dtype=str)
    assert len(released) == 8
    assert json.loads(project.summary.read_text())["rows"] == 8
    assert sorted(p.name for p in project.out_dir.iterdir()) == ["released.csv", "summary.json"]
    check = invoke(["check", str(project.output), "--quasi", "age,sex", "-k", "2",
                    "--sensitive", "disease", "--l", "2"])
    assert check.exit_code == 0, check.stdout
    assert "satisfied: 2-anonymity" in check.stdout


def test_output_override_not_written_on_bad_input(tmp_path: Path) -> None:
    """--output overriding the config path: a bad input writes neither file."""
    case = Case("k", (), edit=_set("privacy.k", 0))
    project = make_project(tmp_path, case)
    other = project.out_dir / "other.csv"
    result = invoke(project.anonymize_args() + ["--output", str(other)])
    assert_one_line_error(result, 2, ("run.yaml", "'k'"))
    assert not other.exists()
    assert_nothing_written(project)


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.mark.parametrize("which", ["output", "summary"])
def test_write_target_is_a_directory(tmp_path: Path, which: str) -> None:
    """Output or summary path naming a folder: refused before anything is written."""
    project = make_project(tmp_path)
    blocked = project.output if which == "output" else project.summary
    blocked.mkdir(parents=True)
    before = _tree(tmp_path)
    result = invoke(project.anonymize_args())
    assert_one_line_error(result, 2, (blocked.name, "is a directory"))
    assert _tree(tmp_path) == before


def test_output_folder_is_a_file(tmp_path: Path) -> None:
    """The output folder exists as a file: one line, nothing written, no temp file."""
    project = make_project(tmp_path)
    project.out_dir.rmdir()
    project.out_dir.write_text("not a folder\n", encoding="utf-8")
    before = _tree(tmp_path)
    result = invoke(project.anonymize_args())
    assert_one_line_error(result, 2, ("released.csv", "is a file, not a folder"))
    assert _tree(tmp_path) == before
    assert project.out_dir.read_text(encoding="utf-8") == "not a folder\n"


def test_api_write_table_to_a_directory(tmp_path: Path) -> None:
    (tmp_path / "release.csv").mkdir()
    with pytest.raises(DataError, match="is a directory"):
        write_table(pd.DataFrame({"a": ["1"]}), tmp_path / "release.csv")
    assert _tree(tmp_path) == ["release.csv"]


# ---------------------------------------------------------------------- anonset check
def _write(path: Path, records: list[str]) -> Path:
    path.write_text(HEADER + "\n".join(records) + "\n", encoding="utf-8")
    return path


def test_check_not_k_anonymous(tmp_path: Path) -> None:
    data = _write(tmp_path / "release.csv", RECORDS)
    result = invoke(["check", str(data), "--quasi", "age,sex", "-k", "2"])
    assert result.exit_code == 1, result.stdout
    assert "Traceback" not in result.stdout + result.stderr
    assert "smallest class: 1" in result.stdout
    assert "violated:" in result.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["release.csv"]


def test_check_k_anonymous(tmp_path: Path) -> None:
    records = [f"20-29;Male;{1300 + i};{d}" for i, d in enumerate(("flu", "cold", "flu", "cancer"))]
    records += [f"30-39;Female;{1400 + i};{d}" for i, d in enumerate(("flu", "cold", "cancer", "cold"))]
    data = _write(tmp_path / "release.csv", records)
    result = invoke(["check", str(data), "--quasi", "age,sex", "-k", "4", "--sensitive", "disease", "--l", "2"])
    assert result.exit_code == 0, result.stdout
    assert result.stderr == ""
    assert "smallest class: 4" in result.stdout
    assert "satisfied: 4-anonymity, distinct 2-diversity on disease" in result.stdout
    larger = invoke(["check", str(data), "--quasi", "age,sex", "-k", "5"])
    assert larger.exit_code == 1
    assert "smallest class: 4" in larger.stdout


def test_check_l_diversity_violated(tmp_path: Path) -> None:
    records = [f"20-29;Male;1300;{d}" for d in ("flu", "flu", "flu")]
    records += [f"30-39;Female;1400;{d}" for d in ("flu", "cold", "cancer")]
    data = _write(tmp_path / "release.csv", records)
    result = invoke(["check", str(data), "--quasi", "age,sex", "-k", "3", "--sensitive", "disease", "--l", "2"])
    assert result.exit_code == 1
    assert "smallest class: 3" in result.stdout
    assert "violated:" in result.stdout


# ---------------------------------------------------------------------- real data
@pytest.mark.skipif(not (ADULT / "hierarchies" / "sex.csv").exists(), reason="shared adult data not present")
def test_adult_hierarchy_does_not_cover_the_data(tmp_path: Path) -> None:
    """A tiny table against the shared Adult hierarchies: uncovered values are listed with their count."""
    (tmp_path / "data.csv").write_text(
        "sex;age;occupation\n" + "".join(f"{s};{a};Sales\n" for s, a in
                                         [("Male", 39), ("Female", 50), ("X", 38), ("male", 53)]),
        encoding="utf-8",
    )
    cfg = {
        "input": {"path": "data.csv", "delimiter": ";"},
        "attributes": {
            "age": {"role": "quasi", "type": "numeric", "hierarchy": str(ADULT / "hierarchies" / "age.csv")},
            "sex": {"role": "quasi", "hierarchy": str(ADULT / "hierarchies" / "sex.csv")},
            "occupation": {"role": "sensitive"},
        },
        "privacy": {"k": 2},
        "output": {"path": "out/released.csv"},
    }
    project = Project(tmp_path)
    project.out_dir.mkdir()
    project.config.write_text(yaml.safe_dump(cfg), encoding="utf-8")
    result = invoke(project.anonymize_args())
    assert_one_line_error(result, 2, ("data.csv", "'sex'", "2 value(s)", "sex.csv", "'X'", "'male'"))
    assert_nothing_written(project)


@pytest.mark.skipif(not (ADULT / "adult.csv").exists(), reason="shared adult data not present")
def test_adult_k_larger_than_table(tmp_path: Path) -> None:
    """k above the number of Adult records is refused before any search."""
    cfg = {
        "input": {"path": str(ADULT / "adult.csv"), "delimiter": ";"},
        "attributes": {
            "age": {"role": "quasi", "type": "numeric", "hierarchy": str(ADULT / "hierarchies" / "age.csv")},
            "sex": {"role": "quasi", "hierarchy": str(ADULT / "hierarchies" / "sex.csv")},
            "occupation": {"role": "sensitive"},
        },
        "privacy": {"k": 10**6},
        "output": {"path": "out/released.csv"},
    }
    project = Project(tmp_path)
    project.out_dir.mkdir()
    project.config.write_text(yaml.safe_dump(cfg), encoding="utf-8")
    result = invoke(project.anonymize_args())
    assert_one_line_error(result, 2, ("adult.csv", "k = 1000000", "30162 records"))
    assert_nothing_written(project)


# ---------------------------------------------------------------------- a real process
@pytest.mark.skipif(not ANONSET.exists(), reason="the anonset script is not installed next to the interpreter")
@pytest.mark.parametrize("case_id", ["ragged row, too many fields", "k = 'five'", "infeasible requirements"])
def test_subprocess_has_no_traceback(tmp_path: Path, case_id: str) -> None:
    """The installed script: one stderr line, the exit code, no traceback, nothing written."""
    case = next(c for c in CASES if c.id == case_id)
    project = make_project(tmp_path, case)
    proc = subprocess.run([str(ANONSET), *project.anonymize_args()], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300, check=False)
    assert proc.returncode == case.code, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    for fact in case.facts:
        assert fact in lines[0]
    assert_nothing_written(project)


# ---------------------------------------------------------------------- API
def test_error_tree() -> None:
    for cls in (DataError, HierarchyError, ConfigError):
        assert issubclass(cls, InputError)
    assert not issubclass(InfeasibleError, InputError)
    assert issubclass(InfeasibleError, AnonsetError)


def test_api_read_table(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="not found"):
        read_table(tmp_path / "missing.csv")
    (tmp_path / "empty.csv").write_text("", encoding="utf-8")
    with pytest.raises(DataError, match="empty"):
        read_table(tmp_path / "empty.csv")
    (tmp_path / "dupes.csv").write_text("a;a\n1;2\n", encoding="utf-8")
    with pytest.raises(DataError, match="duplicate column name 'a'"):
        read_table(tmp_path / "dupes.csv", ";")


def test_api_dataset() -> None:
    table = pd.DataFrame({"age": ["21", "x"], "sex": ["Male", "Female"]})
    with pytest.raises(DataError, match="'zip' is not in the data"):
        Dataset(table, {"zip": {"role": "quasi"}})
    with pytest.raises(DataError, match="'x' is not a number"):
        Dataset(table, {"age": {"role": "quasi", "type": "numeric"}})
    sex = Hierarchy.from_rows("sex", [["Male", "*"]])
    with pytest.raises(HierarchyError, match=r"1 value\(s\) not in hierarchy .*'Female'"):
        Dataset(table, {"sex": {"role": "quasi", "hierarchy": sex}})
    with pytest.raises(ConfigError, match="unknown attribute role 'quasy'"):
        Dataset(table, {"sex": {"role": "quasy"}})


def test_api_hierarchy(tmp_path: Path) -> None:
    with pytest.raises(HierarchyError, match="two parents"):
        Hierarchy.from_rows("x", [["a", "A", "*"], ["b", "A", "*"], ["c", "B", "*"], ["d", "A", "+"]])
    with pytest.raises(HierarchyError, match="line 2 .*has 2 levels but line 1 has 3"):
        Hierarchy.from_rows("x", [["a", "A", "*"], ["b", "*"]])
    with pytest.raises(HierarchyError, match="single root"):
        Hierarchy.from_rows("x", [["a", "*"], ["b", "+"]])
    with pytest.raises(HierarchyError, match="not found"):
        read_hierarchy(tmp_path / "nope.csv")


def test_api_privacy_parameters() -> None:
    for bad in (0, -1, 2.5, "five", True):
        with pytest.raises(ConfigError, match="'k' parameter"):
            KAnonymity(bad)  # type: ignore[arg-type]
    for bad_t in (-0.1, 1.5, float("nan")):
        with pytest.raises(ConfigError, match="'t' parameter"):
            TCloseness("disease", bad_t)
    for bad_s in (-0.1, 1.5, "1%"):
        with pytest.raises(ConfigError, match="'max_suppression'"):
            Requirements([KAnonymity(2)], bad_s)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="'l' parameter"):
        DistinctLDiversity("disease", 0.5)
    with pytest.raises(ConfigError, match="no privacy model"):
        Requirements([])


def test_api_validate_against_data() -> None:
    table = pd.DataFrame({"age": ["1", "2", "3"], "disease": ["flu", "flu", "cold"]})
    dataset = Dataset(table, {"age": {"role": "quasi"}, "disease": {"role": "sensitive"}}, source="t")
    with pytest.raises(ConfigError, match="k = 4 is larger than the table"):
        Requirements([KAnonymity(4)]).validate(dataset)
    with pytest.raises(ConfigError, match="l = 3 is larger than the number of distinct values"):
        Requirements([KAnonymity(1), DistinctLDiversity("disease", 3)]).validate(dataset)
    with pytest.raises(ConfigError, match="must have role sensitive"):
        Requirements([KAnonymity(1), DistinctLDiversity("age", 2)]).validate(dataset)


def test_api_config() -> None:
    here = Path("run.yaml")
    good = base_config()
    parse_config(good, here)
    for edit, pattern in [
        (_set("colour", 1), "unknown key colour"),
        (_set("method.name", "greedy"), "unknown method 'greedy'"),
        (_set("method.metric", "accuracy"), "unknown metric 'accuracy'"),
        (_set("privacy.k", 2.5), "'k' parameter"),
        (_set("seed", "zero"), "seed must be an integer"),
    ]:
        cfg = copy.deepcopy(good)
        edit(cfg)
        with pytest.raises(ConfigError, match=pattern):
            parse_config(cfg, here)
    with pytest.raises(ConfigError, match="unknown method"):
        Anonymizer({}, Requirements([KAnonymity(2)]), method="greedy")


def test_api_infeasible() -> None:
    table = pd.DataFrame({"sex": ["Male", "Male", "Female", "Female"],
                          "disease": ["flu", "flu", "flu", "cold"]})
    requirements = Requirements([KAnonymity(2), EntropyLDiversity("disease", 2)])
    anonymizer = Anonymizer({"sex": {"role": "quasi"}, "disease": {"role": "sensitive"}}, requirements)
    with pytest.raises(InfeasibleError, match=r"would suppress 2 records but the budget allows 0"):
        anonymizer.fit(table)
