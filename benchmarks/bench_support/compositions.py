"""The same job done with other libraries: exact compositions to time against.

Each function computes, with numpy, pyarrow or polars only, exactly what
:func:`nanstats.summary` computes (counts by NaN sign, total-order extremes
of the non-NaN values and of the NaNs) and returns a
:class:`~nanstats.core.stats.ColumnStats`, so results compare with ``==``.  They
work on integer total-order keys, the only exact way these libraries have
(their float min/max ignore NaN signs, equate -0.0 with +0.0 and, for
float16, mostly do not exist).  ``benchmarks/compare.py`` checks they agree
with nanstats before it times anything.

>>> import numpy as np, nanstats
>>> v = np.array([1.0, np.nan, -0.0, 3.0])
>>> all(f(v, None) == nanstats.summary(v) for f in COMPOSITIONS.values())
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from nanstats.core.floats import BY_ITEMSIZE, FloatType
from nanstats.core.stats import ColumnStats

Mask = npt.NDArray[np.bool_] | None


def _keys(ft: FloatType, values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """int64 keys, NaN flags and sign flags of the values (numpy, vectorised)."""
    bits = values.view(ft.bits_dtype)
    keys = ft.bits_to_keys(bits)
    return keys, ft.is_nan_array(bits), (bits & ft.bits_dtype.type(ft.sign_mask)) != 0


def _bits(ft: FloatType, key: int | None) -> int | None:
    return None if key is None else int(ft.keys_to_bits(np.array([key], np.int64))[0])


def _stats(ft: FloatType, n: int, nulls: int, pos: int, neg: int,
           vmin: Any, vmax: Any, nmin: Any, nmax: Any) -> ColumnStats:
    as_int = [None if k is None else int(k) for k in (vmin, vmax, nmin, nmax)]
    return ColumnStats(ft.physical_type, int(n), int(nulls), int(pos), int(neg),
                       *(_bits(ft, k) for k in as_int))


def numpy_summary(values: np.ndarray, valid: Mask) -> ColumnStats:
    """numpy: keys, boolean masks, masked min/max.

    >>> v = np.array([1.0, -np.nan, -0.0], np.float32)
    >>> numpy_summary(v, None)
    ColumnStats(FLOAT, num_values=3, null_count=0, nan_count=1 (+0/-1), min=-0.0, max=1.0)
    """
    ft = BY_ITEMSIZE[values.dtype.itemsize]
    keys, nan, neg = _keys(ft, values)
    ok = np.ones(values.size, bool) if valid is None else valid
    vnan, vnum = nan & ok, ok & ~nan
    big, small = np.iinfo(np.int64).max, np.iinfo(np.int64).min
    has_num, has_nan = bool(vnum.any()), bool(vnan.any())
    return _stats(
        ft, values.size, values.size - int(ok.sum()), int((vnan & ~neg).sum()),
        int((vnan & neg).sum()),
        np.where(vnum, keys, big).min() if has_num else None,
        np.where(vnum, keys, small).max() if has_num else None,
        np.where(vnan, keys, big).min() if has_nan else None,
        np.where(vnan, keys, small).max() if has_nan else None,
    )


def pyarrow_summary(values: np.ndarray, valid: Mask) -> ColumnStats:
    """pyarrow.compute over the integer keys, nulls from the validity.

    >>> import nanstats
    >>> v, valid = np.array([2.0, np.nan, 5.0]), np.array([True, True, False])
    >>> pyarrow_summary(v, valid) == nanstats.summary(v, valid)
    True
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    ft = BY_ITEMSIZE[values.dtype.itemsize]
    int_type = {2: pa.int16(), 4: pa.int32(), 8: pa.int64()}[ft.nbytes]
    mask = None if valid is None else ~valid
    s = pa.array(values.view(f"i{ft.nbytes}"), type=int_type, mask=mask)
    abs_mask = pa.scalar(ft.abs_mask, int_type)
    neg = pc.less(s, pa.scalar(0, int_type))
    keys = pc.if_else(neg, pc.bit_wise_xor(s, abs_mask), s)
    nan = pc.greater(pc.bit_wise_and(s, abs_mask), pa.scalar(ft.inf_bits, int_type))
    num_keys = pc.filter(keys, pc.invert(nan))
    nan_keys = pc.filter(keys, nan)
    vm, nm = pc.min_max(num_keys), pc.min_max(nan_keys)
    neg_nan = pc.sum(pc.and_(nan, neg)).as_py() or 0
    nan_total = pc.sum(nan).as_py() or 0
    return _stats(ft, len(s), s.null_count, nan_total - neg_nan, neg_nan,
                  vm["min"].as_py(), vm["max"].as_py(), nm["min"].as_py(), nm["max"].as_py())


