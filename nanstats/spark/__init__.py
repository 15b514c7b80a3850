"""nanstats on Spark: float statistics computed on the executors.

Needs the ``spark`` extra (pyspark 4).  Spark's local mode is the default;
a cluster is the same code with another master URL, with nanstats installed
on the executors.
"""

from nanstats.spark.index import index_files, load_index, save_index
from nanstats.spark.pandas_udfs import summary_columns, summary_in_pandas, summary_udf
from nanstats.spark.scan import ScanPlan, plan_scan, read
from nanstats.spark.summary import summary
from nanstats.spark.upgrade import upgrade_files

__all__ = ["ScanPlan", "index_files", "load_index", "plan_scan", "read", "save_index",
           "summary", "summary_columns", "summary_in_pandas", "summary_udf", "upgrade_files"]
