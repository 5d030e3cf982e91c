"""Starting (or joining) the Spark session an anonset run uses, with one-line errors for what goes wrong.

pyspark is an optional dependency (``pip install anonset[spark]``): it is
imported only here, when a run asks for ``engine: spark``.  A local master
(``local[*]``, ``local[2]``) needs Java 17 on this machine; a cluster master
(``spark://host:7077``, ``yarn``) must answer within ``timeout`` seconds, or
the run stops before reading anything.  A driver started here shows only
Spark's errors (``log4j2.properties`` beside this module), unless the options
name a log4j configuration of their own.
"""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anonset.engine.spark.source import first_line
from anonset.errors import ConfigError, DataError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["DEFAULT_MASTER", "LOG_CONFIG", "require_pyspark", "spark_session"]

#: The master when the config names none: every core of this machine.
DEFAULT_MASTER = "local[*]"
#: Spark's logging for a driver anonset starts: its errors only (the file says why).
LOG_CONFIG = Path(__file__).with_name("log4j2.properties")


def require_pyspark() -> Any:
    """The pyspark module; a ConfigError naming the extra to install when it is missing."""
    try:
        import pyspark
    except ImportError:
        raise ConfigError("engine: spark needs pyspark, which is not installed; install anonset's spark extra:"
                          " pip install 'anonset[spark]'") from None
    return pyspark


def spark_session(master: str = DEFAULT_MASTER, *, timeout: float = 120.0,
                  options: dict[str, str] | None = None) -> SparkSession:
    """The Spark session of ``master`` (started here, or the one this process already has).

    Parameters
    ----------
    master : str
        A Spark master URL: ``local[*]``, ``local[N]``, ``spark://host:port``, ``yarn``, ...
    timeout : float
        Seconds to wait for the session; a master that does not answer by
        then is a DataError (the run has not read or written anything).
    options : dict of str to str, optional
        Further Spark settings (``spark.executor.memory``, ...).

    Raises
    ------
    ConfigError
        pyspark is not installed, or Java is missing.
    DataError
        The session could not be started within ``timeout`` (a master that
        cannot be reached), or Spark refused to start.
    """
    require_pyspark()
    if not os.environ.get("JAVA_HOME") and shutil.which("java") is None:
        raise ConfigError("engine: spark needs Java 17 or later, and there is no java on PATH nor JAVA_HOME; install"
                          " a JDK (Debian: apt-get install openjdk-17-jre-headless)")
    from pyspark.sql import SparkSession

    builder = (SparkSession.builder.master(master).appName("anonset")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.execution.arrow.pyspark.enabled", "true")
               .config("spark.sql.ansi.enabled", "false")
               # column names compared as written: a table may hold "Note" and "note" (the numpy engine takes
               # both), and Parquet refuses to write or read such twins otherwise
               .config("spark.sql.caseSensitive", "true")
               .config("spark.ui.showConsoleProgress", "false"))
    # the driver receives class tables (one row per class, millions on a large table): room for them, unless the
    # config says otherwise
    settings = _quiet_driver({"spark.driver.memory": "4g", "spark.driver.maxResultSize": "0", **(options or {})})
    for key, value in settings.items():
        builder = builder.config(key, value)
    result: dict[str, Any] = {}

    def start() -> None:
        try:
            result["session"] = builder.getOrCreate()
        except Exception as exc:  # reported as one line below
            result["error"] = exc

    thread = threading.Thread(target=start, name="anonset-spark-start", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise DataError(f"Spark master {master}: no session after {timeout:g} s; check that the master is running"
                        " and reachable from this machine (spark.timeout in the config waits longer)")
    if "error" in result:
        raise DataError(f"Spark master {master}: the session did not start ({first_line(result['error'])}); check"
                        " the master URL, the spark options in the config and that Java 17 works (java -version)")
    session: SparkSession = result["session"]
    return session


def _quiet_driver(settings: dict[str, str]) -> dict[str, str]:
    """``settings`` with the driver's JVM given :data:`LOG_CONFIG`, unless they name a log4j configuration already.

    Without it, a driver started from Python prints eight lines of Spark's
    start-up warnings before anonset says anything.  Options the user gave in
    ``spark.driver.extraJavaOptions`` are kept; the file is passed as a URI, so
    a path with spaces stays one option.  A session this process already has
    keeps the logging it started with.
    """
    key = "spark.driver.extraJavaOptions"
    given = settings.get(key, "")
    if "log4j" in given:
        return settings
    return {**settings, key: f"{given} -Dlog4j2.configurationFile={LOG_CONFIG.as_uri()}".strip()}
