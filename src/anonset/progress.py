"""Progress of long runs: the seam the library reports through, and a terminal reporter built on rich.

The library reports; something else decides whether and how to show it.  A
long-running loop opens a task and advances it::

    from anonset import progress

    with progress.task("searching the lattice", total=lattice.size, unit="nodes") as bar:
        for node in ...:
            ...
            bar.advance()            # or bar.update(completed=position)

``total`` may be None (unknown: a counter without a bar) and can be set
later with ``bar.update(total=...)``.  Tasks nest: a task opened while
another is open is its child (an evaluation fold, then the method's search
inside it).

Who listens is held in a context variable (:func:`reporting` installs a
:class:`Reporter` for a ``with`` block).  Nobody listens by default: then
:func:`task` returns a shared do-nothing task without allocating anything,
and ``advance``/``update`` are empty methods, so a hook costs one context
variable read per task and one empty call per ``advance``.  Hooks sit in
loops whose iterations take far longer than that (a lattice node, a
cluster, a generation, a fold), never per record.

A compiled kernel cannot call Python cheaply, so it writes its own counter
into a small int64 array instead (``counter[0]`` completed, ``counter[1]``
the total when it knows one, else 0); :func:`poll` reads that array from a
thread while the kernel runs (the kernels release the GIL) and moves the task
along.  Without a listener :func:`poll` starts no thread, and the kernel's
one store per cluster costs nothing measurable.

:func:`terminal_progress` installs a reporter that draws rich progress bars
on standard error, and only when standard error is an interactive terminal:
on a pipe, a file or in CI it installs nothing and prints nothing.  Bars
appear only once the outermost task has run for ``delay`` seconds (1 by
default), so short runs never flash one, and they are erased when the
outermost task ends.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from rich.console import Console

__all__ = [
    "NULL_TASK",
    "Reporter",
    "Task",
    "current_reporter",
    "poll",
    "reporting",
    "task",
    "terminal_progress",
]


@runtime_checkable
class Task(Protocol):
    """One unit of work being reported: advance it, or set how far it is."""

    def advance(self, n: float = 1) -> None:
        """``n`` more steps are done."""

    def update(self, *, completed: float | None = None, total: float | None = None,
               description: str | None = None) -> None:
        """Set the steps done, the total (None: unchanged) or the description."""


@runtime_checkable
class Reporter(Protocol):
    """Receives the tasks the library opens while it is installed (:func:`reporting`).

    ``open`` is called when a task starts, ``close`` when its ``with`` block
    ends (also on an exception); tasks open and close in last-in first-out
    order within one thread, so a reporter can tell nesting by counting.
    ``advance``/``update`` of a task may be called from another thread (a
    :func:`poll` thread) while the task is open.
    """

    def open(self, description: str, total: float | None, unit: str) -> Task:
        """A task starts: ``total`` steps of ``unit`` (None: unknown)."""

    def close(self, task: Task) -> None:
        """The task returned by ``open`` ended."""


class _NullTask:
    """The task of nobody listening: every call does nothing."""

    __slots__ = ()

    def advance(self, n: float = 1) -> None:
        """Nothing."""

    def update(self, *, completed: float | None = None, total: float | None = None,
               description: str | None = None) -> None:
        """Nothing."""

    def __repr__(self) -> str:
        return "NULL_TASK"


#: The task :func:`task` returns when no reporter is installed.
NULL_TASK: Task = _NullTask()

_REPORTER: ContextVar[Reporter | None] = ContextVar("anonset_progress_reporter", default=None)


def current_reporter() -> Reporter | None:
    """The reporter installed in this context, or None (the default: nothing is reported)."""
    return _REPORTER.get()


class _NullScope:
    """``with task(...)`` when nobody listens: yields :data:`NULL_TASK`, allocates nothing."""

    __slots__ = ()

    def __enter__(self) -> Task:
        return NULL_TASK

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        return None


_NULL_SCOPE = _NullScope()


class _Scope:
    """``with task(...)`` with a reporter: opens the task on entry, closes it on exit."""

    __slots__ = ("_description", "_reporter", "_task", "_total", "_unit")

    def __init__(self, reporter: Reporter, description: str, total: float | None, unit: str):
        self._reporter = reporter
        self._description = description
        self._total = total
        self._unit = unit
        self._task: Task = NULL_TASK

    def __enter__(self) -> Task:
        self._task = self._reporter.open(self._description, self._total, self._unit)
        return self._task

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._reporter.close(self._task)


def task(description: str, total: float | None = None, unit: str = "") -> AbstractContextManager[Task]:
    """A context manager reporting one unit of work: ``with task("...", total=n, unit="nodes") as bar``.

    Parameters
    ----------
    description : str
        What is being done, in a few words ("searching the lattice").
    total : float, optional
        How many steps make the whole task; None when unknown (the reporter
        shows a count without a bar).  ``bar.update(total=...)`` sets it later.
    unit : str
        What a step is ("nodes", "records", "folds"), for display.

    Returns
    -------
    context manager
        Its ``__enter__`` returns the :class:`Task` to advance: the
        reporter's, or :data:`NULL_TASK` when no reporter is installed.
    """
    reporter = _REPORTER.get()
    if reporter is None:
        return _NULL_SCOPE
    return _Scope(reporter, description, total, unit)


@contextmanager
def reporting(reporter: Reporter | None) -> Iterator[Reporter | None]:
    """Install ``reporter`` for the ``with`` block (None: report nothing inside it); yields it.

    The reporter lives in a context variable, so it applies to this thread
    (and to tasks and threads started with a copy of this context) only.
    """
    token = _REPORTER.set(reporter)
    try:
        yield reporter
    finally:
        _REPORTER.reset(token)


class _Counter(Protocol):
    """What :func:`poll` reads: ``counter[0]`` done, ``counter[1]`` the total (0: unknown or unchanged)."""

    def __getitem__(self, index: int, /) -> Any: ...


class _NullPoll:
    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        return None


_NULL_POLL = _NullPoll()


class _Poll:
    """A thread that copies a kernel's counter into a task every ``interval`` seconds while the block runs."""

    def __init__(self, bar: Task, counter: _Counter, interval: float):
        self._bar = bar
        self._counter = counter
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="anonset-progress-poll", daemon=True)

    def _copy(self) -> None:
        done, total = int(self._counter[0]), int(self._counter[1])
        self._bar.update(completed=done, total=total if total > 0 else None)

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            self._copy()

    def __enter__(self) -> None:
        self._thread.start()

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join()
        self._copy()


