"""Columnar statistics of many scopes (pages), straight from one kernel call.

A ``StatsTable`` holds one row per scope as numpy arrays, so that the writing
rules and the column index work on all pages at once, with no Python loop
over pages or values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from nanstats import _kernels, threads
from nanstats.core.floats import FloatType
from nanstats.core.kernel_input import KernelInput

I64 = npt.NDArray[np.int64]
KEY_EMPTY_MIN = np.iinfo(np.int64).max
KEY_EMPTY_MAX = np.iinfo(np.int64).min

MergeOp = Literal["sum", "min", "max"]

#: The columns of a StatsTable row (``counts`` then ``keys``) and how partial
#: rows of one scope merge exactly: counts add up, min-keys take the minimum
#: and max-keys the maximum (totalOrder keys compare as int64).  Every merge
#: of partial statistics -- in numpy here, in Spark SQL on the Spark face --
#: is spelled from this one table.
PARTIAL_COLUMNS: tuple[tuple[str, MergeOp], ...] = (
    ("num_values", "sum"), ("null_count", "sum"),
    ("pos_nan_count", "sum"), ("neg_nan_count", "sum"),
    ("value_min_key", "min"), ("value_max_key", "max"),
    ("nan_min_key", "min"), ("nan_max_key", "max"),
)
_UFUNCS = {"sum": np.add, "min": np.minimum, "max": np.maximum}
# The merge of no row: what an empty scope holds (sentinels no key can beat).
_IDENTITY = {"sum": 0, "min": KEY_EMPTY_MIN, "max": KEY_EMPTY_MAX}


@dataclass(frozen=True, eq=False)
class StatsTable:
    """Statistics of consecutive scopes, one array element per scope.

    ``counts`` columns: num_values, null_count, pos_nan_count, neg_nan_count.
    ``keys`` columns: min and max totalOrder key of the non-NaN values, then
    of the NaN values (sentinels where a scope has none).

    >>> import numpy as np
    >>> from nanstats.core.stats import page_table
    >>> t = page_table(np.array([1.0, np.nan, 5.0, -0.0]), page_rows=2)
    >>> len(t), t.num_values.tolist(), t.nan_count.tolist(), t.value_count.tolist()
    (2, [2, 2], [1, 0], [1, 2])
    >>> t.float_type.keys_to_bits(t.keys[:, :2]).view(np.float64).tolist()  # [min, max]
    [[1.0, 1.0], [-0.0, 5.0]]
    """

    float_type: FloatType
    counts: I64
    keys: I64

    def __len__(self) -> int:
        return int(self.counts.shape[0])

    @property
    def num_values(self) -> I64:
        return self.counts[:, 0]

    @property
    def null_count(self) -> I64:
        return self.counts[:, 1]

    @property
    def nan_count(self) -> I64:
        return self.counts[:, 2] + self.counts[:, 3]

    @property
    def value_count(self) -> I64:
        """Non-null, non-NaN values per scope."""
        return self.counts[:, 0] - self.counts[:, 1] - self.nan_count

    def columns(self) -> list[I64]:
        """The columns of :data:`PARTIAL_COLUMNS`, in order (views, not copies)."""
        return [*self.counts.T, *self.keys.T]

    @classmethod
    def from_columns(cls, float_type: FloatType, columns: Sequence[npt.ArrayLike]) -> StatsTable:
        """The table whose :meth:`columns` these are (``PARTIAL_COLUMNS``, in order).

        >>> import numpy as np
        >>> from nanstats.core.stats import page_table
        >>> t = page_table(np.array([1.0, np.nan]), page_rows=1)
        >>> u = StatsTable.from_columns(t.float_type, t.columns())
        >>> (u.counts == t.counts).all() and (u.keys == t.keys).all()
        np.True_
        """
        data = np.column_stack([np.asarray(c, dtype=np.int64) for c in columns])
        if data.shape[1:] != (len(PARTIAL_COLUMNS),):
            raise ValueError(f"need the {len(PARTIAL_COLUMNS)} columns of PARTIAL_COLUMNS, "
                             f"got {data.shape[1]}")
        return cls(float_type, np.ascontiguousarray(data[:, :4]),
                   np.ascontiguousarray(data[:, 4:]))


def empty_table(float_type: FloatType, n: int) -> StatsTable:
    """``n`` empty scopes: the rows a merge starts from.

    >>> from nanstats.core.floats import DOUBLE
    >>> t = empty_table(DOUBLE, 2)
    >>> t.counts.tolist(), bool((t.keys[:, 0] == KEY_EMPTY_MIN).all())
    ([[0, 0, 0, 0], [0, 0, 0, 0]], True)
    """
    table = _allocate(float_type, n)
    _clear(table, 0)
    return table


def _allocate(float_type: FloatType, n: int) -> StatsTable:
    # One allocation for both outputs: numpy asks for huge pages from 4 MiB
    # up, and separate arrays cost a page fault per 4 KiB (on this VM about
    # as long as the scan of 1,000-row float16 pages itself).
    out = np.empty((2, n, 4), dtype=np.int64)
    return StatsTable(float_type, out[0], out[1])


def _clear(table: StatsTable, start: int) -> None:
    """Rows ``start:`` of ``table`` become empty scopes."""
    for column, (_, op) in zip(table.columns(), PARTIAL_COLUMNS, strict=True):
        column[start:] = _IDENTITY[op]


def merge_into(target: StatsTable, rows: npt.ArrayLike, parts: StatsTable) -> None:
    """Merge row ``i`` of ``parts`` into row ``rows[i]`` of ``target``, in place, exactly.

    ``rows`` may repeat a row (several parts of one scope); one numpy call per
    column, whatever the number of rows.

    >>> import numpy as np
    >>> from nanstats.core.stats import page_table
    >>> t = page_table(np.array([1.0, 5.0]), page_rows=1)
    >>> merge_into(t, [0], page_table(np.array([np.nan, 9.0])))
    >>> t.counts[0].tolist(), t.float_type.keys_to_bits(t.keys[0, :2]).view(np.float64).tolist()
    ([3, 0, 1, 0], [1.0, 9.0])
    """
    if parts.float_type != target.float_type:
        raise ValueError(f"cannot merge {parts.float_type.physical_type} statistics into "
                         f"{target.float_type.physical_type}")
    index = np.asarray(rows, dtype=np.intp)
    for into, new, (_, op) in zip(target.columns(), parts.columns(), PARTIAL_COLUMNS,
                                  strict=True):
        _UFUNCS[op].at(into, index, new)


def merge_rows(table: StatsTable, segments: npt.ArrayLike | None = None,
               num_segments: int | None = None) -> StatsTable:
    """The exact statistics of groups of rows (scopes) of a StatsTable.

    Row ``i`` belongs to segment ``segments[i]`` (any order; a segment no row
    names is empty); ``num_segments`` defaults to one more than the largest.
    Without ``segments`` every row merges into one.  No Python loop over rows.

    >>> import numpy as np
    >>> from nanstats.core.stats import page_table
    >>> t = page_table(np.array([3.0, np.nan, -0.0, 7.0, 1.0]), page_rows=1)
    >>> merge_rows(t).counts.tolist()
    [[5, 0, 1, 0]]
    >>> m = merge_rows(t, [1, 1, 0, 0, 1])
    >>> m.counts[:, 0].tolist(), m.float_type.keys_to_bits(m.keys[:, 1]).view(np.float64).tolist()
    ([2, 3], [7.0, 3.0])
    """
    if segments is None:
        # One segment: plain reductions, faster than the general path.
        columns = [_UFUNCS[op].reduce(column, initial=_IDENTITY[op])
                   for column, (_, op) in zip(table.columns(), PARTIAL_COLUMNS, strict=True)]
        row = np.array(columns, dtype=np.int64)
        return StatsTable(table.float_type, row[:4].reshape(1, 4), row[4:].reshape(1, 4))
    ids = np.asarray(segments, dtype=np.intp)
    if ids.shape != (len(table),):
        raise ValueError(f"need one segment per row: {len(table)} rows, segments of shape "
                         f"{ids.shape}")
    n = int(ids.max(initial=-1)) + 1 if num_segments is None else num_segments
    out = empty_table(table.float_type, n)
    merge_into(out, ids, table)
    return out


def page_starts_for(
    n: int, page_rows: int | None = None, page_starts: npt.ArrayLike | None = None
) -> I64:
    """Validated page start offsets for ``n`` values.

    >>> page_starts_for(10, page_rows=4).tolist()
    [0, 4, 8]
    >>> page_starts_for(0).tolist()
    [0]
    """
    if page_rows is not None and page_starts is not None:
        raise ValueError("give page_rows or page_starts, not both")
    if page_rows is not None:
        if isinstance(page_rows, bool) or not isinstance(page_rows, int | np.integer):
            raise TypeError(f"page_rows must be an int, not {type(page_rows).__name__}")
        if page_rows < 1:
            raise ValueError(f"page_rows must be at least 1, got {page_rows}")
        return np.arange(0, max(n, 1), int(page_rows), dtype=np.int64)
    if page_starts is None:
        return np.zeros(1, dtype=np.int64)
    starts = np.asarray(page_starts)
    if starts.ndim != 1 or starts.dtype.kind not in "iu":
        raise TypeError("page_starts must be a 1-D sequence of integers")
    starts = starts.astype(np.int64)
    if starts.size == 0 or starts[0] != 0:
        raise ValueError("page_starts must start at 0")
    if (np.diff(starts) <= 0).any():
        bad = int(np.argmax(np.diff(starts) <= 0)) + 1
        raise ValueError(
            f"page_starts must be strictly increasing: page_starts[{bad}] = {starts[bad]} "
            f"follows {starts[bad - 1]}"
        )
    if starts.size > 1 and starts[-1] >= n:
        raise ValueError(
            f"page_starts must lie within the {n} values: the last page starts at {starts[-1]}"
        )
    return np.ascontiguousarray(starts)


def _scan_one(inp: KernelInput, page_starts: I64) -> StatsTable:
    """One kernel call on the calling thread."""
    table = _allocate(inp.float_type, page_starts.shape[0])
    _kernels.scan(inp.bits, inp.validity_kind, inp.validity, inp.bit_offset, page_starts,
                  table.counts, table.keys)
    return table


def scan(inp: KernelInput, page_starts: I64) -> StatsTable:
    """One kernel pass: a StatsTable with one row per page.

    Large inputs (see :mod:`nanstats.threads`) are split into parts scanned
    on several threads by :func:`scan_chunks`: at page starts when there are
    many pages (no page is cut), else at whole 64-row groups.

    >>> import numpy as np
    >>> from nanstats.core.inputs import from_numpy
    >>> values = np.array([2.0, np.nan, -1.0], dtype=np.float32)
    >>> t = scan(from_numpy(values), page_starts_for(3, page_rows=2))
    >>> t.float_type.physical_type, t.counts.tolist()
    ('FLOAT', [[2, 0, 1, 0], [1, 0, 0, 0]])
    >>> t.float_type.keys_to_bits(t.keys[:, :2]).view(np.float32).tolist()
    [[2.0, 2.0], [-1.0, -1.0]]
    """
    n = len(inp)
    parts = threads.parts_for(n)
    if parts < 2:
        return _scan_one(inp, page_starts)
    npages = page_starts.shape[0]
    targets = np.array([n * j // parts for j in range(1, parts)], dtype=np.int64)
    if npages >= 4 * parts:
        inner = page_starts[np.searchsorted(page_starts, targets).clip(1, npages - 1)]
    else:
        inner = targets // 64 * 64
    cuts = np.unique(np.concatenate([[0], inner, [n]])).tolist()
    return scan_chunks([inp.slice(a, b) for a, b in zip(cuts, cuts[1:], strict=False)],
                       page_starts)


def scan_chunks(chunks: Sequence[KernelInput], page_starts: I64) -> StatsTable:
    """Page statistics of chunked data, exactly as if it were one array.

    Each chunk is scanned once with the page boundaries that fall inside it
    (on the worker threads when the chunks are large).  A chunk's pages are
    consecutive, so its table is copied into place; only a page that
    continues from the chunk before is merged, exactly.

    >>> import numpy as np
    >>> from nanstats.core.inputs import from_numpy
    >>> a, b = from_numpy(np.array([1.0, 5.0])), from_numpy(np.array([-2.0, 3.0, 4.0]))
    >>> t = scan_chunks([a, b], np.array([0, 3]))
    >>> t.counts[:, 0].tolist(), t.float_type.keys_to_bits(t.keys[:, 0]).view(np.float64).tolist()
    ([3, 2], [-2.0, 3.0])
    """
    if len(chunks) == 1:
        return scan(chunks[0], page_starts)
    jobs: list[tuple[KernelInput, I64, int]] = []  # chunk, its page starts, its first page
    begin = 0
    for chunk in chunks:  # one iteration per chunk, not per value or page
        end = begin + len(chunk)
        if end > begin:
            inside = page_starts[(page_starts > begin) & (page_starts < end)] - begin
            first = int(np.searchsorted(page_starts, begin, side="right")) - 1
            jobs.append((chunk, np.concatenate([[0], inside]).astype(np.int64), first))
        begin = end
    if len(jobs) > 1 and threads.parts_for(begin) > 1:
        parts = list(threads.pool().map(lambda job: _scan_one(job[0], job[1]), jobs))
    else:
        parts = [_scan_one(chunk, local) for chunk, local, _ in jobs]
    table = _allocate(chunks[0].float_type, page_starts.shape[0])
    written = 0  # pages [0, written) hold their rows so far
    continued: list[int] = []  # the page each chunk's first row continues, if any
    carried: list[StatsTable] = []  # that first row
    for (_, _, first), part in zip(jobs, parts, strict=True):
        k = 0
        if first < written:  # the page continues from the chunk before: merged below
            continued.append(first)
            carried.append(part)
            k = 1
        stop = first + len(part.counts)
        table.counts[first + k:stop] = part.counts[k:]
        table.keys[first + k:stop] = part.keys[k:]
        written = stop
    if continued:  # one merge for every page cut by a chunk boundary
        firsts = StatsTable(table.float_type, np.stack([p.counts[0] for p in carried]),
                            np.stack([p.keys[0] for p in carried]))
        merge_into(table, continued, firsts)
    _clear(table, written)  # pages no chunk reached (only with no rows at all): empty
    return table
