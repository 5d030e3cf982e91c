"""The workbench in a real headless Chromium: open the page, propose, run, open the report, write the release.

The server runs in this process (uvicorn on 127.0.0.1, a free port); the shared browser reaches it while
the test lifts its network block (host names still resolve to nothing).  The written release is re-checked
with ``anonset check``; a screenshot of the page is kept as an artifact when ANONSET_TEST_ARTIFACTS is set.
"""

from __future__ import annotations

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


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    import uvicorn

    patient_register(400, seed=3).to_csv(tmp_path / "register.csv", index=False)
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


def test_the_page_takes_a_table_to_a_written_release(browser: Any, served: tuple[str, Path]) -> None:
    url, folder = served
    driver = browser.driver
    with browser.reaching_loopback():
        driver.get(url)
        _wait(driver, "document.getElementById('table').options.length > 0")
        driver.find_element("id", "propose").click()
        _wait(driver, "document.getElementById('config').value.includes('role: quasi')")
        driver.find_element("id", "run").click()
        _wait(driver, "document.getElementById('headline').children.length > 0")
        text = driver.execute_script("return document.body.innerText")
        assert "holds: 5-anonymity" in text and "VIOLATED" not in text and "undefined" not in text
        for field, name in (("release-name", "released.csv"), ("config-name", "released.yaml"),
                            ("report-name", "report.html")):
            box = driver.find_element("id", field)
            box.clear()
            box.send_keys(name)
        driver.find_element("id", "write").click()
        _wait(driver, "document.getElementById('written').textContent.startsWith('written')")
        shot = folder / "workbench.png"
        driver.save_screenshot(str(shot))
        report = driver.find_element("id", "report").get_attribute("href")
        driver.get(report)  # the cookie the first visit set carries the token
        assert "Re-identification risk" in driver.execute_script("return document.body.innerText")
        errors = driver.execute_script("return window.__anonsetHarnessErrors || [];")
    assert errors == []
    artifacts = os.environ.get("ANONSET_TEST_ARTIFACTS")
    if artifacts:
        Path(artifacts).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(artifacts) / "app-workbench.png")
    config = yaml.safe_load((folder / "released.yaml").read_text())
    quasi = [name for name, entry in config["attributes"].items() if (entry or {}).get("role") == "quasi"]
    checked = CliRunner().invoke(main, ["check", str(folder / "released.csv"), "--quasi", ",".join(quasi),
                                        "-k", str(config["privacy"]["k"]),
                                        "--max-suppression", str(config["privacy"].get("max_suppression", 0))])
    assert checked.exit_code == 0, checked.output
