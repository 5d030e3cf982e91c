"""The reports of a run: built from its release and staged with its other outputs, placed only when all are ready.

:func:`stage_reports` builds the report of a release
(:func:`report_contents`, :func:`~anonset.report.contents.build_report`) and
stages one file per ``--report`` path (:func:`report_outputs` names them for
a :class:`~anonset.sinks.base.FileSink`); :func:`run_facts` is what the
run knows of itself for the report's provenance (the config, the input file
with its SHA-256, where the release went).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from anonset.config import RunConfig
    from anonset.core.dataset import Dataset
    from anonset.core.partition import Partition
    from anonset.privacy.base import Requirements
    from anonset.recheck.verify import VerificationReport
    from anonset.sinks.base import FileSink

__all__ = ["report_contents", "report_outputs", "run_facts", "stage_reports"]


def report_outputs(paths: Sequence[Path]) -> dict[str, Path]:
    """The named outputs of ``--report`` paths (``report``, ``report 2``, ...) for a :class:`FileSink`."""
    return {("report" if i == 0 else f"report {i + 1}"): p for i, p in enumerate(paths)}


def stage_reports(files: FileSink, dataset: Dataset, released: pd.DataFrame, requirements: Requirements,
                  summary: Mapping[str, Any], *, partition: Partition | None = None,
                  run: Mapping[str, Any] | None = None, workload: Mapping[str, Any] | None = None,
                  verification: VerificationReport | None = None) -> None:
    """Build the report of a run's release and stage it at every ``report`` output (none asked: nothing is built).

    ``run`` holds what the command knows of the run (:func:`run_facts`);
    ``workload`` the config's ``evaluation`` section (its query and pattern
    checks are run on the release and reported).
    """
    from anonset.report.files import report_writer
    from anonset.sinks.base import FileOutput

    paths = [p for name, p in files.outputs.items() if name.startswith("report") and p is not None]
    if not paths:
        return
    contents = report_contents(dataset, released, requirements, summary, partition=partition, run=run,
                               workload=workload, verification=verification)
    for path in paths:
        files.stage(FileOutput(path, report_writer(contents, path)))


def report_contents(dataset: Dataset, released: pd.DataFrame, requirements: Requirements,
              summary: Mapping[str, Any] | None, *, partition: Partition | None = None,
              run: Mapping[str, Any] | None = None, workload: Mapping[str, Any] | None = None,
              where: str = "release", summary_where: str = "summary",
              verification: VerificationReport | None = None, method: str | None = None,
              population: pd.DataFrame | None = None) -> dict[str, Any]:
    """The report of a release (:func:`~anonset.report.contents.build_report`), with its method's family and words.

    The method is the summary's, else ``method`` (the config's); a method
    whose blanks match any value (local suppression) has its release judged
    that way.
    """
    from anonset.methods import registry
    from anonset.report.contents import build_report

    method = summary.get("method") if summary is not None else method
    family, method_summary, blanks = None, "", False
    if method is not None and method in registry.names():
        spec = registry.get(str(method))
        family, method_summary = spec.family.value, spec.summary
        # local suppression's blanks, or a full-domain node's values blanked instead of records (suppressed_cells)
        blanks = spec.blanks_match_any or bool(summary is not None and summary.get("suppressed_cells"))
    return build_report(dataset, released, requirements, summary, partition=partition, family=family,
                        method_summary=method_summary, run=run, workload=workload, where=where,
                        summary_where=summary_where, verification=verification, blanks_match_any=blanks,
                        population=population)


def run_facts(cfg: RunConfig, release_location: str | None, release_file: Path | None = None) -> dict[str, Any]:
    """For a report's provenance: the config (its path and its text, a database password masked), the input file
    with its SHA-256, where the release went, and the SHA-256 of the release file's bytes (``release_file``:
    the file, or the staged temporary file that becomes it)."""
    from anonset.report.files import file_sha256

    out: dict[str, Any] = {"config": str(cfg.path), "release": release_location,
                           "config_text": _masked(cfg.path.read_text(encoding="utf-8"))}
    path = cfg.input_file
    if path is not None and path.is_file():
        out["input"] = {"path": str(path), "sha256": file_sha256(path)}
    if release_file is not None and release_file.is_file():
        out["release_sha256"] = file_sha256(release_file)
    return out


def _masked(text: str) -> str:
    """``text`` with the password of every URL in it masked (``postgresql://user:***@host/db``)."""
    import re

    from anonset.engine.sql.base import redact_url

    return re.sub(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"]+", lambda m: redact_url(m.group(0)), text)
