"""``read_table``: read a Parquet file filtered, skipping what the statistics rule out.

Row groups and pages are pruned with :mod:`nanstats.prune` under the
chosen NaN semantics; only the pages that hold kept rows are read (copied
into a small in-memory file per column that pyarrow decodes), and the exact
filter is applied under the same semantics.  The result equals a full read
filtered by an engine with those semantics.

>>> import numpy as np, pyarrow as pa, tempfile, os
>>> from nanstats.parquet.writing import write_table
>>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
>>> _ = write_table(pa.table({"x": [3.0, np.nan, -0.0, 7.5], "k": [1, 2, 3, 4]}), path,
...                 row_group_size=2)
>>> read_table(path, "x > 1").to_pydict()       # Spark's semantics: NaN is above 1
{'x': [3.0, nan, 7.5], 'k': [1, 2, 4]}
>>> read_table(path, "x > 1", semantics="ieee", columns=["k"]).to_pydict()
{'k': [1, 4]}
"""

from __future__ import annotations

from typing import Any

from nanstats.lake.fs import Target, remote_errors, resolve
from nanstats.parquet.page_reader import SelectionReader
from nanstats.prune.expressions import Expr
from nanstats.prune.files import pages
from nanstats.prune.parquet_source import FileSource
from nanstats.prune.parser import as_predicate
from nanstats.prune.profiles import EngineProfile, profile
from nanstats.prune.results import RowSelection
from nanstats.prune.semantics import DEFAULT_SEMANTICS


def selection_bytes(path: Target, selection: RowSelection,
                    columns: list[str] | None = None, *, filesystem: Any = None) -> int:
    """Bytes of the file that :func:`read_selection` reads for a selection.

    >>> import numpy as np, pyarrow as pa, tempfile, os
    >>> from nanstats.parquet.writing import write_table
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> _ = write_table(pa.table({"x": np.arange(10_000.0)}), path, data_page_size=4096,
    ...                 use_dictionary=False)
    >>> everything = pages(path, "x >= 0")
    >>> some = pages(path, "x < 100")
    >>> selection_bytes(path, some) * 5 < selection_bytes(path, everything)   # 1 page of 10
    True
    """
    return SelectionReader(path, filesystem).bytes_for(selection, columns)


def read_selection(path: Target, selection: RowSelection,
                   columns: list[str] | None = None, *, filesystem: Any = None) -> Any:
    """The rows of a RowSelection, as one pyarrow Table (row groups in file order).

    Flat columns with an OffsetIndex are read page by page: only the pages
    holding selected rows (and the dictionary page) are read and decoded.
    Other columns are read whole per row group, then sliced.

    >>> import numpy as np, pyarrow as pa, tempfile, os
    >>> from nanstats.parquet.writing import write_table
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> _ = write_table(pa.table({"x": np.arange(100.0)}), path, data_page_size=64,
    ...                 write_batch_size=10)
    >>> sel = RowSelection({0: ((20, 23), (95, 100))}, 100)
    >>> read_selection(path, sel).column("x").to_pylist()
    [20.0, 21.0, 22.0, 95.0, 96.0, 97.0, 98.0, 99.0]
    """
    return SelectionReader(path, filesystem).read(selection, columns)


def read_table(path: Target, filter: Expr | str | None = None, *,
               semantics: str | EngineProfile = DEFAULT_SEMANTICS,
               columns: list[str] | None = None, filesystem: Any = None) -> Any:
    """Read the rows of a Parquet file that satisfy ``filter`` under ``semantics``.

    Parameters
    ----------
    path : str, os.PathLike or Location
        A Parquet file: a local path or any URI of
        :func:`nanstats.lake.fs.resolve` (``s3://bucket/lake/part-0.parquet``);
        a remote file is read by ranges (footer, page index, the pages kept).
    filter : Expr or str, optional
        A predicate (``nanstats.prune.expressions``) or its text
        (``"x > 1.5 and not is_nan(y)"``); None reads everything.
    semantics : str or EngineProfile
        The engine whose rows to return: an engine name ('spark', 'duckdb',
        'polars', 'numpy', 'arrow', 'pandas'), one of the abstract semantics
        ('nan_greatest', the default, 'ieee', 'nan_least', 'total_order'), or
        an :class:`~nanstats.prune.profiles.EngineProfile`.
    columns : list of str, optional
        Top-level columns to return (all by default); the filter may read
        others.
    filesystem : pyarrow.fs.FileSystem or fsspec filesystem, optional
        The filesystem ``path`` is on (else it comes from the URI).

    Examples
    --------
    >>> import numpy as np, pyarrow as pa, tempfile, os
    >>> from nanstats.parquet.writing import write_table
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> _ = write_table(pa.table({"x": [1.0, -0.0, np.nan], "y": [1, 2, 3]}), path)
    >>> read_table(path, "x < 0", semantics="total_order").to_pydict()   # -0.0 < +0.0
    {'x': [-0.0], 'y': [2]}
    >>> read_table(path, "x < 0", semantics="ieee").num_rows
    0
    """
    import pyarrow.parquet as papq

    prof = profile(semantics)
    where = resolve(path, filesystem)
    if filter is None:
        with remote_errors(where):
            return papq.read_table(where.path, columns=columns,
                                   filesystem=None if where.is_local else where.filesystem)
    pred = as_predicate(filter)
    source = FileSource(where, pred.columns())
    selection = pages(source, pred, semantics=prof)
    # The filter's columns first; the others only where rows passed.  The
    # footer and page index the plan read are not read again.
    reader = SelectionReader(where, footer=source.footer, region=source.region())
    return reader.read_where(selection, pred, prof, columns)
