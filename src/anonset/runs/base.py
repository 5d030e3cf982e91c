"""The Run contract, the registry of run kinds, and what every run shares.

A :class:`Run` carries one :class:`~anonset.config.RunConfig` out.  Before any
work, :meth:`Run.check` refuses what the run cannot do (an output it may not
write, a report of records it does not hold) and returns the run's output
files (:class:`~anonset.sinks.base.FileSink`), checked; :meth:`Run.anonymizer`
is the configured estimator.  Then :meth:`Run.release` loads the input, fits,
releases (through the engine's sink where the records stay), re-checks, writes
the summary and the reports and puts every output in place, recording the
seconds of each stage on the release.  :meth:`Run.input_class_sizes` measures
the input for ``anonset risk``.

Each kind of engine registers its run (:func:`register_run`); :func:`run_for`
looks the config's engine up.  Nothing outside this package branches on an
engine's name.
"""

from __future__ import annotations

import json
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from anonset.config import FileInput, FileOutput, RunConfig, UrlInput, UrlOutput
from anonset.core.hierarchy_csv import read_hierarchy
from anonset.core.specs import AttributeSpec, attribute_spec
from anonset.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from numpy.typing import NDArray

    from anonset.anonymizer import Anonymizer
    from anonset.core.dataset import Dataset
    from anonset.engine.sql.base import TableName
    from anonset.methods.pareto.objectives import ParetoResult
    from anonset.release.release import Release
    from anonset.risk.survey_report import SurveyTable
    from anonset.sinks.base import FileSink

__all__ = [
    "ReleaseRequest",
    "Run",
    "RunOutcome",
    "attribute_specs",
    "json_writer",
    "read_in_memory",
    "register_run",
    "release_delimiter",
    "run_for",
    "run_kinds",
]


@dataclass(frozen=True)
class ReleaseRequest:
    """What a command asks of a run beyond its config.

    Attributes
    ----------
    output : Path, optional
        Where the release goes instead of the config's ``output.path`` (``--output``).
    summary : Path, optional
        Where the JSON summary goes (``-``: standard output).
    reports : tuple of Path
        Report files to write (``.html``, ``.json``).
    pick : int, optional
        Entry of a success list or member of a front to release.
    allow_unprotected : bool
        Release even when the requirements protect nothing.
    """

    output: Path | None = None
    summary: Path | None = None
    reports: tuple[Path, ...] = ()
    pick: int | None = None
    allow_unprotected: bool = False


@dataclass(frozen=True)
class RunOutcome:
    """What a run released: the release, its summary (as written), the dataset it was made from."""

    release: Release
    summary: dict[str, Any]
    dataset: Dataset


