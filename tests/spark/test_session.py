"""The local session nanstats sets up."""

from __future__ import annotations

import pyarrow as pa


def _threads_seen(batches):
    import os

    import nanstats

    for _ in batches:
        yield pa.RecordBatch.from_pydict({"env": [os.environ.get("NANSTATS_THREADS", "unset")],
                                          "threads": [nanstats.get_threads()]})


def test_executor_kernels_are_single_threaded(spark) -> None:
    # Spark runs a task per core; threads inside a task would oversubscribe.
    rows = spark.range(2).repartition(2).mapInArrow(_threads_seen, "env string, threads long")
    assert {(r.env, r.threads) for r in rows.collect()} == {("1", 1)}
