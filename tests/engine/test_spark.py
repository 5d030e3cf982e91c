"""The Spark engine end to end (local mode): the same releases as the numpy engine, and its bad input.

Each release is made twice from one config, with ``engine: numpy`` and with ``engine: spark``;
the Spark release (the part files Spark wrote) must hold exactly the records of the numpy
release, and its summary the same levels, suppressed records and classes.  The release is also
re-checked here with pandas from the files.  Bad input: an output that exists, a column missing
from the table, pyspark or Java missing, a master that does not answer (in a fresh process,
bounded by the configured timeout), a driver memory Spark refuses, and the cause of a JVM error
named on the error's one line.  A run's stderr holds none of Spark's start-up warnings.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from click.testing import CliRunner

from anonset.cli import main
from anonset.datasets.synthetic import patient_register
from support import JVM_OPTIONS

CONFIG = """
input: {{path: register.csv}}
attributes:
  patient_id: {{role: identifier}}
  age:        {{role: quasi, type: numeric, hierarchy: {{builder: intervals, widths: [5, 10, 20, 40]}}}}
  sex:        {{role: quasi, hierarchy: {{builder: flat}}}}
  zip:        {{role: quasi, hierarchy: {{builder: masking, levels: 3}}}}
  race:       {{role: quasi, hierarchy: {{builder: flat}}}}
  diagnosis:  {{role: sensitive}}
  marital_status: {{role: insensitive}}   # every column named: none is refused as undeclared
  education:  {{role: insensitive}}
  length_of_stay: {{role: insensitive}}
