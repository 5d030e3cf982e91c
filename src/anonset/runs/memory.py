"""The run of ``engine: numpy``: the input file read into this process, searched and released in memory.

The release is rendered with pandas, re-checked from its values, and staged
with its summary and its reports as the run's files, all put in place only
once every one is ready (:class:`~anonset.sinks.base.FileSink`).  Stages:
``load`` reads the hierarchy files and the table, ``encode`` builds the
dataset, ``write`` writes the release file; the Anonymizer times the rest.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, ClassVar

from anonset.runs.base import ReleaseRequest, Run, RunOutcome, read_in_memory, release_delimiter

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np
    import pandas as pd
    from numpy.typing import NDArray

    from anonset.anonymizer import Anonymizer
    from anonset.config import RunConfig
    from anonset.core.dataset import Dataset
    from anonset.methods.pareto.objectives import ParetoResult
    from anonset.risk.survey_report import SurveyTable
    from anonset.sinks.base import FileSink

__all__ = ["MemoryRun"]


class MemoryRun(Run):
    """``engine: numpy`` (see the module docstring)."""

    in_memory: ClassVar[bool] = True

    def __init__(self, config: RunConfig):
        super().__init__(config)
        self._loaded: tuple[Dataset, float] | None = None

    def load(self) -> tuple[Dataset, float]:
        """The run's dataset (the input file read into Arrow and encoded), and the seconds reading took.

        Read once per run: a command that asks for several measures reads the file once.
        """
        if self._loaded is None:
            started = time.perf_counter()
            dataset = read_in_memory(self.config, "engine: numpy")
            self._loaded = dataset, time.perf_counter() - started - dataset.encode_seconds
        return self._loaded

    def release(self, model: Anonymizer, files: FileSink, request: ReleaseRequest, started: float) -> RunOutcome:
        """Read the input, anonymize it, stage the release, its summary and its reports, and place them all."""
        from anonset.io.tables import table_writer
        from anonset.report.staging import run_facts, stage_reports
        from anonset.sinks.base import FileOutput

        cfg = self.config
        target = files.outputs.get("release")
        dataset, read_seconds = self.load()
        release = model.fit(dataset).release_.timed(load=read_seconds, encode=dataset.encode_seconds)
        if target is not None:
            assert release.table is not None
            writing = time.perf_counter()
            files.stage(FileOutput(target, table_writer(release.table, target, delimiter=release_delimiter(cfg))))
            release = release.timed(write=time.perf_counter() - writing)
        release = release.written_to(files.location)

        def report_on(summary: dict[str, Any]) -> None:
            assert release.table is not None
            stage_reports(files, dataset, release.table, cfg.requirements, summary, partition=release.partition,
                          run=run_facts(cfg, release.location, None if target is None else files.written(target)),
                          workload=cfg.evaluation,
                          verification=release.recheck)

        return RunOutcome(release, self.place(files, release, started, report_on), dataset)

    def explore_front(self, model: Anonymizer) -> ParetoResult:
        """The front of a trade-off method on the input, no member released."""
        return model.front(self.load()[0])

    def key_groups(self, columns: Sequence[str], weight: str | None) -> tuple[pd.DataFrame, str]:
        """The input's distinct combinations of ``columns``, counted by pandas (weights as the other runs give them)."""
        import numpy as np
        import pandas as pd

        dataset = self.load()[0]
        frame = dataset.table
        assert frame is not None
        keys = {f"_q{j}": frame[c] for j, c in enumerate(columns)}
        if weight is not None:
            numbers = pd.to_numeric(frame[weight], errors="coerce")
            keys.update(_w=numbers, _w_min=numbers, _w_count=numbers)
        data = pd.DataFrame(keys)
        names = [f"_q{j}" for j in range(len(columns))]
        grouped = data.groupby(names, sort=False, dropna=False)
        out = grouped.size().rename("_n").reset_index()
        if weight is not None:
            out["_w"] = grouped["_w"].sum().to_numpy(dtype=np.float64)
            out["_w_min"] = grouped["_w_min"].min().to_numpy(dtype=np.float64)
            out["_w_count"] = grouped["_w_count"].count().to_numpy(dtype=np.int64)
        return out, dataset.source

    def survey_table(self) -> SurveyTable:
        """The input's keys for the survey measures: quasi-identifier codes (missing: -1) and the weights."""
        from anonset.errors import ConfigError
        from anonset.risk.survey_report import survey_table

        dataset = self.load()[0]
        if not dataset.quasi:
            raise ConfigError(f"{self.config.path}: no attribute has role quasi, so there are no keys to measure")
        return survey_table(dataset)

    def input_class_sizes(self) -> tuple[NDArray[np.int64], str]:
        """Class sizes of the input read into memory."""
        from anonset.errors import ConfigError
        from anonset.risk.report import class_sizes_of_codes

        dataset = self.load()[0]
        if not dataset.quasi:
            raise ConfigError(f"{self.config.path}: no attribute has role quasi, so there are no classes to measure")
        return class_sizes_of_codes(dataset.qi_codes()), dataset.source
