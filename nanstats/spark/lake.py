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

import os
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
    """Executor side: write each partition's rows with pyarrow, NaN signs kept."""
    import uuid

    import pyarrow.parquet as papq

    tables: dict[int, list[pa.RecordBatch]] = {}
    for batch in batches:
        for day in set(batch.column("day").to_pylist()):
            mask = pa.compute.equal(batch.column("day"), day)
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
        folder = os.path.join(root, f"day={day}")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, f"part-{uuid.uuid4().hex[:12]}.parquet")
        papq.write_table(table, path, row_group_size=100_000, data_page_size=8 * 1024,
                         use_dictionary=["sensor"],
                         write_page_index=True)
        written.append(path)
    yield pa.RecordBatch.from_pydict({"path": written}, schema=pa.schema([("path", pa.string())]))


def make_lake(spark: Any, path: str, rows: int = 2_000_000, days: int = 4) -> dict[str, Any]:
    """Write the sample lake under ``path``; returns what was written."""
    from nanstats.spark.index import list_parquet_files

    readings = spark.range(rows).selectExpr(*_readings_sql(rows, days))
    half = max(1, days // 2)
    (readings.where(f"day < {half}").repartition("day").sortWithinPartitions("sensor", "minute")
     .write.mode("overwrite").partitionBy("day")
     .option("parquet.block.size", 4 * 1024 * 1024).parquet(path))
    later = readings.where(f"day >= {half}").repartition("day")
    later.mapInArrow(lambda it: _write_with_pyarrow(it, path), "path string").collect()
    files = list_parquet_files(path)
    return {"path": path, "rows": rows, "days": days, "files": len(files),
            "bytes": sum(os.path.getsize(f) for f in files),
            "spark_days": list(range(half)), "pyarrow_days": list(range(half, days))}
