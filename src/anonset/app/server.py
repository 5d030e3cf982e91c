"""The workbench's routes: tables under the root, a proposed config, a run, its report, and the release written.

Served by Starlette (:func:`workbench`), behind :class:`~anonset.app.security.Guard`:

* ``GET /`` — the page (``static/app.js`` drives it; no script from
  elsewhere, every value it shows set as text, never as markup);
* ``GET /api/tables`` — the CSV and Parquet files under the root;
* ``POST /api/propose`` ``{"path"}`` — the configuration ``anonset init``
  proposes for a table (roles, types, hierarchies), as YAML text to edit;
* ``POST /api/preview`` ``{"config", "attribute"}`` — the hierarchy the
  configuration gives an attribute (its builder's, or its file's), level by
  level: how many groups, and where a few of the table's values go;
* ``POST /api/run`` ``{"config"}`` — the configuration checked (as
  ``anonset anonymize`` checks it; every file it reads under the root) and
  run in memory through the run layer in a job of its own: its id;
* ``GET /api/jobs/{id}`` — the job's state, its open steps (the progress the
  library reports) and, once done, the run's headline, guarantees, warnings
  and figures; ``POST /api/jobs/{id}/cancel`` stops it at its next step;
* ``GET /jobs/{id}/report`` — the run's HTML report;
* ``GET /api/jobs/{id}/lattice`` — a full-domain run's lattice as the search
  left it (:mod:`anonset.app.explorer`); ``GET /api/jobs/{id}/node?levels=1,0,2``
  — what releasing that node gives (verdict, suppression, the run's metric,
  risk, the sensitive attributes' view), judged when first opened;
  ``GET /api/jobs/{id}/front`` — a trade-off run's front; ``GET
  /api/jobs/{id}/classes`` — any run's released classes, smallest first;
* ``POST /api/jobs/{id}/release`` ``{"release", "config", "report", "levels"}`` —
  the release, the configuration and the report written under the root, never
  over one of the run's inputs, all placed only once every one is written;
  with ``levels``, of that node instead: the configuration gets
  ``method: {name: optimal, levels: ...}`` and runs again, checked as
  ``anonset anonymize`` checks it, before anything is written.

An error the user can fix is a 400 with ``{"error": message}``.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from anonset.app.explorer import LatticeView, class_listing, front_listing, hierarchy_preview
from anonset.app.jobs import Job
from anonset.app.security import Guard, under_root
from anonset.errors import AnonsetError, ConfigError

__all__ = ["workbench"]

STATIC = Path(__file__).with_name("static")
#: What a page of the workbench may load and run: its own files only.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:;"
       " connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
TABLES = (".csv", ".tsv", ".txt", ".parquet", ".pq")
#: Finished runs kept for their report, lattice and release (the oldest is dropped when a new run starts).
KEPT_RUNS = 8


@dataclass
class Finished:
    """What a run of the workbench made: its config (text and parsed), its release, its report, its lattice."""

    text: str
    config: Any
    release: Any
    report: dict[str, Any]
    dataset: Any
    lattice: LatticeView | None = None
    front: dict[str, Any] | None = None


class Workbench:
    """The routes' state: the root folder and the jobs run so far."""

    def __init__(self, root: Path):
        self.root = root.resolve()
        self.jobs: dict[str, Job] = {}
        self.lock = threading.Lock()

    # ------------------------------------------------------------------ pages
    async def page(self, request: Request) -> Response:
        return _secured(FileResponse(STATIC / "index.html", media_type="text/html"))

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ("app.js", "app.css"):
            return _secured(Response("not found\n", status_code=404))
        media = "text/javascript" if name.endswith(".js") else "text/css"
        return _secured(FileResponse(STATIC / name, media_type=media))

    def tables(self, request: Request) -> Response:
        found = sorted(str(p.relative_to(self.root)) for p in self.root.rglob("*")
                       if p.is_file() and p.suffix.lower() in TABLES and not p.name.startswith(".")
                       and self.root in p.resolve().parents)
        return _secured(JSONResponse({"root": self.root.name, "tables": found[:500]}))

    # ------------------------------------------------------------------ actions
    async def propose(self, request: Request) -> Response:
        body = await _json(request)
        return await _answer(lambda: self._propose(str(body.get("path", ""))))

    def _propose(self, relative: str) -> dict[str, Any]:
        from anonset.starter import starter_config

        path = under_root(self.root, relative)
        if not path.is_file():
            raise ConfigError(f"{relative}: no such file under the workbench's folder")
        proposed = starter_config(path, base=self.root)
        attributes = (yaml.safe_load(proposed.text) or {}).get("attributes") or {}
        quasi = [name for name, entry in attributes.items() if isinstance(entry, dict) and entry.get("role") == "quasi"]
        return {"config": proposed.text, "notes": list(proposed.notes), "method": proposed.method, "quasi": quasi}

    async def preview(self, request: Request) -> Response:
        body = await _json(request)
        return await _answer(lambda: self._preview(str(body.get("config", "")), str(body.get("attribute", ""))))

    def _preview(self, text: str, attribute: str) -> dict[str, Any]:
        """The hierarchy ``attribute`` gets from the configuration: groups per level, a few values through it."""
        from anonset.runs.memory import MemoryRun

        cfg = self._config(text)
        dataset = MemoryRun(cfg).load()[0]
        hierarchy = dataset.hierarchy(attribute) if attribute in dataset.quasi else None
        if hierarchy is None:
            raise ConfigError(f"{attribute!r} is not a quasi-identifier of this configuration; preview one of"
                              f" {', '.join(dataset.quasi)}")
        return hierarchy_preview(hierarchy, dataset.encoded[attribute].counts(), max(cfg.requirements.k, 2))

    async def run(self, request: Request) -> Response:
        body = await _json(request)
        return await _answer(lambda: self._run(str(body.get("config", ""))))

    def _run(self, text: str) -> dict[str, Any]:
        """Check the configuration now (a bad one is a 400), run it in a job of its own."""
        cfg = self._config(text)
        job = Job()
        job_id = secrets.token_hex(8)
        with self.lock:
            self._forget_old_runs()
            self.jobs[job_id] = job
        job.start(lambda: self._execute(text, cfg))
        return {"job": job_id}

    def _forget_old_runs(self) -> None:
        """Keep the :data:`KEPT_RUNS` latest finished runs (releases and lattices hold memory); drop the older."""
        finished = [job_id for job_id, job in self.jobs.items() if job.state != "running"]
        for job_id in finished[:max(len(finished) - KEPT_RUNS + 1, 0)]:
            job = self.jobs.pop(job_id)
            lattice = job.result.lattice if job.state == "done" else None
            if lattice is not None:
                lattice.close()

    def _config(self, text: str) -> Any:
        """The configuration text parsed and checked: its input and every file it reads under the root."""
        from anonset.config import FileInput, parse_config

        try:
            raw = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise ConfigError(f"the configuration is not valid YAML: {' '.join(str(exc).split())}") from None
        cfg = parse_config(raw, self.root / "workbench.yaml")
        if not isinstance(cfg.input, FileInput):
            raise ConfigError("the workbench runs a table file under its folder (input.path)")
        for name, path in cfg.input_files().items():
            if name != "config" and self.root not in path.resolve().parents:
                raise ConfigError(f"{path}: the {name} is not under the workbench's folder; give a path inside it")
        return cfg

    @staticmethod
    def _execute(text: str, cfg: Any) -> Finished:
        """The run itself (in the job's thread): load, fit, release, re-check, report."""
        from anonset.report.staging import report_contents
        from anonset.runs.base import ReleaseRequest
        from anonset.runs.memory import MemoryRun

        run = MemoryRun(cfg)
        dataset = run.load()[0]
        fitted = run.anonymizer(ReleaseRequest()).fit(dataset)
        release = fitted.release_
        assert release.table is not None
        report = report_contents(dataset, release.table, cfg.requirements, release.summary(),
                                 partition=release.partition, verification=release.recheck,
                                 run={"config": "(the workbench's configuration)", "release": None})
        lattice, front = None, None
        if fitted.levels_ is not None:  # a full-domain search's node, or a trade-off front's member
            released = tuple(fitted.levels_.values())
            result = fitted.result_
            lattice = LatticeView(fitted.dataset_, fitted.requirements, fitted.metric_,
                                  result.record if result is not None else None,
                                  result.levels if result is not None else released, released)
            if getattr(fitted, "front_", None) is not None:
                front = front_listing(fitted.front_, released)
        return Finished(text, cfg, release, report, fitted.dataset_, lattice, front)

    def status(self, request: Request) -> Response:
        job = self.jobs.get(request.path_params["job"])
        if job is None:
            return _secured(JSONResponse({"error": "no such run"}, status_code=404))
        out = job.status()
        if out["state"] == "done":
            finished: Finished = job.result
            summary = finished.release.summary()
            out["result"] = {"headline": finished.report["headline"], "guarantees": finished.report["guarantees"],
                             "warnings": list(finished.release.warnings), "levels": summary.get("levels"),
                             "classes": summary["classes"], "suppressed_rows": summary["suppressed_rows"],
                             "metrics": summary["metrics"]}
        return _secured(JSONResponse(out))

    async def cancel(self, request: Request) -> Response:
        job = self.jobs.get(request.path_params["job"])
        if job is None:
            return _secured(JSONResponse({"error": "no such run"}, status_code=404))
        job.cancel()
        return _secured(JSONResponse({"state": job.status()["state"]}))

    def _finished(self, job_id: str) -> Finished:
        """The product of a run that is done; a ConfigError for a run that is not (or is not known)."""
        job = self.jobs.get(job_id)
        if job is None or job.state != "done":
            raise ConfigError("that run is not done: run the configuration (again) and wait for it")
        finished: Finished = job.result
        return finished

    def report(self, request: Request) -> Response:
        from anonset.report.html import render_html

        try:
            finished = self._finished(request.path_params["job"])
        except ConfigError as exc:
            return _secured(Response(f"{exc}\n", status_code=404))
        return _secured(HTMLResponse(render_html(finished.report)))

    def _lattice(self, job_id: str) -> LatticeView:
        """The lattice of a finished full-domain run; a ConfigError otherwise."""
        lattice = self._finished(job_id).lattice
        if lattice is None:
            raise ConfigError("this run's method searches no lattice of full-domain nodes: choose a full-domain"
                              " method (optimal, exhaustive, rv-*) to explore one")
        return lattice

    async def lattice(self, request: Request) -> Response:
        return await _answer(lambda: self._lattice(request.path_params["job"]).overview())

    async def front(self, request: Request) -> Response:
        return await _answer(lambda: self._front(request.path_params["job"]))

    def _front(self, job_id: str) -> dict[str, Any]:
        front = self._finished(job_id).front
        if front is None:
            raise ConfigError("this run's method finds no front: choose a trade-off method (pareto-exhaustive,"
                              " pareto-ea) to see one")
        return front

    async def classes(self, request: Request) -> Response:
        return await _answer(lambda: self._classes(request.path_params["job"]))

    def _classes(self, job_id: str) -> dict[str, Any]:
        """The run's released classes, smallest first (those of fewer than max(k, 2) records counted only)."""
        finished = self._finished(job_id)
        release = finished.release
        dataset = finished.dataset
        row_class = release.partition.row_class
        # the records withheld, where the table still has them (marked); a table without them has none
        suppressed = row_class < 0 if row_class is not None and len(row_class) == len(release.table) else \
            np.zeros(len(release.table), dtype=bool)
        return class_listing(release.table, dataset.quasi, dataset.sensitive, suppressed,
                             max(finished.config.requirements.k, 2))

    async def node(self, request: Request) -> Response:
        text = request.query_params.get("levels", "")
        return await _answer(lambda: self._lattice(request.path_params["job"]).node(_levels(text)))

    async def release(self, request: Request) -> Response:
        body = await _json(request)
        return await _answer(lambda: self._release(request.path_params["job"], body))

    def _release(self, job_id: str, body: dict[str, Any]) -> dict[str, Any]:
        from anonset.io.tables import table_writer
        from anonset.report.files import report_writer
        from anonset.runs.base import release_delimiter
        from anonset.sinks.base import FileOutput, FileSink

        job = self._finished(job_id)
        names = {key: str(body.get(key) or "").strip() for key in ("release", "config", "report")}
        if not names["release"]:
            raise ConfigError("give the release file's name (e.g. released.csv)")
        paths = {key: under_root(self.root, name) for key, name in names.items() if name}
        inputs = {**job.config.input_files()}
        inputs.pop("config", None)
        files = FileSink({"release": paths["release"], "config": paths.get("config"),
                          "report": paths.get("report")}, inputs)
        files.check()  # before a node's run: a name that cannot be written costs nothing
        node_run = self._node_run(job_id, body["levels"]) if body.get("levels") is not None else None
        try:
            job = node_run or job
            table = job.release.table
            files.stage(FileOutput(paths["release"], table_writer(table, paths["release"],
                                                                  delimiter=release_delimiter(job.config))))
            if "config" in paths:
                text = _config_for(job.text, self.root, paths["config"], paths["release"])
                files.stage(FileOutput(paths["config"], lambda tmp: _write_text(tmp, text)))
            if "report" in paths:
                files.stage(FileOutput(paths["report"], report_writer(job.report, paths["report"])))
            files.verify()
            files.place()
        except BaseException:
            files.discard()  # nothing staged is left behind
            raise
        finally:
            if node_run is not None and node_run.lattice is not None:
                node_run.lattice.close()
        return {"written": {key: str(path.relative_to(self.root)) for key, path in paths.items()}}

    def _node_run(self, job_id: str, levels: Any) -> Finished:
        """The run's configuration with ``method.levels`` set to a node of its lattice, run again (in this thread)."""
        lattice = self._lattice(job_id)
        node = lattice.node(levels if isinstance(levels, list) else _levels(str(levels)))
        job = self._finished(job_id)
        raw = yaml.safe_load(job.text)
        method = raw.get("method")
        method = {"name": method} if isinstance(method, str) else dict(method or {})
        kept = {"assume_practical_monotonicity"} if method.get("name") == "optimal" else set()
        method = {"name": "optimal", **{k: v for k, v in method.items() if k in kept},
                  "levels": dict(zip(lattice.dataset.quasi, node["levels"], strict=True))}
        raw["method"] = method
        text = str(yaml.safe_dump(raw, sort_keys=False, allow_unicode=True))
        return self._execute(text, self._config(text))


