"""asv benchmarks of nanstats.spark.read against Spark's correct full scan (pushdown off).

The lake is the demo's (``demo.lake.make_lake``, 2 million rows, 4 days),
indexed by ``nanstats.spark.index_files``.  ``track_ratio_vs_spark_full_scan``
is nanstats' time (planning included) over Spark's scan with pushdown off,
the two taken in turn, best of three (target <= 1.0; <= 0.5 when the plan
keeps <= 20% of the pages); ``track_planning_share`` is planning over the
read (target < 0.10); ``track_pages_kept`` the share of float-column pages
the plan keeps; ``track_ratio_of_each_path`` the pyarrow path's time over
Spark's reader path's, both forced (the cost rule's record).
``benchmarks/spark_read.py`` prints the same ratios on the 16-million-row
lake.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

from bench_support.timing import best_interleaved

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

QUERIES = {
    "rare": "temperature < 12 and humidity > 90",
    "narrow": "pressure between 1025 and 1030",
    "nan": "temperature > 27",
}


class SparkRead:
    params = [list(QUERIES)]
    param_names = ["query"]
    timeout = 1200

    def setup_cache(self):
        import nanstats.spark
        from demo.lake import make_lake
        from nanstats.spark.session import local_session

        spark = local_session()
        folder = tempfile.mkdtemp(prefix="nanstats-asv-spark-read-")
        lake = os.path.join(folder, "lake")
        make_lake(spark, lake, rows=2_000_000, days=4)
        nanstats.spark.save_index(nanstats.spark.index_files(spark, lake),
                                  os.path.join(folder, "index"))
        return folder

    def setup(self, folder, query):
        import nanstats.spark
        from nanstats.prune.parser import parse
        from nanstats.spark.session import local_session
        from nanstats.spark.sql import to_spark_sql

        self.spark = local_session()
        self.lake = os.path.join(folder, "lake")
        self.index = nanstats.spark.load_index(self.spark, os.path.join(folder, "index")).toArrow()
        self.pred = parse(QUERIES[query])
        self.sql = to_spark_sql(self.pred)

    def _full(self):
        spark = self.spark
        previous = spark.conf.get("spark.sql.parquet.filterPushdown")
        spark.conf.set("spark.sql.parquet.filterPushdown", "false")
        try:
            return spark.read.parquet(self.lake).where(self.sql).count()
        finally:
            spark.conf.set("spark.sql.parquet.filterPushdown", previous)

    def _ours(self):
        import nanstats.spark

        return nanstats.spark.read(self.spark, self.lake, self.pred, index=self.index).count()

    def time_read(self, folder, query):
        self._ours()

    def track_ratio_vs_spark_full_scan(self, folder, query):
        assert self._ours() == self._full()
        ours, full = best_interleaved([self._ours, self._full], 3)
        return ours / full

    track_ratio_vs_spark_full_scan.unit = "x Spark's time"

    def track_ratio_of_each_path(self, folder, query):
        """The pyarrow path's time over Spark's reader path's (both forced): the cost
        rule's record (below 1.0 where ``choose_method`` should pick pyarrow)."""
        import nanstats.spark

        def path(method):
            return lambda: nanstats.spark.read(self.spark, self.lake, self.pred, index=self.index,
                                               method=method).count()

        arrow, native = best_interleaved([path("arrow"), path("native")], 3)
        return arrow / native

    track_ratio_of_each_path.unit = "x native path's time"

    def track_planning_share(self, folder, query):
        import nanstats.spark

        start = time.perf_counter()
        plan = nanstats.spark.plan_scan(self.index, self.pred, path=self.lake)
        planning = time.perf_counter() - start
        (read,) = best_interleaved([lambda: nanstats.spark.read(
            self.spark, self.lake, self.pred, scan_plan=plan).count()], 3)
        return planning / (planning + read)

    track_planning_share.unit = "share"

    def track_pages_kept(self, folder, query):
        import nanstats.spark
        from demo.job import page_share

        return page_share(nanstats.spark.plan_scan(self.index, self.pred, path=self.lake),
                          self.index)

    track_pages_kept.unit = "share"