privacy: {{k: 5, l_diversity: {{attribute: diagnosis, l: 2, variant: entropy}}, max_suppression: 0.03}}
method: {{name: {method}}}
output: {{path: {output}, suppressed: {suppressed}}}
"""
QUASI = ["age", "sex", "zip", "race"]


def _config(folder: Path, name: str, *, method: str = "optimal", output: str, suppressed: str = "mark",
            spark: bool, race_floor: int = 0) -> Path:
    """The register's config; ``race_floor``: race's ``min_level`` (a minimum generalization)."""
    text = CONFIG.format(method=method, output=output, suppressed=suppressed)
    if race_floor:
        text = text.replace("race:       {role: quasi, hierarchy: {builder: flat}}",
                            f"race:       {{role: quasi, hierarchy: {{builder: flat}}, min_level: {race_floor}}}")
    if spark:
        text += "engine: spark\nspark: {master: 'local[2]'}\n"
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def _fresh_process_config(folder: Path, settings: str = "master: 'local[2]'", options: str = "") -> Path:
    """A config for a fresh ``anonset`` process on Spark: ``settings`` and ``options`` of its ``spark`` section.

    The driver also gets the tests' Java options, where a user's own would go (``spark.options``),
    beside anonset's quiet log configuration: they make the JVM's start cheaper, not different.
    """
    config = _config(folder, "spark.yaml", output="out.csv", spark=True)
    java = f"spark.driver.extraJavaOptions: '{JVM_OPTIONS}'"
    spark = f"{settings}, options: {{{options + ', ' if options else ''}{java}}}"
    config.write_text(config.read_text(encoding="utf-8").replace("master: 'local[2]'", spark), encoding="utf-8")
    return config


def _anonymize(config: Path, *args: str) -> tuple[int, str, dict[str, Any] | None]:
    summary = config.with_suffix(".json")
    result = CliRunner().invoke(main, ["anonymize", str(config), "-q", "--summary", str(summary), *args])
    return result.exit_code, result.output, (json.loads(summary.read_text()) if summary.exists() else None)


def _spark_release(folder: Path) -> pd.DataFrame:
    if any(folder.glob("*.parquet")):
        return pd.concat([pd.read_parquet(p) for p in sorted(folder.glob("part-*.parquet"))], ignore_index=True)
    return pd.concat([pd.read_csv(p, dtype=str, keep_default_na=False) for p in sorted(folder.glob("part-*.csv"))],
                     ignore_index=True)


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    columns = sorted(frame.columns)
    return frame[columns].astype(str).sort_values(columns).reset_index(drop=True)


# a Parquet release on Spark: tests/engine/test_spark_reading.py (awkward text, optimal); optimal also with race
# held at its top (a minimum generalization), searched on the driver from the floor
@pytest.mark.parametrize(("method", "suppressed", "fmt", "floor"), [("optimal", "mark", "csv", 0),
                                                                   ("rv-global", "drop", "csv", 0),
                                                                   ("optimal", "mark", "csv", 1)])
def test_spark_releases_what_numpy_releases(spark: Any, tmp_path: Path, method: str, suppressed: str,
                                            fmt: str, floor: int) -> None:
    patient_register(3000, seed=6).to_csv(tmp_path / "register.csv", index=False)
    reference = _config(tmp_path, "numpy.yaml", method=method, output="numpy.csv", suppressed=suppressed, spark=False,
                        race_floor=floor)
    on_spark = _config(tmp_path, "spark.yaml", method=method, output=f"spark.{fmt}", suppressed=suppressed, spark=True,
                       race_floor=floor)
    code, out, expected = _anonymize(reference)
    assert code == 0, out
    code, out, got = _anonymize(on_spark)
    assert code == 0, out
    assert expected is not None and got is not None
    assert got["engine"] == "spark" and got["verified"]
    for key in ("levels", "suppressed_rows", "classes", "min_class_size"):
        assert got[key] == expected[key], key
    assert expected["levels"]["race"] >= floor
    # the input counted where the records are, at the floor when there is one: the same figures as in memory
    assert got["risk"]["input"] == expected["risk"]["input"]
    assert expected["risk"]["input"].get("counted_at") == ({"race": 1} if floor else None)
    assert got["metrics"]["loss"] == pytest.approx(expected["metrics"]["loss"], rel=1e-12)
    released = _spark_release(tmp_path / f"spark.{fmt}")
    numpy_release = pd.read_csv(tmp_path / "numpy.csv", dtype=str, keep_default_na=False)
    pd.testing.assert_frame_equal(_sorted(released), _sorted(numpy_release))
    # the release itself: every class of the released labels has at least k records
    kept = released[(released[QUASI] != "*").any(axis=1)]
    assert kept.groupby(QUASI).size().min() >= 5
    assert len(released) == 3000 - (expected["suppressed_rows"] if suppressed == "drop" else 0)


def test_existing_output_and_missing_column_are_refused_before_any_work(spark: Any, tmp_path: Path) -> None:
    patient_register(500, seed=1).to_csv(tmp_path / "register.csv", index=False)
    config = _config(tmp_path, "spark.yaml", output="out.csv", spark=True)
    (tmp_path / "out.csv").mkdir()
    code, out, _ = _anonymize(config)
    assert code == 2 and "out.csv: already exists" in out and out.count("\n") == 1
    (tmp_path / "out.csv").rmdir()
    config.write_text(config.read_text(encoding="utf-8").replace("race:       ", "ethnicity:  "), encoding="utf-8")
    code, out, _ = _anonymize(config)
    assert code == 2 and "'ethnicity' is not in the table" in out
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize("method", ["optimal", "mondrian"])
def test_a_column_nobody_declared_is_refused_on_spark_before_the_search(spark: Any, tmp_path: Path,
                                                                        method: str) -> None:
    """On Spark every column is declared: checking an undeclared one's values would take a pass per column."""
    patient_register(500, seed=1).to_csv(tmp_path / "register.csv", index=False)
    config = _config(tmp_path, "spark.yaml", method=method, output="out.csv", spark=True)
    text = config.read_text(encoding="utf-8").replace("  length_of_stay: {role: insensitive}\n", "")
    if method == "mondrian":
        text = text.replace("max_suppression: 0.03", "max_suppression: 0")
    config.write_text(text, encoding="utf-8")
    code, out, _ = _anonymize(config)
    assert code == 2 and out.count("\n") == 1, out
    assert "column 'length_of_stay': not named in the configuration; on Spark every column is declared" in out
    assert not (tmp_path / "out.csv").exists() and not list(tmp_path.glob(".*out.csv*"))


