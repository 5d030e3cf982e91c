"""Keys and values written in YAML flow style, plain when YAML reads them back unchanged, else quoted."""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Mapping
from typing import Any

import yaml

from anonset.starter.number_format import format_number

__all__ = ["UNPRINTABLE", "yaml_flow", "yaml_key"]

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-/]*")


def yaml_key(name: str) -> str:
    """A column name as a mapping key: plain when YAML reads it back unchanged, else double-quoted."""
    return _text(name)


@functools.lru_cache(maxsize=1024)
def _text(value: str) -> str:
    """A string for YAML: plain when YAML reads it back unchanged, else double-quoted with JSON's escapes.

    Cached: a config repeats its keys and roles once per column, and each
    new text is read by YAML twice.
    """
    if _PLAIN.fullmatch(value) and _load(f"{{k: {value}}}") == {"k": value} and _load(f"{value}: 1") == {value: 1}:
        return value
    return json.dumps(value, ensure_ascii=bool(UNPRINTABLE.search(value)))


def _load(text: str) -> object:
    """``text`` read by YAML's safe loader (libyaml's when PyYAML has it: a plain scalar reads the same)."""
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


#: Characters YAML does not allow unescaped, or reads as a line break.
UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")


def yaml_flow(value: Any) -> str:
    """A value in YAML flow style: ``{builder: intervals, widths: [5, 10]}``."""
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_text(str(k))}: {yaml_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(yaml_flow(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_number(value) if value == math.floor(value) else repr(value)
    return _text(str(value))
