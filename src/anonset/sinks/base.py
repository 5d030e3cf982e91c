"""Where a release goes: a :class:`ReleaseSink` checks, stages, verifies, places or discards it.

Every destination of a release follows the same steps, so that a failure at
any point leaves nothing behind:

1. :meth:`~ReleaseSink.check`, before any work: refuse an output that must
   not be written (the input itself, an existing table without replace, a
   folder that does not exist);
2. :meth:`~ReleaseSink.stage`: write the release where nobody reads it yet (a
   staging table, temporary files);
3. :meth:`~ReleaseSink.verify`: check what was staged, independently of the
   method that produced it; raise when it fails;
4. :meth:`~ReleaseSink.place`: put it in place (rename);
5. :meth:`~ReleaseSink.discard` on failure: remove what was staged, and what
   was placed ahead of a run's other outputs when removing it loses nothing.

Three sinks exist.  :class:`~anonset.sinks.database.DatabaseSink` writes the
release of a full-domain node inside the database its engine reads, and
re-checks it there in SQL; :class:`~anonset.sinks.spark.SparkSink` does the
same on a Spark cluster.  :class:`FileSink` holds a run's output files (the
release and the summary), built on :class:`~anonset.io.outputs.StagedOutputs`.

The Anonymizer never names a sink: it asks :func:`sink_factory` for the sink
of its engine, looked up by the engine's name (``duckdb``, ``postgresql``, ``spark``).
Another engine registers its own with :func:`register_sink`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Protocol, Self, TypeVar

from anonset.io.outputs import StagedOutputs, check_output_paths, is_stdout

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from anonset.engine.base import Engine
    from anonset.engine.sql.base import TableName
    from anonset.privacy.base import Requirements
    from anonset.recheck.verify import VerificationReport

__all__ = [
    "EngineSink",
    "FileOutput",
    "FileSink",
    "NodeRelease",
    "ReleaseSink",
    "SinkFactory",
    "register_sink",
    "sink_factory",
]

ItemT_contra = TypeVar("ItemT_contra", contravariant=True)


class ReleaseSink(Protocol[ItemT_contra]):
    """A destination of a release: check, stage, verify, place, or discard.

    The type parameter is what the sink stages: a :class:`NodeRelease` for
    the sink of an engine, a :class:`FileOutput` for :class:`FileSink`.
    """

    @property
    def location(self) -> str | None:
        """Where the release goes, as messages and the summary name it (None: nowhere)."""
        ...

    def check(self) -> None:
        """Refuse, before any work, an output that must not be written (raise ConfigError or DataError)."""
        ...

    def stage(self, item: ItemT_contra) -> None:
        """Write ``item`` where nobody reads it yet."""
        ...

    def verify(self) -> VerificationReport | None:
        """Check what was staged; raise when it is not what must be placed.

        Returns the re-check's report when the sink re-checks the privacy
        requirements itself (a database), else None.
        """
        ...

    def place(self) -> None:
        """Put what was staged in place."""
        ...

    def discard(self) -> None:
        """Remove what was staged and not placed (and what was placed, when removing it loses nothing).

        Calling it again does nothing.
        """
        ...


@dataclass(frozen=True)
class NodeRelease:
    """What the sink of an engine stages: the release of full-domain node ``levels`` of the engine's dataset.

    Attributes
    ----------
    engine : Engine
        The engine the node was found with (its dataset, and for a database
        engine the source table).
    levels : tuple of int
        Level per quasi-identifier.
    violating_keys : numpy.ndarray
        (v, d) codes at ``levels`` of the classes to suppress.
    suppressed_rows : int
        Records in those classes; the sink checks that it suppressed exactly these.
    requirements : Requirements
        What the staged release is re-checked against.
    drop_suppressed : bool
        Drop the suppressed records instead of writing ``*`` in their quasi-identifiers.
    withheld : tuple of str
        The models the suppressed records, as one group, would break with
        their sensitive values: when there is one, their sensitive columns
        are written ``*`` too (see :mod:`anonset.recheck.suppressed`).
    """

    engine: Engine
    levels: tuple[int, ...]
    violating_keys: NDArray[np.int32]
    suppressed_rows: int
    requirements: Requirements
    drop_suppressed: bool = False
    withheld: tuple[str, ...] = ()

    @property
    def withhold_sensitive(self) -> bool:
        """Whether the suppressed records' sensitive values are written ``*``."""
        return bool(self.withheld)


