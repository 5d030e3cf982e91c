"""The YAML run configuration: parsing and validation with one-line errors, and nothing else.

A configuration names the input, the attributes (role, type, hierarchy file or
builder, missing-value policy), the privacy requirements, the method and
metric, the engine and the output.  Relative paths are relative to the config
file.  Every key is documented in docs/config.md.

:class:`RunConfig` is a parsed, typed description of a run: it opens no file,
database or session.  The input is one tagged value (:data:`InputSpec`): a
CSV or Parquet file on this machine (:class:`FileInput`), a file Spark reads
from a URL (:class:`UrlInput`), a table in PostgreSQL (:class:`SqlInput`) or
a table of the Spark catalog (:class:`CatalogInput`); the output likewise
(:data:`OutputSpec`).  Carrying a run out (reading, searching, writing) is
the run layer's job (:mod:`anonset.runs`).  Messages never show a database
password.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from anonset.engine.sql.base import redact_url, table_parts
from anonset.errors import ConfigError, DataError
from anonset.io.delimiters import check_delimiter
from anonset.io.table_file import TableFile
from anonset.privacy import (
    BetaLikeness,
    DeltaDisclosure,
    DeltaPresence,
    DifferentialPrivacy,
    KAnonymity,
    KMap,
    PopulationKMap,
    PrivacyModel,
    Requirements,
    SquaredErrorDiversity,
    TCloseness,
)
from anonset.privacy.ldiversity import l_diversity
from anonset.privacy.risk_models import AverageRisk, HighestRisk, PopulationUniqueness, SampleUniqueness

if TYPE_CHECKING:
    from anonset.engine.sql.base import TableName
    from anonset.metrics.base import Metric
    from anonset.metrics.research_value import DoNotMix, KeepBoundary, ResearchValue

__all__ = [
    "ENGINES",
    "ENGINE_KINDS",
    "CatalogInput",
    "EngineKind",
    "FileInput",
    "FileOutput",
    "InputSpec",
    "OutputSpec",
    "RunConfig",
    "SparkSettings",
    "SqlInput",
    "TableOutput",
    "UrlInput",
    "UrlOutput",
    "load_config",
    "parse_config",
    "requirements_from_config",
]

TOP_KEYS = {"input", "attributes", "privacy", "method", "output", "seed", "research_value", "engine", "evaluation",
            "spark", "duckdb", "publisher_payout", "risk", "perturbation"}
#: Keys of ``risk.suda2`` (what ``anonset risk`` searches for minimal sample uniques).
SUDA2_KEYS = {"attributes", "max_size", "dis_fraction"}
#: Keys of the ``publisher_payout`` section (the game's costs, with ``metric: publisher_payout``).
PAYOUT_KEYS = {"publisher_benefit", "publisher_loss", "adversary_gain", "adversary_cost", "attacker"}
EVALUATION_KEYS = {"target", "task", "models", "folds", "test_fraction", "predicates", "queries", "patterns"}
#: Keys of ``evaluation.queries`` (aggregate-query accuracy of a release fitted on all records).
QUERY_KEYS = {"count", "dimension", "selectivity", "seed", "threshold"}
#: Keys of ``evaluation.patterns`` (pattern survival of a release fitted on all records).
PATTERN_KEYS = {"target", "task", "test_fraction", "depth", "seed"}


@dataclass(frozen=True)
class EngineKind:
    """What a configuration may say to one engine, declared once: its input, its URLs, its section.

    ``reads_sql``: it searches a table in PostgreSQL (``input.sql``) and
    nothing else; otherwise it searches a file.  ``remote``: it reads and
    writes URLs (``hdfs://``, ``s3a://``) and catalog tables, and writes the
    release itself at ``output.path``.  ``section``: the top-level key of its
    settings, read by :data:`_SECTION_READERS`.  ``title``: its name in
    prose; ``words``: said after its name where messages list engines.
    """

    name: str
    title: str
    reads_sql: bool = False
    remote: bool = False
    section: str | None = None
    words: str = ""


#: Every engine a configuration may name (the top-level ``engine`` key); the first that reads an input is its default.
ENGINE_KINDS: dict[str, EngineKind] = {kind.name: kind for kind in (
    EngineKind("numpy", "numpy", words=" (in memory)"),
    EngineKind("duckdb", "DuckDB", section="duckdb"),
    EngineKind("postgresql", "PostgreSQL", reads_sql=True),
    EngineKind("spark", "Spark", remote=True, section="spark"),
)}
#: Values of the top-level ``engine`` key.
ENGINES = tuple(ENGINE_KINDS)
#: Keys of the ``spark`` section (``engine: spark``).
SPARK_KEYS = {"master", "timeout", "options"}
ATTRIBUTE_KEYS = {"role", "type", "hierarchy", "missing", "order", "min_level"}
PRIVACY_KEYS = {"k", "l_diversity", "t_closeness", "squared_error_diversity", "max_suppression", "average_risk",
                "highest_risk", "sample_uniqueness", "population_uniqueness", "k_map", "beta_likeness",
                "delta_disclosure", "differential_privacy", "delta_presence"}
#: Keys of ``privacy.k_map``: estimated k-map, or ``k`` and ``population`` (a table file).
KMAP_KEYS = {"k", "population_size", "sampling_fraction", "estimator", "significance", "population"}
#: Keys of ``privacy.population_uniqueness``.
POPULATION_KEYS = {"max", "sampling_fraction", "population_size", "model"}


@dataclass(frozen=True)
class SparkSettings:
    """The ``spark`` section: the master URL, seconds to wait for a session, further Spark settings."""

    master: str = "local[*]"
    timeout: float = 120.0
    options: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class FileInput:
    """``input.path``: a CSV or Parquet file on this machine (``delimiter``: as given, else sniffed)."""

    path: Path
    delimiter: str | None = None
    format: str | None = None

    @property
    def location(self) -> str:
        """The input as messages name it: its path."""
        return str(self.path)


@dataclass(frozen=True)
class UrlInput:
    """``input.path`` as a URL Spark reads (``hdfs://...``, ``s3a://...``)."""

    uri: str
    delimiter: str | None = None
    format: str | None = None

    @property
    def location(self) -> str:
        """The input as messages and Spark name it: its URL."""
        return self.uri


@dataclass(frozen=True)
class SqlInput:
    """``input.sql``: a table in PostgreSQL.

    The URL may hold a password; it is left out of ``repr`` and shown only
    through :attr:`shown_url` (password replaced by ``***``).
    """

    url: str = field(repr=False)
    table: TableName

    @property
    def shown_url(self) -> str:
        """The URL with any password replaced by ``***``."""
        return redact_url(self.url)

    @property
    def location(self) -> str:
        """The input as messages name it: the database (no password) and the table."""
        return f"{self.shown_url}, table {'.'.join(table_parts(self.table))}"


@dataclass(frozen=True)
class CatalogInput:
    """``input.table``: a table of the Spark catalog, read by name."""

    table: str

    @property
    def location(self) -> str:
        """The input as messages and Spark name it: the table's name."""
        return self.table


#: What a run reads: exactly one of these.
InputSpec = FileInput | UrlInput | SqlInput | CatalogInput


@dataclass(frozen=True)
class FileOutput:
    """``output.path``: a file on this machine (``path`` None: nothing is written); ``delimiter`` of a CSV release."""

    path: Path | None = None
    delimiter: str | None = None


@dataclass(frozen=True)
class UrlOutput:
    """``output.path`` as a URL a Spark run writes its release folder to."""

    uri: str
    delimiter: str | None = None


@dataclass(frozen=True)
class TableOutput:
    """``output.table``: a new table in the database of a PostgreSQL input (``replace`` an existing one)."""

    table: TableName
    replace: bool = False


#: Where a run writes its release: exactly one of these.
OutputSpec = FileOutput | UrlOutput | TableOutput


@dataclass(frozen=True)
class RunConfig:
    """A parsed configuration: what a run reads, how it anonymizes, where it writes.

    ``input`` and ``output`` are tagged values (:data:`InputSpec`,
    :data:`OutputSpec`); ``engine`` is one of :data:`ENGINES`.  Nothing here
    opens a file or a connection: :mod:`anonset.runs` carries the run out.
    """

    path: Path
    input: InputSpec
    output: OutputSpec
    attributes: dict[str, dict[str, Any]]
    requirements: Requirements
    method: str
    metric: str
    weights: dict[str, float] | None
    drop_suppressed: bool
    seed: int
    method_options: dict[str, Any] = field(default_factory=dict)
    metric_object: Metric | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)  # may hold a database password
    engine: str = "numpy"
    evaluation: dict[str, Any] = field(default_factory=dict)
    spark: SparkSettings | None = None
    duckdb: dict[str, Any] = field(default_factory=dict)
    #: Settings of ``anonset risk``: ``{"suda2": {"attributes": (...), "max_size": n, "dis_fraction": f}}``.
    risk: dict[str, Any] = field(default_factory=dict)
    #: The ``perturbation`` list as given (checked: :func:`anonset.release.perturbation.treatments`).
    perturbation: tuple[dict[str, Any], ...] = ()

    @property
    def input_file(self) -> Path | None:
        """The input's path when it is a file on this machine, else None."""
        return self.input.path if isinstance(self.input, FileInput) else None

    def quasi_columns(self) -> list[str]:
        """The columns the config gives role quasi, in config order."""
        return [name for name, entry in self.attributes.items() if entry.get("role") == "quasi"]

    def weight_column(self) -> str | None:
        """The column the config gives role weight (a survey's sampling weight), or None."""
        return next((name for name, entry in self.attributes.items() if entry.get("role") == "weight"), None)

    def missing_markers(self) -> dict[str, tuple[str, ...]]:
        """Each configured attribute's missing markers (``missing:`` as a list; default the empty cell)."""
        return {name: tuple(str(m) for m in entry["missing"]) if isinstance(entry.get("missing"), list) else ("",)
                for name, entry in self.attributes.items()}

    def input_files(self) -> dict[str, Path]:
        """Every file the run reads, by what it is: the config, the input table, the hierarchy and population files."""
        files: dict[str, Path] = {"config": self.path}
        if self.input_file is not None:
            files["input table"] = self.input_file
        for name, entry in self.attributes.items():
            if isinstance(entry.get("hierarchy"), str):
                files[f"hierarchy file of {name!r}"] = _resolve(self.path.parent, entry["hierarchy"])
        for model in self.requirements.models:
            source = getattr(model, "source", None)
            if isinstance(source, TableFile):
                files[f"population table of {model.describe()}"] = source.path
        return files


def load_config(path: str | Path) -> RunConfig:
    """Read and validate a YAML configuration file."""
    p = Path(path)
    if not p.exists():
        raise ConfigError(f"config file {p} not found; check the path")
    if p.is_dir():
        raise ConfigError(f"{p}: is a directory; give the path of the YAML config file")
    try:
        with open(p, encoding="utf-8") as fh:
            raw = yaml.load(fh, Loader=_UniqueKeyLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{p}: YAML syntax error{where}: {problem}; fix the file's syntax") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{p}: not valid UTF-8; save the config as UTF-8") from exc
    return parse_config(raw, p)


if TYPE_CHECKING:
    class _SafeLoader:
        """For the type checker, the part of ``yaml.SafeLoader`` used here (PyYAML ships no type information)."""

        name: str

        def construct_object(self, node: Any, deep: bool = False) -> Any: ...

        def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]: ...
else:
    _SafeLoader = yaml.SafeLoader


class _UniqueKeyLoader(_SafeLoader):
    """YAML's safe loader, refusing a key given twice in one mapping (YAML would keep the last silently)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                mark = key_node.start_mark
                raise ConfigError(f"{self.name}: key {key!r} appears twice in one mapping (line {mark.line + 1});"
                                  " keep one of them")
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


# YAML 1.1 (PyYAML) reads 1e-5 and 2.5e3 as text: a float needs a dot and a signed exponent there. Read every
# number with an exponent as a number, as YAML 1.2 does (``delta: 1e-5``).
_UniqueKeyLoader.add_implicit_resolver(  # type: ignore[attr-defined]
    "tag:yaml.org,2002:float", re.compile(r"^[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789."))


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
    if isinstance(inp, Mapping) and sum(key in inp for key in ("path", "sql", "table")) > 1:
        raise ConfigError(f"{where}: `input` has more than one of `path`, `sql` and `table`; give one: a file, a"
                          " table in PostgreSQL (sql) or a Spark catalog table (table)")
    if not isinstance(inp, Mapping) or ("path" not in inp and "sql" not in inp and "table" not in inp):
        raise ConfigError(f"{where}: `input` needs a `path`, e.g. input: {{path: data.csv, delimiter: ';'}},"
                          " or `sql` for a table in PostgreSQL, e.g. input: {sql: {url:"
                          " 'postgresql://user@host:5432/db', table: schema.patients}}")
    sql: SqlInput | None = None
    spark_table: str | None = None
    if "sql" in inp:
        _unknown(where, "input.", inp, {"sql"})
        sql = _sql_input(inp["sql"], where)
    elif "table" in inp:
        _unknown(where, "input.", inp, {"table"})
        if not isinstance(inp["table"], str) or not inp["table"].strip():
            raise ConfigError(f"{where}: input.table must name a Spark catalog table such as warehouse.patients")
        spark_table = inp["table"]
    else:
        _unknown(where, "input.", inp, {"path", "delimiter", "format"})
        for key in ("delimiter", "format"):
            if inp.get(key) is not None and not isinstance(inp[key], str):
                raise ConfigError(f"{where}: input.{key} must be a string; got {inp[key]!r}")
    kind = _engine(raw, sql, where)
    settings = _engine_settings(raw, kind, spark_table, where)
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
    weight_columns = [n for n, e in attrs.items() if e.get("role") == "weight"]
    if len(weight_columns) > 1:
        raise ConfigError(f"{where}: attributes {weight_columns[0]} and {weight_columns[1]} both have role weight; a"
                          " table has one sampling weight: give the other role insensitive")
    method = raw.get("method", {"name": "optimal"})
    if isinstance(method, str):
        method = {"name": method}
    if not isinstance(method, Mapping):
        raise ConfigError(f"{where}: `method` must be a mapping such as {{name: optimal, metric: loss}}")
    from anonset.methods import registry

    name = method.get("name", "optimal")
    try:
        spec = registry.get(name)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    _unknown(where, "method.", method, {"name", "metric", "weights", *(o.name for o in spec.options)})
    options = {o.name: method[o.name] for o in spec.options if o.name in method}
    try:
        spec.check_options(options)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    weights = method.get("weights")
    if weights is not None and not isinstance(weights, Mapping):
        raise ConfigError(f"{where}: method.weights must map quasi-identifiers to numbers")
    out = raw.get("output") or {}
    if isinstance(out, str):
        out = {"path": out}
    if not isinstance(out, Mapping):
        raise ConfigError(f"{where}: `output` must be a mapping such as {{path: released.csv}}"
                          + (" (or {table: NAME} for input.sql)" if sql is not None else ""))
    output_table, output_replace = _output_table(out, sql, where)
    if kind.remote and not out.get("path"):
        raise ConfigError(f"{where}: engine: {kind.name} writes the release with {kind.title}; give output.path, a"
                          " folder (or URL) that does not exist yet, e.g. output: {path: patients-anonymized.csv}")
    if out.get("delimiter") is not None:
        check_delimiter(out["delimiter"], f"{where}: output.delimiter")
    if inp.get("delimiter") is not None:
        check_delimiter(inp["delimiter"], f"{where}: input.delimiter")
    suppressed = out.get("suppressed", "mark")
    if suppressed not in ("mark", "drop"):
        raise ConfigError(f"{where}: output.suppressed must be mark or drop; got {suppressed!r}")
    seed = raw.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ConfigError(f"{where}: seed must be an integer; got {seed!r}")
    from anonset.methods.base import Family
    from anonset.metrics import METRICS, SEARCH_METRICS

    if spec.family is Family.FRONT:
        requirements = _pareto_requirements(raw.get("privacy"), where, name)
    else:
        requirements = requirements_from_config(raw.get("privacy"), where, base)
    metric = str(method.get("metric", spec.default_metric))
    if metric not in SEARCH_METRICS:
        if metric in METRICS:
            raise ConfigError(f"{where}: metric {metric!r} needs record-level detail and cannot guide the search"
                              f" (every release reports it); use one of {' | '.join(SEARCH_METRICS)}")
        raise ConfigError(f"{where}: unknown metric {metric!r}; use one of {' | '.join(SEARCH_METRICS)}")
    if spec.metrics is not None and metric not in spec.metrics:
        raise ConfigError(f"{where}: method {name} optimizes {' | '.join(sorted(spec.metrics))}; drop method.metric"
                          f" or set it to {min(spec.metrics)}")
    metric_object: Metric | None = None
    if metric == "research_value":
        metric_object = research_value_from_config(raw.get("research_value") or {}, where)
    elif raw.get("research_value") is not None:
        raise ConfigError(f"{where}: a research_value section is used only by the rv-* methods or"
                          " metric: research_value; remove it or change the method")
    payout = raw.get("publisher_payout")
    if payout is not None:
        if metric != "publisher_payout":
            raise ConfigError(f"{where}: a publisher_payout section sets the costs of metric: publisher_payout; set"
                              " method.metric: publisher_payout or remove the section")
        if not isinstance(payout, Mapping):
            raise ConfigError(f"{where}: publisher_payout must be a mapping such as {{publisher_benefit: 1200,"
                              " publisher_loss: 300, adversary_gain: 300, adversary_cost: 4}")
        _unknown(where, "publisher_payout.", payout, PAYOUT_KEYS)
        from anonset.metrics.publisher_payout import PublisherPayout
        from anonset.privacy.population import PopulationModel

        costs = {str(key): value for key, value in payout.items() if key != "attacker"}
        attacker = payout.get("attacker", "prosecutor")
        if attacker not in ("prosecutor", "journalist"):
            raise ConfigError(f"{where}: publisher_payout.attacker must be prosecutor or journalist; got {attacker!r}")
        population = next((m for m in requirements.models if isinstance(m, PopulationModel)), None)
        if attacker == "journalist" and population is None:
            raise ConfigError(f"{where}: publisher_payout.attacker: journalist reads the population the release was"
                              " drawn from; add privacy.k_map {k, population: FILE} or privacy.delta_presence")
        try:
            metric_object = PublisherPayout(**costs, population=population if attacker == "journalist" else None)
        except (ConfigError, TypeError) as exc:
            raise ConfigError(f"{where}: {exc}") from None
    evaluation = raw.get("evaluation") or {}
    if not isinstance(evaluation, Mapping):
        raise ConfigError(f"{where}: `evaluation` must be a mapping such as {{target: income, folds: 10}}")
    _unknown(where, "evaluation.", evaluation, EVALUATION_KEYS)
    models = evaluation.get("models")
    if models is not None and (isinstance(models, str) or not isinstance(models, list)):
        raise ConfigError(f"{where}: evaluation.models must be a list such as [decision_tree, naive_bayes]")
    evaluation = _utility_checks(evaluation, attrs, seed, where)
    perturbation = _perturbation_section(raw.get("perturbation"), attrs, where)
    input_uri = inp["path"] if isinstance(inp.get("path"), str) and _is_url(inp["path"]) else None
    output_uri = out["path"] if isinstance(out.get("path"), str) and _is_url(out["path"]) else None
    if not kind.remote and (input_uri or output_uri):
        remote = " | ".join(k.name for k in ENGINE_KINDS.values() if k.remote)
        raise ConfigError(f"{where}: {input_uri or output_uri} is a URL; only engine: {remote} reads and writes URLs"
                          f" (hdfs://, s3a://, ...): set engine: {remote} or give a local path")
    run_input: InputSpec
    if sql is not None:
        run_input = sql
    elif spark_table is not None:
        run_input = CatalogInput(spark_table)
    elif input_uri is not None:
        run_input = UrlInput(input_uri, inp.get("delimiter"), inp.get("format"))
    else:
        run_input = FileInput(_resolve(base, inp["path"]), inp.get("delimiter"), inp.get("format"))
    run_output: OutputSpec
    if output_table is not None:
        run_output = TableOutput(output_table, output_replace)
    elif output_uri is not None:
        run_output = UrlOutput(output_uri, out.get("delimiter"))
    else:
        run_output = FileOutput(_resolve(base, out["path"]) if out.get("path") else None, out.get("delimiter"))
    return RunConfig(
        path=path, input=run_input, output=run_output, attributes=attrs, requirements=requirements, method=name,
        metric=metric, weights={str(k): float(v) for k, v in weights.items()} if weights else None,
        drop_suppressed=suppressed == "drop", seed=seed, method_options=options, metric_object=metric_object,
        raw=dict(raw), engine=kind.name, evaluation=dict(evaluation), spark=settings.get("spark"),
        duckdb=settings.get("duckdb") or {}, risk=_risk_section(raw.get("risk"), attrs, where),
        perturbation=perturbation,
    )


def _perturbation_section(section: Any, attrs: Mapping[str, Mapping[str, Any]],
                          where: str) -> tuple[dict[str, Any], ...]:
    """The ``perturbation`` list, checked: each treatment well formed, of attributes that are not quasi-identifiers."""
    if section is None:
        return ()
    from anonset.release.perturbation import quasi_refusal, treatments

    try:
        chosen = treatments(section)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    for t in chosen:  # refused before the input is read (the fit refuses it again, for the API)
        quasi = [name for name in t.attributes if (attrs.get(name) or {}).get("role") == "quasi"]
        if quasi:
            raise ConfigError(f"{where}: perturbation: {quasi_refusal(t, quasi[0])}")
    return tuple(dict(entry) for entry in section)


def _risk_section(section: Any, attrs: Mapping[str, Mapping[str, Any]], where: str) -> dict[str, Any]:
    """The ``risk`` section (settings of ``anonset risk``): ``suda2`` {attributes, max_size, dis_fraction}, checked."""
    if section is None:
        return {}
    if not isinstance(section, Mapping):
        raise ConfigError(f"{where}: `risk` must be a mapping such as"
                          " {suda2: {attributes: [age, sex], max_size: 4}}")
    _unknown(where, "risk.", section, {"suda2"})
    suda = section.get("suda2") or {}
    if not isinstance(suda, Mapping):
        raise ConfigError(f"{where}: risk.suda2 must be a mapping such as {{attributes: [age, sex], max_size: 4}}")
    _unknown(where, "risk.suda2.", suda, SUDA2_KEYS)
    out: dict[str, Any] = {}
    attributes = suda.get("attributes")
    if attributes is not None:
        quasi = [n for n, e in attrs.items() if e.get("role") == "quasi"]
        if isinstance(attributes, str) or not isinstance(attributes, list) or not attributes:
            raise ConfigError(f"{where}: risk.suda2.attributes must be a list of quasi-identifiers such as"
                              f" [{', '.join(quasi[:2])}]")
        for name in attributes:
            if str(name) not in quasi:
                raise ConfigError(f"{where}: risk.suda2.attributes: {name!r} is not a quasi-identifier; choose among"
                                  f" {', '.join(quasi) or 'none (no attribute has role quasi)'}")
        out["attributes"] = tuple(str(a) for a in attributes)
    max_size = suda.get("max_size")
    if max_size is not None:
        if isinstance(max_size, bool) or not isinstance(max_size, int) or max_size < 1:
            raise ConfigError(f"{where}: risk.suda2.max_size must be a whole number of at least 1 (the largest"
                              f" minimal sample unique searched); got {max_size!r}")
        out["max_size"] = max_size
    fraction = suda.get("dis_fraction")
    if fraction is not None:
        if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or not 0 < fraction < 1:
            raise ConfigError(f"{where}: risk.suda2.dis_fraction must be a number in (0, 1) (the file-level"
                              f" disclosure fraction of DIS-SUDA, default 0.01); got {fraction!r}")
        out["dis_fraction"] = float(fraction)
    return {"suda2": out}


def _is_url(path: str) -> bool:
    """``hdfs://...``, ``s3a://...``, ``file://...``: a location Spark reads or writes, not a local path."""
    scheme, sep, _ = path.partition("://")
    return bool(sep) and scheme.isidentifier()


def _engine_settings(raw: Mapping[str, Any], kind: EngineKind, catalog_table: str | None,
                     where: str) -> dict[str, Any]:
    """The engine's own settings section, read; another engine's section, or a catalog table it cannot read, refused."""
    for other in ENGINE_KINDS.values():
        if other.section is not None and other is not kind and raw.get(other.section) is not None:
            raise ConfigError(f"{where}: a {other.section} section is used only with engine: {other.name}; remove it"
                              " or set the engine")
    if catalog_table is not None and not kind.remote:
        remote = next(k for k in ENGINE_KINDS.values() if k.remote)
        raise ConfigError(f"{where}: input.table is a {remote.title} catalog table; set engine: {remote.name}")
    if kind.section is None:
        return {}
    return {kind.section: _SECTION_READERS[kind.section](raw.get(kind.section), where)}


def _spark_settings(section: Any, where: str) -> SparkSettings:
    """The ``spark`` section, checked (absent: Spark's local master)."""
    section = section or {}
    if not isinstance(section, Mapping):
        raise ConfigError(f"{where}: `spark` must be a mapping such as {{master: 'local[*]', timeout: 120}}")
    _unknown(where, "spark.", section, SPARK_KEYS)
    master = section.get("master", "local[*]")
    if not isinstance(master, str) or not master.strip():
        raise ConfigError(f"{where}: spark.master must be a Spark master URL such as local[*] or spark://host:7077")
    timeout = section.get("timeout", 120)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise ConfigError(f"{where}: spark.timeout must be a number of seconds > 0; got {timeout!r}")
    options = section.get("options") or {}
    if not isinstance(options, Mapping):
        raise ConfigError(f"{where}: spark.options must map Spark settings to values, e.g."
                          " {spark.executor.memory: 4g}")
    return SparkSettings(master=master, timeout=float(timeout), options={str(k): str(v) for k, v in options.items()})


def _duckdb_settings(section: Any, where: str) -> dict[str, Any]:
    """The ``duckdb`` section: DuckDB settings such as memory_limit and temp_directory (absent: none)."""
    if section is None:
        return {}
    from anonset.engine.sql.duckdb import SETTINGS

    if not isinstance(section, Mapping):
        raise ConfigError(f"{where}: `duckdb` must be a mapping such as"
                          " {memory_limit: 2GB, temp_directory: /tmp/spill}")
    _unknown(where, "duckdb.", section, set(SETTINGS))
    base = Path(where).parent
    out = {str(k): v for k, v in section.items()}
    if "temp_directory" in out:
        out["temp_directory"] = str(_resolve(base, out["temp_directory"]))
    return out


#: The reader of each engine's settings section (:attr:`EngineKind.section`), by the section's key.
_SECTION_READERS: dict[str, Callable[[Any, str], Any]] = {"spark": _spark_settings, "duckdb": _duckdb_settings}


def _sql_input(section: Any, where: str) -> SqlInput:
    """Validate ``input.sql``: ``{url: postgresql://..., table: NAME}``."""
    example = "{url: 'postgresql://user@host:5432/database', table: schema.patients}"
    if not isinstance(section, Mapping):
        raise ConfigError(f"{where}: input.sql must be a mapping such as {example}")
    _unknown(where, "input.sql.", section, {"url", "table"})
    for key in ("url", "table"):
        if key not in section:
            raise ConfigError(f"{where}: input.sql needs `{key}`, e.g. input: {{sql: {example}}}")
    url = section["url"]
    if not isinstance(url, str) or not url.strip():
        raise ConfigError(f"{where}: input.sql.url must be a string such as"
                          f" postgresql://user@host:5432/database; got"
                          f" {'an empty string' if isinstance(url, str) else 'a ' + type(url).__name__}")
    if not (url.startswith(("postgresql://", "postgres://")) or "=" in url):
        raise ConfigError(f"{where}: input.sql.url must be a PostgreSQL URL such as"
                          f" postgresql://user@host:5432/database (or a libpq conninfo string); got"
                          f" {redact_url(url)!r}")
    return SqlInput(url=url, table=_table_name(section["table"], where, "input.sql.table"))


def _table_name(value: Any, where: str, key: str) -> TableName:
    """A table name: ``name`` or ``schema.name``, or a list of parts for names that contain a dot."""
    name: TableName
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        name = tuple(value)
    elif isinstance(value, str):
        name = value
    else:
        raise ConfigError(f"{where}: {key} must be a table name such as patients or schema.patients;"
                          f" got {value!r}")
    try:
        table_parts(name)
    except DataError as exc:
        raise ConfigError(f"{where}: {key}: {exc}") from None
    return name


def _engine(raw: Mapping[str, Any], sql: SqlInput | None, where: str) -> EngineKind:
    """The top-level ``engine``, checked against the input (default: the first engine that reads such input)."""
    default = next(k.name for k in ENGINE_KINDS.values() if k.reads_sql == (sql is not None))
    name = raw.get("engine", default)
    if not isinstance(name, str) or name not in ENGINE_KINDS:
        raise ConfigError(f"{where}: engine must be one of {' | '.join(ENGINES)}; got {name!r}")
    kind = ENGINE_KINDS[name]
    if sql is not None and not kind.reads_sql:
        raise ConfigError(f"{where}: engine: {name} cannot search a table in PostgreSQL (input.sql); drop"
                          f" `engine` or set it to {default}")
    if sql is None and kind.reads_sql:
        files = " or ".join(k.name + k.words for k in ENGINE_KINDS.values() if not k.reads_sql and not k.remote)
        raise ConfigError(f"{where}: engine: {name} needs input.sql (a table in PostgreSQL); a file input"
                          f" is searched by engine: {files}")
    return kind


def _output_table(out: Mapping[str, Any], sql: SqlInput | None, where: str) -> tuple[TableName | None, bool]:
    """Validate the output keys against the input: ``table``/``replace`` for input.sql, ``path`` for files."""
    if sql is None:
        for key in ("table", "replace"):
            if key in out:
                raise ConfigError(f"{where}: output.{key} is for a table in PostgreSQL (input.sql); a file input"
                                  " is released to output.path")
        _unknown(where, "output.", out, {"path", "delimiter", "suppressed"})
        return None, False
    for key in ("path", "delimiter"):
        if key in out:
            raise ConfigError(f"{where}: output.{key}: a table in PostgreSQL is released into a table of the same"
                              " database, never a file; give output: {table: NAME}")
    _unknown(where, "output.", out, {"table", "replace", "suppressed"})
    if out.get("table") is None:
        raise ConfigError(f"{where}: input.sql needs output.table: the release is written as a new table in the"
                          " same database, e.g. output: {table: patients_anonymized}")
    table = _table_name(out["table"], where, "output.table")
    replace = out.get("replace", False)
    if not isinstance(replace, bool):
        raise ConfigError(f"{where}: output.replace must be true or false; got {replace!r}")
    if table_parts(table) == table_parts(sql.table):
        raise ConfigError(f"{where}: output.table is the input table {'.'.join(table_parts(table))}; choose"
                          " another name (the input is never overwritten)")
    return table, replace


def requirements_from_config(privacy: Any, where: str = "config", folder: Path | None = None) -> Requirements:
    """Build the Requirements from a ``privacy:`` mapping (relative population paths from ``folder``)."""
    try:
        return _requirements(privacy, where, folder)
    except ConfigError as exc:
        if str(exc).startswith(f"{where}:"):
            raise
        # a model's parameter check (k, l, t, max_suppression): name the config file too
        raise ConfigError(f"{where}: {exc}") from exc


def _requirements(privacy: Any, where: str, folder: Path | None) -> Requirements:
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
        if variant == "recursive":
            _need(entry, where, "l_diversity", "c")
        models.append(l_diversity(attribute, l_value, variant, entry.get("c")))
    for entry in _entries(privacy.get("t_closeness"), where, "t_closeness"):
        _unknown(where, "privacy.t_closeness.", entry, {"attribute", "t", "distance"})
        models.append(TCloseness(_need(entry, where, "t_closeness", "attribute"),
                                 _need(entry, where, "t_closeness", "t"), entry.get("distance", "equal")))
    for entry in _entries(privacy.get("squared_error_diversity"), where, "squared_error_diversity"):
        _unknown(where, "privacy.squared_error_diversity.", entry, {"attribute", "error"})
        models.append(SquaredErrorDiversity(_need(entry, where, "squared_error_diversity", "attribute"),
                                            _need(entry, where, "squared_error_diversity", "error")))
    for entry in _entries(privacy.get("beta_likeness"), where, "beta_likeness"):
        _unknown(where, "privacy.beta_likeness.", entry, {"attribute", "beta", "variant"})
        models.append(BetaLikeness(_need(entry, where, "beta_likeness", "attribute"),
                                   _need(entry, where, "beta_likeness", "beta"), entry.get("variant", "basic")))
    for entry in _entries(privacy.get("delta_disclosure"), where, "delta_disclosure"):
        _unknown(where, "privacy.delta_disclosure.", entry, {"attribute", "delta"})
        models.append(DeltaDisclosure(_need(entry, where, "delta_disclosure", "attribute"),
                                      _need(entry, where, "delta_disclosure", "delta")))
    models.extend(_risk_models(privacy, where, folder))
    return Requirements(models, privacy.get("max_suppression", 0.0))


def _population(entry: Mapping[str, Any], where: str, key: str, folder: Path | None) -> tuple[TableFile, str]:
    """The population table file of a model (relative paths from the config's folder) and how messages name it."""
    given = _need(entry, where, key, "population")
    if not isinstance(given, str) or not given:
        raise ConfigError(f"{where}: privacy.{key}.population must be the path of a CSV or Parquet file with the"
                          f" input's quasi-identifiers; got {given!r}")
    path = _resolve(folder, given) if folder is not None else Path(given)
    return TableFile(path), str(path)


def _risk_models(privacy: Mapping[str, Any], where: str, folder: Path | None) -> list[PrivacyModel]:
    """``highest_risk``, ``average_risk``, ``sample_uniqueness`` (bounds) and ``population_uniqueness`` (a mapping)."""
    models: list[PrivacyModel] = []
    if "highest_risk" in privacy:
        models.append(HighestRisk(privacy["highest_risk"]))
    if "average_risk" in privacy:
        models.append(AverageRisk(privacy["average_risk"]))
    if "sample_uniqueness" in privacy:
        models.append(SampleUniqueness(privacy["sample_uniqueness"]))
    if "k_map" in privacy:
        entry = privacy["k_map"]
        if not isinstance(entry, Mapping):
            raise ConfigError(f"{where}: privacy.k_map must be a mapping such as"
                              " {k: 5, population_size: 1000000, estimator: poisson, significance: 0.01}"
                              " or {k: 5, population: population.csv}")
        _unknown(where, "privacy.k_map.", entry, KMAP_KEYS)
        if "population" in entry:
            estimated = sorted(KMAP_KEYS - {"k", "population"} & set(entry))
            if estimated:
                raise ConfigError(f"{where}: privacy.k_map with a population table counts the population's records;"
                                  f" drop {estimated[0]} (it belongs to k-map estimated from the population's size)")
            models.append(PopulationKMap(_need(entry, where, "k_map", "k"),
                                         *_population(entry, where, "k_map", folder)))
        else:
            models.append(KMap(_need(entry, where, "k_map", "k"), entry.get("population_size"),
                               entry.get("sampling_fraction"), entry.get("estimator", "poisson"),
                               entry.get("significance", 0.01)))
    if "delta_presence" in privacy:
        entry = privacy["delta_presence"]
        if not isinstance(entry, Mapping):
            raise ConfigError(f"{where}: privacy.delta_presence must be a mapping such as"
                              " {min: 0.05, max: 0.5, population: population.csv}")
        _unknown(where, "privacy.delta_presence.", entry, {"min", "max", "population"})
        models.append(DeltaPresence(_need(entry, where, "delta_presence", "min"),
                                    _need(entry, where, "delta_presence", "max"),
                                    *_population(entry, where, "delta_presence", folder)))
    if "differential_privacy" in privacy:
        entry = privacy["differential_privacy"]
        if not isinstance(entry, Mapping):
            raise ConfigError(f"{where}: privacy.differential_privacy must be a mapping such as"
                              " {epsilon: 2, delta: 1e-5, generalization: medium}")
        _unknown(where, "privacy.differential_privacy.", entry, {"epsilon", "delta", "generalization"})
        models.append(DifferentialPrivacy(_need(entry, where, "differential_privacy", "epsilon"),
                                          _need(entry, where, "differential_privacy", "delta"),
                                          entry.get("generalization", "medium")))
    if "population_uniqueness" in privacy:
        entry = privacy["population_uniqueness"]
        if not isinstance(entry, Mapping):
            raise ConfigError(f"{where}: privacy.population_uniqueness must be a mapping such as"
                              " {max: 0.01, sampling_fraction: 0.01, model: pitman}")
        _unknown(where, "privacy.population_uniqueness.", entry, POPULATION_KEYS)
        models.append(PopulationUniqueness(_need(entry, where, "population_uniqueness", "max"),
                                           entry.get("sampling_fraction"), entry.get("population_size"),
                                           entry.get("model", "dankar")))
    return models


def _pareto_requirements(privacy: Any, where: str, method: str) -> Requirements:
    """The requirements of a trade-off search: the budget η (``max_suppression``) and optional floors.

    ``k`` and a distinct ``l_diversity`` are floors on the front members' k
    and l objectives: the member released without ``--pick`` is the one
    meeting them with the least loss.
    """
    from anonset.methods.pareto.release_policy import config_floors  # the family's floors, as its fit reads them

    privacy = privacy or {}
    if not isinstance(privacy, Mapping):
        raise ConfigError(f"{where}: `privacy` must be a mapping such as {{k: 5, max_suppression: 0.01}}")
    section = config_floors(privacy, where, method, lambda key: _entries(privacy.get(key), where, key))
    return requirements_from_config(section, where)


def research_value_from_config(section: Any, where: str = "config") -> ResearchValue:
    """Build the ResearchValue metric from a ``research_value:`` mapping (weights, rules, levels)."""
    from anonset.metrics.research_value import DoNotMix, KeepBoundary, ResearchValue

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


def _utility_checks(evaluation: Mapping[str, Any], attrs: Mapping[str, Mapping[str, Any]], seed: int,
                    where: str) -> dict[str, Any]:
    """``evaluation`` with ``queries`` and ``patterns`` (when given) checked and completed with their defaults.

    ``queries: {count, dimension, selectivity, seed, threshold}`` (defaults 1000, 2, 0.1, the config's seed,
    0.1); ``patterns: {target, task, test_fraction, depth, seed}`` (defaults evaluation.target or the only
    column with role target, the label's type, 0.3, 3, the config's seed).  Each bad value is one line.
    """
    out = dict(evaluation)
    quasi = [n for n, e in attrs.items() if e.get("role") == "quasi"]
    if "queries" in evaluation:
        section = _check_section(evaluation["queries"], "queries", QUERY_KEYS, "{count: 1000, dimension: 2}", where)
        out["queries"] = {
            "count": _whole(section, "queries.count", 1000, 1, None, where),
            "dimension": _whole(section, "queries.dimension", 2, 1, len(quasi), where,
                                f" (the config has {len(quasi)} quasi-identifier(s))"),
            "selectivity": _share(section, "queries.selectivity", 0.1, where, closed=True),
            "seed": _whole(section, "queries.seed", seed, None, None, where),
            "threshold": _number(section, "queries.threshold", 0.1, where),
        }
    if "patterns" in evaluation:
        section = _check_section(evaluation["patterns"], "patterns", PATTERN_KEYS, "{target: income, depth: 3}",
                                 where)
        targets = [n for n, e in attrs.items() if e.get("role") == "target"]
        target = section.get("target", evaluation.get("target", targets[0] if len(targets) == 1 else None))
        if not isinstance(target, str) or not target:
            raise ConfigError(f"{where}: evaluation.patterns.target must name the label column (no default: columns"
                              f" with role target: {', '.join(targets) or 'none'}); got {target!r}")
        if target in quasi:
            raise ConfigError(f"{where}: evaluation.patterns.target {target!r} is a quasi-identifier; name a column"
                              " that is not one (e.g. one with role target)")
        task = section.get("task")
        if task is not None and task not in ("classification", "regression"):
            raise ConfigError(f"{where}: evaluation.patterns.task must be classification or regression; got {task!r}")
        out["patterns"] = {
            "target": target, "task": task,
            "test_fraction": _share(section, "patterns.test_fraction", 0.3, where, closed=False),
            "depth": _whole(section, "patterns.depth", 3, 1, None, where),
            "seed": _whole(section, "patterns.seed", seed, None, None, where),
        }
    return out


def _check_section(section: Any, key: str, allowed: set[str], example: str, where: str) -> Mapping[str, Any]:
    if not isinstance(section, Mapping):
        raise ConfigError(f"{where}: evaluation.{key} must be a mapping such as {example} ({{}} for the defaults);"
                          f" got {section!r}")
    _unknown(where, f"evaluation.{key}.", section, allowed)
    return section


def _whole(section: Mapping[str, Any], key: str, default: int, low: int | None, high: int | None, where: str,
           note: str = "") -> int:
    value = section.get(key.split(".")[-1], default)
    bad = isinstance(value, bool) or not isinstance(value, int)
    if bad or (low is not None and value < low) or (high is not None and value > high):
        span = "an integer" if low is None else f"a whole number >= {low}" if high is None else \
            f"a whole number from {low} to {high}"
        raise ConfigError(f"{where}: evaluation.{key} must be {span}{note}; got {value!r}")
    return int(value)


def _share(section: Mapping[str, Any], key: str, default: float, where: str, *, closed: bool) -> float:
    value = section.get(key.split(".")[-1], default)
    ok = not isinstance(value, bool) and isinstance(value, int | float) and value > 0 and (
        value <= 1 if closed else value < 1)
    if not ok:
        raise ConfigError(f"{where}: evaluation.{key} must be a number in {'(0, 1]' if closed else '(0, 1)'};"
                          f" got {value!r}")
    return float(value)


def _number(section: Mapping[str, Any], key: str, default: float, where: str) -> float:
    value = section.get(key.split(".")[-1], default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        raise ConfigError(f"{where}: evaluation.{key} must be a number >= 0; got {value!r}")
    return float(value)


def _unknown(where: str, prefix: str, mapping: Mapping[str, Any], allowed: set[str]) -> None:
    for key in mapping:
        if key not in allowed:
            raise ConfigError(
                f"{where}: unknown key {prefix}{key}; allowed here: {', '.join(sorted(allowed))}"
            )


def _resolve(base: Path, value: Any) -> Path:
    p = Path(str(value))
    return p if p.is_absolute() else base / p