def _levels(text: str) -> list[int]:
    """``1,0,2`` as levels; a ConfigError for anything else."""
    try:
        return [int(part) for part in text.split(",")]
    except ValueError:
        raise ConfigError("levels are whole numbers separated by commas (1,0,2)") from None


def _config_for(text: str, root: Path, config: Path, release: Path) -> str:
    """The run's configuration as a file next to ``config``: paths relative to its folder, output the release."""
    raw = yaml.safe_load(text)
    folder = config.parent
    inp = raw.get("input")
    path = inp if isinstance(inp, str) else (inp or {}).get("path")
    if isinstance(path, str):
        absolute = (root / path).resolve()
        relative = str(Path(_relative(absolute, folder)))
        raw["input"] = relative if isinstance(inp, str) else {**inp, "path": relative}
    for entry in (raw.get("attributes") or {}).values():
        if isinstance(entry, dict) and isinstance(entry.get("hierarchy"), str):
            entry["hierarchy"] = _relative((root / entry["hierarchy"]).resolve(), folder)
    raw["output"] = {**(raw.get("output") or {}), "path": _relative(release, folder)}
    return str(yaml.safe_dump(raw, sort_keys=False, allow_unicode=True))


def _write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` (a staged file)."""
    path.write_text(text, encoding="utf-8")


def _relative(path: Path, folder: Path) -> str:
    """``path`` relative to ``folder`` (both under the root)."""
    import os

    return os.path.relpath(path, folder)


async def _json(request: Request) -> dict[str, Any]:
    """The request's JSON object body (an empty one when it is not one)."""
    try:
        body = await request.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


async def _answer(work: Callable[[], dict[str, Any]]) -> Response:
    """``work()``'s result as JSON (run off the event loop), or a 400 with the error a user can fix."""
    try:
        return _secured(JSONResponse(await run_in_threadpool(work)))
    except AnonsetError as exc:
        return _secured(JSONResponse({"error": str(exc)}, status_code=400))


def _secured(response: Response) -> Response:
    """The response with the headers every page of the workbench carries."""
    response.headers["content-security-policy"] = CSP
    response.headers["x-content-type-options"] = "nosniff"
    response.headers["referrer-policy"] = "no-referrer"
    response.headers["cache-control"] = "no-store"
    return response


def workbench(root: Path, host: str, port: int, token: str | None = None) -> Guard:
    """The workbench's ASGI app for the folder ``root``, bound to ``host:port``, behind its guard."""
    bench = Workbench(root)
    app = Starlette(routes=[
        Route("/", bench.page),
        Route("/static/{name}", bench.static),
        Route("/api/tables", bench.tables),
        Route("/api/propose", bench.propose, methods=["POST"]),
        Route("/api/preview", bench.preview, methods=["POST"]),
        Route("/api/run", bench.run, methods=["POST"]),
        Route("/api/jobs/{job}", bench.status),
        Route("/api/jobs/{job}/cancel", bench.cancel, methods=["POST"]),
        Route("/jobs/{job}/report", bench.report),
        Route("/api/jobs/{job}/lattice", bench.lattice),
        Route("/api/jobs/{job}/node", bench.node),
        Route("/api/jobs/{job}/front", bench.front),
        Route("/api/jobs/{job}/classes", bench.classes),
        Route("/api/jobs/{job}/release", bench.release, methods=["POST"]),
    ])
    guard = Guard(app, host, port)
    if token is not None:
        guard.token = token
    return guard
