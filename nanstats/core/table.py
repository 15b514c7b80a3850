"""Columnar statistics of many scopes (pages), straight from one kernel call.

A ``StatsTable`` holds one row per scope as numpy arrays, so that the writing
rules and the column index work on all pages at once, with no Python loop
over pages or values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from nanstats import _kernels, threads
from nanstats.core.floats import FloatType
from nanstats.core.kernel_input import KernelInput

I64 = npt.NDArray[np.int64]
KEY_EMPTY_MIN = np.iinfo(np.int64).max
KEY_EMPTY_MAX = np.iinfo(np.int64).min


@dataclass(frozen=True, eq=False)
class StatsTable:
    """Statistics of consecutive scopes, one array element per scope.

    ``counts`` columns: num_values, null_count, pos_nan_count, neg_nan_count.
    ``keys`` columns: min and max totalOrder key of the non-NaN values, then
    of the NaN values (sentinels where a scope has none).
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
    # One allocation for both outputs: numpy asks for huge pages from 4 MiB
    # up, and separate arrays cost a page fault per 4 KiB (on this VM about
    # as long as the scan of 1,000-row float16 pages itself).
    out = np.empty((2, page_starts.shape[0], 4), dtype=np.int64)
    counts, keys = out[0], out[1]
    _kernels.scan(
        inp.bits, inp.validity_kind, inp.validity, inp.bit_offset, page_starts, counts, keys
    )
    return StatsTable(inp.float_type, counts, keys)


def scan(inp: KernelInput, page_starts: I64) -> StatsTable:
    """One kernel pass: a StatsTable with one row per page.

    Large inputs (see :mod:`nanstats.threads`) are split into parts scanned
    on several threads by :func:`scan_chunks`: at page starts when there are
    many pages (no page is cut), else at whole 64-row groups.
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
    out = np.empty((2, page_starts.shape[0], 4), dtype=np.int64)  # see _scan_one
    counts, keys = out[0], out[1]
    written = 0  # pages [0, written) hold their rows so far
    for (_, _, first), part in zip(jobs, parts, strict=True):
        k = 0
        if first < written:  # the page continues from the chunk before: merge
            counts[first] += part.counts[0]
            row, new = keys[first], part.keys[0]
            row[0::2] = np.minimum(row[0::2], new[0::2])
            row[1::2] = np.maximum(row[1::2], new[1::2])
            k = 1
        stop = first + len(part.counts)
        counts[first + k:stop] = part.counts[k:]
        keys[first + k:stop] = part.keys[k:]
        written = stop
    # Pages no chunk reached (only with no rows at all): empty.
    counts[written:] = 0
    keys[written:, 0::2] = KEY_EMPTY_MIN
    keys[written:, 1::2] = KEY_EMPTY_MAX
    return StatsTable(chunks[0].float_type, counts, keys)
