"""The workbench in a real headless Chromium, on the tutorial's table (the demo's 20,000 synthetic patients).

Open the page, propose, preview a hierarchy, set k and a diversity model, run, open a lattice node that is
not the optimum, compare it with the optimum, release it, open the report.  The server runs in this process (uvicorn on
127.0.0.1, a free port); the shared browser reaches it while the test lifts its network block (host names
still resolve to nothing).  The written release is re-checked with ``anonset check`` against k and the
diversity model; screenshots of the page are kept as artifacts when ANONSET_TEST_ARTIFACTS is set.  The
time the page took to show a node's details (request and answer) is printed, not asserted, for that
table and for Adult.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from anonset.app.server import workbench
from anonset.cli import main
from anonset.datasets.synthetic import patient_register
from support import require_adult


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    import uvicorn

    patient_register(20_000, seed=0).to_csv(tmp_path / "patients.csv", index=False)  # anonset demo --rows 20000
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    guard = workbench(tmp_path, "127.0.0.1", port)
    server = uvicorn.Server(uvicorn.Config(guard, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "the workbench did not start"
    try:
        yield f"http://127.0.0.1:{port}/?token={guard.token}", tmp_path
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def _wait(driver: Any, condition: str, seconds: float = 60) -> None:
    """Wait until the JavaScript expression ``condition`` is true."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if driver.execute_script(f"return Boolean({condition});"):
            return
        time.sleep(0.1)
    raise AssertionError(f"the page never met {condition!r}: {driver.execute_script('return document.body.innerText')}")


#: The diversity model the test sets in the proposed configuration.
DIVERSITY = "  l_diversity: {attribute: diagnosis, l: 3, variant: entropy}\n"