def test_missing_pyspark_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from anonset.engine.spark.session import require_pyspark
    from anonset.errors import ConfigError

    monkeypatch.setitem(sys.modules, "pyspark", None)
    with pytest.raises(ConfigError, match=r"pip install 'anonset\[spark\]'"):
        require_pyspark()


def test_missing_java_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from anonset.engine.spark.session import spark_session
    from anonset.errors import ConfigError

    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(ConfigError, match="needs Java 17"):
        spark_session("local[1]")


def test_unreachable_master_fails_within_its_timeout(tmp_path: Path) -> None:
    """A fresh process (one Spark session per process): a master nobody answers at stops the run in time."""
    pytest.importorskip("pyspark")
    patient_register(200, seed=1).to_csv(tmp_path / "register.csv", index=False)
    config = _fresh_process_config(tmp_path, "master: 'spark://127.0.0.1:9', timeout: 1")
    started = time.perf_counter()
    proc = subprocess.run([str(Path(sys.executable).with_name("anonset")), "anonymize", str(config)],
                          capture_output=True, text=True, timeout=120, check=False)
    seconds = time.perf_counter() - started
    lines = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert lines and "spark://127.0.0.1:9" in lines[0] and "Traceback" not in proc.stderr
    assert seconds < 90
    assert not (tmp_path / "out.csv").exists()


def test_spark_failures_are_told_by_their_cause() -> None:
    """The line of a JVM error that names its cause; a JVM that is gone is said to be gone, with the fix."""
    from anonset.engine.spark.source import first_line

    jvm = Exception("An error occurred while calling o51.collectToPython.\n"
                    ": org.apache.spark.SparkException: Job aborted due to stage failure\n\tat org.apache...")
    assert first_line(jvm) == "org.apache.spark.SparkException: Job aborted due to stage failure"
    assert first_line(ValueError("plain\nmore")) == "plain"
    assert first_line(ValueError("")) == "ValueError"
    gone = RuntimeError("py4j could not answer")
    gone.__context__ = ConnectionRefusedError(111, "Connection refused")
    for exc in (ConnectionRefusedError(111, "Connection refused"), gone):
        assert "JVM stopped" in first_line(exc) and "spark.driver.memory" in first_line(exc)


def test_a_driver_memory_spark_refuses_is_named(tmp_path: Path) -> None:
    """A fresh process (one Spark session per process): the session's own reason, not a py4j call, on one line."""
    pytest.importorskip("pyspark")
    patient_register(200, seed=1).to_csv(tmp_path / "register.csv", index=False)
    config = _fresh_process_config(tmp_path, options="spark.driver.memory: 100m")
    proc = subprocess.run([str(Path(sys.executable).with_name("anonset")), "anonymize", str(config)],
                          capture_output=True, text=True, timeout=120, check=False)
    lines = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert lines and "INVALID_DRIVER_MEMORY" in lines[0] and "Traceback" not in proc.stderr
    assert not (tmp_path / "out.csv").exists()


def test_a_run_shows_only_what_anonset_says(spark: Any, spark_stderr: Any, tmp_path: Path) -> None:
    """Spark prints nothing: not when its session started (only the JVM's own note on its modules), not during a run.

    The session is the tests' own, started by anonset's ``spark_session`` as a run starts it, with
    the JVM's standard error kept in a file (support.require_spark): its start-up part is what a
    fresh ``anonset`` process would show before anonset says anything.
    """
    started = spark_stderr.lines(0, spark_stderr.at_start)
    assert [line for line in started if not line.startswith("WARNING: Using incubator modules")] == [], started
    patient_register(300, seed=2).to_csv(tmp_path / "register.csv", index=False)
    config = _config(tmp_path, "spark.yaml", output="out.csv", spark=True)
    before = spark_stderr.size()
    result = CliRunner().invoke(main, ["anonymize", str(config), "-q"])
    assert result.exit_code == 0, result.output
    assert spark_stderr.lines(before) == []
    assert [line for line in result.stderr.splitlines()  # anonset's own warnings about the release aside
            if line.strip() and not line.startswith("warning: ")] == []
    released = _spark_release(tmp_path / "out.csv")
    assert len(released) == 300  # suppressed records are marked, not dropped
    kept = released[(released[QUASI] != "*").any(axis=1)]
    assert len(kept) > 0 and kept.groupby(QUASI).size().min() >= 5


