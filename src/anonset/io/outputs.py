"""Where a run's outputs go: checked before any work, written only once every one of them is ready.

:func:`check_output_paths` refuses, before anything is computed, an output
that would destroy an input (the table, the config, a hierarchy file), two
outputs on the same path, a directory, and a folder that does not exist (a
typo in a folder name must not pass).  :class:`StagedOutputs` writes every
output to a temporary file first and puts them all in place only when all of
them were written (:meth:`StagedOutputs.commit`; :meth:`StagedOutputs.verify`
checks before that that every staged file is still as written); when anything
fails, every temporary file is removed and nothing appears at any output path.

Three kinds of target are written into, never renamed over (:func:`is_stream`):

* ``-``, standard output;
* a path naming one of this process's open files: ``/dev/stdout``,
  ``/dev/stderr``, ``/dev/fd/N``, ``/proc/self/fd/N`` (symbolic links that
  end in ``/proc/<pid>/fd/N``).  The data goes to that open file where it
  stands, even when it is a regular file (``anonset ... --report /dev/stdout
  > report.html``): the shell's redirect receives it and the link stays a
  link.  ``/dev/stdout`` counts as standard output (:func:`is_stdout`);
* an existing file that is not a regular file, once every link is followed
  (a character device such as ``/dev/null``, a named pipe, a socket).

Their content is still prepared in a temporary file and copied at commit
time, before the regular files are renamed, so a failing device (``/dev/full``)
stops the commit while nothing has been placed yet.

A **symbolic link** to a regular file (or to a file that does not exist yet)
is never replaced: the output is written where the link points, by a
temporary file in *that* folder renamed onto the link's target, and the link
stays as it was (the checks before any work look at the target's folder).  A
link that leads nowhere (a loop) is refused.  Files anonset creates get the
permissions the user's umask gives a new file.

**Temporary files** are named ``.NAME.anonset-PID-HOST.XXXXXXXX.tmp``
beside the output (``PID`` and ``HOST`` those of the run writing it; DuckDB,
when it writes the release, first writes ``tmp_`` followed by that name), or
in the system's temporary folder for a stream; they are created readable by
their owner only.  A run that is killed (``SIGKILL``, a power cut) cannot
remove its own, and they may hold a release, so every run, before it writes
in a folder, removes the temporary files there whose name has anonset's
pattern, this host's name and the id of a process that no longer exists
(:func:`remove_stale_temporaries`).  A file whose writer is still running,
or was written on another host (a shared network folder), is left alone.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import stat
import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import BinaryIO, Self

from anonset.errors import ConfigError, DataError

__all__ = ["STDOUT", "StagedOutputs", "atomic_write", "check_output_paths", "is_stdout", "is_stream",
           "remove_stale_temporaries", "temporary_prefix"]

#: The output path that means standard output.
STDOUT = "-"

#: A path that names an open file of a process: ``/proc/<pid>/fd/<n>`` (or a thread's, under ``task``).
_PROCESS_FD = re.compile(r"/proc/(?P<pid>[0-9]+)(?:/task/[0-9]+)?/fd/(?P<fd>[0-9]+)")
#: Links followed at most, as the kernel does (ELOOP past 40).
_MAX_LINKS = 40
#: The name of a temporary file anonset writes (``tmp_`` first when DuckDB wrote it for anonset).
_TEMPORARY = re.compile(r"(?:tmp_)?\..+\.anonset-(?P<pid>[0-9]+)-(?P<host>[A-Za-z0-9]*)\.[A-Za-z0-9_]+"
                        r"\.(?:tmp|probe)")


def _host() -> str:
    """This machine's name as temporary names hold it: letters and digits only, at most 32."""
    return re.sub(r"[^A-Za-z0-9]", "", socket.gethostname())[:32]


def temporary_prefix(name: str) -> str:
    """The start of the name of a temporary file staged for the output ``name`` by this process."""
    return f".{name}.anonset-{os.getpid()}-{_host()}."


def _open_fd(path: str | Path) -> int | None:
    """The file descriptor of this process that ``path`` names (``/dev/stdout`` -> 1), or None.

    Every symbolic link on the way is followed, the last component one step at
    a time, so that ``/proc/<pid>/fd/<n>`` is recognized before the kernel's
    magic link would lead to the open file itself.
    """
    current = os.path.abspath(os.fspath(path))
    for _ in range(_MAX_LINKS):
        head, tail = os.path.split(current)
        current = os.path.join(os.path.realpath(head), tail)
        found = _PROCESS_FD.fullmatch(current)
        if found is not None:
            return int(found["fd"]) if int(found["pid"]) == os.getpid() else None
        if not os.path.islink(current):
            return None
        current = os.path.normpath(os.path.join(head, os.readlink(current)))
    return None


