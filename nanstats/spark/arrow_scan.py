"""The read path through pyarrow on the executors: exactly the planned pages.

The plan's row groups are dealt to tasks (balanced by the rows each keeps;
as many tasks as Spark has cores for a large read, fewer for a small one:
:func:`nanstats.spark.scan.arrow_tasks`, which ``nanstats.spark.read``
applies); each task reads, with the
:class:`~nanstats.parquet.page_reader.SelectionReader` its Python worker
keeps per file, the planned pages of the predicate's columns only, applies
the exact filter under the plan's semantics (which Spark SQL need not be
able to say), reads the other columns only at the rows that passed, and
hands Arrow batches to Spark (``mapInArrow`` over ``spark.range``: no
shuffle, no input to serialise).  Its cost follows the pages the plan
keeps, plus a Python job's set-up; :func:`nanstats.spark.scan.choose_method`
weighs it against Spark's own reader.

What the tasks read from the files, as their readers count it (files,
row groups, data pages, bytes; page indexes and footers included in the
bytes), goes to a session-wide accumulator, per file:
:func:`nanstats.spark.arrow_scan.read_counts` (and
:func:`nanstats.spark.arrow_scan.counts_since` for one action), since
Spark's input metrics see only its own readers.

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
import weakref
from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from nanstats.parquet.page_reader import ReadCounts
from nanstats.prune.profiles import EngineProfile, profile

__all__ = ["arrow_frame", "bytes_read", "counts_since", "deal", "read_counts"]

#: Per file: row groups, pages and bytes read (one file's :class:`ReadCounts` less ``files``).
PerFile = dict[str, tuple[int, int, int]]

#: One accumulator per SparkContext: what the arrow path's tasks read, per file.
_ACCUMULATORS: dict[int, Any] = {}


def _add_counts(into: PerFile, more: PerFile) -> PerFile:
    for path, c in more.items():
        had = into.get(path, (0, 0, 0))
        into[path] = (had[0] + c[0], had[1] + c[1], had[2] + c[2])
    return into


def _accumulator(spark: Any) -> Any:
    from pyspark.accumulators import AccumulatorParam

    class PerFileParam(AccumulatorParam):  # type: ignore[type-arg]
        def zero(self, value: PerFile) -> PerFile:
            return {}

        def addInPlace(self, value1: PerFile, value2: PerFile) -> PerFile:  # noqa: N802
            return _add_counts(value1, value2)

    sc = spark.sparkContext
    acc = _ACCUMULATORS.get(id(sc))
    if acc is None:
        acc = _ACCUMULATORS[id(sc)] = sc.accumulator({}, PerFileParam())
    return acc


def read_counts(spark: Any) -> PerFile:
    """Per file, the row groups, data pages and bytes the arrow path's tasks have
    read in this session so far (a copy; see :func:`nanstats.spark.arrow_scan.counts_since`).

    >>> from nanstats.spark.session import local_session
    >>> isinstance(read_counts(local_session()), dict)
    True
    """
    return dict(_accumulator(spark).value)


def counts_since(spark: Any, before: PerFile) -> ReadCounts:
    """What the arrow path's tasks read since ``before`` (a
    :func:`nanstats.spark.arrow_scan.read_counts`): files read, and their row
    groups, pages and bytes.

    >>> import os, tempfile, pyarrow as pa
    >>> from nanstats.parquet.writing import write_table
    >>> from nanstats.spark.scan import read
    >>> from nanstats.spark.session import local_session
    >>> spark, folder = local_session(), tempfile.mkdtemp()
    >>> _ = write_table(pa.table({"x": [1.0, 5.0]}), os.path.join(folder, "a.parquet"))
    >>> before = read_counts(spark)
    >>> read(spark, folder, "x > 2", method="arrow").count()
    1
    >>> c = counts_since(spark, before); (c.files, c.row_groups, c.pages)
    (1, 1, 1)
    """
    total = ReadCounts()
    for path, (groups, pages, nbytes) in read_counts(spark).items():
        old = before.get(path, (0, 0, 0))
        if nbytes > old[2]:
            total += ReadCounts(1, groups - old[0], pages - old[1], nbytes - old[2])
    return total


def bytes_read(spark: Any) -> int:
    """Bytes the arrow path's tasks have read from files in this session so far.

    >>> from nanstats.spark.session import local_session
    >>> bytes_read(local_session()) >= 0
    True
    """
    return sum(c[2] for c in read_counts(spark).values())


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


#: This worker's readers' counts already added to the accumulator.
_REPORTED: weakref.WeakKeyDictionary[Any, ReadCounts] = weakref.WeakKeyDictionary()


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
        before = _REPORTED.get(reader, ReadCounts())  # a new reader: its footer read too
        file_names = set(reader.arrow_schema.names)
        parts = dict(hive_partitions(path, root))
        # Columns the file lacks: its partition values, else null (as Spark reads them).
        constants = {f.name: pa.scalar(parts.get(f.name), pa.string()).cast(f.type)
                     for f in schema if f.name not in file_names}
        table = reader.read_where(RowSelection(ranges, 0), pred, semantics, schema.names,
                                  constants)
        after = _REPORTED[reader] = reader.counts()
        acc.add({path: (after.row_groups - before.row_groups, after.pages - before.pages,
                        after.bytes - before.bytes)})
        if table.num_rows:
            yield from table.cast(schema).to_batches()


def arrow_frame(spark: Any, root: str | os.PathLike[str], plan: Any, schema: Any,
                tasks: int | None = None) -> Any:
    """A DataFrame of the plan's rows, read by pyarrow on the executors (see the module example).

    ``schema`` is Spark's schema of the whole lake (partition columns included);
    ``tasks`` how many tasks read (default: one per core;
    :func:`nanstats.spark.read` gives :func:`nanstats.spark.scan.arrow_tasks`).
    """
    from pyspark.sql.pandas.types import to_arrow_schema

    from nanstats.spark.native_scan import empty_frame

    arrow_schema = to_arrow_schema(schema)
    pieces = [{**t, "rows": sum(b - a for a, b in json.loads(t["ranges"]))}
              for t in plan.tasks()]
    if not pieces:
        return empty_frame(spark, schema)
    groups = deal(pieces, spark.sparkContext.defaultParallelism if tasks is None else tasks)
    text, sem, path = plan.predicate, profile(plan.semantics), os.fspath(root)
    acc = _accumulator(spark)

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for i in batch.column(0).to_pylist():
                yield from _read_group(groups[i], path, text, sem, arrow_schema, acc)

    return spark.range(0, len(groups), 1, len(groups)).mapInArrow(run, schema)
