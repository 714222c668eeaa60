"""The Spark session anonkit starts when none is active, and the Python its tasks run.

Spark runs the Python parts of a job (rows sent from the driver, Mondrian's blocks) in
worker processes started with the program ``PYSPARK_PYTHON`` names, ``python3`` when it
is unset. On a local session (``anonkit anonymize`` with ``engine = "spark"`` and no
cluster) that ``python3`` is whatever the ``PATH`` finds first: often a Python without
anonkit, or of another minor version, and the run ended in a traceback from the worker.
So a local session anonkit starts runs its workers with this interpreter
(``sys.executable``, which imports anonkit) unless ``PYSPARK_PYTHON`` (or
``spark.pyspark.python``) says otherwise; a cluster's workers are left as configured.

:func:`quiet_spark_loggers` keeps pyspark from logging Spark's error messages (plans,
stack traces, which can hold values) on stderr, where anonkit says the message is not
shown unless ``ANONKIT_SHOW_ERRORS`` is set.

:func:`worker_problem` recognizes a job that failed because the workers could not start
or could not import anonkit, and says in one paragraph what to set, so that the command
line shows that instead of a traceback.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import TYPE_CHECKING

from anonkit.exceptions import SHOW_ERRORS

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = [
    "PYSPARK_ERROR_LOGGERS",
    "local_workers",
    "quiet_spark_loggers",
    "start_session",
    "worker_problem",
]

#: pyspark's (4.0 and later) Python loggers that write an error's whole message, query
#: plan and Java stack trace on stderr, as JSON, when the error is raised
#: (``PySparkException._log_exception``).
PYSPARK_ERROR_LOGGERS = ("DataFrameQueryContextLogger", "SQLQueryContextLogger")


def start_session() -> SparkSession:
    """A session for anonkit (the active one or a new one): no stage bars on the stderr
    anonkit draws progress on, no executor error logs (they quote the records they failed
    on), no error logged by pyspark (:func:`quiet_spark_loggers`), and, when local,
    workers running this interpreter (:func:`local_workers`)."""
    from pyspark.sql import SparkSession

    quiet_spark_loggers()
    builder = SparkSession.builder.config("spark.ui.showConsoleProgress", "false")
    started = builder.appName("anonkit").getOrCreate()
    started.sparkContext.setLogLevel("FATAL")  # anonkit reports errors, without records
    local_workers(started)
    return started


def quiet_spark_loggers() -> None:
    """Silence :data:`PYSPARK_ERROR_LOGGERS` unless ``ANONKIT_SHOW_ERRORS`` is set (then
    they are left as they are): anonkit reports the error itself, by its type.

    The loggers are made as pyspark makes them (its ``PySparkLogger``, which takes the
    keywords pyspark logs with) and set above ``CRITICAL``; pyspark 3.5 has none.
    """
    if os.environ.get(SHOW_ERRORS):
        return
    try:
        from pyspark.logger import PySparkLogger
    except ImportError:  # pyspark 3.5 logs no error from Python
        return
    for name in PYSPARK_ERROR_LOGGERS:
        PySparkLogger.getLogger(name).setLevel(logging.CRITICAL + 1)


def local_workers(session: SparkSession) -> None:
    """Run ``session``'s Python workers with ``sys.executable`` when the session is local
    and neither ``PYSPARK_PYTHON`` nor ``spark.pyspark.python`` names another Python (a
    cluster's nodes may not have this path: their workers are left alone)."""
    context = session.sparkContext
    if os.environ.get("PYSPARK_PYTHON") or context.getConf().get("spark.pyspark.python"):
        return
    if str(context.master).startswith("local"):
        context.pythonExec = sys.executable


def worker_problem(err: BaseException) -> str | None:
    """What to set when ``err`` is a Spark job that failed because its Python workers
    could not start, were another Python version, or could not import anonkit (one
    paragraph, no record); ``None`` for any other error."""
    text = str(err)
    given = os.environ.get("PYSPARK_PYTHON")
    named = f"PYSPARK_PYTHON={given}" if given else "python3 (PYSPARK_PYTHON is not set)"
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if "No module named 'anonkit'" in text:
        what = f"their Python, {named}, has no anonkit installed"
    elif "PYTHON_VERSION_MISMATCH" in text or "Python in worker has different version" in text:
        what = f"their Python, {named}, is not Python {version} as anonkit's is"
    elif "Cannot run program" in text and ("python" in text.lower() or given):
        what = f"their Python, {named}, could not be started"
    else:
        return None
    return (
        f"Spark could not run anonkit's tasks: {what}. Spark starts its Python workers "
        f"with the program PYSPARK_PYTHON names; set it to a Python {version} that has "
        f"anonkit installed (for a local session, the one running anonkit: "
        f"PYSPARK_PYTHON={sys.executable}), or unset it for a local session, and run "
        "again. On a cluster, install anonkit in the Python of every node."
    )
