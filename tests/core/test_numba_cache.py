"""Numba's cache saves hold a lock (:mod:`anonset.core.numba_cache`): processes compiling at once cannot mix them up."""

from __future__ import annotations

import fcntl
import importlib.util
import threading
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

from anonset.core import numba_cache


def test_numba_finds_the_hook_of_the_installed_package() -> None:
    hooks = [ep.value for ep in entry_points(group="numba_extensions") if ep.name == "init"]
    assert "anonset.core.numba_cache:install" in hooks


def test_a_cache_save_waits_for_the_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A save blocks while another holder has the folder's lock, and completes once it is released."""
    numba_cache.install()
    module_path = tmp_path / "lock_probe.py"
    module_path.write_text("import numba\n\n\n@numba.njit(cache=True)\ndef double(x):\n    return 2 * x\n",
                           encoding="utf-8")
    spec = importlib.util.spec_from_file_location("lock_probe", module_path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    cache = tmp_path / "__pycache__"
    cache.mkdir(exist_ok=True)
    waiting = threading.Event()
    real_flock = fcntl.flock

    def flock(handle: Any, operation: int) -> None:
        waiting.set()
        real_flock(handle, operation)

    result: list[int] = []
    with open(cache / numba_cache.LOCK_NAME, "a") as held:
        real_flock(held, fcntl.LOCK_EX)
        monkeypatch.setattr(fcntl, "flock", flock)
        compiling = threading.Thread(target=lambda: result.append(module.double(21)))
        compiling.start()
        assert waiting.wait(timeout=60), "the save never asked for the lock"
        compiling.join(timeout=0.5)
        assert compiling.is_alive() and not list(cache.glob("lock_probe.double-*.nbi"))  # blocked: nothing saved
    compiling.join(timeout=60)
    assert result == [42]
    assert list(cache.glob("lock_probe.double-*.nbi")) and list(cache.glob("lock_probe.double-*.nbc"))


def test_a_save_without_a_lock_file_is_numbas_own(tmp_path: Path) -> None:
    """Where the lock file cannot be made (here a folder has its name), the version is saved all the same."""
    numba_cache.install()
    module_path = tmp_path / "lock_free.py"
    module_path.write_text("import numba\n\n\n@numba.njit(cache=True)\ndef triple(x):\n    return 3 * x\n",
                           encoding="utf-8")
    (tmp_path / "__pycache__" / numba_cache.LOCK_NAME).mkdir(parents=True)
    spec = importlib.util.spec_from_file_location("lock_free", module_path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.triple(14) == 42
    assert list((tmp_path / "__pycache__").glob("lock_free.triple-*.nbi"))