def test_the_page_takes_a_table_to_a_chosen_node_written(browser: Any, served: tuple[str, Path],
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    url, folder = served
    driver = browser.driver
    shots = []
    with browser.reaching_loopback():
        driver.get(url)
        _wait(driver, "document.getElementById('table').options.length > 0")
        driver.find_element("id", "propose").click()
        _wait(driver, "document.getElementById('config').value.includes('role: quasi')")
        driver.find_element("id", "preview").click()  # the first quasi-identifier, age: its intervals
        _wait(driver, "document.querySelectorAll('#preview-table tr').length > 0")
        assert "level 1: 20 groups" in driver.find_element("id", "preview-table").text
        driver.execute_script("const box = document.getElementById('config');"
                              "box.value = box.value.replace(/\\n  k: 5 [^\\n]*\\n/, arguments[0]);",
                              "\n  k: 10\n" + DIVERSITY)
        assert "l_diversity" in driver.find_element("id", "config").get_attribute("value")
        driver.find_element("id", "run").click()
        _wait(driver, "document.querySelectorAll('#lattice .node').length > 0")
        text = driver.execute_script("return document.body.innerText")
        headline = driver.find_element("id", "headline").text
        assert "holds: 10-anonymity" in headline and "VIOLATED" not in text, headline
        assert "holds: entropy 3-diversity on diagnosis" in headline, headline
        # a node one level above the optimum in its first attribute below the top: not the optimum
        node = driver.execute_script(
            "const i = space.optimum.findIndex((v, j) => v < space.max_levels[j]);"
            "const n = space.optimum.slice(); n[i] += 1; return n;")
        optimum = driver.execute_script("return space.optimum;")
        assert node != optimum
        button = driver.find_element("css selector", f".node[data-levels='{','.join(map(str, node))}']")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", button)
        button.click()
        _wait(driver, f"document.getElementById('node').dataset.levels === '{','.join(map(str, node))}'")
        title = driver.find_element("id", "node-title").text
        assert "meets the requirements" in title and "does not" not in title, title
        milliseconds = float(driver.find_element("id", "node").get_attribute("data-ms"))
        driver.find_element("id", "compare-add").click()
        _wait(driver, "document.querySelectorAll('#compare-table tr:first-child th').length === 3")
        header = driver.find_element("css selector", "#compare-table tr:first-child").text
        assert "(optimum)" in header and ".".join(map(str, node)).replace(".", "·") in header
        shots.append(_shot(driver, folder, "app-lattice.png"))
        driver.find_element("id", "choose").click()
        assert "·".join(map(str, node)) in driver.find_element("id", "chosen").text
        for field, name in (("release-name", "released.csv"), ("config-name", "released.yaml"),
                            ("report-name", "report.html")):
            box = driver.find_element("id", field)
            box.clear()
            box.send_keys(name)
        driver.find_element("id", "write").click()
        _wait(driver, "document.getElementById('written').textContent.startsWith('written')")
        shots.append(_shot(driver, folder, "app-workbench.png"))
        report = driver.find_element("id", "report").get_attribute("href")
        driver.get(report)  # the cookie the first visit set carries the token
        assert "Re-identification risk" in driver.execute_script("return document.body.innerText")
        errors = driver.execute_script("return window.__anonsetHarnessErrors || [];")
    assert errors == []
    with capsys.disabled():
        print(f"\nworkbench: a lattice node's details shown {milliseconds:.1f} ms after the click (20,000 records)")
    artifacts = os.environ.get("ANONSET_TEST_ARTIFACTS")
    if artifacts:
        Path(artifacts).mkdir(parents=True, exist_ok=True)
        for shot in shots:
            shutil.copy(shot, Path(artifacts) / shot.name)
    config = yaml.safe_load((folder / "released.yaml").read_text())
    quasi = [name for name, entry in config["attributes"].items() if (entry or {}).get("role") == "quasi"]
    assert config["method"]["levels"] == dict(zip(quasi, node, strict=True))
    checked = CliRunner().invoke(main, ["check", str(folder / "released.csv"), "--quasi", ",".join(quasi),
                                        "-k", "10", "--sensitive", "diagnosis", "--l", "3", "--variant", "entropy",
                                        "--max-suppression", str(config["privacy"].get("max_suppression", 0))])
    assert checked.exit_code == 0, checked.output
    # the configuration written releases the same node again
    again = CliRunner().invoke(main, ["anonymize", str(folder / "released.yaml"), "-o", str(folder / "again.csv"),
                                      "--json"])
    assert again.exit_code == 0, again.output
    assert list(json.loads(again.stdout)["levels"].values()) == node


ADULT = """input: {path: adult.csv, delimiter: ";"}
attributes:
  sex:            {role: quasi, hierarchy: hierarchies/sex.csv}
  age:            {role: quasi, type: numeric, hierarchy: hierarchies/age.csv}
  race:           {role: quasi, hierarchy: hierarchies/race.csv}
  marital-status: {role: quasi, hierarchy: hierarchies/marital-status.csv}
  education:      {role: quasi, hierarchy: hierarchies/education.csv}
  native-country: {role: quasi, hierarchy: hierarchies/native-country.csv}
  workclass:      {role: quasi, hierarchy: hierarchies/workclass.csv}
  occupation:     {role: quasi, hierarchy: hierarchies/occupation.csv}
  salary-class:   {role: quasi, hierarchy: hierarchies/salary-class.csv}
privacy: {k: 5, max_suppression: 0.01}
method: {name: optimal, metric: loss}
"""


def test_a_lattice_node_of_adult_opens_in_moments(browser: Any, served: tuple[str, Path],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Adult, all nine columns quasi-identifying (ARX's usual setting): a node opened after the search."""
    adult = require_adult()
    url, folder = served
    shutil.copy(adult / "adult.csv", folder / "adult.csv")
    shutil.copytree(adult / "hierarchies", folder / "hierarchies")
    driver = browser.driver
    with browser.reaching_loopback():
        driver.get(url)
        _wait(driver, "document.getElementById('table').options.length > 0")
        driver.execute_script("document.getElementById('config').value = arguments[0];", ADULT)
        driver.find_element("id", "run").click()
        _wait(driver, "document.querySelectorAll('#lattice .node').length > 0")
        node = driver.execute_script(
            "const i = space.optimum.findIndex((v, j) => v < space.max_levels[j]);"
            "const n = space.optimum.slice(); n[i] += 1; return n;")
        button = driver.find_element("css selector", f".node[data-levels='{','.join(map(str, node))}']")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", button)
        button.click()
        _wait(driver, f"document.getElementById('node').dataset.levels === '{','.join(map(str, node))}'")
        assert "meets the requirements" in driver.find_element("id", "node-title").text
        milliseconds = float(driver.find_element("id", "node").get_attribute("data-ms"))
        size = driver.execute_script("return space.size;")
    with capsys.disabled():
        print(f"\nworkbench: a lattice node's details on Adult (30,162 records, {size:,} nodes) shown"
              f" {milliseconds:.1f} ms after the click")


def _shot(driver: Any, folder: Path, name: str) -> Path:
    path = folder / name
    driver.save_screenshot(str(path))
    return path
