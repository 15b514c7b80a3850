"""What a Spark action read and how long it took, for the demo and benchmarks/spark_read.py.

Bytes are Spark's own input metrics (the bytes its Parquet reader took from
the file system, summed over the stages of the action's jobs), read from
Spark's status store; the session must have Parquet's vectored reads off
(``SESSION_CONF``), since Hadoop's local file system does not count bytes
read that way.  Files and rows read are the SQL metrics of Spark's Parquet
scans ("number of files read", "number of output rows" of each scan node),
counted when the action runs.  Reads done by Python workers (nanstats'
pyarrow path) are not in Spark's metrics; their readers count files, row
groups, data pages and bytes, and those are added
(``nanstats.spark.arrow_scan.counts_since``).  Spark's reader counts no row
groups or pages: those stay None for an action that read only through it.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
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
    files: int = 0  #: files read (Spark's scans' count plus the pyarrow path's readers')
    rows_read: int | None = None  #: rows Spark's Parquet scans produced (None: no scan ran)
    row_groups: int | None = None  #: row groups the pyarrow path's readers read from
    pages: int | None = None  #: data pages the pyarrow path's readers read

    def plus_seconds(self, extra: float) -> Measured:
        """The same measure with ``extra`` seconds (planning done before the action) added."""
        return replace(self, seconds=self.seconds + extra)


def measure(spark: Any, action: Callable[[], Any]) -> Measured:
    """Run ``action`` (a Spark action) in a job group of its own; time it and sum its input bytes."""
    from nanstats.spark.arrow_scan import counts_since, read_counts

    sc = spark.sparkContext
    group = f"nanstats-measure-{next(_groups)}"
    sc.setJobGroup(group, group)
    before = read_counts(spark)
    try:
        start = time.perf_counter()
        result = action()
        seconds = time.perf_counter() - start
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
        sc.setLocalProperty("spark.job.description", None)
    jobs = set(sc.statusTracker().getJobIdsForGroup(group))
    spark_bytes, cpu = _stage_metrics(sc, jobs)
    files, rows = _scan_metrics(spark, jobs)
    ours = counts_since(spark, before)
    return Measured(result, seconds, spark_bytes + ours.bytes, cpu, files + ours.files, rows,
                    ours.row_groups if ours.files else None, ours.pages if ours.files else None)


def _stage_metrics(sc: Any, jobs: set[int]) -> tuple[int, float]:
    tracker = sc.statusTracker()
    store = sc._jsc.sc().statusStore()
    empty = sc._gateway.new_array(sc._jvm.double, 0)
    total, cpu = 0, 0
    for job in sorted(jobs):
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


def _scan_metrics(spark: Any, jobs: set[int]) -> tuple[int, int | None]:
    """Files read and rows produced by the Parquet scans of the SQL executions that
    ran ``jobs`` (rows None when no Parquet scan ran)."""
    store = spark._jsparkSession.sharedState().statusStore()
    files, rows, scans = 0, 0, 0
    executions = store.executionsList().iterator()
    while executions.hasNext():
        execution = executions.next()
        ids, keys = set(), execution.jobs().keys().iterator()
        while keys.hasNext():
            ids.add(int(keys.next()))
        if not ids & jobs:
            continue
        values = store.executionMetrics(execution.executionId())
        nodes = store.planGraph(execution.executionId()).allNodes().iterator()
        while nodes.hasNext():
            node = nodes.next()
            if not node.name().startswith("Scan parquet"):
                continue
            scans += 1
            metrics = node.metrics().iterator()
            while metrics.hasNext():
                metric = metrics.next()
                value = values.get(metric.accumulatorId())
                if not value.isDefined():
                    continue
                if metric.name() == "number of files read":
                    files += _count(value.get())
                elif metric.name() == "number of output rows":
                    rows += _count(value.get())
    return files, rows if scans else None


def _count(text: str) -> int:
    """A count as Spark's SQL metrics print it ("16,000,000")."""
    return int(text.replace(",", "").split()[0])