class EngineSink(ReleaseSink[NodeRelease], Protocol):
    """The sink of an engine whose records stay where it reads them (a database): the release is written there."""

    @property
    def database(self) -> str:
        """What holds the release, for the provenance (never a password)."""
        ...

    @property
    def output_table(self) -> str:
        """The output table's name, for the provenance."""
        ...

    def verify(self) -> VerificationReport:
        """Re-check the staged release against the item's requirements where it was written; raise when it fails."""
        ...

    def undeclared(self, k: int) -> list[str]:
        """Check the staged release's undeclared columns before it is placed (:mod:`anonset.recheck.undeclared`).

        Raises :class:`~anonset.errors.UndeclaredColumnError` for a column
        that could single people out (a value held by fewer than max(k, 2)
        records, or groups that small beside the quasi-identifiers); returns
        the warnings of the undeclared columns that pass.
        """
        ...


#: Builds the sink of an engine: ``factory(engine, output_table, replace)``.
SinkFactory = Callable[["Engine", "TableName", bool], EngineSink]


def _database_sink(engine: Engine, output_table: TableName, replace: bool) -> EngineSink:
    from anonset.sinks.database import DatabaseSink

    return DatabaseSink.for_engine(engine, output_table, replace=replace)


def _spark_sink(engine: Engine, output_table: TableName, replace: bool) -> EngineSink:
    from anonset.sinks.spark import spark_sink

    return spark_sink(engine, output_table, replace)


_SINKS: dict[str, SinkFactory] = {"duckdb": _database_sink, "postgresql": _database_sink, "spark": _spark_sink}


def register_sink(engine_name: str, factory: SinkFactory) -> None:
    """Make ``factory`` the sink of engines named ``engine_name`` (replacing any earlier one)."""
    _SINKS[engine_name] = factory


def sink_factory(engine_name: str) -> SinkFactory | None:
    """The factory of the sink of engines named ``engine_name``, or None when they have none (in memory)."""
    return _SINKS.get(engine_name)


@dataclass(frozen=True)
class FileOutput:
    """What :class:`FileSink` stages: a file to write at ``path`` by calling ``write(tmp)`` on a temporary file."""

    path: Path
    write: Callable[[Path], None]


class FileSink:
    """A run's output files: checked before any work, written to temporary files, placed together.

    Parameters
    ----------
    outputs : mapping of str to Path or None
        Every output by what it is (``"release"``, ``"summary"``); ``-`` is
        standard output, None no output.
    inputs : mapping of str to Path or None, optional
        Every file the run reads, which no output may overwrite.

    Use as a context manager: leaving the block discards whatever was not placed.
    """

    def __init__(self, outputs: Mapping[str, Path | None], inputs: Mapping[str, Path | None] | None = None):
        self.outputs = dict(outputs)
        self.inputs = dict(inputs or {})
        self._staged = StagedOutputs()

    @property
    def location(self) -> str | None:
        """Where the release goes: its path, ``standard output``, or None when it is not written."""
        target = self.outputs.get("release")
        if target is None:
            return None
        return "standard output" if is_stdout(target) else str(target)

    def check(self) -> None:
        """:func:`~anonset.io.outputs.check_output_paths` of the outputs against the inputs."""
        check_output_paths(self.outputs, self.inputs)

    def stage(self, item: FileOutput) -> None:
        """Write ``item`` to a temporary file (DataError when it cannot be written)."""
        self._staged.stage(item.path, item.write)

    def written(self, path: str | Path) -> Path | None:
        """The temporary file staged for ``path`` (what will be placed there), or None."""
        return self._staged.written(path)

    def verify(self) -> None:
        """Every staged file is still there, as long as it was written (DataError otherwise)."""
        self._staged.verify()

    def place(self) -> None:
        """Put every staged file in place (:meth:`StagedOutputs.commit <anonset.io.outputs.StagedOutputs.commit>`)."""
        self._staged.commit()

    def discard(self) -> None:
        """Remove every temporary file not yet placed (placed files are a run's last step and stay)."""
        self._staged.discard()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.discard()