class Run(ABC):
    """One run of a configuration on one kind of engine (see the module docstring).

    Parameters
    ----------
    config : RunConfig
        What to run.
    """

    #: The records are read into this process (a release can be reported on, a front looked at, in process).
    in_memory: ClassVar[bool] = False

    def __init__(self, config: RunConfig):
        self.config = config

    # ------------------------------------------------------------------ before any work
    def check(self, request: ReleaseRequest) -> FileSink:
        """Refuse what this run cannot do, before any work; the run's output files, checked.

        Raises
        ------
        ConfigError, DataError
            An output that may not be written (see
            :func:`anonset.io.outputs.check_output_paths`), or one this run
            cannot write (:meth:`refuse`).
        """
        from anonset.report.staging import report_outputs
        from anonset.sinks.base import FileSink

        self.refuse(request)
        files = FileSink({"release": self.release_file(request.output), "summary": request.summary,
                          **report_outputs(request.reports)}, self.config.input_files())
        files.check()
        return files

    def refuse(self, request: ReleaseRequest) -> None:  # noqa: B027 - most runs can do everything a command asks
        """A ConfigError when the request asks what this run cannot do (an output override, a report)."""

    def release_file(self, override: Path | None) -> Path | None:
        """The release file this process writes (through the run's files), or None (none, or the engine writes it)."""
        output = self.config.output
        if override is not None:
            return override
        return output.path if isinstance(output, FileOutput) else None

    def output_table(self, request: ReleaseRequest) -> TableName | None:
        """Where the engine's sink releases a table that stays where it is read (None: in memory)."""
        return None

    def anonymizer(self, request: ReleaseRequest) -> Anonymizer:
        """The :class:`~anonset.anonymizer.Anonymizer` this config describes."""
        from anonset.anonymizer import Anonymizer
        from anonset.config import TableOutput

        cfg = self.config
        output = cfg.output
        return Anonymizer({}, cfg.requirements, method=cfg.method, metric=cfg.metric_object or cfg.metric,
                          weights=cfg.weights, drop_suppressed=cfg.drop_suppressed, seed=cfg.seed,
                          method_options=cfg.method_options, pick=request.pick,
                          output_table=self.output_table(request),
                          replace_output=output.replace if isinstance(output, TableOutput) else False,
                          allow_unprotected=request.allow_unprotected, perturbation=cfg.perturbation or None)

    # ------------------------------------------------------------------ the work
    def written(self, request: ReleaseRequest) -> bool:
        """Whether the release is written anywhere (a config without an output writes nothing, and says so)."""
        return self.release_file(request.output) is not None

    @abstractmethod
    def release(self, model: Anonymizer, files: FileSink, request: ReleaseRequest, started: float) -> RunOutcome:
        """Load, fit, release, re-check, write the outputs and put them in place (stage times on the release).

        ``started`` is when the command started (the summary's ``seconds``).
        """

    def explore_front(self, model: Anonymizer) -> ParetoResult:
        """The front of a trade-off method, no member released (the records in this process only)."""
        raise ConfigError(f"{self.config.path}: looking at the front of method {self.config.method} without releasing"
                          " a member needs the records in memory (engine: numpy); with engine:"
                          f" {self.config.engine} give --pick N or a floor such as privacy.k")

    @abstractmethod
    def input_class_sizes(self) -> tuple[NDArray[np.int64], str]:
        """Class sizes of the input on the config's quasi-identifiers, and how messages name the input."""

    @abstractmethod
    def key_groups(self, columns: Sequence[str], weight: str | None) -> tuple[pd.DataFrame, str]:
        """The input's distinct combinations of ``columns`` counted where the records are, and how messages name
        the input.

        The frame has ``_q{j}`` (the value of ``columns[j]``, None when
        missing), ``_n`` (records) and, with a ``weight`` column, ``_w``,
        ``_w_min`` and ``_w_count`` (the weights' sum, smallest, and how many
        are numbers).
        """

    def value_counts(self, columns: Sequence[str]) -> pd.DataFrame:
        """The input's distinct combinations of ``columns`` (a column each, missing as None) with ``_n`` records."""
        groups, _ = self.key_groups(columns, None)
        return groups.rename(columns={f"_q{j}": c for j, c in enumerate(columns)})

    def survey_table(self) -> SurveyTable:
        """The input's keys for the survey measures: its distinct keys with their records and weights.

        Raises
        ------
        ConfigError
            No attribute has role quasi.
        DataError
            A weight that is missing, not a number or below 1.
        """
        from anonset.risk.survey_report import survey_table_of_groups

        cfg = self.config
        quasi = cfg.quasi_columns()
        if not quasi:
            raise ConfigError(f"{cfg.path}: no attribute has role quasi, so there are no keys to measure")
        groups, source = self.key_groups(quasi, cfg.weight_column())
        return survey_table_of_groups(groups, quasi, cfg.missing_markers(), cfg.weight_column(), source)

    # ------------------------------------------------------------------ shared steps
    def place(self, files: FileSink, release: Release, started: float,
              report_on: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
        """Stage the summary of ``release`` (when asked for) and its reports, verify and place every output file.

        ``report_on`` stages the reports of the run's summary.  The summary is returned.
        """
        from anonset.sinks.base import FileOutput as StagedFile

        summary = release.summary(seconds=time.perf_counter() - started, config=str(self.config.path))
        if report_on is not None:
            report_on(summary)
        summary_path = files.outputs.get("summary")
        if summary_path is not None:
            files.stage(StagedFile(summary_path, json_writer(summary)))
        files.verify()
        files.place()
        return summary


#: A run kind: builds the run of a config.
RunFactory = Callable[[RunConfig], Run]

_RUNS: dict[str, RunFactory] = {}


def register_run(engine: str, factory: RunFactory) -> None:
    """Make ``factory`` the run of configs with ``engine: <engine>`` (replacing any earlier one)."""
    _RUNS[engine] = factory


def run_kinds() -> tuple[str, ...]:
    """The engines a run is registered for."""
    _builtin()
    return tuple(_RUNS)


def run_for(config: RunConfig) -> Run:
    """The run of ``config``, by its engine.

    Raises
    ------
    ConfigError
        No run is registered for the config's engine.
    """
    _builtin()
    factory = _RUNS.get(config.engine)
    if factory is None:
        raise ConfigError(f"{config.path}: no run for engine {config.engine!r}; engines: {', '.join(_RUNS)}")
    return factory(config)


def _builtin() -> None:
    """Register the built-in run kinds (their modules import their engines only when a run starts)."""
    if _RUNS:
        return
    from anonset.runs.database import DatabaseRun
    from anonset.runs.memory import MemoryRun
    from anonset.runs.spark import SparkRun

    for engine, factory in (("numpy", MemoryRun), ("duckdb", DatabaseRun), ("postgresql", DatabaseRun),
                            ("spark", SparkRun)):
        _RUNS.setdefault(engine, factory)


def json_writer(document: Mapping[str, Any]) -> Callable[[Path], None]:
    """A writer of a JSON document (for :class:`~anonset.io.outputs.StagedOutputs`)."""
    text = json.dumps(document, indent=2) + "\n"

    def _write(tmp: Path) -> None:
        tmp.write_text(text, encoding="utf-8")

    return _write


def attribute_specs(config: RunConfig) -> dict[str, AttributeSpec]:
    """The attribute specs of a config: hierarchy files read (relative to the config's folder), builders kept.

    When a privacy model compares the input with a population table, the
    quasi-identifiers' hierarchies are built from that table
    (:meth:`~anonset.privacy.base.Requirements.attributes_for`).
    """
    specs = {name: _attribute_spec(config, name, entry) for name, entry in config.attributes.items()}
    return config.requirements.attributes_for(specs)


def read_in_memory(config: RunConfig, what: str) -> Dataset:
    """The config's input read into this process (a file on this machine only); ``what`` names who asks.

    Raises
    ------
    ConfigError
        The input is not a file on this machine (a table in PostgreSQL, a
        Spark catalog table or a URL), saying so in the words of ``what``.
    """
    from anonset.io.tables import read_dataset

    inp = config.input
    if not isinstance(inp, FileInput):
        raise ConfigError(f"{config.path}: {what} reads the input into memory, and {inp.location} is not a file on"
                          " this machine; give a CSV or Parquet file as input.path")
    return read_dataset(inp.path, attribute_specs(config), inp.delimiter, inp.format, keep_identifiers=False)


def release_delimiter(config: RunConfig) -> str:
    """The delimiter of a CSV release: ``output.delimiter``, else the input's (given or sniffed), else ``,``."""
    from anonset.io.delimiters import sniff_delimiter

    output, inp = config.output, config.input
    if isinstance(output, (FileOutput, UrlOutput)) and output.delimiter is not None:
        return output.delimiter
    if isinstance(inp, (FileInput, UrlInput)) and inp.delimiter is not None:
        return inp.delimiter
    if isinstance(inp, FileInput) and inp.format != "parquet" and inp.path.suffix.lower() not in (
            ".parquet", ".pq") and inp.path.is_file():
        return sniff_delimiter(inp.path)
    return ","


def _missing_markers(config: RunConfig, name: str, entry: Mapping[str, Any]) -> tuple[tuple[str, ...], str]:
    """The ``missing`` markers of an attribute and its policy (``value`` or ``error``)."""
    missing = entry.get("missing")
    if missing == "error":
        return ("",), "error"
    if isinstance(missing, list):
        return tuple(str(m) for m in missing), "value"
    if missing is not None:
        raise ConfigError(f"{config.path}, attributes.{name}: `missing` must be a list of markers (e.g. ['', '?'])"
                          " or 'error'")
    return ("",), "value"


def _attribute_spec(config: RunConfig, name: str, entry: Mapping[str, Any]) -> AttributeSpec:
    """The AttributeSpec of one configured column: a hierarchy file is read, a builder mapping kept for the Dataset."""
    where = f"{config.path}, attributes.{name}"
    markers, policy = _missing_markers(config, name, entry)
    hierarchy = entry.get("hierarchy")
    if isinstance(hierarchy, str):
        path = Path(hierarchy)
        hierarchy = read_hierarchy(path if path.is_absolute() else config.path.parent / path, name=name)
    elif isinstance(hierarchy, Mapping):
        hierarchy = dict(hierarchy)
    elif hierarchy is not None:
        raise ConfigError(f"{where}: `hierarchy` must be a file path or a builder mapping such as {{builder: flat}}")
    order = entry.get("order")
    if order is not None and not isinstance(order, list):
        raise ConfigError(f"{where}: `order` must be a list of the values in order")
    return attribute_spec(name, {
        "role": entry.get("role", "insensitive"), "type": entry.get("type", "categorical"), "hierarchy": hierarchy,
        "missing": markers, "missing_policy": policy, "order": tuple(str(v) for v in order) if order else None,
        "min_level": entry.get("min_level", 0),
    }, where)
