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

from dataclasses import dataclass
from typing import IO, Any

from nanstats.lake.fs import Location, Target, remote_errors, resolve
from nanstats.metadata.footer import Footer, LeafColumn, read_footer
from nanstats.metadata.page_index import PageIndex, PageIndexRegion
from nanstats.metadata.pages import chunk_range
from nanstats.metadata.thrift import encode, pq
from nanstats.prune.expressions import Expr
from nanstats.prune.files import pages
from nanstats.prune.parser import as_predicate
from nanstats.prune.profiles import EngineProfile, profile
from nanstats.prune.results import Ranges, RowSelection
from nanstats.prune.row_filter import filter_mask
from nanstats.prune.semantics import DEFAULT_SEMANTICS


def _column_rows(data: Any, page_starts: list[int], page_ends: list[int], wanted: list[int],
                 ranges: Ranges) -> Any:
    """The rows of ``ranges`` from the rows of the wanted pages, laid end to end."""
    import pyarrow as pa

    offsets, at = {}, 0
    for i in wanted:
        offsets[i] = at
        at += page_ends[i] - page_starts[i]
    pieces = []
    for a, b in ranges:
        for i in wanted:
            lo, hi = max(a, page_starts[i]), min(b, page_ends[i])
            if lo < hi:
                pieces.append(data.slice(offsets[i] + lo - page_starts[i], hi - lo))
    if not pieces:
        return data.slice(0, 0)
    return pa.concat_arrays([c for p in pieces for c in
                             (p.chunks if isinstance(p, pa.ChunkedArray) else [p])])


@dataclass(frozen=True)
class _ColumnRead:
    """Which bytes of one column chunk a selection needs."""

    chunk_start: int
    dictionary_length: int
    offsets: list[int]  # of each page (OffsetIndex)
    sizes: list[int]  # compressed size of each page, header included
    starts: list[int]
    ends: list[int]
    wanted: list[int]

    @property
    def num_bytes(self) -> int:
        return self.dictionary_length + sum(self.sizes[i] for i in self.wanted)


def _pages_to_read(footer: Footer, region: PageIndexRegion, g: int, leaf: LeafColumn,
                   ranges: Ranges) -> _ColumnRead | None:
    """The dictionary page and the data pages holding rows of ``ranges``, or None.

    None when the chunk cannot be read page by page (no OffsetIndex, a nested
    column) or when no page is wanted.
    """
    if leaf.max_repetition_level > 0 or len(leaf.path) != 1:
        return None
    _, oi = region.read_page_index(footer, g, leaf.index)
    # Only the OffsetIndex is needed here: the ColumnIndex is not decoded.
    index = PageIndex.from_thrift(None, oi)
    if index.first_row_index is None or index.offsets is None or index.compressed_sizes is None:
        return None
    rows = int(footer.row_groups[g].num_rows or 0)
    offsets = index.offsets.tolist()
    starts = index.first_row_index.tolist()
    ends = [*starts[1:], rows]
    wanted = [i for i in range(index.num_pages)
              if any(a < ends[i] and starts[i] < b for a, b in ranges)]
    if not wanted or len(wanted) == index.num_pages:
        return None  # nothing to read page by page: pyarrow reads the whole chunk
    chunk_start, _ = chunk_range(footer, g, leaf.index)
    return _ColumnRead(chunk_start, max(0, offsets[0] - chunk_start), offsets,
                       index.compressed_sizes.tolist(), starts, ends, wanted)


def _parquet_file(where: Location) -> Any:
    """pyarrow's ParquetFile of a local or remote file (its schema, whole row groups)."""
    import pyarrow.parquet as papq

    with remote_errors(where):
        if where.is_local:
            return papq.ParquetFile(where.path)
        return papq.ParquetFile(where.path, filesystem=where.filesystem)


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

    where = resolve(path, filesystem)
    footer = read_footer(where)
    names = list(_parquet_file(where).schema_arrow.names) if columns is None else columns
    leaves = {leaf.name: leaf for leaf in footer.columns}
    total = 0
    with remote_errors(where), where.open_reader() as f:
        region = PageIndexRegion(f, footer)
        for g in selection.row_groups:
            for name in names:
                plan = _pages_to_read(footer, region, g, leaves[name],
                                      selection.ranges[g]) if name in leaves else None
                if plan is not None:
                    total += plan.num_bytes
                else:  # read whole: every leaf under this top-level name
                    total += sum(chunk_range(footer, g, leaf.index)[1]
                                 for leaf in footer.columns if leaf.path[0] == name)
    return total


