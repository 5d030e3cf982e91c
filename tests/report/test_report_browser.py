"""The HTML report in a real headless Chromium: it loads without errors, fetches nothing, draws every plot, prints.

The Adult report comes from the command a custodian runs (``anonymize --report``); reports of a
local-recoding method and of a trade-off front (whose front is plotted) come from the API.
Screenshots go to ``ANONSET_TEST_ARTIFACTS`` when it is set (see tests/browser.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from anonset.anonymizer import Anonymizer
from anonset.cli import main
from anonset.core.dataset import Dataset
from anonset.datasets.synthetic import patient_register, patient_register_attributes
from anonset.methods import registry
from anonset.privacy import KAnonymity, Requirements
from anonset.report.contents import build_report
from anonset.report.html import render_html
from browser import Browser, PageReport
from support import require_adult

SECTIONS = ("In short", "Guarantees verified", "Why this release", "What was done to each quasi-identifier",
            "Suppressed records", "Groups of identical records", "Re-identification risk", "Utility",
            "How the method found it", "Run and provenance")


def _assert_readable(page: PageReport, charts: int) -> None:
    assert not page.problems, page.problems
    for section in SECTIONS:
        assert section in page.text, section
    drawn = [svg for svg in page.svgs if svg.visible and svg.shape_count > 0]
    assert len(drawn) == len(page.svgs) >= charts
    assert all(svg.visible and svg.shape_count > 0 for svg in page.print_svgs)
    assert page.pdf_pages >= 2
    assert page.screenshot_size[1] > 2000


def test_adult_report_from_the_command(browser: Browser, tmp_path: Path) -> None:
    adult = require_adult()
    config = tmp_path / "config.yaml"
    hierarchies = adult / "hierarchies"
    config.write_text(f"""
input: {{path: {adult / 'adult.csv'}, delimiter: ";"}}
attributes:
  sex:            {{role: quasi, hierarchy: {hierarchies / 'sex.csv'}}}
  age:            {{role: quasi, type: numeric, hierarchy: {hierarchies / 'age.csv'}}}
  race:           {{role: quasi, hierarchy: {{builder: flat}}}}
  marital-status: {{role: quasi, hierarchy: {hierarchies / 'marital-status.csv'}}}
  education:      {{role: quasi, hierarchy: {hierarchies / 'education.csv'}}}
  native-country: {{role: quasi, hierarchy: {hierarchies / 'native-country.csv'}}}
  workclass:      {{role: quasi, hierarchy: {hierarchies / 'workclass.csv'}}}
  occupation:     {{role: sensitive}}
  salary-class:   {{role: insensitive}}
privacy: {{k: 5, l_diversity: {{attribute: occupation, l: 3, variant: entropy}}, max_suppression: 0.01}}
method: {{name: optimal, metric: loss}}
output: {{path: {tmp_path / 'release.csv'}}}
""", encoding="utf-8")
    result = CliRunner().invoke(main, ["anonymize", str(config), "-q", "--report", str(tmp_path / "report.html"),
                                       "--report", str(tmp_path / "report.json")])
    assert result.exit_code == 0, result.output
    page = browser.render_page(tmp_path / "report.html", tmp_path / "adult-report.png")
    _assert_readable(page, charts=2 * 7 + 3)
    figures = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert f"of {figures['run']['records']:,} records are released" in page.text
    for attribute in figures["attributes"]:
        assert f"level {attribute['level']} of {attribute['max_level']}" in page.text


@pytest.mark.parametrize("method", ["k-member", "pareto-exhaustive"])
def test_reports_of_other_families(browser: Browser, tmp_path: Path, method: str) -> None:
    table = patient_register(800, seed=1)
    dataset = Dataset(table, patient_register_attributes(table), source="register")
    spec = registry.get(method)
    requirements = Requirements([KAnonymity(5)], 0.02 if spec.suppresses else 0.0)
    release = Anonymizer({}, requirements, method=method, seed=0).fit(dataset).release_
    assert release.table is not None
    report = build_report(dataset, release.table, requirements, release.summary(), partition=release.partition,
                          family=spec.family.value, method_summary=spec.summary)
    path = tmp_path / f"{method}.html"
    path.write_text(render_html(report), encoding="utf-8")
    page = browser.render_page(path, tmp_path / f"{method}-report.png")
    _assert_readable(page, charts=2 * len(dataset.quasi) + 3)
    if spec.family.value == "front":
        fronts = [svg for svg in page.svgs if svg.label.startswith("front:")]
        assert fronts and all(svg.shapes.get("circle", 0) == len(release.summary()["front"]) for svg in fronts)