def test_a_log_configuration_of_the_users_own_is_kept() -> None:
    """The driver gets anonset's quiet log4j file, beside any Java options given, unless a log4j file is named."""
    from anonset.engine.spark.session import LOG_CONFIG, _quiet_driver

    assert LOG_CONFIG.is_file()
    ours = f"-Dlog4j2.configurationFile={LOG_CONFIG.as_uri()}"
    assert _quiet_driver({})["spark.driver.extraJavaOptions"] == ours
    assert _quiet_driver({"spark.driver.extraJavaOptions": "-Xss4m"})["spark.driver.extraJavaOptions"] == \
        f"-Xss4m {ours}"
    theirs = {"spark.driver.extraJavaOptions": "-Dlog4j2.configurationFile=/etc/spark/log4j2.properties"}
    assert _quiet_driver(theirs) == theirs


def test_a_catalog_table_is_read_by_name(spark: Any, tmp_path: Path) -> None:
    """``input: {table: NAME}`` reads a table of Spark's catalog (here a view) and releases what numpy does."""
    patient_register(800, seed=9).to_csv(tmp_path / "register.csv", index=False)
    spark.read.csv(str(tmp_path / "register.csv"), header=True).createOrReplaceTempView("anonset_test_register")
    reference = _config(tmp_path, "numpy.yaml", output="numpy.csv", spark=False)
    on_spark = _config(tmp_path, "spark.yaml", output="spark.csv", spark=True)
    on_spark.write_text(on_spark.read_text(encoding="utf-8").replace("input: {path: register.csv}",
                                                                     "input: {table: anonset_test_register}"),
                        encoding="utf-8")
    code, out, expected = _anonymize(reference)
    assert code == 0, out
    code, out, got = _anonymize(on_spark)
    assert code == 0, out
    assert got is not None and expected is not None and got["levels"] == expected["levels"]
    pd.testing.assert_frame_equal(_sorted(_spark_release(tmp_path / "spark.csv")),
                                  _sorted(pd.read_csv(tmp_path / "numpy.csv", dtype=str, keep_default_na=False)))


@pytest.mark.parametrize("engine", ["spark", "duckdb"])
def test_a_front_member_is_released_where_the_records_are(spark: Any, tmp_path: Path, engine: str) -> None:
    """pareto-exhaustive with a floor (k >= 5): the member Spark or DuckDB releases is the numpy engine's."""
    patient_register(2000, seed=4).to_csv(tmp_path / "register.csv", index=False)
    configs = []
    for name in ("numpy", engine):
        text = (CONFIG.format(method="pareto-exhaustive", output=f"{name}.csv", suppressed="mark")
                .replace("l_diversity: {attribute: diagnosis, l: 2, variant: entropy}, ", ""))
        if name == "spark":
            text += "engine: spark\nspark: {master: 'local[2]'}\n"
        elif name == "duckdb":
            text += "engine: duckdb\n"
        path = tmp_path / f"{name}.yaml"
        path.write_text(text, encoding="utf-8")
        configs.append(path)
    code, out, expected = _anonymize(configs[0])
    assert code == 0, out
    code, out, got = _anonymize(configs[1])
    assert code == 0, out
    assert got is not None and expected is not None and got["engine"] == engine
    for key in ("levels", "suppressed_rows", "classes", "min_class_size", "requirements"):
        assert got[key] == expected[key], key
    assert got["search"]["picked"] == expected["search"]["picked"]
    released = (_spark_release(tmp_path / "spark.csv") if engine == "spark"
                else pd.read_csv(tmp_path / "duckdb.csv", dtype=str, keep_default_na=False))
    pd.testing.assert_frame_equal(_sorted(released),
                                  _sorted(pd.read_csv(tmp_path / "numpy.csv", dtype=str, keep_default_na=False)))
