"""A process that has imported anonset and forks a child for each command the docs' examples run.

A fresh ``anonset`` process spends about 1.2 s importing pandas and numba and
loading numba's registries before it starts working; the docs' examples run
about twenty such commands and Python blocks.  :class:`ForkServer` starts one
process (``python tests/forkserver.py SOCKET``) that imports all that once,
and writes two executables into a folder of its own: ``anonset`` and
``python-example``.  Each sends its arguments, working folder and environment
with its standard input, output and error (the file descriptors themselves)
over a Unix socket; the server forks a child that takes those descriptors,
folder and environment and runs the command (``anonset ...`` through the CLI's
click entry point, ``python-example SCRIPT`` as ``python SCRIPT`` would) and
sends back its exit code, which the executable exits with.  So a block of
shell runs exactly as written, with bash, pipes and redirections; only the
interpreter's start is shared.  What a fresh interpreter adds (a module that
works only because another imported it first) is left to the tests that run
real processes (the demo, the bad-input, Spark and out-of-core runs).
"""

from __future__ import annotations

import atexit
import json
import os
import runpy
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

#: The environment variable through which the executables find the server's socket.
SOCKET_VARIABLE = "ANONSET_TEST_FORKSERVER"
#: The executables: their name, and what the child runs (``anonset``: the CLI; ``script``: a Python file).
CLIENT = """#!{python} -S
import json, os, socket, sys
request = json.dumps({{"kind": {kind!r}, "argv": sys.argv[1:], "cwd": os.getcwd(), "env": dict(os.environ)}}).encode()
with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
    s.connect(os.environ[{variable!r}])
    socket.send_fds(s, [len(request).to_bytes(8, "big") + request], [0, 1, 2])
    answer = s.recv(16)
if not answer:
    sys.stderr.write("the test fork server's child ended without an exit code\\n")
sys.exit(int(answer) if answer else 1)
"""


class ForkServer:
    """The server process and the folder of its executables (put ``bin`` first on PATH, ``env`` into the env)."""

    def __init__(self, folder: Path):
        self.bin = folder / "bin"
        self.bin.mkdir(parents=True)
        self.socket = folder / "socket"
        self._short: Path | None = None
        if len(str(self.socket)) > 100:  # a Unix socket's path holds at most 104-108 bytes
            self._short = Path(tempfile.mkdtemp(prefix="anonset-fork-"))
            self.socket = self._short / "socket"
        for name, kind in (("anonset", "anonset"), ("python-example", "script")):
            path = self.bin / name
            path.write_text(CLIENT.format(python=sys.executable, kind=kind, variable=SOCKET_VARIABLE),
                            encoding="utf-8")
            path.chmod(0o755)
        self.process = subprocess.Popen([sys.executable, __file__, str(self.socket)])
        deadline = time.monotonic() + 60
        while not self.socket.with_suffix(".ready").exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the test fork server did not start (exit {self.process.poll()})")
            time.sleep(0.05)

    @property
    def env(self) -> dict[str, str]:
        """The variables the executables need."""
        return {SOCKET_VARIABLE: str(self.socket)}

    def close(self) -> None:
        """Stop the server (its children finish on their own)."""
        self.process.terminate()
        self.process.wait(timeout=30)
        if self._short is not None:
            shutil.rmtree(self._short, ignore_errors=True)


def serve(path: str) -> None:
    """Import what a command needs, then fork a child per request until terminated."""
    import numba.core.registry

    import anonset.anonymizer
    import anonset.cli  # noqa: F401 - imported for the children

    numba.core.registry.cpu_target.target_context.refresh()  # what a process's first kernel call pays
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(path)
        server.listen(16)
        Path(path).with_suffix(".ready").touch()
        while True:
            conn, _ = server.accept()
            head, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
            size = int.from_bytes(head[:8], "big")
            data = head[8:]
            while len(data) < size:
                data += conn.recv(size - len(data))
            if os.fork() == 0:
                server.close()
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                code = _run(json.loads(data), fds)
                try:
                    conn.sendall(str(code).encode())
                finally:
                    os._exit(code)
            conn.close()
            for fd in fds:
                os.close(fd)


def _run(request: dict[str, object], fds: list[int]) -> int:
    """In the child: take the caller's descriptors, folder and environment, run the command; its exit code."""
    for target, fd in zip((0, 1, 2), fds, strict=True):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(str(request["cwd"]))
    os.environ.clear()
    os.environ.update(request["env"])  # type: ignore[call-overload]
    argv = list(request["argv"])  # type: ignore[call-overload]
    try:
        if request["kind"] == "anonset":
            from anonset.cli import main

            sys.argv = ["anonset", *argv]
            main(args=argv, prog_name="anonset")
        else:
            sys.argv = argv
            sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
            runpy.run_path(argv[0], run_name="__main__")
        code = 0
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            code = exc.code or 0
        else:
            print(exc.code, file=sys.stderr)
            code = 1
    except BaseException:  # what the interpreter prints for an uncaught exception, and its exit code
        traceback.print_exc()
        code = 1
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    return code


if __name__ == "__main__":
    serve(sys.argv[1])
