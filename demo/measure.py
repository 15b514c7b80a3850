"""What a Spark action read and how long it took, for the demo and benchmarks/spark_read.py.

Bytes are Spark's own input metrics (the bytes its Parquet reader took from
the file system, summed over the stages of the action's jobs), read from
Spark's status store; the session must have Parquet's vectored reads off
(``SESSION_CONF``), since Hadoop's local file system does not count bytes
read that way.  Reads done by Python workers (nanstats' pyarrow path) are
not in Spark's metrics; they are counted by the workers' readers and added
(``nanstats.spark.arrow_scan.bytes_read``).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: Session settings under which Spark counts the bytes its Parquet reader reads.
SESSION_CONF = {"spark.hadoop.parquet.hadoop.vectored.io.enabled": "false"}

_groups = itertools.count()


@dataclass(frozen=True)
class Measured:
    """An action's result, wall time and the bytes Spark's readers read."""

    result: Any
    seconds: float
    bytes_read: int
    cpu_seconds: float = 0.0  #: the tasks' CPU time (less disturbed by a busy machine)


def measure(spark: Any, action: Callable[[], Any]) -> Measured:
    """Run ``action`` (a Spark action) in a job group of its own; time it and sum its input bytes."""
    from nanstats.spark.arrow_scan import bytes_read

    sc = spark.sparkContext
    group = f"nanstats-measure-{next(_groups)}"
    sc.setJobGroup(group, group)
    before = bytes_read(spark)
    try:
        start = time.perf_counter()
        result = action()
        seconds = time.perf_counter() - start
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
        sc.setLocalProperty("spark.job.description", None)
    spark_bytes, cpu = _stage_metrics(sc, group)
    return Measured(result, seconds, spark_bytes + bytes_read(spark) - before, cpu)


def _stage_metrics(sc: Any, group: str) -> tuple[int, float]:
    tracker = sc.statusTracker()
    store = sc._jsc.sc().statusStore()
    empty = sc._gateway.new_array(sc._jvm.double, 0)
    total, cpu = 0, 0
    for job in tracker.getJobIdsForGroup(group):
        info = tracker.getJobInfo(job)
        for stage in info.stageIds if info is not None else ():
            try:
                data = store.stageAttempt(stage, 0, False, sc._jvm.java.util.ArrayList(), False,
                                          empty)
            except Exception:  # noqa: BLE001 - a stage skipped or not kept by the store
                continue
            total += int(data._1().inputBytes())
            cpu += int(data._1().executorCpuTime())
    return total, cpu / 1e9
