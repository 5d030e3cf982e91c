"""A run of the workbench in its own thread: its progress as the library reports it, and a cancel that stops it.

:class:`Job` runs its work in a thread with a :class:`~anonset.progress.Reporter`
installed (:func:`anonset.progress.reporting`) that keeps the open tasks
(description, steps done, total) for the page to poll.  Cancelling sets a
flag that the reporter reads whenever the library opens, advances or updates
a task: the run stops there with :class:`Cancelled` (a compiled kernel runs on
until its next report, so a cancel takes effect within one search step).
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from anonset.errors import AnonsetError
from anonset.progress import Task, reporting

__all__ = ["Cancelled", "Job"]


class Cancelled(Exception):
    """The user cancelled the run."""


@dataclass
class _Step:
    """One open task of the run, as the page shows it."""

    job: Job
    description: str
    total: float | None
    unit: str
    completed: float = 0.0

    def advance(self, n: float = 1) -> None:
        self.job.check()
        self.completed += n

    def update(self, *, completed: float | None = None, total: float | None = None,
               description: str | None = None) -> None:
        self.job.check()
        if completed is not None:
            self.completed = completed
        if total is not None:
            self.total = total
        if description is not None:
            self.description = description


@dataclass
class Job:
    """One run: ``state`` is ``running``, ``done``, ``failed`` or ``cancelled``; ``result`` once done."""

    state: str = "running"
    result: Any = None
    error: str | None = None
    steps: list[_Step] = field(default_factory=list)
    cancelled: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self, work: Callable[[], Any]) -> None:
        """Run ``work()`` in a thread of its own, reporting to this job."""
        threading.Thread(target=self._run, args=(work,), daemon=True).start()

    def _run(self, work: Callable[[], Any]) -> None:
        try:
            with reporting(self):
                result = work()
        except Cancelled:
            self._finish("cancelled")
        except AnonsetError as exc:
            self._finish("failed", error=str(exc))
        except Exception as exc:  # a bug: the page says so rather than spinning forever
            detail = traceback.format_exception_only(type(exc), exc)[-1].strip()
            self._finish("failed", error=f"the run failed (this is a bug in anonset): {detail}")
        else:
            self._finish("done", result=result)

    def _finish(self, state: str, *, result: Any = None, error: str | None = None) -> None:
        with self.lock:
            self.state, self.result, self.error = state, result, error
            self.steps.clear()

    def cancel(self) -> None:
        """Ask the run to stop at its next report."""
        self.cancelled.set()

    def check(self) -> None:
        """Raise :class:`Cancelled` once the run was asked to stop."""
        if self.cancelled.is_set():
            raise Cancelled

    # the Reporter protocol
    def open(self, description: str, total: float | None, unit: str) -> Task:
        self.check()
        step = _Step(self, description, total, unit)
        with self.lock:
            self.steps.append(step)
        return step

    def close(self, task: Task) -> None:
        with self.lock:
            if task in self.steps:
                self.steps.remove(task)

    def status(self) -> dict[str, Any]:
        """What the page polls: the state, the open steps (outermost first) and, at the end, the error."""
        with self.lock:
            steps = [{"description": s.description, "completed": s.completed, "total": s.total, "unit": s.unit}
                     for s in self.steps]
            return {"state": self.state, "steps": steps, "error": self.error}
