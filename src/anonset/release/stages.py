"""``StageTimes``: where the wall time of a run went, stage by stage.

A run reads its input (``load``), encodes it into a dataset (``encode``),
runs the method (``search``: the engine, the search or partitioning, and
deciding what is suppressed), renders the released table (``release``),
scores its utility metrics (``metrics``; in memory this comes before the
rendering, so the method's per-record arrays are given back first, but it
is reported in this order), re-checks it from the released
values with its risk and caveats (``verify``) and writes its files
(``write``).  :meth:`anonset.anonymizer.Anonymizer.fit` times the stages it
runs; ``anonset anonymize`` adds reading and writing.  A stage a run did not
have is 0; what lies between stages (parsing the config, checking outputs)
belongs to no stage, so the stages sum to at most the run's total.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, fields, replace

__all__ = ["STAGES", "StageClock", "StageTimes"]

#: The stages, in the order a run goes through them.
STAGES: tuple[str, ...] = ("load", "encode", "search", "release", "metrics", "verify", "write")


@dataclass(frozen=True)
class StageTimes:
    """Wall time of each stage of a run, in seconds (see the module docstring for what each covers)."""

    load: float = 0.0
    encode: float = 0.0
    search: float = 0.0
    release: float = 0.0
    metrics: float = 0.0
    verify: float = 0.0
    write: float = 0.0

    @property
    def total(self) -> float:
        """The sum over the stages."""
        return float(sum(getattr(self, f.name) for f in fields(self)))

    def with_times(self, **seconds: float) -> StageTimes:
        """These times with the given stages set (``load=1.2, write=0.4``)."""
        return replace(self, **seconds)

    def to_json(self) -> dict[str, float]:
        """``{stage: seconds}`` in stage order, rounded to 0.1 ms."""
        return {name: round(float(getattr(self, name)), 4) for name in STAGES}


class StageClock:
    """Times the stages of a run as it goes: :meth:`lap` charges the time since the last lap to a stage.

    Parameters
    ----------
    started : float, optional
        The ``time.perf_counter()`` the run started at (default now).
    """

    def __init__(self, started: float | None = None) -> None:
        self.started = time.perf_counter() if started is None else started
        self._last = self.started
        self._seconds: dict[str, float] = {}

    def lap(self, stage: str) -> None:
        """Charge the time since the last lap (or the start) to ``stage``, one of :data:`STAGES`."""
        if stage not in STAGES:
            raise ValueError(f"unknown stage {stage!r}; stages are {', '.join(STAGES)}")
        now = time.perf_counter()
        self._seconds[stage] = self._seconds.get(stage, 0.0) + now - self._last
        self._last = now

    def skip(self) -> None:
        """Charge the time since the last lap to no stage."""
        self._last = time.perf_counter()

    def elapsed(self) -> float:
        """Seconds since the start."""
        return time.perf_counter() - self.started

    def times(self) -> StageTimes:
        """The stage times so far."""
        return StageTimes(**self._seconds)
