"""A realistic sample lake, generated with Spark itself, for the demo and the tests.

Sensor readings partitioned by day: four double columns (temperature,
pressure, humidity, voltage) following slow weather cycles plus noise, NaN
bursts from failed sensors, nulls, and stretches long enough to fill whole
pages with NaN.  Rows are sorted by sensor and minute, so a page covers a
stretch of one sensor's time series: its bounds are narrow, as in real
time-ordered lakes, and pruning has something to work with.  Half the days are
written by Spark's own Parquet writer (parquet-java), half by pyarrow on the
executors, as lakes fed by several tools are:

* Spark's writer canonicalises every NaN to +NaN (``0x7ff8000000000000``) and
  writes legacy statistics (in 4.3, a NaN maximum, no ``nan_count``);
* the pyarrow files keep NaN signs (a failing sensor's voltage reads -NaN),
  write a page index, and leave NaN out of their bounds without counting it.

>>> import tempfile
>>> from nanstats.spark.session import local_session
>>> info = make_lake(local_session(), tempfile.mkdtemp(), rows=20_000, days=2)
>>> info["files"] >= 2, info["rows"]
(True, 20000)
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa

COLUMNS = ("temperature", "pressure", "humidity", "voltage")
SENSORS = 16


def _readings_sql(rows: int, days: int) -> list[str]:
    per_day = max(1, rows // days)
    # A sensor fails (reads NaN on every column) for stretches of 2048
    # minutes, deterministic from (sensor, stretch) so every engine sees the
    # same lake; long enough to fill whole pages once rows are sorted.
    failed = f"(pmod(hash(id % {SENSORS}, CAST(id / {SENSORS} / 2048 AS INT)), 7) = 0)"
    return [
        f"CAST(LEAST(id / {per_day}, {days - 1}) AS INT) AS day",
        f"CAST(id % {SENSORS} AS INT) AS sensor",
        f"CAST(id / {SENSORS} AS INT) AS minute",
        "id",
        f"CASE WHEN {failed} THEN CAST('NaN' AS DOUBLE) WHEN rand(1) < 0.02 THEN NULL "
        "ELSE round(20 + 8 * sin(id / 150000.0) + 0.5 * randn(2), 3) END AS temperature",
        f"CASE WHEN {failed} THEN CAST('NaN' AS DOUBLE) WHEN rand(3) < 0.01 THEN NULL "
        "ELSE round(1013 + 12 * sin(id / 400000.0 + 1) + 1.5 * randn(4), 2) END AS pressure",
        f"CASE WHEN {failed} THEN CAST('NaN' AS DOUBLE) "
        "ELSE round(LEAST(100, GREATEST(0, 60 + 30 * cos(id / 150000.0) + 5 * randn(5))), 1) "
        "END AS humidity",
        f"CASE WHEN {failed} THEN CAST('NaN' AS DOUBLE) WHEN rand(6) < 0.001 THEN -0.0 "
        "ELSE round(3.3 + 0.05 * randn(7), 4) END AS voltage",
    ]


def _write_with_pyarrow(batches: Iterator[pa.RecordBatch], root: str
                        ) -> Iterator[pa.RecordBatch]:
    """Executor side: write each partition's rows with pyarrow, NaN signs kept.

    ``root`` is a local folder or a URI (the file system layer of nanstats).
    """
    import uuid

    import pyarrow.compute as pc
    import pyarrow.parquet as papq

    from nanstats.lake.fs import join_path, resolve

    tables: dict[int, list[pa.RecordBatch]] = {}
    for batch in batches:
        for day in set(batch.column("day").to_pylist()):
            mask = pc.equal(batch.column("day"), day)
            tables.setdefault(day, []).append(batch.filter(mask))
    written = []
    for day, parts in tables.items():
        table = pa.Table.from_batches(parts).drop_columns(["day"])
        table = table.sort_by([("sensor", "ascending"), ("minute", "ascending")])
        # A failing sensor's voltage reads as a negative NaN in these files.
        volts = table.column("voltage").combine_chunks()
        bits = np.frombuffer(volts.buffers()[1], np.uint64)[volts.offset:volts.offset + len(volts)]
        flipped = np.where(np.isnan(bits.view(np.float64)), bits | np.uint64(1 << 63), bits)
        new_volts = pa.Array.from_buffers(pa.float64(), len(volts),
                                          [volts.buffers()[0], pa.py_buffer(flipped.tobytes())],
                                          offset=0)
        table = table.set_column(table.schema.get_field_index("voltage"), "voltage", new_volts)
        path = join_path(root, f"day={day}/part-{uuid.uuid4().hex[:12]}.parquet")
        where = resolve(path)
        where.filesystem.create_dir(resolve(join_path(root, f"day={day}")).path)
        papq.write_table(table, where.path, filesystem=where.filesystem,
                         row_group_size=100_000, data_page_size=8 * 1024,
                         use_dictionary=["sensor"], write_page_index=True)
        written.append(path)
    yield pa.RecordBatch.from_pydict({"path": written}, schema=pa.schema([("path", pa.string())]))


def make_lake(spark: Any, path: str, rows: int = 2_000_000, days: int = 4) -> dict[str, Any]:
    """Write the sample lake under ``path`` (a folder or a URI Spark and nanstats
    both reach, e.g. ``s3a://bucket/lake``); returns what was written."""
    from pyspark import cloudpickle

    from nanstats.lake.fs import resolve
    from nanstats.lake.listing import list_parquet_files

    # This module is not installed on the executors (only nanstats is): ship
    # its functions by value.
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    readings = spark.range(rows).selectExpr(*_readings_sql(rows, days))
    half = max(1, days // 2)
    (readings.where(f"day < {half}").repartition("day").sortWithinPartitions("sensor", "minute")
     .write.mode("overwrite").partitionBy("day")
     .option("parquet.block.size", 4 * 1024 * 1024).parquet(path))
    later = readings.where(f"day >= {half}").repartition("day")
    later.mapInArrow(lambda it: _write_with_pyarrow(it, path), "path string").collect()
    files = list_parquet_files(path)
    return {"path": path, "rows": rows, "days": days, "files": len(files),
            "bytes": sum(resolve(f).info().size for f in files),
            "spark_days": list(range(half)), "pyarrow_days": list(range(half, days))}


def make_float16_files(path: str, rows: int = 200_000, files: int = 2, seed: int = 11
                       ) -> dict[str, Any]:
    """A fleet of low-power sensors that store readings as float16, written by pyarrow
    under ``path`` (a folder or a URI).

    Spark 4.3 cannot read FLOAT16 Parquet columns (``PARQUET_TYPE_ILLEGAL``),
    so these files sit beside the Spark lake: nanstats indexes, upgrades and
    checks them on the executors through pyarrow.  NaN bursts of both signs
    (some filling pages), nulls, both zeros.

    >>> import tempfile
    >>> info = make_float16_files(tempfile.mkdtemp(), rows=4_000, files=1)
    >>> info["files"], info["rows"]
    (1, 4000)
    """
    import pyarrow.parquet as papq

    from nanstats.lake.fs import join_path, resolve

    rng = np.random.default_rng(seed)
    per_file = max(1, rows // files)
    written = []
    for k in range(files):
        n = per_file if k < files - 1 else rows - per_file * (files - 1)
        t = np.arange(n) + k * per_file
        temp = (18 + 6 * np.sin(t / 20000.0) + rng.normal(0, 0.4, n)).astype(np.float16)
        hum = np.clip(55 + 25 * np.cos(t / 20000.0) + rng.normal(0, 3, n), 0, 100) \
            .astype(np.float16)
        bits_t, bits_h = temp.view(np.uint16), hum.view(np.uint16)
        for _ in range(max(1, n // 20000)):  # failing sensors: NaN bursts of either sign
            length = int(rng.choice([100, 2500]))
            start = int(rng.integers(0, max(1, n - length)))
            sign = np.uint16(0x8000) if rng.random() < 0.5 else np.uint16(0)
            bits_t[start:start + length] = np.uint16(0x7E00) | sign
            bits_h[start:start + length] = np.uint16(0x7E01) | sign
        temp[rng.random(n) < 0.001] = -0.0
        nulls = rng.random(n) < 0.01
        table = pa.table({
            "sensor": pa.array((t // 1000 % SENSORS).astype(np.int32)),
            "minute": pa.array(t.astype(np.int32)),
            "temperature_f16": pa.array(temp, mask=nulls, type=pa.float16()),
            "humidity_f16": pa.array(hum, type=pa.float16()),
        })
        out = join_path(path, f"part={k}/readings.parquet")
        where = resolve(out)
        where.filesystem.create_dir(resolve(join_path(path, f"part={k}")).path)
        papq.write_table(table, where.path, filesystem=where.filesystem,
                         row_group_size=50_000, data_page_size=4 * 1024, write_page_index=True)
        written.append(out)
    return {"path": path, "rows": rows, "files": len(written),
            "bytes": sum(resolve(f).info().size for f in written)}
