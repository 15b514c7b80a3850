"""``read_table``: read a Parquet file filtered, skipping what the statistics rule out.

Row groups and pages are pruned with :mod:`nanstats.prune` under the
chosen NaN semantics; pyarrow reads the row groups that remain, only the
row ranges the page indexes kept are taken from them, and the exact filter
is applied under the same semantics.  The result equals a full read
filtered by an engine with those semantics.

>>> import numpy as np, pyarrow as pa, tempfile, os
>>> from nanstats.parquet.write import write_table
>>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
>>> _ = write_table(pa.table({"x": [3.0, np.nan, -0.0, 7.5], "k": [1, 2, 3, 4]}), path,
...                 row_group_size=2)
>>> read_table(path, "x > 1").to_pydict()       # Spark's semantics: NaN is above 1
{'x': [3.0, nan, 7.5], 'k': [1, 2, 4]}
>>> read_table(path, "x > 1", semantics="ieee", columns=["k"]).to_pydict()
{'k': [1, 4]}
"""

from __future__ import annotations

import os
from typing import Any

from nanstats.prune.expressions import Expr
from nanstats.prune.parser import as_predicate
from nanstats.prune.row_filter import filter_mask
from nanstats.prune.semantics import DEFAULT_SEMANTICS, NanSemantics, check_semantics
from nanstats.prune.skipping import RowSelection, pages


def read_selection(path: str | os.PathLike[str], selection: RowSelection,
                   columns: list[str] | None = None) -> Any:
    """The rows of a RowSelection, as one pyarrow Table (row groups in file order)."""
    import pyarrow as pa
    import pyarrow.parquet as papq

    pf = papq.ParquetFile(os.fspath(path))
    parts = []
    for g in selection.row_groups:
        t = pf.read_row_group(g, columns=columns)
        for a, b in selection.ranges[g]:
            parts.append(t.slice(a, b - a))
    if not parts:
        return pf.schema_arrow.empty_table() if columns is None else \
            pa.schema([pf.schema_arrow.field(c) for c in columns]).empty_table()
    return pa.concat_tables(parts)


def read_table(path: str | os.PathLike[str], filter: Expr | str | None = None, *,
               semantics: NanSemantics = DEFAULT_SEMANTICS,
               columns: list[str] | None = None) -> Any:
    """Read the rows of a Parquet file that satisfy ``filter`` under ``semantics``.

    Parameters
    ----------
    path : str or os.PathLike
        A Parquet file.
    filter : Expr or str, optional
        A predicate (``nanstats.prune.expressions``) or its text
        (``"x > 1.5 and not is_nan(y)"``); None reads everything.
    semantics : {'nan_greatest', 'ieee', 'nan_least', 'total_order'}
        How NaN and the zeros compare (Spark's ``nan_greatest`` by default).
    columns : list of str, optional
        Top-level columns to return (all by default); the filter may read
        others.
    """
    import pyarrow.parquet as papq

    check_semantics(semantics)
    if filter is None:
        return papq.read_table(os.fspath(path), columns=columns)
    pred = as_predicate(filter)
    selection = pages(path, pred, semantics=semantics)
    needed = None
    if columns is not None:
        tops = {c.split(".")[0] for c in pred.columns()}
        schema_names = papq.ParquetFile(os.fspath(path)).schema_arrow.names
        needed = list(columns) + [c for c in schema_names if c in tops and c not in columns]
    table = read_selection(path, selection, needed)
    if table.num_rows:
        table = table.filter(filter_mask(pred, table, semantics))
    return table.select(columns) if columns is not None else table
