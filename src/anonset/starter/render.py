"""The starter config as commented YAML text.

The YAML text of the starter configuration, with the comments that explain each proposal.

The text opens with what the roles and the hierarchy builders mean, gives
each column its entry under a comment on its values and on what is proposed,
then the privacy proposal (:data:`K`, :data:`MAX_SUPPRESSION`, and commented
l-diversity and t-closeness lines for sensitive columns), the method and the
output, with a commented line showing how ``method.weights`` keeps some
quasi-identifiers more precise than others.

Keys and values written in YAML flow style, plain when YAML reads them back unchanged, else quoted.
"""

from __future__ import annotations

import functools
import json
import math
import re
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

import yaml

from anonset.starter.profile import ColumnProfile, K, format_number, proposed_k
from anonset.starter.propose import LATTICE_BUDGET, Proposal

__all__ = [
    "K",
    "MAX_SUPPRESSION",
    "UNPRINTABLE",
    "render_config",
    "yaml_flow",
    "yaml_key",
]


#: The privacy proposal (and :data:`~anonset.starter.profile.K`).
MAX_SUPPRESSION = 0.01


def render_config(proposals: Sequence[Proposal], rows: int, data: str, delimiter: str | None, stem: str,
                  method: str = "optimal", config_name: str = "CONFIG.yaml") -> str:
    """The YAML text of the configuration, with its comments (``config_name``: the file it is saved as)."""
    lines = _header(data, rows, len(proposals), config_name)
    source: dict[str, Any] = {"path": data}
    if delimiter is not None:
        source["delimiter"] = delimiter
    lines += _comment_lines("The data file, relative to this file's folder" + (
        ", and the delimiter anonset detected in it." if delimiter is not None else "."))
    lines.append(f"input: {yaml_flow(source)}")
    lines += ["", "attributes:"]
    for p in proposals:
        lines += _column_lines(p)
    lines += _privacy_lines(proposals, rows, method)
    lines += _method_lines(method, [p.profile.name for p in proposals if p.role == "quasi"])
    output = f"{stem}-anonymized.csv"
    lines += ["", _with_comment(f"output: {yaml_flow({'path': output})}", "relative to this file's folder"),
              _with_comment("seed: 0", "for the randomized methods"), ""]
    return "\n".join(lines)


def _header(data: str, rows: int, columns: int, config_name: str) -> list[str]:
    text = f"""\
Starter configuration for `anonset anonymize`, written by `anonset init` from {data}
({rows:,} records, {columns} columns). Check it, then run: anonset anonymize {config_name}

Every role below is a proposal from the values and the column names, not a decision:
review each column before you release anything. The roles:
  identifier   removed from the release (names, record numbers, free text)
  quasi        an attacker may know it (age, ZIP code, dates, sex): generalized until every
               combination of quasi-identifier values is shared by at least k records
  sensitive    must not be learned about anyone (a diagnosis, an income): released as it is,
               protected by l-diversity or t-closeness (privacy, below)
  insensitive  released as it is
A column missing from `attributes` is released as it is.

Hierarchies say how a quasi-identifier may be coarsened, level by level, up to * (hidden):
  intervals    numbers into wider and wider bands (30-34, 30-39, 20-39, *)
  dates        dates into month, year, decade (2021-03, 2021, 2020s, *)
  masking      codes lose characters from the right (47911, 4791*, 479**, *)
  flat         a value is released or replaced by * (categories: their values have no order
               anonset could group by). For groups in between (regions of countries), write a
               hierarchy file (leaf;level1;...;*); for ordered categories (education levels),
               use type: ordinal, order: [...] and hierarchy: {{builder: ordered, fanouts: [2]}}.
The method picks for each quasi-identifier the level that loses the least information
while meeting `privacy`. Every key is described in docs/config.md."""
    return [f"# {line}".rstrip() for line in text.splitlines()] + [""]


def _column_lines(p: Proposal) -> list[str]:
    prof = p.profile
    out = [""]
    comments = [_describe(prof, show_example=p.role != "identifier")]
    if p.warning:
        comments.append(f"WARNING: {p.warning}")
    if p.shape:
        comments.append(p.shape)
    comments += list(p.notes)
    for comment in comments:
        out += _comment_lines(comment, "  ")
    out.append(f"  {yaml_key(prof.name)}: {yaml_flow(p.entry)}")
    return out


