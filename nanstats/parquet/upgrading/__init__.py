"""Upgrade the float statistics of a Parquet file, data pages untouched.

One module per job: :mod:`~nanstats.parquet.upgrading.run` (``upgrade``, the
pipeline of row groups), :mod:`~nanstats.parquet.upgrading.plan` (what each
column chunk becomes), :mod:`~nanstats.parquet.upgrading.layout` (where
pages, indexes and offsets land), :mod:`~nanstats.parquet.upgrading.writer`
(the temporary file, batched writes, fsync and rename) and
:mod:`~nanstats.parquet.upgrading.report` (what was done);
:mod:`~nanstats.parquet.upgrading.tables` upgrades every live file of a
Delta Lake or Iceberg table and commits the rewrite through the table's library.  The Thrift
structures written come from :mod:`nanstats.metadata.convert`.

>>> import numpy as np, pyarrow as pa, pyarrow.parquet as papq, tempfile, os
>>> d = tempfile.mkdtemp()
>>> src, dst = os.path.join(d, "src.parquet"), os.path.join(d, "dst.parquet")
>>> papq.write_table(pa.table({"x": [1.0, np.nan]}), src)
>>> upgrade(src, dst).upgraded
('x',)
"""

from nanstats.parquet.upgrading.report import TRUNCATED, ColumnSummary, UpgradeReport
from nanstats.parquet.upgrading.run import upgrade
from nanstats.parquet.upgrading.tables import FileRewrite, TableUpgradeReport, upgrade_table

__all__ = ["TRUNCATED", "ColumnSummary", "FileRewrite", "TableUpgradeReport", "UpgradeReport",
           "upgrade", "upgrade_table"]
