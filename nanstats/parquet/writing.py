"""Write an Arrow table to Parquet with correct float statistics, in one call.

pyarrow writes the file (with a page index by default) to a temporary file
beside ``path``; :func:`~nanstats.parquet.upgrading.upgrade` then writes the
final file with nanstats' float statistics.  ``path`` appears complete or
not at all.

>>> import numpy as np, pyarrow as pa, tempfile, os
>>> from nanstats.metadata.footer import read_footer
>>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
>>> report = write_table(pa.table({"x": [np.nan, 2.0]}), path)
>>> footer = read_footer(path)
>>> footer.column_order(0), footer.chunk(0, 0).meta_data.statistics.nan_count
('ieee754', 1)
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from nanstats.core.rules import ColumnOrderName, TypeOrderPolicy, check_order
from nanstats.lake.fs import Target, resolve
from nanstats.parquet.string_stats import check_truncate
from nanstats.parquet.upgrading import UpgradeReport, upgrade


def write_table(table: Any, path: Target, order: ColumnOrderName = "ieee754",
                *, policy: TypeOrderPolicy = "safe", progress: Any = None,
                truncate: int | None = None, filesystem: Any = None,
                **pyarrow_options: Any) -> UpgradeReport:
    """Write ``table`` (a ``pyarrow.Table``) to ``path`` with nanstats' float statistics.

    ``pyarrow_options`` go to ``pyarrow.parquet.write_table``
    (``write_page_index`` defaults to True, so every column keeps a page
    index).  ``order``, ``policy`` and ``truncate`` (string bounds of at
    most that many bytes) are as for :func:`~nanstats.parquet.upgrading.upgrade`.  Returns its UpgradeReport
    (whose ``src`` names the temporary pyarrow file, removed on return).
    ``path`` may be a URI of any filesystem (or a path on ``filesystem=``):
    the file is then written locally and uploaded so that it appears only
    complete (:mod:`nanstats.parquet.upgrading.remote`).  See the module
    example.

    >>> import pyarrow as pa, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> write_table(pa.table({"x": [0.5, float("nan")]}), path, "type_order").upgraded
    ('x',)
    """
    import pyarrow as pa
    import pyarrow.parquet as papq

    check_order(order, policy)
    if truncate is not None:
        check_truncate(truncate)
    if not isinstance(table, pa.Table):
        raise TypeError(f"table must be a pyarrow.Table, not {type(table).__name__}")
    where = resolve(path, filesystem)
    pyarrow_options.setdefault("write_page_index", True)
    # Beside a local destination; in the temporary folder for a remote one.
    directory = os.path.dirname(os.path.abspath(where.path)) if where.is_local else None
    name = os.path.basename(where.path.rstrip("/"))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=".pyarrow-tmp")
    os.close(fd)
    try:
        papq.write_table(table, tmp, **pyarrow_options)
        return upgrade(tmp, where, order, policy=policy, progress=progress, truncate=truncate)
    finally:
        try:
            os.unlink(tmp)
        except FileNotFoundError:  # pragma: no cover
            pass
