"""The workbench (anonset app): its security rules, each refused or escaped, and a run from table to written release.

Requests go through Starlette's test client to the guarded app, as a browser's would reach it: with the
token (or without), a Host header, an Origin for a change.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from starlette.testclient import TestClient

from anonset.app.server import workbench
from anonset.cli import main
from anonset.datasets.synthetic import patient_register

BASE = "http://127.0.0.1:8765"
TOKEN = "a-test-token"


def _client(root: Path) -> TestClient:
    return TestClient(workbench(root, "127.0.0.1", 8765, token=TOKEN), base_url=BASE)


def _post(client: TestClient, path: str, body: dict, **headers: str) -> object:
    return client.post(path, json=body, headers={"X-Anonset-Token": TOKEN, "Origin": BASE, **headers})


def _finished(client: TestClient, config: str) -> dict:
    """Run ``config`` and poll its job until it ends; the last status (with its id)."""
    started = _post(client, "/api/run", {"config": config})
    assert started.status_code == 200, started.text
    job = started.json()["job"]
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        status = client.get(f"/api/jobs/{job}", headers={"X-Anonset-Token": TOKEN}).json()
        if status["state"] != "running":
            return {**status, "job": job}
        time.sleep(0.05)
    raise AssertionError("the run never ended")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    patient_register(400, seed=3).to_csv(tmp_path / "register.csv", index=False)
    return tmp_path


def test_every_request_needs_the_token(folder: Path) -> None:
    client = _client(folder)
    assert client.get("/").status_code == 403
    assert client.get("/api/tables", headers={"X-Anonset-Token": "wrong"}).status_code == 403
    first = client.get(f"/?token={TOKEN}")
    assert first.status_code == 200 and "anonset_token=" in first.headers["set-cookie"]
    assert "HttpOnly" in first.headers["set-cookie"] and "SameSite=Strict" in first.headers["set-cookie"]
    assert client.get("/api/tables").status_code == 200  # the cookie the first visit set
    assert "script-src 'self'" in first.headers["content-security-policy"]


def test_a_foreign_host_or_origin_is_refused(folder: Path) -> None:
    client = _client(folder)
    headers = {"X-Anonset-Token": TOKEN}
    assert client.get("/api/tables", headers={**headers, "Host": "evil.example:8765"}).status_code == 403
    assert client.get("/api/tables", headers={**headers, "Host": "localhost:8765"}).status_code == 200
    body = {"path": "register.csv"}
    assert client.post("/api/propose", json=body, headers=headers).status_code == 403  # no Origin
    assert _post(client, "/api/propose", body, Origin="http://evil.example").status_code == 403
    assert _post(client, "/api/propose", body).status_code == 200


@pytest.mark.parametrize("path", ["../register.csv", "/etc/passwd", "sub/../../x.csv", "link/passwd"])
def test_paths_that_leave_the_folder_are_refused(folder: Path, path: str) -> None:
    os.symlink("/etc", folder / "link")
    answer = _post(_client(folder), "/api/propose", {"path": path})
    assert answer.status_code == 400 and "folder" in answer.json()["error"]


def test_an_oversized_request_is_refused(folder: Path) -> None:
    answer = _post(_client(folder), "/api/propose", {"path": "x" * 100}, **{"Content-Length": str(300 * 2**20)})
    assert answer.status_code == 413


def test_a_value_is_shown_as_text_never_as_markup(tmp_path: Path) -> None:
    table = pd.DataFrame({"zip": ["1"] * 6 + ["2"] * 6, "note": ["<script>alert(1)</script>"] * 12,
                          "diagnosis": ["<img src=x onerror=alert(1)>"] * 6 + ["b"] * 6})
    table.to_csv(tmp_path / "t.csv", index=False)
    client = _client(tmp_path)
    config = ("input: {path: t.csv}\nattributes: {zip: {role: quasi}, note: {role: insensitive},"
              " diagnosis: {role: sensitive}}\nprivacy: {k: 3}\n")
    run = _finished(client, config)
    assert run["state"] == "done", run
    page = client.get(f"/jobs/{run['job']}/report", headers={"X-Anonset-Token": TOKEN}).text
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    script = (Path(__file__).resolve().parents[2] / "src" / "anonset" / "app" / "static" / "app.js").read_text()
    assert "innerHTML" not in script and "textContent" in script  # the page sets every value as text


def test_a_table_is_proposed_run_and_released_and_the_release_re_verifies(folder: Path) -> None:
    client = _client(folder)
    assert client.get("/api/tables", headers={"X-Anonset-Token": TOKEN}).json()["tables"] == ["register.csv"]
    proposed = _post(client, "/api/propose", {"path": "register.csv"}).json()
    assert "role: quasi" in proposed["config"]
    job = _finished(client, proposed["config"])
    assert job["state"] == "done", job
    assert all(g["holds"] for g in job["result"]["guarantees"])
    refused = _post(client, f"/api/jobs/{job['job']}/release", {"release": "register.csv"})
    assert refused.status_code == 400  # never over an input
    written = _post(client, f"/api/jobs/{job['job']}/release",
                    {"release": "out/released.csv", "config": "out/released.yaml", "report": "out/report.html"})
    assert written.status_code == 400  # the folder out/ does not exist: nothing written
    (folder / "out").mkdir()
    written = _post(client, f"/api/jobs/{job['job']}/release",
                    {"release": "out/released.csv", "config": "out/released.yaml", "report": "out/report.html"})
    assert written.status_code == 200, written.text
    assert (folder / "out" / "report.html").read_text().startswith("<!DOCTYPE html>")
    # the written config runs as it is, and its release is the one written
    rerun = CliRunner().invoke(main, ["anonymize", str(folder / "out" / "released.yaml"), "-q", "--output",
                                      str(folder / "again.csv")])
    assert rerun.exit_code == 0, rerun.output
    assert (folder / "again.csv").read_text() == (folder / "out" / "released.csv").read_text()
    config = yaml.safe_load(proposed["config"])
    quasi = [name for name, entry in config["attributes"].items() if (entry or {}).get("role") == "quasi"]
    privacy = config["privacy"]
    checked = CliRunner().invoke(main, ["check", str(folder / "out" / "released.csv"), "--quasi", ",".join(quasi),
                                        "-k", str(privacy["k"]),
                                        "--max-suppression", str(privacy.get("max_suppression", 0))])
    assert checked.exit_code == 0, checked.output


def test_a_bad_configuration_is_one_error(folder: Path) -> None:
    answer = _post(_client(folder), "/api/run", {"config": "input: {path: register.csv}\nattributes: [\n"})
    assert answer.status_code == 400 and "YAML" in answer.json()["error"]
    answer = _post(_client(folder), "/api/run", {"config": "input: {path: /etc/hosts}\nattributes: {a: {role: quasi}}\n"
                                                            "privacy: {k: 2}\n"})
    assert answer.status_code == 400 and "not under the workbench's folder" in answer.json()["error"]


def test_a_run_reports_its_steps_and_stops_when_cancelled(folder: Path) -> None:
    """The job's reporter holds the library's open tasks while it runs; a cancel stops the run at its next step
    (here before its first: the cancel comes before the job's thread reports anything, or at one of its steps)."""
    from anonset.app.jobs import Job

    job = Job()
    job.cancel()
    job.start(lambda: _a_run_that_reports())
    deadline = time.monotonic() + 10
    while job.state == "running" and time.monotonic() < deadline:
        time.sleep(0.01)
    assert job.state == "cancelled" and job.status()["steps"] == []
    running = Job()
    seen: list = []
    running.start(lambda: _a_run_that_reports(seen, running))
    while running.state == "running":
        time.sleep(0.01)
    assert running.state == "done" and seen == [[{"description": "testing", "completed": 2.0, "total": 3,
                                                  "unit": "steps"}]]


def _a_run_that_reports(seen: list | None = None, job: object = None) -> str:
    from anonset import progress

    with progress.task("testing", total=3, unit="steps") as bar:
        bar.advance()
        bar.advance()
        if seen is not None:
            seen.append(job.status()["steps"])  # type: ignore[attr-defined]
    return "finished"


def test_the_cancel_route_reaches_the_job(folder: Path) -> None:
    client = _client(folder)
    assert _post(client, "/api/jobs/nope/cancel", {}).status_code == 404
    done = _finished(client, _post(client, "/api/propose", {"path": "register.csv"}).json()["config"])
    answer = _post(client, f"/api/jobs/{done['job']}/cancel", {})
    assert answer.status_code == 200 and answer.json()["state"] == "done"  # too late: the run had ended


def _get(client: TestClient, path: str) -> object:
    return client.get(path, headers={"X-Anonset-Token": TOKEN})


def test_the_lattice_shows_the_search_and_any_node_opens(folder: Path) -> None:
    """The overview holds every node with the search's state; a node opened is judged, its figures recomputed here
    from the release of that node (the `levels` option), and a node is released on its own."""
    client = _client(folder)
    config = _post(client, "/api/propose", {"path": "register.csv"}).json()["config"]
    job = _finished(client, config)
    assert job["state"] == "done", job
    space = _get(client, f"/api/jobs/{job['job']}/lattice").json()
    assert space["size"] == len(space["nodes"]) == int(np.prod([top + 1 for top in space["max_levels"]]))
    assert space["released"] == space["optimum"]
    states = {tuple(n["levels"]): n for n in space["nodes"]}
    assert states[tuple(space["optimum"])]["state"] == 1  # judged, feasible
    assert all(n["height"] == sum(n["levels"]) for n in space["nodes"])
    # a node the search did not judge, more general than the optimum in one attribute: feasible at k-anonymity
    i = next(j for j, v in enumerate(space["optimum"]) if v < space["max_levels"][j])
    chosen = list(space["optimum"])
    chosen[i] += 1
    details = _get(client, f"/api/jobs/{job['job']}/node?levels={','.join(map(str, chosen))}").json()
    assert details["feasible"] and not details["optimum"]
    # independently: the same node released by the optimal method's `levels`, through the Anonymizer
    quasi = space["quasi"]
    released = _post(client, f"/api/jobs/{job['job']}/release",
                     {"release": "node.csv", "config": "node.yaml", "levels": chosen})
    assert released.status_code == 200, released.text
    written = yaml.safe_load((folder / "node.yaml").read_text())
    assert written["method"]["levels"] == dict(zip(quasi, chosen, strict=True))
    table = pd.read_csv(folder / "node.csv", dtype=str, keep_default_na=False)
    suppressed = (table[quasi] == "*").all(axis=1)
    sizes = table[~suppressed].groupby(quasi).size().to_numpy()
    assert details["suppressed_rows"] == int(suppressed.sum())
    assert details["classes"] == len(sizes) and details["smallest_class"] == sizes.min()
    assert details["risk"]["highest_risk"] == pytest.approx(1 / sizes.min())
    assert details["risk"]["average_risk"] == pytest.approx(len(sizes) / sizes.sum())
    # the sensitive attribute's view, recomputed from the written release
    counts = table[~suppressed].groupby([*quasi, "diagnosis"]).size()
    share = (counts / counts.groupby(level=list(range(len(quasi)))).transform("sum")).groupby(
        level=list(range(len(quasi)))).max()
    assert details["sensitive"]["diagnosis"]["highest_share"] == pytest.approx(share.max())
    for listed in details["sensitive"]["diagnosis"]["listed"]:
        assert listed["records"] >= max(written["privacy"]["k"], 2)  # small classes are never listed
    # every example value is one that classes of at least k records hold
    for attribute in details["attributes"]:
        for value in attribute["examples"]:
            assert value in set(table.loc[~suppressed, attribute["name"]])
    # the node once opened is judged in the overview
    again = _get(client, f"/api/jobs/{job['job']}/lattice").json()
    assert {tuple(n["levels"]): n["state"] for n in again["nodes"]}[tuple(chosen)] == 1


def test_a_node_outside_the_lattice_and_a_run_without_one_are_one_error(folder: Path) -> None:
    client = _client(folder)
    config = _post(client, "/api/propose", {"path": "register.csv"}).json()["config"]
    job = _finished(client, config)
    for levels in ("9,9,9,9,9,9,9", "1,x", ""):
        answer = _get(client, f"/api/jobs/{job['job']}/node?levels={levels}")
        assert answer.status_code == 400 and "level" in answer.json()["error"]
    # the most specific node: 400 records with hundreds of ZIP codes leave most classes below k; refused
    refused = _post(client, f"/api/jobs/{job['job']}/release", {"release": "n.csv", "levels": [0] * 7})
    assert refused.status_code == 400 and "does not satisfy" in refused.json()["error"]
    assert not (folder / "n.csv").exists()
    partitioning = re.sub(r"max_suppression: [0-9.]+", "max_suppression: 0",
                          config.replace("method: {name: optimal, metric: loss}", "method: {name: mondrian}"))
    mondrian = _finished(client, partitioning)
    assert mondrian["state"] == "done", mondrian
    answer = _get(client, f"/api/jobs/{mondrian['job']}/lattice")
    assert answer.status_code == 400 and "lattice" in answer.json()["error"]


def test_the_classes_of_a_partitioning_run_are_listed_smallest_first_and_never_below_k(folder: Path) -> None:
    client = _client(folder)
    config = _post(client, "/api/propose", {"path": "register.csv"}).json()["config"]
    config = re.sub(r"max_suppression: [0-9.]+", "max_suppression: 0",
                    config.replace("method: {name: optimal, metric: loss}", "method: {name: mondrian}"))
    job = _finished(client, config)
    assert job["state"] == "done", job
    listing = _get(client, f"/api/jobs/{job['job']}/classes").json()
    _post(client, f"/api/jobs/{job['job']}/release", {"release": "m.csv"})
    table = pd.read_csv(folder / "m.csv", dtype=str, keep_default_na=False)
    sizes = table.groupby(listing["quasi"]).size()
    assert listing["classes"] == len(sizes) and listing["unlisted"] == int((sizes < listing["floor"]).sum())
    listed = [c["records"] for c in listing["listed"]]
    assert listed == sorted(listed) and min(listed) >= listing["floor"]
    for entry in listing["listed"][:20]:
        key = tuple(entry["values"])
        assert sizes[key] == entry["records"]
        shares = table.loc[(table[listing["quasi"]] == list(key)).all(axis=1), "diagnosis"].value_counts(
            normalize=True)
        assert entry["highest_share"]["diagnosis"] == pytest.approx(shares.max())


def test_a_front_is_listed_and_its_members_open_as_nodes(folder: Path) -> None:
    client = _client(folder)
    config = _post(client, "/api/propose", {"path": "register.csv"}).json()["config"]
    pareto = config.replace("method: {name: optimal, metric: loss}", "method: {name: pareto-exhaustive}")
    job = _finished(client, pareto)
    assert job["state"] == "done", job
    front = _get(client, f"/api/jobs/{job['job']}/front").json()
    assert len(front["members"]) >= 2 and sum(m["released"] for m in front["members"]) == 1
    # a member opens as a node, judged under the configured requirements (the front's members each have their
    # own k, below the configured one too): the released member meets them, the most specific one does not
    for member in front["members"]:
        details = _get(client, f"/api/jobs/{job['job']}/node?levels={','.join(map(str, member['levels']))}").json()
        assert details["levels"] == member["levels"] and details["released"] == member["released"]
        if member["released"]:
            assert details["feasible"]
        if member["objectives"]["k"] == 1:
            assert not details["feasible"]
    optimal = _finished(client, config)
    answer = _get(client, f"/api/jobs/{optimal['job']}/front")
    assert answer.status_code == 400 and "front" in answer.json()["error"]


def test_a_hierarchy_is_previewed_as_the_configuration_builds_it(folder: Path) -> None:
    client = _client(folder)
    proposed = _post(client, "/api/propose", {"path": "register.csv"}).json()
    assert "age" in proposed["quasi"] and "diagnosis" not in proposed["quasi"]
    config = proposed["config"].replace("widths: [5, 10, 20]", "widths: [10, 30]")
    preview = _post(client, "/api/preview", {"config": config, "attribute": "age"}).json()
    assert preview["levels"] == 3 and preview["groups"][-1] == 1
    ages = pd.read_csv(folder / "register.csv")["age"]
    for value, tens, thirties, top in zip(*preview["values"], strict=True):
        assert ages.eq(int(value)).sum() >= preview["floor"]  # only values held by at least max(k, 2) records
        low = int(value) // 10 * 10
        assert tens == f"{low}-{low + 9}" and top == "*"
        assert thirties == f"{int(value) // 30 * 30}-{int(value) // 30 * 30 + 29}"
    wrong = _post(client, "/api/preview", {"config": config, "attribute": "diagnosis"})
    assert wrong.status_code == 400 and "not a quasi-identifier" in wrong.json()["error"]


def test_only_the_latest_runs_are_kept(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("anonset.app.server.KEPT_RUNS", 2)
    client = _client(folder)
    config = _post(client, "/api/propose", {"path": "register.csv"}).json()["config"]
    jobs = [_finished(client, config)["job"] for _ in range(3)]
    assert _get(client, f"/api/jobs/{jobs[0]}").status_code == 404  # dropped when the newest started
    assert all(_get(client, f"/api/jobs/{job}").json()["state"] == "done" for job in jobs[1:])
