"""A local Spark session set up the way nanstats needs it."""

from __future__ import annotations

import os
import sys
from typing import Any


def local_session(master: str = "local[2]", app_name: str = "nanstats", **conf: str) -> Any:
    """The active Spark session, or a new local one (UI off, Arrow on).

    Executors run this interpreter (``PYSPARK_PYTHON``) unless the
    environment says otherwise.  Their kernels run single-threaded
    (``NANSTATS_THREADS=1`` unless set here): Spark already runs one task per
    core, and threads inside a task would only compete with the others.

    >>> local_session().conf.get("spark.ui.enabled")
    'false'
    """
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = (
        SparkSession.builder.master(master)
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.driver.memory", "2g")
        .config("spark.executorEnv.NANSTATS_THREADS", os.environ.get("NANSTATS_THREADS", "1"))
    )
    for key, value in conf.items():
        builder = builder.config(key.replace("_", "."), value)
    return builder.getOrCreate()