def is_stdout(path: str | Path | None) -> bool:
    """Whether an output path means standard output: ``-``, or a path naming this process's file 1."""
    if path is None:
        return False
    return str(path) == STDOUT or _open_fd(path) == 1


def _is_special(path: Path) -> bool:
    """An existing path that is not a regular file or directory, links followed (device, pipe, socket)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def is_stream(path: str | Path | None) -> bool:
    """Whether an output path is written into rather than replaced (see the module docstring).

    ``-``, a path naming an open file of this process (``/dev/stdout``), and
    an existing device, named pipe or socket.
    """
    if path is None:
        return False
    return str(path) == STDOUT or _open_fd(path) is not None or _is_special(Path(path))


def _placement(path: Path) -> Path:
    """Where a regular output is renamed to: ``path``, or the file a symbolic link ``path`` points to.

    Raises
    ------
    DataError
        The link leads nowhere (a loop of links).
    """
    if not path.is_symlink():
        return path
    target = Path(os.path.realpath(path))
    if target.is_symlink():
        raise DataError(f"{path}: is a symbolic link that leads to no file (a loop of links); give the path of a"
                        " file")
    return target


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
        An output path is a directory or a loop of links, or its folder (the
        folder of a link's target) does not exist or cannot be written in.
    """
    seen: dict[str, Path] = {}
    to_stdout: list[str] = []
    for role, path in outputs.items():
        if path is None:
            continue
        if is_stdout(path):
            to_stdout.append(role)
            continue
        if is_stream(path):
            continue
        if path.is_dir():
            raise DataError(f"{path}: is a directory; give the path of a file to write the {role} to")
        target = _placement(path)
        if target.parent.exists() and not target.parent.is_dir():
            raise DataError(f"{path}: {target.parent} is a file, not a folder; correct the path of the {role}")
        if not target.parent.is_dir():
            raise DataError(f"{path}: folder {target.parent} does not exist; create it first or correct the path"
                            f" of the {role}")
        _require_writable_folder(path, target, role)
        for input_role, input_path in inputs.items():
            if input_path is not None and _same_file(path, input_path):
                raise ConfigError(f"{path}: the {role} would overwrite the {input_role} ({input_path}); choose"
                                  " another path (anonset never writes over its inputs)")
        for other_role, other in seen.items():
            if _same_file(path, other):
                raise ConfigError(f"{path}: the {role} and the {other_role} would be written to the same file;"
                                  " give them different paths")
        seen[role] = path
    if len(to_stdout) > 1:
        raise ConfigError(f"the {' and the '.join(to_stdout)} cannot both go to standard output ('-'); write one"
                          " of them to a file")


def _require_writable_folder(path: Path, target: Path, role: str) -> None:
    """A DataError unless a file can be created in ``target``'s folder (tried with a temporary file, then removed).

    Permissions alone do not tell (root may write anywhere but on a read-only
    file system), so the folder is asked the way the output will ask it.
    """
    try:
        with tempfile.NamedTemporaryFile(dir=target.parent, prefix=temporary_prefix(target.name), suffix=".probe"):
            pass
    except OSError as exc:
        raise DataError(f"{path}: cannot write in folder {target.parent} ({exc.strerror or exc}); choose a folder"
                        f" you may write to for the {role}") from None