def poll(bar: Task, counter: _Counter, interval: float = 0.1) -> AbstractContextManager[None]:
    """While the ``with`` block runs, copy ``counter`` into ``bar`` every ``interval`` seconds, and once at the end.

    ``counter`` is what a compiled kernel (one that releases the GIL) writes
    as it goes: ``counter[0]`` the steps done, ``counter[1]`` the total
    (0 when unknown or unchanged), e.g. ``numpy.zeros(2, dtype=numpy.int64)``.
    With :data:`NULL_TASK` (nobody listening) no thread is started.
    """
    if bar is NULL_TASK:
        return _NULL_POLL
    return _Poll(bar, counter, interval)


# ---------------------------------------------------------------------------------------------- terminal bars


def _is_tty(console: Console) -> bool:
    """Does the console write to an interactive terminal?  A real ``isatty()``, not an environment override.

    ``FORCE_COLOR`` or ``TTY_COMPATIBLE`` make rich treat a pipe as a terminal
    (CI sets them for colours); bars must still not go into a log.
    """
    isatty = getattr(console.file, "isatty", None)
    try:
        return bool(isatty is not None and isatty()) and console.is_interactive
    except ValueError:  # a closed file
        return False


@contextmanager
def terminal_progress(enabled: bool = True, console: Console | None = None, *,
                      delay: float = 1.0) -> Iterator[bool]:
    """Draw the tasks of the ``with`` block as progress bars on standard error, when it is a terminal.

    Parameters
    ----------
    enabled : bool
        False (a ``--quiet`` run) installs nothing.
    console : rich.console.Console, optional
        Where to draw; default a console on standard error.  Bars are drawn
        only when its file is a terminal (``isatty()``) and the console is
        interactive (not ``TERM=dumb``); otherwise nothing is installed and
        nothing is printed, whatever ``FORCE_COLOR`` says.
    delay : float
        Seconds the outermost task must run before the bars appear (0: at
        once); a run shorter than that prints nothing.

    Yields
    ------
    bool
        Whether bars may be drawn in the block.

    Notes
    -----
    While bars are shown, whatever is written to ``sys.stderr`` is printed
    above them (rich redirects it); standard output is never touched, so a
    release written to ``-`` stays intact.  The bars are erased when the
    outermost task ends.
    """
    console = console if console is not None else _stderr_console()
    if not enabled or not _is_tty(console):
        yield False
        return
    reporter = _rich_reporter(console, delay)
    token = _REPORTER.set(reporter)
    try:
        yield True
    finally:
        _REPORTER.reset(token)
        reporter.shutdown()


