"""Where a run's outputs go: checked before any work, written only once every one of them is ready.

:func:`check_output_paths` refuses, before anything is computed, an output
that would destroy an input (the table, the config, a hierarchy file), two
outputs on the same path, a directory, and a folder that does not exist (a
typo in a folder name must not pass).  :class:`StagedOutputs` writes every
output to a temporary file first and puts them all in place only when all of
them were written (:meth:`StagedOutputs.commit`; :meth:`StagedOutputs.verify`
checks before that that every staged file is still as written); when anything
fails, every temporary file is removed and nothing appears at any output path.

Two kinds of target are not renamed into place:

* ``-`` means standard output;
* an existing file that is not a regular file (a character device such as
  ``/dev/stdout`` or ``/dev/null``, a named pipe) is written into directly,
  never replaced by a regular file.

Their content is still prepared in a temporary file and copied at commit
time, before the regular files are renamed, so a failing device (``/dev/full``)
stops the commit while nothing has been placed yet.  Files anonset creates
get the permissions the user's umask gives a new file.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Self

from anonset.errors import ConfigError, DataError

__all__ = ["STDOUT", "StagedOutputs", "atomic_write", "check_output_paths", "is_stdout"]

#: The output path that means standard output.
STDOUT = "-"


def is_stdout(path: str | Path | None) -> bool:
    """Whether an output path means standard output (``-``)."""
    return path is not None and str(path) == STDOUT


def _is_special(path: Path) -> bool:
    """An existing path that is not a regular file or directory (device, pipe, socket)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file (through links and relative parts too)."""
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return a.resolve() == b.resolve()


def check_output_paths(outputs: Mapping[str, Path | None], inputs: Mapping[str, Path | None]) -> None:
    """Refuse output paths that cannot or must not be written, before any work is done.

    Parameters
    ----------
    outputs : mapping of str to Path or None
        What each output is (``"release"``, ``"summary"``) and where it goes;
        ``-`` is standard output, ``None`` no output.
    inputs : mapping of str to Path or None
        Every file the run reads, by what it is (``"input table"``,
        ``"config"``, ``"hierarchy of 'age'"``); ``None`` entries are ignored.

    Raises
    ------
    ConfigError
        An output path is one of the inputs, or two outputs share a path or
        both go to standard output.
    DataError
        An output path is a directory, or its folder does not exist or cannot be written in.
    """
    seen: dict[str, Path] = {}
    to_stdout: list[str] = []
    for role, path in outputs.items():
        if path is None:
            continue
        if is_stdout(path):
            to_stdout.append(role)
            continue
        if path.is_dir():
            raise DataError(f"{path}: is a directory; give the path of a file to write the {role} to")
        if not _is_special(path) and path.parent.exists() and not path.parent.is_dir():
            raise DataError(f"{path}: {path.parent} is a file, not a folder; correct the path of the {role}")
        if not _is_special(path) and not path.parent.is_dir():
            raise DataError(f"{path}: folder {path.parent} does not exist; create it first or correct the path"
                            f" of the {role}")
        if not _is_special(path):
            _require_writable_folder(path, role)
        for input_role, input_path in inputs.items():
            if input_path is not None and not _is_special(path) and _same_file(path, input_path):
                raise ConfigError(f"{path}: the {role} would overwrite the {input_role} ({input_path}); choose"
                                  " another path (anonset never writes over its inputs)")
        for other_role, other in seen.items():
            if not _is_special(path) and _same_file(path, other):
                raise ConfigError(f"{path}: the {role} and the {other_role} would be written to the same file;"
                                  " give them different paths")
        seen[role] = path
    if len(to_stdout) > 1:
        raise ConfigError(f"the {' and the '.join(to_stdout)} cannot both go to standard output ('-'); write one"
                          " of them to a file")


def _require_writable_folder(path: Path, role: str) -> None:
    """A DataError unless a file can be created in ``path``'s folder (tried with a temporary file, then removed).

    Permissions alone do not tell (root may write anywhere but on a read-only
    file system), so the folder is asked the way the output will ask it.
    """
    try:
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", suffix=".probe"):
            pass
    except OSError as exc:
        raise DataError(f"{path}: cannot write in folder {path.parent} ({exc.strerror or exc}); choose a folder"
                        f" you may write to for the {role}") from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class StagedOutputs:
    """Outputs written to temporary files, put in place together by :meth:`commit`.

    Use as a context manager: leaving the block with an exception (or
    without a commit) removes every temporary file.

    Examples
    --------
    >>> with StagedOutputs() as staged:  # doctest: +SKIP
    ...     staged.stage(Path("release.csv"), lambda tmp: frame.to_csv(tmp))
    ...     staged.stage(Path("summary.json"), lambda tmp: tmp.write_text("{}"))
    ...     staged.commit()
    """

    def __init__(self) -> None:
        self._regular: list[tuple[Path, Path]] = []  # (temporary file, target)
        self._streams: list[tuple[Path, Path | None]] = []  # (temporary file, device or None = stdout)
        self._sizes: dict[Path, int] = {}  # temporary file -> bytes written

    def stage(self, path: str | Path, write: Callable[[Path], None]) -> None:
        """Call ``write(tmp)`` on a new temporary file that :meth:`commit` will put at ``path``.

        Raises
        ------
        DataError
            The temporary file cannot be created or written (the message names ``path``).
        """
        stream = is_stdout(path) or _is_special(Path(path))
        target = Path(path)
        if not stream and target.is_dir():
            raise DataError(f"{target}: is a directory; give the path of a file to write")
        folder = Path(tempfile.gettempdir()) if stream else target.parent
        name = "stdout" if is_stdout(path) else target.name
        if not folder.is_dir():
            raise DataError(f"{target}: folder {folder} does not exist; create it first or correct the path")
        try:
            fd, tmp_name = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
        except OSError as exc:
            raise DataError(f"{target}: cannot create a file in {folder} ({exc.strerror or exc}); choose a"
                            " writable folder") from exc
        os.close(fd)
        tmp = Path(tmp_name)
        try:
            write(tmp)
            if not stream:
                os.chmod(tmp, 0o666 & ~_umask())
            self._sizes[tmp] = tmp.stat().st_size
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise DataError(f"{target}: cannot write the file ({exc.strerror or exc}); choose a writable path"
                            " with free space") from exc
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        if stream:
            self._streams.append((tmp, None if is_stdout(path) else target))
        else:
            self._regular.append((tmp, target))

    def verify(self) -> None:
        """Check that every staged file is still there, as long as when it was written.

        Raises
        ------
        DataError
            A temporary file was removed or changed before being put in place.
        """
        for tmp, target in (*self._regular, *self._streams):
            where = "standard output" if target is None else str(target)
            try:
                size = tmp.stat().st_size
            except OSError:
                size = -1
            if size != self._sizes.get(tmp):
                raise DataError(f"{where}: the staged output ({tmp}) was removed or changed before it was put in"
                                " place; nothing was written")

    def commit(self) -> None:
        """Copy the streamed outputs, then rename every regular file into place.

        Raises
        ------
        DataError
            A device or standard output refused the data; no regular file has
            been placed then, and every temporary file is removed.
        """
        where = "standard output"
        try:
            for tmp, device in self._streams:
                where = "standard output" if device is None else str(device)
                self._copy(tmp, device)
            for tmp, target in self._regular:
                where = str(target)
                os.replace(tmp, target)
        except OSError as exc:
            raise DataError(f"{where}: cannot write the output ({exc.strerror or exc}); no other output was"
                            " written") from exc
        finally:
            self.discard()

    @staticmethod
    def _copy(tmp: Path, device: Path | None) -> None:
        with open(tmp, "rb") as source:
            if device is None:
                sys.stdout.flush()
                shutil.copyfileobj(source, sys.stdout.buffer)
                sys.stdout.buffer.flush()
                return
            with open(device, "wb") as sink:
                shutil.copyfileobj(source, sink)

    def discard(self) -> None:
        """Remove every temporary file not yet placed."""
        for tmp, _ in (*self._regular, *self._streams):
            tmp.unlink(missing_ok=True)
        self._regular.clear()
        self._streams.clear()
        self._sizes.clear()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.discard()


def atomic_write(path: str | Path, write: Callable[[Path], None]) -> None:
    """Call ``write(tmp)`` on a temporary file and put it at ``path`` (one :class:`StagedOutputs`).

    Nothing appears at ``path`` when ``write`` fails; ``-`` is standard
    output and a device or pipe is written into, never replaced.
    """
    with StagedOutputs() as staged:
        staged.stage(path, write)
        staged.commit()