def _process_is_gone(pid: int) -> bool:
    """Whether no process of this host has the id ``pid`` (a process of another user still exists)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # PermissionError: someone else's process
        return False
    return False


def remove_stale_temporaries(folder: str | Path) -> list[Path]:
    """Remove the temporary files a killed anonset left in ``folder``; the paths removed.

    A file is removed when its name has the pattern of anonset's temporary
    files (see the module docstring), this host's name, and the id of a
    process that no longer exists; only regular files are removed, and a file
    that cannot be removed is left.
    """
    host, removed = _host(), list[Path]()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        found = _TEMPORARY.fullmatch(entry.name)
        if found is None or found["host"] != host or not _process_is_gone(int(found["pid"])):
            continue
        try:
            if entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:
            continue
    return removed


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
        self._regular: list[tuple[Path, Path]] = []  # (temporary file, where it is renamed to)
        self._streams: list[tuple[Path, int | Path]] = []  # (temporary file, open file descriptor or device)
        self._sizes: dict[Path, int] = {}  # temporary file -> bytes written

    def stage(self, path: str | Path, write: Callable[[Path], None]) -> None:
        """Call ``write(tmp)`` on a new temporary file that :meth:`commit` will put at ``path``.

        Raises
        ------
        DataError
            The temporary file cannot be created or written (the message names ``path``).
        """
        target = Path(path)
        sink: int | Path | None = 1 if str(path) == STDOUT else _open_fd(path)
        if sink is None and _is_special(target):
            sink = target
        stream = sink is not None
        if not stream and target.is_dir():
            raise DataError(f"{target}: is a directory; give the path of a file to write")
        placed = target if stream else _placement(target)
        folder = Path(tempfile.gettempdir()) if stream else placed.parent
        name = "stdout" if sink == 1 else placed.name
        if not folder.is_dir():
            raise DataError(f"{target}: folder {folder} does not exist; create it first or correct the path")
        remove_stale_temporaries(folder)
        try:
            fd, tmp_name = tempfile.mkstemp(prefix=temporary_prefix(name), suffix=".tmp", dir=folder)
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
            _remove(tmp)
            raise DataError(f"{target}: cannot write the file ({exc.strerror or exc}); choose a writable path"
                            " with free space") from exc
        except BaseException:
            _remove(tmp)
            raise
        if sink is not None:
            self._streams.append((tmp, sink))
        else:
            self._regular.append((tmp, placed))

    def written(self, path: str | Path) -> Path | None:
        """The temporary file staged for the regular file ``path`` (its bytes as they will be placed), or None."""
        placed = _placement(Path(path))
        return next((tmp for tmp, target in self._regular if target == placed), None)

    def verify(self) -> None:
        """Check that every staged file is still there, as long as when it was written.

        Raises
        ------
        DataError
            A temporary file was removed or changed before being put in place.
        """
        for tmp, target in (*self._regular, *self._streams):
            where = _where(target)
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
            for tmp, sink in self._streams:
                where = _where(sink)
                self._copy(tmp, sink)
            for tmp, target in self._regular:
                where = str(target)
                os.replace(tmp, target)
        except OSError as exc:
            raise DataError(f"{where}: cannot write the output ({exc.strerror or exc}); no other output was"
                            " written") from exc
        finally:
            self.discard()

    @staticmethod
    def _copy(tmp: Path, sink: int | Path) -> None:
        with open(tmp, "rb") as source:
            if isinstance(sink, Path):
                with open(sink, "wb") as device:
                    shutil.copyfileobj(source, device)
                return
            text = sys.stdout if sink == 1 else sys.stderr if sink == 2 else None
            buffer: BinaryIO | None = getattr(text, "buffer", None)
            if text is not None and buffer is not None:  # the streams Python (or a test runner) writes to
                text.flush()
                shutil.copyfileobj(source, buffer)
                buffer.flush()
                return
            with os.fdopen(os.dup(sink), "wb") as descriptor:
                shutil.copyfileobj(source, descriptor)

    def discard(self) -> None:
        """Remove every temporary file not yet placed."""
        for tmp, _ in (*self._regular, *self._streams):
            _remove(tmp)
        self._regular.clear()
        self._streams.clear()
        self._sizes.clear()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.discard()


def _where(sink: int | Path) -> str:
    """An output as messages name it."""
    if isinstance(sink, Path):
        return str(sink)
    return {1: "standard output", 2: "standard error"}.get(sink, f"file descriptor {sink}")


def _remove(tmp: Path) -> None:
    """Remove a temporary file and the one DuckDB may have left beside it (``tmp_`` + its name)."""
    tmp.unlink(missing_ok=True)
    tmp.with_name(f"tmp_{tmp.name}").unlink(missing_ok=True)


def atomic_write(path: str | Path, write: Callable[[Path], None]) -> None:
    """Call ``write(tmp)`` on a temporary file and put it at ``path`` (one :class:`StagedOutputs`).

    Nothing appears at ``path`` when ``write`` fails; ``-`` is standard
    output, a device, pipe or open file of this process is written into,
    never replaced, and a symbolic link is kept (its target is written).
    """
    with StagedOutputs() as staged:
        staged.stage(path, write)
        staged.commit()
