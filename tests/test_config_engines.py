"""What a configuration may say to each engine, read from the engine kinds declared in anonset.config.

Every rule is checked by parsing a small config with :func:`anonset.config.parse_config`
(nothing is opened): the default engine of each kind of input, each engine's own
settings section refused elsewhere, URLs and catalog tables only where an engine
reads them, and the output an engine that writes its release itself needs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from anonset.config import ENGINE_KINDS, ENGINES, CatalogInput, SparkSettings, UrlInput, UrlOutput, parse_config
from anonset.errors import ConfigError


def _config(**changes: Any) -> dict[str, Any]:
    config: dict[str, Any] = {
        "input": {"path": "patients.csv"},
        "attributes": {"age": {"role": "quasi", "type": "numeric"}, "diagnosis": {"role": "sensitive"}},
        "privacy": {"k": 2},
        "output": {"path": "released.csv"},
    }
    config.update(changes)
    return config


def _error(config: dict[str, Any]) -> str:
    with pytest.raises(ConfigError) as caught:
        parse_config(config, Path("run.yaml"))
    return str(caught.value)


def test_every_engine_is_declared_once_with_one_default_per_input() -> None:
    assert ENGINES == tuple(ENGINE_KINDS) == ("numpy", "duckdb", "postgresql", "spark")
    assert parse_config(_config(), Path("run.yaml")).engine == "numpy"
    sql = {"sql": {"url": "postgresql://u@h:5432/d", "table": "patients"}}
    assert parse_config(_config(input=sql, output={"table": "out"}), Path("run.yaml")).engine == "postgresql"


def test_an_engine_reads_its_own_section_only() -> None:
    cfg = parse_config(_config(engine="spark", spark={"master": "local[2]", "timeout": 5}), Path("run.yaml"))
    assert cfg.spark == SparkSettings(master="local[2]", timeout=5.0) and cfg.duckdb == {}
    assert parse_config(_config(engine="spark"), Path("run.yaml")).spark == SparkSettings()
    cfg = parse_config(_config(engine="duckdb", duckdb={"memory_limit": "1GB"}), Path("run.yaml"))
    assert cfg.duckdb == {"memory_limit": "1GB"} and cfg.spark is None
    assert _error(_config(spark={"master": "local[2]"})) == (
        "run.yaml: a spark section is used only with engine: spark; remove it or set the engine")
    assert _error(_config(engine="spark", duckdb={"memory_limit": "1GB"})) == (
        "run.yaml: a duckdb section is used only with engine: duckdb; remove it or set the engine")
    assert "spark.timeout must be a number of seconds > 0" in _error(_config(engine="spark", spark={"timeout": 0}))


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_urls_and_catalog_tables_only_where_an_engine_reads_them(engine: str) -> None:
    assert _error(_config(engine=engine, input={"path": "hdfs://nn/patients.csv"})) == (
        "run.yaml: hdfs://nn/patients.csv is a URL; only engine: spark reads and writes URLs (hdfs://, s3a://, ...):"
        " set engine: spark or give a local path")
    assert _error(_config(engine=engine, input={"table": "warehouse.patients"})) == (
        "run.yaml: input.table is a Spark catalog table; set engine: spark")


def test_spark_reads_urls_and_catalog_tables_and_needs_an_output_path() -> None:
    cfg = parse_config(_config(engine="spark", input={"path": "hdfs://nn/p.csv"}, output={"path": "s3a://b/out"}),
                       Path("run.yaml"))
    assert cfg.input == UrlInput("hdfs://nn/p.csv", None, None) and cfg.output == UrlOutput("s3a://b/out", None)
    cfg = parse_config(_config(engine="spark", input={"table": "warehouse.patients"}), Path("run.yaml"))
    assert cfg.input == CatalogInput("warehouse.patients")
    assert _error(_config(engine="spark", output={})).startswith(
        "run.yaml: engine: spark writes the release with Spark; give output.path")


def test_a_file_input_names_the_engines_that_read_files() -> None:
    assert _error(_config(engine="postgresql")) == (
        "run.yaml: engine: postgresql needs input.sql (a table in PostgreSQL); a file input is searched by engine:"
        " numpy (in memory) or duckdb")
    assert _error(_config(engine="sqlite")) == (
        "run.yaml: engine must be one of numpy | duckdb | postgresql | spark; got 'sqlite'")