def _stderr_console() -> Console:
    from rich.console import Console

    return Console(stderr=True)


class _RichReporterBase(Protocol):
    def open(self, description: str, total: float | None, unit: str) -> Task: ...

    def close(self, task: Task) -> None: ...

    def shutdown(self) -> None: ...


def _rich_reporter(console: Console, delay: float) -> _RichReporterBase:
    """A reporter drawing rich bars on ``console``, shown once the outermost task is ``delay`` seconds old."""
    from rich.progress import BarColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn
    from rich.progress import Task as RichTask
    from rich.table import Column
    from rich.text import Text

    def amount(value: float) -> str:
        return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"

    class CountColumn(ProgressColumn):
        """``done/total unit``, or ``done unit`` when the total is unknown (never wrapped)."""

        def __init__(self) -> None:
            super().__init__(table_column=Column(no_wrap=True))

        def render(self, task: RichTask) -> Text:
            unit = str(task.fields.get("unit", ""))
            if task.total is None and not unit:
                return Text("")
            done = amount(task.completed)
            shown = done if task.total is None else f"{done}/{amount(task.total)}"
            return Text(f"{shown} {unit}".rstrip(), style="progress.download")

    class RichTaskHandle:
        """A task drawn as one line of the progress display, indented by its depth."""

        def __init__(self, progress: Progress, task_id: Any, indent: str):
            self.progress = progress
            self.task_id = task_id
            self.indent = indent
            self.closed = False  # calls after the task ended are ignored (its line may be gone)

        def advance(self, n: float = 1) -> None:
            if not self.closed:
                self.progress.advance(self.task_id, n)

        def update(self, *, completed: float | None = None, total: float | None = None,
                   description: str | None = None) -> None:
            if not self.closed:
                self.progress.update(self.task_id, completed=completed, total=total,
                                     description=None if description is None else self.indent + description)

    class RichReporter:
        def __init__(self) -> None:
            self.lock = threading.RLock()
            self.progress: Progress | None = None
            self.live = False
            self.timer: threading.Timer | None = None
            self.open_tasks: list[RichTaskHandle] = []

        def new_progress(self) -> Progress:
            # on a narrow terminal the descriptions are cut short, never the counts
            description = TextColumn("{task.description}", table_column=Column(no_wrap=True, overflow="ellipsis"))
            return Progress(description, BarColumn(bar_width=24), CountColumn(), TimeElapsedColumn(),
                            console=console, transient=True, refresh_per_second=8, redirect_stdout=False,
                            redirect_stderr=console.file is sys.stderr)

        def show(self, progress: Progress) -> None:
            with self.lock:
                if self.progress is progress and self.open_tasks and not self.live:
                    progress.start()
                    self.live = True

        def open(self, description: str, total: float | None, unit: str) -> Task:
            with self.lock:
                if self.progress is None:
                    self.progress = progress = self.new_progress()
                    if delay <= 0:
                        progress.start()
                        self.live = True
                    else:
                        self.timer = threading.Timer(delay, self.show, args=(progress,))
                        self.timer.daemon = True
                        self.timer.start()
                indent = "  " * len(self.open_tasks)
                task_id = self.progress.add_task(indent + description, total=total, unit=unit)
                handle = RichTaskHandle(self.progress, task_id, indent)
                self.open_tasks.append(handle)
                return handle

        def close(self, task: Task) -> None:
            with self.lock:
                if isinstance(task, RichTaskHandle):
                    task.closed = True
                if task in self.open_tasks:
                    self.open_tasks.remove(task)
                if self.open_tasks:
                    if isinstance(task, RichTaskHandle) and task.progress is self.progress:
                        self.progress.remove_task(task.task_id)  # a finished inner task leaves the display
                    return
                self.shutdown()

        def shutdown(self) -> None:
            with self.lock:
                if self.timer is not None:
                    self.timer.cancel()
                    self.timer = None
                if self.progress is not None and self.live:
                    self.progress.stop()
                self.progress = None
                self.live = False
                self.open_tasks.clear()

    return RichReporter()
