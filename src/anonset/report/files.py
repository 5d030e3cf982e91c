"""Writing reports (HTML or JSON, by the file's suffix) and the input checksum a report records."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from anonset.report.html import render_html

__all__ = ["file_sha256", "report_format", "report_writer"]


def report_format(path: Path) -> str:
    """``json`` for a path ending in ``.json``, else ``html``."""
    return "json" if path.suffix.lower() == ".json" else "html"


def report_writer(report: Mapping[str, Any], path: Path) -> Callable[[Path], None]:
    """A writer of ``report`` in the format ``path`` asks for (for a staged output)."""
    text = (json.dumps(report, indent=2, default=_jsonable) + "\n" if report_format(path) == "json"
            else render_html(report))

    def _write(tmp: Path) -> None:
        tmp.write_text(text, encoding="utf-8")

    return _write


def file_sha256(path: Path, chunk: int = 1 << 22) -> str:
    """The SHA-256 of a file's bytes, in hex."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def _jsonable(value: Any) -> Any:
    """numpy scalars and other stragglers as plain JSON values."""
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)