def _describe(p: ColumnProfile, show_example: bool) -> str:
    if p.kind == "other":
        return f"{p.name}: {p.arrow_type} in {p.rows:,} records; values not read."
    kind = {"numeric": "numeric", "date": "date", "code": "code", "categorical": "categorical (text)",
            "constant": "one value", "empty": "empty"}[p.kind]
    parts = [f"{p.name}: {kind}, {p.distinct:,} distinct value{'s' if p.distinct != 1 else ''} in {p.rows:,}"
             f" records"]
    if p.missing:
        markers = f" (empty or {', '.join(p.markers)})" if p.markers else ""
        parts.append(f"{p.missing:,} missing{markers}")
    if show_example and p.kind in ("numeric", "date") and p.low is not None:
        parts.append(f"from {p.low.strip()} to {(p.high or '').strip()}")
    elif show_example and p.example is not None:
        parts.append(f"most frequent: {_shown(p.example)}")
    elif not show_example:
        parts.append("values not shown here")
    return "; ".join(parts) + "."


def _shown(value: str, limit: int = 40) -> str:
    text = value if len(value) <= limit else value[: limit - 3] + "..."
    return json.dumps(text, ensure_ascii=False)


def _privacy_lines(proposals: Sequence[Proposal], rows: int, method: str) -> list[str]:
    k = proposed_k(rows)
    suppression = MAX_SUPPRESSION if method == "optimal" else 0
    lines = ["", "privacy:",
             _with_comment(f"  k: {k}", f"every combination of quasi-identifier values: at least {k} records"),
             _with_comment(f"  max_suppression: {suppression}",
                           "up to 1% of the records may be suppressed instead" if suppression
                           else f"{method} suppresses no record")]
    sensitive = [p for p in proposals if p.role == "sensitive" and p.profile.distinct >= 2]
    if not sensitive:
        return lines
    names = ", ".join(p.profile.name for p in sensitive)
    several = len(sensitive) > 1
    lines += _comment_lines(
        f"The sensitive column{'s' if several else ''} {names} {'are' if several else 'is'} released as"
        f" {'they are' if several else 'it is'}: all the records of one group could share one value, and then"
        " everybody in the group is known to have it. To prevent that, uncomment one of these (l-diversity:"
        " at least l different values in every group; t-closeness: every group's values distributed like the"
        " whole table's, within t):", "  ")
    l_entries = [{"attribute": p.profile.name, "l": min(3, p.profile.distinct), "variant": "distinct"}
                 for p in sensitive]
    t_entries = [{"attribute": p.profile.name, "t": 0.2, "distance": "ordered" if p.type == "numeric" else "equal"}
                 for p in sensitive]
    lines.append(f"  # l_diversity: {yaml_flow(l_entries[0] if not several else l_entries)}")
    lines.append(f"  # t_closeness: {yaml_flow(t_entries[0] if not several else t_entries)}")
    return lines


def _method_lines(method: str, quasi: Sequence[str]) -> list[str]:
    from anonset.methods import registry

    others = [name for name in registry.names() if name != method]
    entry: dict[str, Any] = {"name": method, "metric": "loss"} if method == "optimal" else {"name": method}
    if method == "optimal":
        lines = ["", _with_comment(f"method: {yaml_flow(entry)}", "the least information loss over every"
                                   " generalization")]
    else:
        lines = [""] + _comment_lines(
            f"Mondrian, because optimal would have to search more than {LATTICE_BUDGET:,} candidate"
            " generalizations of these quasi-identifiers. It splits the records into classes of at least k and"
            " releases each class's range of numbers and dates (other values through their hierarchy); it"
            " suppresses no record.") + [f"method: {yaml_flow(entry)}"]
    if quasi:
        lines += _comment_lines(
            "Every quasi-identifier counts the same. To keep some more precise than others, weigh them:"
            " method.weights gives each a weight (a number >= 0; unnamed ones weigh 1), and the information"
            f" a quasi-identifier loses counts as many times as its weight, e.g. {quasi[0]} twice:")
        lines.append(f"# method: {yaml_flow({**entry, 'weights': {quasi[0]: 2}})}")
    return lines + _comment_lines(f"Other methods: {', '.join(others)} (`anonset methods` describes them).")


def _comment_lines(text: str, indent: str = "") -> list[str]:
    """``text`` as comment lines of at most about 100 characters (anything YAML could read as a break: a blank)."""
    clean = UNPRINTABLE.sub(" ", text)
    return [f"{indent}# {line}" for line in textwrap.wrap(clean, 100 - len(indent), break_long_words=False,
                                                           break_on_hyphens=False)]


def _with_comment(code: str, comment: str, column: int = 40) -> str:
    pad = max(column - len(code), 2)
    return f"{code}{' ' * pad}# {comment}"


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
