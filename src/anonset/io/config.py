"""The YAML run configuration: parsing and validation with one-line errors.

A configuration names the input, the attributes (role, type, hierarchy file or
builder, missing-value policy), the privacy requirements, the method and
metric, and the output.  Relative paths are relative to the config file.
Every key is documented in docs/config.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from anonset.dataset import AttributeSpec, Dataset
from anonset.errors import ConfigError
from anonset.hierarchy import Hierarchy, read_hierarchy
from anonset.hierarchy.builders import build_hierarchy
from anonset.io.tables import read_table
from anonset.metrics.base import Metric
from anonset.metrics.research_value import DoNotMix, KeepBoundary, ResearchValue
from anonset.privacy import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    PrivacyModel,
    RecursiveCLDiversity,
    Requirements,
    SquaredErrorDiversity,
    TCloseness,
)

__all__ = ["RunConfig", "load_config", "parse_config", "requirements_from_config"]

TOP_KEYS = {"input", "attributes", "privacy", "method", "output", "seed", "research_value"}
METHOD_KEYS = {"name", "metric", "weights", "assume_practical_monotonicity", "subset_size", "success_limit",
               "max_frequency_sets"}
OPTION_KEYS = ("assume_practical_monotonicity", "subset_size", "success_limit", "max_frequency_sets")
ATTRIBUTE_KEYS = {"role", "type", "hierarchy", "missing", "order"}
PRIVACY_KEYS = {"k", "l_diversity", "t_closeness", "squared_error_diversity", "max_suppression"}


@dataclass
class RunConfig:
    """A parsed configuration."""

    path: Path
    input_path: Path
    delimiter: str | None
    input_format: str | None
    attributes: dict[str, dict[str, Any]]
    requirements: Requirements
    method: str
    metric: str
    weights: dict[str, float] | None
    output_path: Path | None
    output_delimiter: str | None
    drop_suppressed: bool
    seed: int
    method_options: dict[str, Any] = field(default_factory=dict)
    metric_object: Metric | None = None
    raw: dict[str, Any] = field(default_factory=dict)

    def load_dataset(self) -> Dataset:
        """Read the input and build the Dataset (hierarchies from files or builders)."""
        table = read_table(self.input_path, self.delimiter, self.input_format)
        specs = {name: _attribute_spec(self, name, entry, table) for name, entry in self.attributes.items()}
        return Dataset(table, specs, source=str(self.input_path))


def load_config(path: str | Path) -> RunConfig:
    """Read and validate a YAML configuration file."""
    p = Path(path)
    if not p.exists():
        raise ConfigError(f"config file {p} not found; check the path")
    try:
        raw = yaml.safe_load(p.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{p}: YAML syntax error{where}: {problem}; fix the file's syntax") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{p}: not valid UTF-8; save the config as UTF-8") from exc
    return parse_config(raw, p)


def parse_config(raw: Any, path: Path) -> RunConfig:
    """Validate a configuration mapping (``path`` anchors relative paths and messages)."""
    where = str(path)
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where}: the config must be a mapping with keys input, attributes, privacy, method")
    _unknown(where, "", raw, TOP_KEYS)
    base = path.parent
    inp = raw.get("input")
    if isinstance(inp, str):
        inp = {"path": inp}
    if not isinstance(inp, Mapping) or "path" not in inp:
        raise ConfigError(f"{where}: `input` needs a `path`, e.g. input: {{path: data.csv, delimiter: ';'}}")
    _unknown(where, "input.", inp, {"path", "delimiter", "format"})
    attributes = raw.get("attributes")
    if not isinstance(attributes, Mapping) or not attributes:
        raise ConfigError(f"{where}: `attributes` must map column names to {{role: ..., ...}}")
    attrs: dict[str, dict[str, Any]] = {}
    for name, entry in attributes.items():
        if entry is None:
            entry = {}
        if not isinstance(entry, Mapping):
            raise ConfigError(f"{where}: attributes.{name} must be a mapping such as {{role: quasi}}")
        _unknown(where, f"attributes.{name}.", entry, ATTRIBUTE_KEYS)
        attrs[str(name)] = dict(entry)
    requirements = requirements_from_config(raw.get("privacy"), where)
    method = raw.get("method", {"name": "optimal"})
    if isinstance(method, str):
        method = {"name": method}
    if not isinstance(method, Mapping):
        raise ConfigError(f"{where}: `method` must be a mapping such as {{name: optimal, metric: loss}}")
    _unknown(where, "method.", method, METHOD_KEYS)
    options = {key: method[key] for key in OPTION_KEYS if key in method}
    if not isinstance(options.get("assume_practical_monotonicity", False), bool):
        raise ConfigError(f"{where}: method.assume_practical_monotonicity must be true or false")
    for key in ("subset_size", "success_limit", "max_frequency_sets"):
        value = options.get(key, 1)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(f"{where}: method.{key} must be an integer >= 1; got {value!r}")
    weights = method.get("weights")
    if weights is not None and not isinstance(weights, Mapping):
        raise ConfigError(f"{where}: method.weights must map quasi-identifiers to numbers")
    out = raw.get("output") or {}
    if isinstance(out, str):
        out = {"path": out}
    if not isinstance(out, Mapping):
        raise ConfigError(f"{where}: `output` must be a mapping such as {{path: released.csv}}")
    _unknown(where, "output.", out, {"path", "delimiter", "suppressed"})
    suppressed = out.get("suppressed", "mark")
    if suppressed not in ("mark", "drop"):
        raise ConfigError(f"{where}: output.suppressed must be mark or drop; got {suppressed!r}")
    seed = raw.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ConfigError(f"{where}: seed must be an integer; got {seed!r}")
    from anonset.anonymizer import METHODS, RESEARCH_VALUE_METHODS
    from anonset.metrics import METRICS

    name = str(method.get("name", "optimal"))
    if name not in METHODS:
        raise ConfigError(f"{where}: unknown method {name!r}; use one of {' | '.join(METHODS)}")
    metric = str(method.get("metric", "research_value" if name in RESEARCH_VALUE_METHODS else "loss"))
    if metric not in METRICS:
        raise ConfigError(f"{where}: unknown metric {metric!r}; use one of {' | '.join(METRICS)}")
    if name in RESEARCH_VALUE_METHODS and metric != "research_value":
        raise ConfigError(f"{where}: method {name} optimizes research value; drop method.metric or set it to"
                          " research_value")
    metric_object: Metric | None = None
    if metric == "research_value":
        metric_object = research_value_from_config(raw.get("research_value") or {}, where)
    elif raw.get("research_value") is not None:
        raise ConfigError(f"{where}: a research_value section is used only by the rv-* methods or"
                          " metric: research_value; remove it or change the method")
    return RunConfig(
        path=path, input_path=_resolve(base, inp["path"]), delimiter=inp.get("delimiter"),
        input_format=inp.get("format"), attributes=attrs, requirements=requirements, method=name, metric=metric,
        weights={str(k): float(v) for k, v in weights.items()} if weights else None,
        output_path=_resolve(base, out["path"]) if out.get("path") else None,
        output_delimiter=out.get("delimiter"), drop_suppressed=suppressed == "drop", seed=seed,
        method_options=options, metric_object=metric_object, raw=dict(raw),
    )


def requirements_from_config(privacy: Any, where: str = "config") -> Requirements:
    """Build the Requirements from a ``privacy:`` mapping."""
    try:
        return _requirements(privacy, where)
    except ConfigError as exc:
        if str(exc).startswith(f"{where}:"):
            raise
        # a model's parameter check (k, l, t, max_suppression): name the config file too
        raise ConfigError(f"{where}: {exc}") from exc


def _requirements(privacy: Any, where: str) -> Requirements:
    if not isinstance(privacy, Mapping):
        raise ConfigError(f"{where}: `privacy` must be a mapping with at least `k`, e.g. privacy: {{k: 5}}")
    _unknown(where, "privacy.", privacy, PRIVACY_KEYS)
    models: list[PrivacyModel] = []
    if "k" in privacy:
        models.append(KAnonymity(privacy["k"]))
    for entry in _entries(privacy.get("l_diversity"), where, "l_diversity"):
        _unknown(where, "privacy.l_diversity.", entry, {"attribute", "l", "variant", "c"})
        attribute, l_value = _need(entry, where, "l_diversity", "attribute"), _need(entry, where, "l_diversity", "l")
        variant = entry.get("variant", "distinct")
        if variant == "distinct":
            models.append(DistinctLDiversity(attribute, l_value))
        elif variant == "entropy":
            models.append(EntropyLDiversity(attribute, l_value))
        elif variant == "recursive":
            models.append(RecursiveCLDiversity(attribute, l_value, _need(entry, where, "l_diversity", "c")))
        else:
            raise ConfigError(f"{where}: privacy.l_diversity.variant {variant!r}; use distinct | entropy | recursive")
    for entry in _entries(privacy.get("t_closeness"), where, "t_closeness"):
        _unknown(where, "privacy.t_closeness.", entry, {"attribute", "t", "distance"})
        models.append(TCloseness(_need(entry, where, "t_closeness", "attribute"),
                                 _need(entry, where, "t_closeness", "t"), entry.get("distance", "equal")))
    for entry in _entries(privacy.get("squared_error_diversity"), where, "squared_error_diversity"):
        _unknown(where, "privacy.squared_error_diversity.", entry, {"attribute", "error"})
        models.append(SquaredErrorDiversity(_need(entry, where, "squared_error_diversity", "attribute"),
                                            _need(entry, where, "squared_error_diversity", "error")))
    return Requirements(models, privacy.get("max_suppression", 0.0))


def research_value_from_config(section: Any, where: str = "config") -> ResearchValue:
    """Build the ResearchValue metric from a ``research_value:`` mapping (weights, rules, levels)."""
    if not isinstance(section, Mapping):
        raise ConfigError(f"{where}: research_value must be a mapping with weights, rules and/or levels")
    _unknown(where, "research_value.", section, {"weights", "rules", "levels"})
    weights = section.get("weights", "auto")
    if not (weights == "auto" or isinstance(weights, Mapping)):
        raise ConfigError(f"{where}: research_value.weights must be auto or a mapping attribute -> weight")
    if isinstance(weights, Mapping):
        for attribute, w in weights.items():
            if isinstance(w, bool) or not isinstance(w, (int, float)) or w < 0:
                raise ConfigError(f"{where}: research_value.weights.{attribute} must be a number >= 0; got {w!r}")
        weights = {str(a): float(w) for a, w in weights.items()}
    rules: dict[str, list[DoNotMix | KeepBoundary]] = {}
    for attribute, entries in (section.get("rules") or {}).items():
        if not isinstance(entries, list):
            raise ConfigError(f"{where}: research_value.rules.{attribute} must be a list of rules")
        parsed: list[DoNotMix | KeepBoundary] = []
        for entry in entries:
            if not isinstance(entry, Mapping):
                raise ConfigError(f"{where}: research_value.rules.{attribute}: each rule is a mapping such as"
                                  " {do_not_mix: [a, b], importance: 5} or {keep_boundary: 65, importance: 10}")
            _unknown(where, f"research_value.rules.{attribute}.", entry, {"do_not_mix", "keep_boundary", "importance"})
            importance = entry.get("importance", 1)
            if isinstance(importance, bool) or not isinstance(importance, (int, float)) or importance < 0:
                raise ConfigError(f"{where}: research_value.rules.{attribute}: importance must be a number >= 0")
            if ("do_not_mix" in entry) == ("keep_boundary" in entry):
                raise ConfigError(f"{where}: research_value.rules.{attribute}: give exactly one of do_not_mix"
                                  " or keep_boundary")
            if "do_not_mix" in entry:
                values = entry["do_not_mix"]
                if not isinstance(values, list):
                    raise ConfigError(f"{where}: research_value.rules.{attribute}.do_not_mix must be a list of values")
                parsed.append(DoNotMix(tuple(str(v) for v in values), float(importance)))
            else:
                at = entry["keep_boundary"]
                if isinstance(at, bool) or not isinstance(at, (int, float)):
                    raise ConfigError(f"{where}: research_value.rules.{attribute}.keep_boundary must be a number")
                parsed.append(KeepBoundary(float(at), float(importance)))
        rules[str(attribute)] = parsed
    levels: dict[str, list[float]] = {}
    for attribute, values in (section.get("levels") or {}).items():
        if not isinstance(values, list) or not all(isinstance(v, (int, float)) for v in values):
            raise ConfigError(f"{where}: research_value.levels.{attribute} must be a list of numbers, one per level")
        levels[str(attribute)] = [float(v) for v in values]
    return ResearchValue(weights=weights, rules=rules, levels=levels)


def _entries(value: Any, where: str, key: str) -> list[Mapping[str, Any]]:
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    for item in items:
        if not isinstance(item, Mapping):
            raise ConfigError(f"{where}: privacy.{key} must be a mapping (or a list of them)")
    return items


def _need(entry: Mapping[str, Any], where: str, key: str, name: str) -> Any:
    if name not in entry:
        raise ConfigError(f"{where}: privacy.{key} needs `{name}`")
    return entry[name]


def _unknown(where: str, prefix: str, mapping: Mapping[str, Any], allowed: set[str]) -> None:
    for key in mapping:
        if key not in allowed:
            raise ConfigError(
                f"{where}: unknown key {prefix}{key}; allowed here: {', '.join(sorted(allowed))}"
            )


def _resolve(base: Path, value: Any) -> Path:
    p = Path(str(value))
    return p if p.is_absolute() else base / p


def _attribute_spec(config: RunConfig, name: str, entry: Mapping[str, Any], table: pd.DataFrame) -> AttributeSpec:
    where = f"{config.path}, attributes.{name}"
    missing = entry.get("missing")
    markers: tuple[str, ...] = ("",)
    policy = "value"
    if missing == "error":
        policy = "error"
    elif isinstance(missing, list):
        markers = tuple(str(m) for m in missing)
    elif missing is not None:
        raise ConfigError(f"{where}: `missing` must be a list of markers (e.g. ['', '?']) or 'error'")
    hierarchy: Hierarchy | None = None
    spec_h = entry.get("hierarchy")
    if isinstance(spec_h, str):
        hierarchy = read_hierarchy(_resolve(config.path.parent, spec_h), name=name)
    elif isinstance(spec_h, Mapping):
        if name not in table.columns:
            raise ConfigError(f"{where}: column {name!r} is not in {config.input_path}")
        values = pd.unique(table[name].astype(str).to_numpy())
        values = [v for v in values if v not in markers]
        hierarchy = build_hierarchy(name, dict(spec_h), values)
    elif spec_h is not None:
        raise ConfigError(f"{where}: `hierarchy` must be a file path or a builder mapping such as {{builder: flat}}")
    order = entry.get("order")
    if order is not None and not isinstance(order, list):
        raise ConfigError(f"{where}: `order` must be a list of the values in order")
    return AttributeSpec(
        role=entry.get("role", "insensitive"), type=entry.get("type", "categorical"), hierarchy=hierarchy,
        missing=markers, missing_policy=policy, order=tuple(str(v) for v in order) if order else None,
    )