def polars_summary(values: np.ndarray, valid: Mask) -> ColumnStats:
    """polars expressions over the integer keys, nulls from the validity.

    >>> import nanstats
    >>> v = np.array([np.nan, 0.5, -3.0], np.float16)
    >>> polars_summary(v, None) == nanstats.summary(v)
    True
    """
    import polars as pl

    ft = BY_ITEMSIZE[values.dtype.itemsize]
    s = pl.Series("s", values.view(f"i{ft.nbytes}"))
    if valid is not None:
        s = pl.select(pl.when(pl.Series(valid)).then(s)).to_series()
    abs_mask = pl.lit(ft.abs_mask, dtype=s.dtype)
    frame = pl.DataFrame({"s": s}).select(
        pl.when(pl.col("s") < 0).then(pl.col("s").xor(abs_mask)).otherwise(pl.col("s"))
        .alias("k"),
        (pl.col("s").and_(abs_mask) > ft.inf_bits).alias("nan"),
        (pl.col("s") < 0).alias("neg"),
    )
    r = frame.select(
        pl.col("k").filter(~pl.col("nan")).min().alias("vmin"),
        pl.col("k").filter(~pl.col("nan")).max().alias("vmax"),
        pl.col("k").filter(pl.col("nan")).min().alias("nmin"),
        pl.col("k").filter(pl.col("nan")).max().alias("nmax"),
        (pl.col("nan") & ~pl.col("neg")).sum().alias("pos"),
        (pl.col("nan") & pl.col("neg")).sum().alias("neg"),
        pl.col("k").null_count().alias("nulls"),
    ).row(0, named=True)
    return _stats(ft, len(s), r["nulls"], r["pos"], r["neg"], r["vmin"], r["vmax"],
                  r["nmin"], r["nmax"])


def numpy_page_stats(values: np.ndarray, valid: Mask, page_starts: np.ndarray
                     ) -> list[ColumnStats]:
    """numpy per page: reduceat over keys with NaN/null lanes replaced.

    >>> import nanstats
    >>> v = np.array([3.0, np.nan, np.nan, 1.0, 2.0])
    >>> starts = np.array([0, 2, 4])
    >>> numpy_page_stats(v, None, starts) == nanstats.page_stats(v, page_starts=starts)
    True
    """
    ft = BY_ITEMSIZE[values.dtype.itemsize]
    keys, nan, neg = _keys(ft, values)
    ok = np.ones(values.size, bool) if valid is None else valid
    vnan, vnum = nan & ok, ok & ~nan
    big, small = np.iinfo(np.int64).max, np.iinfo(np.int64).min
    starts = np.asarray(page_starts, np.int64)
    if values.size == 0:
        return [numpy_summary(values, valid)]
    counts = np.diff(np.r_[starts, values.size])
    nulls = counts - np.add.reduceat(ok, starts)
    pos = np.add.reduceat(vnan & ~neg, starts)
    negc = np.add.reduceat(vnan & neg, starts)
    nums = np.add.reduceat(vnum, starts)
    vmin = np.minimum.reduceat(np.where(vnum, keys, big), starts)
    vmax = np.maximum.reduceat(np.where(vnum, keys, small), starts)
    nmin = np.minimum.reduceat(np.where(vnan, keys, big), starts)
    nmax = np.maximum.reduceat(np.where(vnan, keys, small), starts)
    out = []
    for i in range(starts.size):  # building the result objects only
        has_num, has_nan = nums[i] > 0, pos[i] + negc[i] > 0
        out.append(_stats(ft, counts[i], nulls[i], pos[i], negc[i],
                          vmin[i] if has_num else None, vmax[i] if has_num else None,
                          nmin[i] if has_nan else None, nmax[i] if has_nan else None))
    return out


def read_ceiling(values: np.ndarray, valid: Mask) -> int:
    """The cheapest full pass over the same bytes: an OR-reduce of the bits.

    What no statistics pass can beat: it reads every byte once and does one
    operation per word.

    >>> hex(read_ceiling(np.array([1.0, -2.0]), None))
    '0xfff0000000000000'
    """
    words = values.view(np.uint8)
    n = words.size // 8 * 8
    acc = int(np.bitwise_or.reduce(words[:n].view(np.uint64))) if n else 0
    return acc | int(np.bitwise_or.reduce(words[n:])) if words.size > n else acc


#: name -> f(values, valid) -> ColumnStats, for a whole column.
COMPOSITIONS: dict[str, Callable[[np.ndarray, Mask], ColumnStats]] = {
    "numpy": numpy_summary,
    "pyarrow": pyarrow_summary,
    "polars": polars_summary,
}
