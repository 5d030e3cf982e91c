"""What the release report costs on top of the anonymization: Adult (30,162 records) and a million records.

For each table it prints, with the load average beside every figure:

- ``in process``: the report's two steps on a release already made (best of three, warm): computing
  its figures (:func:`anonset.report.contents.build_report`, the re-check of the released values,
  risk, distributions and, for a full-domain release, the neighbouring nodes) and laying out the
  page (:func:`anonset.report.html.render_html`);
- ``processes``: fresh ``anonset anonymize`` processes without and with ``--report`` (three of each,
  alternating; the minimum and the median wall time), and a fresh ``anonset report CONFIG RELEASE``
  on the written release.

Adult uses the README's configuration (k = 5, entropy 3-diversity on occupation, 1% budget, optimal)
with the shared hierarchy files; the million records are the built-in patient register (Parquet,
built once under ``--workdir``; optimal, k = 5, 1% budget).  Nothing is asserted.  Usage::

    .venv/bin/python benchmarks/report.py [--workdir /tmp/anonset-report] [--rows 1000000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _report import header, load
from scale import ADULT_DIR, patients_config, patients_table

ANONSET = Path(sys.executable).with_name("anonset")


def adult_config(workdir: Path) -> Path:
    """The README's Adult configuration, with absolute paths, releasing into ``workdir``."""
    h = ADULT_DIR / "hierarchies"
    text = f"""input: {{path: {json.dumps(str(ADULT_DIR / 'adult.csv'))}, delimiter: ";"}}
attributes:
  sex:            {{role: quasi, hierarchy: {json.dumps(str(h / 'sex.csv'))}}}
  age:            {{role: quasi, type: numeric, hierarchy: {json.dumps(str(h / 'age.csv'))}}}
  race:           {{role: quasi, hierarchy: {{builder: flat}}}}
  marital-status: {{role: quasi, hierarchy: {json.dumps(str(h / 'marital-status.csv'))}}}
  education:      {{role: quasi, hierarchy: {json.dumps(str(h / 'education.csv'))}}}
  native-country: {{role: quasi, hierarchy: {json.dumps(str(h / 'native-country.csv'))}}}
  workclass:      {{role: quasi, hierarchy: {json.dumps(str(h / 'workclass.csv'))}}}
  occupation:     {{role: sensitive}}
  salary-class:   {{role: insensitive}}
privacy:
  k: 5
  l_diversity: {{attribute: occupation, l: 3, variant: entropy}}
  max_suppression: 0.01
method: {{name: optimal, metric: loss}}
output: {{path: {json.dumps(str(workdir / 'adult_released.csv'))}}}
seed: 0
"""
    path = workdir / "adult.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def in_process(config: Path) -> None:
    """Build and render the report of the config's release, warm, best of three."""
    from anonset.config import load_config
    from anonset.methods import registry
    from anonset.report.contents import build_report
    from anonset.report.html import render_html
    from anonset.runs.base import ReleaseRequest, read_in_memory, run_for

    cfg = load_config(config)
    dataset = read_in_memory(cfg, "the benchmark")
    release = run_for(cfg).anonymizer(ReleaseRequest()).fit(dataset).release_
    assert release.table is not None
    spec = registry.get(cfg.method)
    builds, renders = [], []
    for _ in range(3):
        started = time.perf_counter()
        contents = build_report(dataset, release.table, cfg.requirements, release.summary(),
                                partition=release.partition, family=spec.family.value, method_summary=spec.summary)
        built = time.perf_counter()
        render_html(contents)
        builds.append(built - started)
        renders.append(time.perf_counter() - built)
    print(f"  in process: figures {min(builds):.3f} s, page {min(renders):.3f} s ({dataset.n_rows:,} records);"
          f" {load()}", flush=True)


def processes(config: Path, workdir: Path) -> None:
    """Fresh anonymize processes without and with --report, then a fresh anonset report of the release."""
    walls: dict[str, list[float]] = {"without": [], "with": []}
    report = workdir / "report.html"
    for _ in range(3):
        for kind in ("without", "with"):
            report.unlink(missing_ok=True)
            extra = ["--report", str(report)] if kind == "with" else []
            started = time.perf_counter()
            subprocess.run([str(ANONSET), "anonymize", str(config), "-q", *extra], check=True)
            walls[kind].append(time.perf_counter() - started)
            release = json.loads(config.read_text(encoding="utf-8").split("output: {path: ")[1].split("}")[0])
            Path(release).unlink()
    for kind, values in walls.items():
        print(f"  anonymize {kind} --report: min {min(values):.2f} s, median {statistics.median(values):.2f} s;"
              f" {load()}", flush=True)
    print(f"  report on top (difference of the minima): {min(walls['with']) - min(walls['without']):.2f} s",
          flush=True)
    subprocess.run([str(ANONSET), "anonymize", str(config), "-q", "--summary", str(workdir / "run.json")], check=True)
    release = json.loads(config.read_text(encoding="utf-8").split("output: {path: ")[1].split("}")[0])
    report.unlink(missing_ok=True)
    started = time.perf_counter()
    subprocess.run([str(ANONSET), "report", str(config), release, "--summary", str(workdir / "run.json"),
                    "-o", str(report)], check=True, capture_output=True)
    print(f"  anonset report of the written release: {time.perf_counter() - started:.2f} s, page"
          f" {report.stat().st_size / 1024:.0f} KiB; {load()}", flush=True)
    Path(release).unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/anonset-report"))
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    header("benchmarks/report.py")
    for name, config in (("Adult", adult_config(args.workdir)),
                         (f"patients {args.rows:,}", patients_config(args.workdir,
                                                                     patients_table(args.workdir, args.rows),
                                                                     "optimal"))):
        print(f"{name}:", flush=True)
        in_process(config)
        processes(config, args.workdir)


if __name__ == "__main__":
    main()
