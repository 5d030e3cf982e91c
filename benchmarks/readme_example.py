"""Run the Adult example of README.md and docs/config.md and print the figures those pages quote.

The config of the README (seven quasi-identifiers, occupation sensitive with
entropy 3-diversity, k = 5, 1% suppression) is written into a temporary
folder with the paths of the shared Adult table and hierarchies, run with
``anonset anonymize``, and the release is checked with ``anonset check``.
Then the same config with t-closeness on occupation (t = 0.4 and t = 0.2, as
in docs/config.md) and with t = 0.2 on four quasi-identifiers only (age, sex,
education, race), where only the most general release is left.

Usage::

    python benchmarks/readme_example.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from _report import header

ADULT = ROOT.parent / "shared" / "data" / "adult"
ANONSET = Path(sys.executable).with_name("anonset")
QUASI = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass")


def config(folder: Path, quasi: tuple[str, ...], t: float | None) -> dict[str, Any]:
    """The README's config with the given quasi-identifiers and an optional t-closeness."""
    attributes: dict[str, Any] = {}
    for column in QUASI:
        if column not in quasi:
            attributes[column] = {"role": "insensitive"}
        elif column == "race":
            attributes[column] = {"role": "quasi", "hierarchy": {"builder": "flat"}}
        else:
            spec: dict[str, Any] = {"role": "quasi", "hierarchy": str(ADULT / "hierarchies" / f"{column}.csv")}
            if column == "age":
                spec["type"] = "numeric"
            attributes[column] = spec
    attributes["occupation"] = {"role": "sensitive"}
    attributes["salary-class"] = {"role": "insensitive"}
    privacy: dict[str, Any] = {"k": 5, "l_diversity": {"attribute": "occupation", "l": 3, "variant": "entropy"},
                               "max_suppression": 0.01}
    if t is not None:
        privacy["t_closeness"] = {"attribute": "occupation", "t": t, "distance": "equal"}
    return {"input": {"path": str(ADULT / "adult.csv"), "delimiter": ";"}, "attributes": attributes,
            "privacy": privacy, "method": {"name": "optimal", "metric": "loss"},
            "output": {"path": str(folder / "adult-anonymized.csv")}, "seed": 0}


def run(name: str, quasi: tuple[str, ...], t: float | None, check: bool = False) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / "config.yaml"
        path.write_text(yaml.safe_dump(config(folder, quasi, t), sort_keys=False), encoding="utf-8")
        summary = folder / "summary.json"
        proc = subprocess.run([str(ANONSET), "anonymize", str(path), "--summary", str(summary), "-q"],
                              capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            print(f"{name}: exit {proc.returncode}: {proc.stderr.strip()}")
            return
        s = json.loads(summary.read_text(encoding="utf-8"))
        warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning")]
        print(f"{name}: levels {s['levels']}; classes {s['classes']}; smallest class {s['min_class_size']};"
              f" suppressed {s['suppressed_rows']:,} of {s['rows']:,}; Loss {s['metrics']['loss']:.4f}")
        for w in warnings:
            print(f"  {w}")
        if check:
            proc = subprocess.run(
                [str(ANONSET), "check", str(folder / "adult-anonymized.csv"), "--quasi", ",".join(quasi), "-k", "5",
                 "--sensitive", "occupation", "--l", "3", "--variant", "entropy", "--max-suppression", "0.01",
                 "--delimiter", ";"], capture_output=True, text=True, check=False)
            print(f"  anonset check: exit {proc.returncode}; " + "; ".join(proc.stdout.strip().splitlines()))


def main() -> None:
    header("benchmarks/readme_example.py")
    print()
    run("README config", QUASI, None, check=True)
    run("with t = 0.4", QUASI, 0.4)
    run("with t = 0.2", QUASI, 0.2)
    run("t = 0.2, quasi-identifiers age, sex, education, race", ("sex", "age", "race", "education"), 0.2)


if __name__ == "__main__":
    main()