def _read_pages_of_column(f: IO[bytes], footer: Footer, region: PageIndexRegion, g: int,
                          leaf: LeafColumn, field: Any, ranges: Ranges) -> Any | None:
    """Read only the pages of one flat column chunk that hold rows of ``ranges``.

    The dictionary page (if any) and the wanted data pages are copied, byte
    for byte, into a one-column Parquet file in memory that pyarrow decodes.
    None when that is not possible (no OffsetIndex, a nested column).
    """
    import pyarrow as pa
    import pyarrow.parquet as papq

    plan = _pages_to_read(footer, region, g, leaf, ranges)
    if plan is None:
        return None
    parts = []
    if plan.dictionary_length:
        f.seek(plan.chunk_start)
        parts.append(f.read(plan.dictionary_length))
    dict_len = plan.dictionary_length
    # Pages back to back are read together (one request each run on object stores).
    runs: list[list[int]] = []
    for i in plan.wanted:
        if runs and runs[-1][1] == plan.offsets[i]:
            runs[-1][1] += plan.sizes[i]
        else:
            runs.append([plan.offsets[i], plan.offsets[i] + plan.sizes[i]])
    for lo, hi in runs:
        f.seek(lo)
        parts.append(f.read(hi - lo))
    starts, ends, wanted = plan.starts, plan.ends, plan.wanted
    body = b"".join(parts)
    values = sum(ends[i] - starts[i] for i in wanted)
    old = footer.chunk_meta(g, leaf.index)
    meta = pq.ColumnMetaData(
        type=old.type, encodings=old.encodings, path_in_schema=old.path_in_schema,
        codec=old.codec, num_values=values, total_uncompressed_size=len(body),
        total_compressed_size=len(body), data_page_offset=4 + dict_len,
        dictionary_page_offset=4 if dict_len else None)
    group = pq.RowGroup(columns=[pq.ColumnChunk(file_offset=4, meta_data=meta)],
                        total_byte_size=len(body), num_rows=values)
    schema = [pq.SchemaElement(name=b"schema", num_children=1),
              footer.schema[leaf.schema_index]]
    md = pq.FileMetaData(version=footer.metadata.version or 1, schema=schema,
                         num_rows=values, row_groups=[group],
                         created_by=footer.metadata.created_by)
    tail = encode(md)
    buf = b"PAR1" + body + tail + len(tail).to_bytes(4, "little") + b"PAR1"
    data = papq.read_table(pa.BufferReader(buf)).column(0)
    if data.type != field.type:
        data = data.cast(field.type)
    data = data.combine_chunks() if data.num_chunks != 1 else data.chunk(0)
    return _column_rows(data, starts, ends, wanted, ranges)


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
    import pyarrow as pa

    where = resolve(path, filesystem)
    pf = _parquet_file(where)
    schema = pf.schema_arrow
    names = list(schema.names) if columns is None else list(columns)
    fields = [schema.field(n) for n in names]
    footer = read_footer(where)
    leaves = {leaf.name: leaf for leaf in footer.columns}
    groups = selection.row_groups
    parts: dict[int, Any] = {}
    with remote_errors(where), where.open_reader() as f:
        region = PageIndexRegion(f, footer)
        # Row groups where no column is read page by page are read by pyarrow
        # together, in one call (its threads decode them in parallel).
        plans = {g: {n: _pages_to_read(footer, region, g, leaves[n], selection.ranges[g])
                     if n in leaves else None for n in names} for g in groups}
        whole_groups = [g for g in groups if all(p is None for p in plans[g].values())]
        if whole_groups:
            table = pf.read_row_groups(whole_groups, columns=names)
            at = 0
            for g in whole_groups:
                parts[g] = pa.concat_tables([table.slice(at + a, b - a)
                                             for a, b in selection.ranges[g]])
                at += int(footer.row_groups[g].num_rows or 0)
        for g in groups:
            if g in parts:
                continue
            ranges = selection.ranges[g]
            arrays = []
            whole = None
            for name, field in zip(names, fields, strict=True):
                arr = None
                if plans[g][name] is not None:
                    arr = _read_pages_of_column(f, footer, region, g, leaves[name], field,
                                                ranges)
                if arr is None:
                    if whole is None:
                        whole = pf.read_row_group(g, columns=names)
                    col = whole.column(name)
                    arr = pa.concat_arrays([c for a, b in ranges
                                            for c in col.slice(a, b - a).chunks]) \
                        if ranges else col.slice(0, 0).combine_chunks()
                arrays.append(arr)
            parts[g] = pa.Table.from_arrays(arrays, schema=pa.schema(fields))
    out = [parts[g] for g in groups]
    if not out:
        return pa.schema(fields).empty_table()
    return pa.concat_tables(out)


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
    selection = pages(where, pred, semantics=prof)
    needed = None
    if columns is not None:
        tops = {c.split(".")[0] for c in pred.columns()}
        schema_names = _parquet_file(where).schema_arrow.names
        needed = list(columns) + [c for c in schema_names if c in tops and c not in columns]
    table = read_selection(where, selection, needed)
    if table.num_rows:
        table = table.filter(filter_mask(pred, table, prof))
    return table.select(columns) if columns is not None else table
