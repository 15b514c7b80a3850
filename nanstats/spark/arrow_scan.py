"""The read path through pyarrow on the executors: exactly the planned pages.

The plan's row groups are dealt to as many tasks as Spark has cores
(balanced by the rows each keeps); each task reads, with the
:class:`~nanstats.parquet.page_reader.SelectionReader` its Python worker
keeps per file, the planned pages of the predicate's columns only, applies
the exact filter under the plan's semantics (which Spark SQL need not be
able to say), reads the other columns only at the rows that passed, and
hands Arrow batches to Spark (``mapInArrow`` over ``spark.range``: no
shuffle, no input to serialise).  Its cost follows the pages the plan
keeps, plus a Python job's set-up; :func:`nanstats.spark.scan.choose_method`
weighs it against Spark's own reader.

The bytes the tasks read from the files (the readers' count, page indexes
and footers included) are added to a session-wide accumulator,
:func:`bytes_read`, since Spark's input metrics see only its own readers.

>>> import os, tempfile, numpy as np, pyarrow as pa
>>> from nanstats.parquet.writing import write_table
>>> from nanstats.spark.scan import plan_scan
>>> from nanstats.spark.session import local_session
>>> folder = tempfile.mkdtemp()
>>> _ = write_table(pa.table({"x": [1.0, -np.nan, 3.0]}), os.path.join(folder, "a.parquet"))
>>> spark = local_session()
>>> plan = plan_scan(folder, "x > 2", "ieee")    # NaN compares false
>>> [r.x for r in arrow_frame(spark, folder, plan, spark.read.parquet(folder).schema).collect()]
[3.0]
"""

from __future__ import annotations

import heapq
import json
import os
from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from nanstats.prune.profiles import EngineProfile, profile

__all__ = ["arrow_frame", "bytes_read", "deal"]

#: One accumulator per SparkContext: the bytes the arrow path's tasks read.
_ACCUMULATORS: dict[int, Any] = {}


def _accumulator(spark: Any) -> Any:
    sc = spark.sparkContext
    acc = _ACCUMULATORS.get(id(sc))
    if acc is None:
        acc = _ACCUMULATORS[id(sc)] = sc.accumulator(0)
    return acc


def bytes_read(spark: Any) -> int:
    """Bytes the arrow path's tasks have read from files in this session so far.

    >>> from nanstats.spark.session import local_session
    >>> bytes_read(local_session()) >= 0
    True
    """
    return int(_accumulator(spark).value)


def deal(tasks: list[dict[str, Any]], parts: int) -> list[list[dict[str, Any]]]:
    """Tasks dealt to at most ``parts`` groups, the largest first to the lightest group.

    A task's weight is the rows it keeps (``rows``).  Groups keep file order.

    >>> ts = [{"path": "a", "row_group": g, "rows": r} for g, r in enumerate([5, 1, 4, 2])]
    >>> [[t["row_group"] for t in group] for group in deal(ts, 2)]
    [[0, 1], [2, 3]]
    """
    parts = max(1, min(parts, len(tasks)))
    heap = [(0, i) for i in range(parts)]
    groups: list[list[int]] = [[] for _ in range(parts)]
    for k in sorted(range(len(tasks)), key=lambda k: -tasks[k]["rows"]):
        load, i = heapq.heappop(heap)
        groups[i].append(k)
        heapq.heappush(heap, (load + tasks[k]["rows"], i))
    return [[tasks[k] for k in sorted(g)] for g in groups if g]


def _read_group(tasks: list[dict[str, Any]], root: str, predicate: str,
                semantics: str | EngineProfile, schema: pa.Schema, acc: Any
                ) -> Iterator[pa.RecordBatch]:
    """Executor side: each task's file read at its planned rows, filtered exactly."""
    from nanstats.lake.listing import hive_partitions
    from nanstats.parquet.page_reader import reader_for
    from nanstats.prune.parser import parse
    from nanstats.prune.results import RowSelection

    pred = parse(predicate)
    by_file: dict[str, dict[int, tuple[tuple[int, int], ...]]] = {}
    for t in tasks:
        by_file.setdefault(t["path"], {})[t["row_group"]] = tuple(
            (a, b) for a, b in json.loads(t["ranges"]))
    for path, ranges in by_file.items():
        reader = reader_for(path)
        before = reader.bytes_read
        file_names = set(reader.arrow_schema.names)
        parts = dict(hive_partitions(path, root))
        # Columns the file lacks: its partition values, else null (as Spark reads them).
        constants = {f.name: pa.scalar(parts.get(f.name), pa.string()).cast(f.type)
                     for f in schema if f.name not in file_names}
        table = reader.read_where(RowSelection(ranges, 0), pred, semantics, schema.names,
                                  constants)
        acc.add(reader.bytes_read - before)
        if table.num_rows:
            yield from table.cast(schema).to_batches()


def arrow_frame(spark: Any, root: str | os.PathLike[str], plan: Any, schema: Any) -> Any:
    """A DataFrame of the plan's rows, read by pyarrow on the executors (see the module example).

    ``schema`` is Spark's schema of the whole lake (partition columns included).
    """
    from pyspark.sql.pandas.types import to_arrow_schema

    arrow_schema = to_arrow_schema(schema)
    tasks = [{**t, "rows": sum(b - a for a, b in json.loads(t["ranges"]))}
             for t in plan.tasks()]
    if not tasks:
        return spark.createDataFrame([], schema)
    groups = deal(tasks, spark.sparkContext.defaultParallelism)
    text, sem, path = plan.predicate, profile(plan.semantics), os.fspath(root)
    acc = _accumulator(spark)

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for i in batch.column(0).to_pylist():
                yield from _read_group(groups[i], path, text, sem, arrow_schema, acc)

    return spark.range(0, len(groups), 1, len(groups)).mapInArrow(run, schema)
