"""The kernel, bit for bit against the slow oracle, through every validity kind."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import nanstats
from nanstats import _kernels
from nanstats.core.stats import ColumnStats
from nanstats.core.table import KEY_EMPTY_MAX, KEY_EMPTY_MIN, StatsTable
from nanstats.testing import oracle
from tests.strategies import FLOAT_TYPES, Column, columns, special_bits

FIELDS = (
    "physical_type", "num_values", "null_count", "pos_nan_count", "neg_nan_count",
    "value_min_bits", "value_max_bits", "nan_min_bits", "nan_max_bits",
)


def as_dict(s: ColumnStats) -> dict:
    return {f: getattr(s, f) for f in FIELDS}


def oracle_pages(col: Column) -> list[dict]:
    return oracle.page_stats(col.ft.physical_type, col.bits, col.valid, col.page_starts)


def kernel_table(col: Column, validity_kind: int, bit_offset: int = 0) -> StatsTable:
    """Call the kernel directly with the column's validity in the given form."""
    n = len(col.bits)
    valid = np.ones(n, bool) if col.valid is None else np.array(col.valid, bool)
    if validity_kind == _kernels.VALIDITY_NONE:
        validity = np.zeros(0, np.uint8)
    elif validity_kind == _kernels.VALIDITY_BYTES:
        validity = valid.view(np.uint8)
    elif validity_kind == _kernels.VALIDITY_NULL_BYTES:
        # Any non-zero byte means null, not only 1.
        validity = np.where(valid, 0, 0x80).astype(np.uint8)
    else:
        # An Arrow bitmap whose first value sits at bit `bit_offset`; the
        # padding bits are set to the opposite of their neighbours so that a
        # wrong offset shows.
        padded = np.r_[np.ones(bit_offset, bool), valid, np.zeros(5, bool)]
        validity = np.packbits(padded, bitorder="little")
    starts = np.array(col.page_starts, np.int64)
    counts = np.full((len(starts), 4), -7, np.int64)
    keys = np.full((len(starts), 4), -7, np.int64)
    data = col.values().view(col.ft.bits_dtype)
    _kernels.scan(data, validity_kind, validity, bit_offset, starts, counts, keys)
    if data.dtype == np.uint16 and validity_kind == _kernels.VALIDITY_BITMAP:
        # The AVX2 float16 page loops have copies for data larger than the
        # caches (far16_bytes), which prefetch into L2 too: run here on the
        # same data, they must give the same table, held to the oracle.
        far_counts, far_keys = np.full_like(counts, -7), np.full_like(keys, -7)
        before = _kernels.far16_bytes(0)
        try:
            _kernels.scan(data, validity_kind, validity, bit_offset, starts, far_counts, far_keys)
        finally:
            _kernels.far16_bytes(before)
        np.testing.assert_array_equal(far_counts, counts)
        np.testing.assert_array_equal(far_keys, keys)
    return StatsTable(col.ft, counts, keys)


def assert_table_matches_oracle(table: StatsTable, col: Column) -> None:
    """Every page's statistics equal the oracle's, and a page's keys of what
    it lacks (values, NaNs) are the sentinels that merges rely on."""
    want = oracle_pages(col)
    assert [as_dict(ColumnStats.from_table(table, i)) for i in range(len(table))] == want
    lacks = np.array([[w["value_min_bits"] is None, w["nan_min_bits"] is None] for w in want],
                     bool).reshape(-1, 2)
    empty = np.array([KEY_EMPTY_MIN, KEY_EMPTY_MAX], np.int64)
    assert (table.keys[lacks[:, 0], :2] == empty).all()
    assert (table.keys[lacks[:, 1], 2:] == empty).all()


@given(columns())
def test_page_stats_match_oracle(col: Column) -> None:
    pages = nanstats.page_stats(col.values(), col.mask(), page_starts=col.page_starts)
    assert [as_dict(p) for p in pages] == oracle_pages(col)


@given(columns(), st.integers(0, 70))
def test_bitmap_validity_at_any_bit_offset(col: Column, bit_offset: int) -> None:
    table = kernel_table(col, _kernels.VALIDITY_BITMAP, bit_offset)
    assert_table_matches_oracle(table, col)


@given(columns())
def test_null_byte_validity_matches_oracle(col: Column) -> None:
    table = kernel_table(col, _kernels.VALIDITY_NULL_BYTES)
    assert_table_matches_oracle(table, col)


@given(columns())
def test_all_validity_kinds_agree(col: Column) -> None:
    if col.valid is not None and not all(col.valid):
        kinds = [_kernels.VALIDITY_BYTES, _kernels.VALIDITY_BITMAP, _kernels.VALIDITY_NULL_BYTES]
    else:
        kinds = [_kernels.VALIDITY_NONE, _kernels.VALIDITY_BYTES, _kernels.VALIDITY_BITMAP,
                 _kernels.VALIDITY_NULL_BYTES]
    tables = [kernel_table(col, k, 3) for k in kinds]
    for t in tables[1:]:
        np.testing.assert_array_equal(t.counts, tables[0].counts)
        np.testing.assert_array_equal(t.keys, tables[0].keys)


@given(columns(kind="all_nan"))
def test_all_nan_columns(col: Column) -> None:
    s = nanstats.summary(col.values(), col.mask())
    assert as_dict(s) == oracle.scope_stats(col.ft.physical_type, col.bits, col.valid)
    if s.nan_count:
        assert s.is_all_nan and s.min_bits == s.nan_min_bits and s.max_bits == s.nan_max_bits
        assert s.value_min_bits is None


@given(columns(kind="all_null"))
def test_all_null_columns(col: Column) -> None:
    s = nanstats.summary(col.values(), col.mask())
    assert s.is_all_null and s.min is None and s.max is None and s.nan_count == 0
    assert s.null_count == s.num_values == len(col.bits)


@pytest.mark.parametrize("ft", FLOAT_TYPES, ids=lambda t: t.physical_type)
def test_every_special_value_alone_and_together(ft) -> None:
    specials = special_bits(ft)
    for b in specials:
        values = np.array([b], dtype=ft.bits_dtype).view(ft.float_dtype)
        expected = oracle.scope_stats(ft.physical_type, [b])
        assert as_dict(nanstats.summary(values)) == expected, hex(b)
    values = np.array(specials, dtype=ft.bits_dtype).view(ft.float_dtype)
    s = nanstats.summary(values)
    assert as_dict(s) == oracle.scope_stats(ft.physical_type, specials)
    # The extremes of totalOrder: -NaN with every payload bit set, +NaN likewise.
    assert s.nan_min_bits == (1 << ft.width) - 1
    assert s.nan_max_bits == ft.abs_mask
    assert s.value_min_bits == ft.inf_bits | ft.sign_mask
    assert s.value_max_bits == ft.inf_bits


@pytest.mark.parametrize("ft", FLOAT_TYPES, ids=lambda t: t.physical_type)
def test_zeros_are_distinct(ft) -> None:
    z = np.array([0, ft.sign_mask], dtype=ft.bits_dtype).view(ft.float_dtype)
    s = nanstats.summary(z)
    assert (s.value_min_bits, s.value_max_bits) == (ft.sign_mask, 0)
    assert str(s.min) == "-0.0" and str(s.max) == "0.0"


def test_large_array_with_many_pages_matches_numpy_reference() -> None:
    # Long loops (beyond any unrolling) on float64 at odd page boundaries.
    rng = np.random.default_rng(5)
    bits = rng.integers(0, 2**64, 100_003, dtype=np.uint64)
    valid = rng.random(bits.size) > 0.2
    starts = np.r_[0, np.sort(rng.choice(np.arange(1, bits.size), 57, replace=False))]
    table = nanstats.core.stats.page_table(bits.view(np.float64), valid, page_starts=starts)
    expected = oracle.page_stats("DOUBLE", bits.tolist(), valid.tolist(), starts.tolist())
    got = [as_dict(ColumnStats.from_table(table, i)) for i in range(len(table))]
    assert got == expected


@pytest.fixture(params=_kernels.simd_levels())
def simd_level(request):
    """Run a test under every instruction-set level this CPU has."""
    before = _kernels.simd_level()
    _kernels.set_simd_level(request.param)
    yield request.param
    _kernels.set_simd_level(before)


@pytest.mark.parametrize("bit_offset", [0, 3])
def test_float16_beyond_the_caches_every_level(simd_level, bit_offset) -> None:
    # Float16 values of more than far16_bytes (the AVX2 page loops' copies
    # that also prefetch into L2, chosen by the data's size as it is by
    # default), random bits with 1% NaN of both signs and a bitmap, in
    # pages of 1,000 rows and of random lengths, in one call: its first and
    # last 40 pages held to the oracle.
    ft = next(t for t in FLOAT_TYPES if t.physical_type == "FLOAT16")
    rng = np.random.default_rng(41)
    n = _kernels.far16_bytes() // 2 + 123_457
    bits = rng.integers(0, 1 << 16, n, dtype=np.uint64).astype(np.uint16)
    nan = rng.random(n) < 0.01
    bits[nan] = (0x7C00 | rng.integers(1, 0x400, int(nan.sum()))
                 | np.where(rng.random(int(nan.sum())) < 0.5, 0x8000, 0)).astype(np.uint16)
    valid = rng.random(n) > 0.1
    bitmap = np.packbits(np.r_[np.zeros(bit_offset, bool), valid], bitorder="little")
    for starts in (np.arange(0, n, 1_000, dtype=np.int64),
                   np.r_[0, np.cumsum(rng.integers(1, 3_000, n // 1_000))].astype(np.int64)):
        starts = starts[starts < n]
        out = np.full((2, len(starts), 4), -7, np.int64)
        _kernels.scan(bits, _kernels.VALIDITY_BITMAP, bitmap, bit_offset, starts, out[0], out[1])
        table = StatsTable(ft, out[0], out[1])
        ends = np.r_[starts[1:], n]
        for first, last in ((0, 40), (len(starts) - 40, len(starts))):
            lo, hi = int(starts[first]), int(ends[last - 1])
            want = oracle.page_stats(ft.physical_type, bits[lo:hi].tolist(),
                                     valid[lo:hi].tolist(), (starts[first:last] - lo).tolist())
            got = [as_dict(ColumnStats.from_table(table, i)) for i in range(first, last)]
            assert got == want


@pytest.mark.parametrize("ft", FLOAT_TYPES, ids=lambda t: t.physical_type)
@pytest.mark.parametrize("kind", ["none", "bytes", "null_bytes", "bitmap"])
def test_long_columns_with_nan_bursts_every_level(simd_level, ft, kind) -> None:
    # Several 8192-row blocks, some with NaNs (bursts of both signs and many
    # payloads), some without, all-null stretches, odd page boundaries and an
    # odd bitmap offset: the vector loops, their tails and the NaN pass.
    rng = np.random.default_rng(11)
    n = 40_003
    bits = rng.integers(0, 1 << ft.width, n, dtype=np.uint64).astype(ft.bits_dtype)
    # Finite values (top exponent bit cleared) outside the bursts, so that
    # most blocks hold no NaN at all.
    bits &= np.array(((1 << ft.width) - 1) ^ (1 << (ft.width - 2))).astype(ft.bits_dtype)
    for lo in (100, 9_000, 30_000):
        burst = rng.integers(1, ft.inf_bits ^ ft.abs_mask, 300, dtype=np.uint64)
        signs = rng.random(300) < 0.5
        bits[lo:lo + 300] = (burst | np.uint64(ft.inf_bits)
                             | np.where(signs, np.uint64(ft.sign_mask), np.uint64(0))).astype(
            ft.bits_dtype)
    valid = rng.random(n) > 0.1
    valid[20_000:29_000] = False
    starts = np.r_[0, np.sort(rng.choice(np.arange(1, n), 17, replace=False))]
    col = Column(ft, bits.tolist(), None if kind == "none" else valid.tolist(), starts.tolist(), 0)
    kinds = {"none": _kernels.VALIDITY_NONE, "bytes": _kernels.VALIDITY_BYTES,
             "null_bytes": _kernels.VALIDITY_NULL_BYTES, "bitmap": _kernels.VALIDITY_BITMAP}
    table = kernel_table(col, kinds[kind], 5)
    assert_table_matches_oracle(table, col)


@pytest.mark.parametrize("level", _kernels.simd_levels())
@given(col=columns())
def test_every_level_matches_oracle(level: str, col: Column) -> None:
    before = _kernels.simd_level()
    try:
        _kernels.set_simd_level(level)
        for kind, offset in ((_kernels.VALIDITY_BITMAP, 6), (_kernels.VALIDITY_BYTES, 0),
                             (_kernels.VALIDITY_NULL_BYTES, 0)):
            assert_table_matches_oracle(kernel_table(col, kind, offset), col)
        if col.valid is None:
            assert_table_matches_oracle(kernel_table(col, _kernels.VALIDITY_NONE), col)
    finally:
        _kernels.set_simd_level(before)


def test_simd_level_control() -> None:
    assert _kernels.SIMD_LEVELS[0] == "portable"
    # The portable level is in every build and runs on every CPU.
    assert _kernels.simd_levels()[0] == "portable" == _kernels.built_levels()[0]
    assert set(_kernels.simd_levels()) <= set(_kernels.built_levels())
    with pytest.raises(ValueError, match="unknown SIMD level"):
        _kernels.set_simd_level("avx9")
    for level in set(_kernels.SIMD_LEVELS) - set(_kernels.built_levels()):
        with pytest.raises(ValueError, match="not in this build"):
            _kernels.set_simd_level(level)


@pytest.mark.parametrize("level", ["portable", "avx9"])
def test_simd_level_from_environment(level: str) -> None:
    code = "from nanstats import _kernels; print(_kernels.simd_level())"
    env = dict(os.environ, NANSTATS_SIMD=level.upper())
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if level == "avx9":
        assert run.returncode != 0 and "NANSTATS_SIMD='avx9'" in run.stderr
    else:
        assert run.returncode == 0, run.stderr
        assert run.stdout.strip() == level


class TestKernelGuards:
    """Misuse of the raw kernel raises instead of reading out of bounds."""

    def call(self, n=4, kind=0, validity=None, bit_offset=0, starts=(0,), shape=None):
        data = np.zeros(n, np.uint32)
        starts = np.array(starts, np.int64)
        rows = len(starts) if shape is None else shape
        validity = np.zeros(0, np.uint8) if validity is None else validity
        _kernels.scan(data, kind, validity, bit_offset, starts,
                      np.empty((rows, 4), np.int64), np.empty((rows, 4), np.int64))

    def test_ok(self) -> None:
        self.call()

    @pytest.mark.parametrize("starts", [(), (1,), (0, 0), (0, 3, 2), (0, 5)])
    def test_bad_page_starts(self, starts) -> None:
        with pytest.raises(ValueError, match="page_starts"):
            self.call(starts=starts)

    def test_short_bitmap(self) -> None:
        with pytest.raises(ValueError, match="bitmap"):
            self.call(n=9, kind=2, validity=np.zeros(1, np.uint8))
        with pytest.raises(ValueError, match="bitmap"):
            self.call(n=8, kind=2, validity=np.zeros(1, np.uint8), bit_offset=1)

    def test_short_byte_mask(self) -> None:
        with pytest.raises(ValueError, match="byte validity"):
            self.call(n=4, kind=1, validity=np.zeros(3, np.uint8))

    def test_bad_kind_and_shape(self) -> None:
        with pytest.raises(ValueError, match="validity kind"):
            self.call(kind=9)
        with pytest.raises(ValueError, match="shape"):
            self.call(shape=2)


@pytest.mark.parametrize("ft", FLOAT_TYPES, ids=lambda t: t.physical_type)
@pytest.mark.parametrize("kind", ["none", "bytes", "null_bytes", "bitmap"])
@pytest.mark.parametrize("bit_offset", [0, 3])
def test_zero_signs_and_nan_reference_rows_every_level(simd_level, ft, kind, bit_offset) -> None:
    # The AVX2 level takes float extremes with float min/max (which cannot
    # tell -0.0 from +0.0) and puts each page's first valid row in place of
    # its nulls (a NaN there must not be counted again).  Pages whose extreme
    # is a zero of either sign, or whose zeros are all null; pages whose
    # first valid row is a NaN of either sign; lengths around the vector and
    # pair sizes, the last page ending at the end of the buffers.
    rng = np.random.default_rng(3)
    pos_nan, neg_nan = ft.inf_bits | 1, ft.sign_mask | ft.abs_mask
    one = {16: 0x3C00, 32: 0x3F800000, 64: 0x3FF0000000000000}[ft.width]
    def pick(options: list[int], k: int) -> list[int]:
        return [options[i] for i in rng.integers(0, len(options), k)]

    pages: list[list[int]] = []
    for length in (1, 3, 4, 7, 8, 15, 16, 17, 31, 33, 63, 64, 65, 130):
        for make in (
            lambda k: [0] * k,                                   # +0 only
            lambda k: [ft.sign_mask] * k,                        # -0 only
            lambda k: pick([0, ft.sign_mask, one], k),
            lambda k: pick([0, ft.sign_mask, one | ft.sign_mask], k),
            lambda k: [neg_nan] + pick([0, ft.sign_mask, one, pos_nan], k - 1),
            lambda k: [pos_nan] + pick([ft.sign_mask, neg_nan, one], k - 1),
        ):
            pages.append(make(length))
    bits = [b for p in pages for b in p]
    starts = np.cumsum([0] + [len(p) for p in pages[:-1]]).tolist()
    valid = rng.random(len(bits)) > 0.3
    for s in starts:  # a NaN (or zero) first row, valid; the next row null
        valid[s] = True
        if s + 1 < len(bits):
            valid[s + 1] = False
    col = Column(ft, bits, None if kind == "none" else valid.tolist(), starts, 0)
    kinds = {"none": _kernels.VALIDITY_NONE, "bytes": _kernels.VALIDITY_BYTES,
             "null_bytes": _kernels.VALIDITY_NULL_BYTES, "bitmap": _kernels.VALIDITY_BITMAP}
    table = kernel_table(col, kinds[kind], bit_offset)
    assert_table_matches_oracle(table, col)


_VALIDITY_KINDS = {"none": _kernels.VALIDITY_NONE, "bytes": _kernels.VALIDITY_BYTES,
                   "null_bytes": _kernels.VALIDITY_NULL_BYTES,
                   "bitmap": _kernels.VALIDITY_BITMAP}


def assert_pages_match_oracle(ft, bits, valid, starts, kind: str) -> None:  # type: ignore[no-untyped-def]
    """Every page's statistics from the kernel equal the slow oracle's."""
    col = Column(ft, bits, valid, starts, 0)
    assert_table_matches_oracle(kernel_table(col, _VALIDITY_KINDS[kind], 0), col)


@pytest.mark.parametrize("ft", FLOAT_TYPES, ids=lambda t: t.physical_type)
@pytest.mark.parametrize("kind", ["none", "bytes", "bitmap"])
def test_nans_of_one_sign_every_level(simd_level, ft, kind) -> None:
    # The AVX2 float16 loop takes the NaN extremes of a page from plain
    # min/max over its keys when both signs occur, and from the smallest NaN
    # bits (in the loop, or by a lean second pass) when only one does:
    # pages of +NaN only, -NaN only and both, with many payloads, the
    # largest payload (the all-ones bits, equal to the neutral element of
    # the smallest bits) alone or not,
    # NaNs hidden under nulls, and values or no values beside them.
    rng = np.random.default_rng(5)
    top = int(ft.abs_mask ^ ft.inf_bits)  # the largest payload
    pages: list[list[int]] = []
    for length in (5, 16, 40, 129):
        for signs in ((0,), (ft.sign_mask,), (0, ft.sign_mask)):
            for payloads in ([top], [1, top], list(rng.integers(1, top + 1, 6))):
                for with_values in (False, True):
                    rows = [int(ft.inf_bits | int(p) | signs[int(rng.integers(len(signs)))])
                            for p in rng.choice(payloads, length)]
                    if with_values:
                        rows[::3] = [int(ft.inf_bits) >> 1] * len(rows[::3])
                    pages.append(rows)
    bits = [b for p in pages for b in p]
    starts = np.cumsum([0] + [len(p) for p in pages[:-1]]).tolist()
    valid = (rng.random(len(bits)) > 0.2).tolist()
    assert_pages_match_oracle(ft, bits, None if kind == "none" else valid, starts, kind)


@pytest.mark.parametrize("ft", FLOAT_TYPES, ids=lambda t: t.physical_type)
@pytest.mark.parametrize("kind", ["none", "bitmap"])
@pytest.mark.parametrize("aligned", [False, True], ids=["any", "bytes"])
def test_nan_signs_changing_along_long_pages_every_level(simd_level, ft, kind, aligned) -> None:
    # The AVX2 float16 loops decide per stretch whether to track the NaN
    # extremes of one sign in the loop, and otherwise run a lean second pass
    # over a stretch while the page's NaNs so far have one sign: the page
    # loop per page (up to 65,536 rows), the general driver per chunk of
    # 8,192 rows.  Long pages whose stretches hold NaNs of one sign, of
    # both, or none, in every order, so that the page as a whole has one
    # sign or both; every other page opened by 8 stretches without NaNs,
    # past the page loop's limit; pages of any length, and pages whose
    # lengths are whole bytes of bitmap (every page then starts at a byte,
    # where the float16 page loop reads the bitmap in place).
    rng = np.random.default_rng(8)
    top = int(ft.abs_mask ^ ft.inf_bits)
    stretch = 8192  # the general driver's float16 chunk (NS_CHUNK)
    patterns = [("+",), ("-",), ("+", "-"), ()]
    pages: list[list[int]] = []
    # (After [2]: a page that ends with NaNs of both signs, so that the next
    # page's first stretches run without the loop's one-sign extreme and its
    # NaNs, of one sign, first appear in a later stretch.)
    for i, order in enumerate(([0, 0, 3, 0], [0, 2, 0], [1, 3, 1], [3, 0, 1], [2, 0, 0],
                               [3, 3, 0], [1, 1, 2], [2], [3, 0, 3], [2], [3, 3, 1])):
        rows: list[int] = []
        if i % 2:
            rows += (rng.integers(0, int(ft.inf_bits), 8 * stretch) & ~1).astype(np.int64).tolist()
        for k in order:
            part = (rng.integers(0, int(ft.inf_bits), stretch) & ~1).astype(np.int64).tolist()
            for sign in patterns[k]:
                for at in rng.choice(stretch, 5, replace=False):
                    payload = int(rng.integers(1, top + 1))
                    part[at] = int(ft.inf_bits) | payload | (int(ft.sign_mask) if sign == "-" else 0)
            rows += part
        cut = int(rng.integers(0, 100))
        pages.append(rows[: len(rows) - (cut & ~7 if aligned else cut)])
    bits = [b for p in pages for b in p]
    starts = np.cumsum([0] + [len(p) for p in pages[:-1]]).tolist()
    valid = (rng.random(len(bits)) > 0.05).tolist()
    assert_pages_match_oracle(ft, bits, None if kind == "none" else valid, starts, kind)


@pytest.mark.parametrize("ft", FLOAT_TYPES, ids=lambda t: t.physical_type)
@pytest.mark.parametrize("kind", ["none", "bytes", "bitmap"])
def test_pages_opening_with_many_nans_every_level(simd_level, ft, kind) -> None:
    # The AVX2 float16 loop stands a non-NaN row of the page in for NaN lanes,
    # looked for among the first rows only: pages that open with long runs
    # of NaNs (and nulls) before their values, or hold NaNs only.
    rng = np.random.default_rng(9)
    nan = [int(ft.inf_bits) | 1, int(ft.abs_mask), int(ft.sign_mask | ft.inf_bits) | 7]
    pages: list[list[int]] = []
    for run in (63, 64, 65, 66, 200, 1000):
        values = [int(v) | (int(ft.sign_mask) if neg else 0) for v, neg in
                  zip(rng.integers(0, int(ft.inf_bits), 40, dtype=np.uint64),
                      rng.random(40) < 0.5, strict=True)]
        pages.append([nan[i] for i in rng.integers(0, 3, run)] + values)
        pages.append([nan[i] for i in rng.integers(0, 3, run)])
        pages.append([nan[i] for i in rng.integers(0, 3, run)] + [int(ft.sign_mask), 0])
    bits = [b for p in pages for b in p]
    starts = np.cumsum([0] + [len(p) for p in pages[:-1]]).tolist()
    valid = (rng.random(len(bits)) > 0.2).tolist()
    assert_pages_match_oracle(ft, bits, None if kind == "none" else valid, starts, kind)


@pytest.mark.parametrize("ft", FLOAT_TYPES, ids=lambda t: t.physical_type)
@pytest.mark.parametrize("kind", ["none", "bytes", "null_bytes", "bitmap"])
@pytest.mark.parametrize("bit_offset", [0, 5])
def test_sparse_pages_opening_with_a_nan_every_level(simd_level, ft, kind, bit_offset) -> None:
    # A page whose first valid row is a NaN, with no valid non-NaN row among
    # the 64 after it: the AVX2 float16 driver takes its value extremes from
    # a pass over blocks of 64 rows (those without a valid row skipped) and
    # the rows after the last block.  Its few values sit at the blocks'
    # edges, in the last rows only, or are zeros of either sign; the null
    # rows hold NaNs and the largest finite values, which must reach no
    # extreme; the valid rows before the values are NaNs.
    rng = np.random.default_rng(21 + bit_offset)
    nan = [int(ft.inf_bits) | 1, int(ft.sign_mask | ft.abs_mask)]
    big = [int(ft.inf_bits) - 1, int(ft.sign_mask | ft.inf_bits) - 1]
    neg_zero, small = int(ft.sign_mask), int(ft.inf_bits) >> 1
    def value() -> int:
        return int(rng.integers(1, small)) | (int(ft.sign_mask) if rng.random() < 0.5 else 0)
    bits: list[int] = []
    valid: list[bool] = []
    starts: list[int] = []
    for length in (130, 200, 1000, 4099):
        for places in ("edges", "last", "zeros", "spread", "none"):
            rows = [(nan + big)[i] for i in rng.integers(0, 4, length)]
            ok = [False] * length
            first = int(rng.integers(0, 30))
            rows[first], ok[first] = nan[int(rng.integers(0, 2))], True
            for j in range(first + 1, length):  # valid NaNs, rarely
                if rng.random() < (0.01 if kind != "none" else 1.0):
                    rows[j], ok[j] = nan[int(rng.integers(0, 2))], True
            spots = {"edges": [r for r in (64, 127, 128, 191, 192, length - 65, length - 64)
                               if first + 64 < r < length],
                     "last": [length - 1, length - 2],
                     "zeros": [length - 1, length // 2],
                     "spread": rng.integers(first + 65, length, 5).tolist(),
                     "none": []}[places]
            for r in spots:
                rows[r], ok[r] = value(), True
            if places == "zeros":
                rows[length - 1], rows[length // 2] = neg_zero, 0
                rows[length - 3], ok[length - 3] = value() & ~int(ft.sign_mask), True
            starts.append(len(bits))
            bits += rows
            valid += ok
    if kind == "none":  # every row valid: the null rows' values are the page's NaNs
        bits = [b if ok else nan[0] for b, ok in zip(bits, valid, strict=True)]
    col = Column(ft, bits, None if kind == "none" else valid, starts, 0)
    table = kernel_table(col, _VALIDITY_KINDS[kind], bit_offset)
    assert_table_matches_oracle(table, col)


@pytest.mark.parametrize("ft", FLOAT_TYPES, ids=lambda t: t.physical_type)
@pytest.mark.parametrize("bit_offset", [0, 3])
@pytest.mark.parametrize("signs", ["both", "plus"])
def test_sparse_and_empty_pages_in_runs_every_level(simd_level, ft, bit_offset, signs) -> None:
    # The AVX2 float16 page loops find a bitmap page's first valid row past
    # its first 64 rows a word at a time, and mode 0's loop (pages at a
    # byte: bit offset 0 here) takes a page with no valid row too.  Runs of
    # pages at a byte or not: plain pages, sparse ones (a few valid rows,
    # the first of them 64 to 900 rows in, at a word's edge or not), pages
    # with no valid row, pages whose valid rows are NaNs only; NaNs of both
    # signs, or +NaN only (the loops' one-sign mode).  The null rows hold
    # NaNs and the largest finite values, which must reach no extreme.
    rng = np.random.default_rng(31 + bit_offset + len(signs))
    sign = int(ft.sign_mask)
    nans = [int(ft.inf_bits) | 1, int(ft.abs_mask)] + (
        [sign | int(ft.inf_bits) | 3, sign | int(ft.abs_mask)] if signs == "both" else [])
    junk = nans + [int(ft.inf_bits) - 1, sign | (int(ft.inf_bits) - 1)]
    def value() -> int:
        return int(rng.integers(1, int(ft.inf_bits) >> 1)) | (sign if rng.random() < 0.5 else 0)
    bits: list[int] = []
    valid: list[bool] = []
    starts: list[int] = []
    def page(length: int, style: str) -> None:
        rows = [junk[i] for i in rng.integers(0, len(junk), length)]
        ok = [False] * length
        if style == "plain":
            for j in range(length):
                if rng.random() < 0.9:
                    rows[j], ok[j] = (nans[int(rng.integers(0, len(nans)))]
                                      if rng.random() < 0.02 else value()), True
        elif style.startswith("sparse"):
            first = int(style[6:])
            for j in [first] + rng.integers(first + 1, length, 3).tolist():
                rows[j], ok[j] = value(), True
            j = int(rng.integers(first + 1, length))
            rows[j], ok[j] = nans[0], True
        elif style == "nans":
            for j in rng.integers(0, length, 5).tolist():
                rows[j], ok[j] = nans[int(rng.integers(0, len(nans)))], True
        starts.append(len(bits))
        bits.extend(rows)
        valid.extend(ok)
    layout = ([(1000, "plain")] * 3 + [(1000, "sparse64"), (1000, "empty"), (1000, "plain"),
              (2048, "sparse127"), (1000, "sparse900"), (1000, "empty"), (1000, "empty"),
              (96, "empty"), (1000, "nans"), (1000, "plain"), (1000, "sparse200")]
              + [(1000, "plain")] * 20 + [(4096, "sparse1000"), (1000, "empty"),
              (1000, "plain"), (1000, "plain")])
    for length, style in layout:
        page(length, style)
    col = Column(ft, bits, valid, starts, 0)
    table = kernel_table(col, _VALIDITY_KINDS["bitmap"], bit_offset)
    assert_table_matches_oracle(table, col)


@pytest.mark.parametrize("ft", FLOAT_TYPES, ids=lambda t: t.physical_type)
@pytest.mark.parametrize("kind", ["bytes", "bitmap"])
@pytest.mark.parametrize("bit_offset", [0, 5])
def test_pages_opening_with_null_runs_every_level(simd_level, ft, kind, bit_offset) -> None:
    # The AVX2 float16 loop finds a bitmap page's first valid row from the
    # first 64 bits at once and walks row by row only when they are all
    # null: pages opening with 0 to 200 null rows (around 64), then small
    # values and NaNs or nothing valid, the null rows holding NaNs and the
    # largest finite values (which must not reach any extreme).
    rng = np.random.default_rng(12)
    nan = [int(ft.inf_bits) | 1, int(ft.sign_mask | ft.abs_mask)]
    big = [int(ft.inf_bits) - 1, int(ft.sign_mask | ft.inf_bits) - 1]
    pages: list[list[int]] = []
    valid: list[bool] = []
    for run in (0, 1, 63, 64, 65, 127, 128, 200):
        for tail in (0, 1, 40):
            rows = [(nan + big)[i] for i in rng.integers(0, 4, run)]
            rows += [int(v) | (int(ft.sign_mask) if neg else 0) for v, neg in
                     zip(rng.integers(0, int(ft.inf_bits) >> 1, tail, dtype=np.uint64),
                         rng.random(tail) < 0.5, strict=True)]
            rows[run + 2::7] = [nan[i] for i in rng.integers(0, 2, len(rows[run + 2::7]))]
            if rows:
                pages.append(rows)
                valid += [False] * run + (rng.random(tail) > 0.3).tolist()
    bits = [b for p in pages for b in p]
    starts = np.cumsum([0] + [len(p) for p in pages[:-1]]).tolist()
    col = Column(ft, bits, valid, starts, 0)
    table = kernel_table(col, _VALIDITY_KINDS[kind], bit_offset)
    assert_table_matches_oracle(table, col)


@pytest.mark.parametrize("ft", FLOAT_TYPES, ids=lambda t: t.physical_type)
@pytest.mark.parametrize("kind", ["none", "bitmap", "bytes"])
@pytest.mark.parametrize("sign", ["plus", "minus"])
def test_one_sign_modes_every_level(simd_level, ft, kind, sign) -> None:
    # Where the data's NaNs have shown one sign the AVX2 float16 loops run in
    # that sign's mode (keys shifted so that NaNs sit at one end), the small
    # pages (up to 65,536 rows) after 16 NaNs in a row of that sign, the
    # general driver's chunks of 8,192 rows after one chunk while the page
    # has shown one sign: runs of pages and long pages (some
    # past 65,536 rows) whose NaNs have that sign, then
    # the other sign alone, both signs, none, zero extremes of either sign,
    # each in small pages and in long ones, so that every mode meets every
    # kind of page and chunk after it.
    rng = np.random.default_rng(97 if sign == "plus" else 98)
    s_one, s_other = (0, int(ft.sign_mask)) if sign == "plus" else (int(ft.sign_mask), 0)
    top = int(ft.abs_mask ^ ft.inf_bits)
    def finite(k: int, nonneg: bool = False) -> list[int]:
        return [int(m) | (int(ft.sign_mask) if neg and not nonneg else 0) for m, neg in
                zip(rng.integers(0, int(ft.inf_bits), k, dtype=np.uint64), rng.random(k) < 0.5,
                    strict=True)]
    def nans(k: int, signs: tuple[int, ...]) -> list[int]:
        return [int(ft.inf_bits) | int(rng.integers(1, top + 1)) | signs[int(rng.integers(len(signs)))]
                for _ in range(k)]
    def page(length: int, style: str) -> list[int]:
        if style == "zeros_pos":  # values >= 0 with zeros of either sign
            rows = [int(ft.sign_mask) if r < 0.2 else 0 if r < 0.4 else b for r, b in
                    zip(rng.random(length), finite(length, nonneg=True), strict=True)]
        elif style == "zeros_neg":  # values <= 0 with zeros of either sign
            rows = [b | int(ft.sign_mask) if r > 0.4 else int(ft.sign_mask) if r > 0.2 else 0
                    for r, b in zip(rng.random(length), finite(length), strict=True)]
        else:
            rows = finite(length)
        at = rng.choice(length, max(1, length // 50), replace=False)
        signs = {"one": (s_one,), "other": (s_other,), "both": (s_one, s_other), "none": (),
                 "zeros_pos": (s_one,), "zeros_neg": (s_one,)}[style]
        if signs:
            for i, b in zip(at, nans(len(at), signs), strict=True):
                rows[i] = b
        if (rows[0] & int(ft.abs_mask)) > int(ft.inf_bits):
            rows[0] = finite(1)[0]  # a first row that is no NaN: the small pages take it
        return rows
    styles = ["one", "one", "one", "other", "one", "one", "both", "one", "one", "none", "one",
              "zeros_pos", "zeros_neg", "one", "other", "other", "one", "both", "both", "one"]
    bits: list[int] = []
    starts: list[int] = []
    for i, style in enumerate(styles * 3):
        length = (1000, 333, 64, 7000)[i % 4] if i < len(styles) * 2 else 9000
        if i in (40, 43, 46):  # one sign, the other, both: past the page loop's limit
            length = 66000
        starts.append(len(bits))
        bits += page(length, style)
    valid = (rng.random(len(bits)) > 0.1).tolist()
    for s in starts:
        valid[s] = True
    col = Column(ft, bits, None if kind == "none" else valid, starts, 0)
    table = kernel_table(col, _VALIDITY_KINDS[kind], 0)
    assert_table_matches_oracle(table, col)


@pytest.mark.parametrize("ft", FLOAT_TYPES, ids=lambda t: t.physical_type)
@pytest.mark.parametrize("kind", ["none", "bitmap"])
@pytest.mark.parametrize("bit_offset", [0, 3])
@pytest.mark.parametrize("sign", ["plus", "minus"])
def test_pages_opening_with_a_nan_in_every_mode_every_level(simd_level, ft, kind, bit_offset,
                                                            sign) -> None:
    # The AVX2 float16 page loops take a page whose first valid row is a NaN
    # with the first valid row after it that is not one, looked for among
    # the page's first 64 rows, in mode 0 and in the one-sign modes, at a
    # byte of the bitmap and inside one: runs of pages whose NaNs have one
    # sign (the loops enter that sign's mode) and of both signs, half of
    # them opening with a NaN of either sign, some with NaNs and nulls up to
    # and past row 64 before their first value, some with no value at all.
    # The null rows hold the largest finite values of either sign, which
    # must reach no extreme (a null row taken for the reference row would).
    rng = np.random.default_rng(53 if sign == "plus" else 54)
    s_one, s_other = (0, int(ft.sign_mask)) if sign == "plus" else (int(ft.sign_mask), 0)
    top = int(ft.abs_mask ^ ft.inf_bits)
    big = (int(ft.inf_bits) - 1, int(ft.sign_mask | ft.inf_bits) - 1)
    def finite(k: int) -> list[int]:  # up to half the largest magnitude
        return [int(m) | (int(ft.sign_mask) if neg else 0) for m, neg in
                zip(rng.integers(0, int(ft.inf_bits) >> 1, k, dtype=np.uint64),
                    rng.random(k) < 0.5, strict=True)]
    def nan(signs: tuple[int, ...]) -> int:
        return int(ft.inf_bits) | int(rng.integers(1, top + 1)) | signs[int(rng.integers(len(signs)))]
    bits: list[int] = []
    valid: list[bool] = []
    starts: list[int] = []
    for i in range(90):
        length = (1000, 1000, 333, 1000, 64, 2000)[i % 6]
        signs = (s_one,) if (i // 30) != 1 else (s_one, s_other)
        rows, ok = finite(length), (rng.random(length) > 0.1).tolist()
        for j in rng.choice(length, max(1, length // 40), replace=False):
            rows[j] = nan(signs)
        head = (0, 1, 63, 3, 0, 1, 64, 65, 257, 1, 0, length)[i % 12]  # NaN or null rows first
        for j in range(min(head, length)):
            rows[j], ok[j] = nan((s_one, s_other) if i % 5 == 0 else signs), bool(rng.random() < 0.7)
        if 0 < head < length:
            ok[0] = True  # a NaN first valid row
        rows = [r if v else big[int(rng.integers(2))] for r, v in zip(rows, ok, strict=True)]
        starts.append(len(bits))
        bits += rows
        valid += ok
    col = Column(ft, bits, None if kind == "none" else valid, starts, 0)
    table = kernel_table(col, _VALIDITY_KINDS[kind], bit_offset)
    assert_table_matches_oracle(table, col)


@pytest.mark.parametrize("kind", ["none", "bitmap"])
@pytest.mark.parametrize("style", ["min_neg", "min_neg_null", "max_pos", "max_pos_null",
                                   "both_zero", "plus_zeros", "minus_zeros"])
@pytest.mark.parametrize("end", ["common", "rare", "one_nan"])
def test_zero_extremes_after_uncounted_pages_every_level(simd_level, kind, style, end) -> None:
    # The AVX2 float16 page loop of mode 0 does not count the rows' sign
    # bits until a page of its call has a zero extreme: that page's zero
    # signs come from a pass over its rows, and the pages after it from the
    # loop that counts them.  Each case is a call of its own, so that the
    # zero page is the first one: plain pages (NaNs of both signs), the
    # zero page ending as the common page, as a rare one (two NaNs of one
    # sign) or with one NaN, plain pages again, a second zero page, plain
    # pages.  Zeros of the other sign sit in null rows where the style
    # says so (they must not count); the null rows hold large values too.
    ft = next(t for t in FLOAT_TYPES if t.width == 16)
    rng = np.random.default_rng(sum(map(ord, kind + style + end)))
    sign, pos_nan, neg_nan = 0x8000, 0x7C01, 0xFC01
    def mags(k: int) -> list[int]:
        return [int(m) for m in rng.integers(1, 0x7800, k)]
    def plain(k: int) -> tuple[list[int], list[bool]]:
        rows = [m | (sign if neg else 0) for m, neg in zip(mags(k), rng.random(k) < 0.5, strict=True)]
        rows[int(rng.integers(8, k))] = pos_nan
        rows[int(rng.integers(8, k))] = neg_nan
        return rows, (rng.random(k) > 0.1).tolist()
    def zero_page(k: int) -> tuple[list[int], list[bool]]:
        ok = (rng.random(k) > (0.2 if kind == "bitmap" else -1)).tolist()
        ok[0] = True
        if style in ("min_neg", "min_neg_null"):
            rows = [m if rng.random() < 0.9 else 0 for m in mags(k)]
            rows[0], rows[1], ok[1] = 0, sign, style == "min_neg"  # -0.0, valid or null
        elif style in ("max_pos", "max_pos_null"):
            rows = [m | sign if rng.random() < 0.9 else sign for m in mags(k)]
            rows[0], rows[1], ok[1] = sign, 0, style == "max_pos"  # +0.0, valid or null
        elif style == "both_zero":
            rows = [sign if rng.random() < 0.5 else 0 for _ in range(k)]
            rows[0], rows[1], ok[1] = 0, sign, True
        else:
            rows = [0 if style == "plus_zeros" else sign] * k
        for j in range(2, k):  # the other null rows: the other zero or a large value
            if not ok[j]:
                rows[j] = (sign ^ rows[j]) if rng.random() < 0.5 else int(rng.integers(0x7000, 0x7BFF))
        nans = {"common": [], "rare": [pos_nan, pos_nan + 1], "one_nan": [neg_nan]}[end]
        for b in nans:
            j = int(rng.integers(2, k))
            rows[j], ok[j] = b, True
        return rows, ok
    bits: list[int] = []
    valid: list[bool] = []
    starts: list[int] = []
    layout = [(plain, 1000), (plain, 200), (plain, 1000), (zero_page, 1000), (plain, 1000),
              (plain, 96), (zero_page, 200), (plain, 1000), (plain, 1000)]
    for make, length in layout:
        rows, ok = make(length)
        starts.append(len(bits))
        bits += rows
        valid += ok
    col = Column(ft, bits, None if kind == "none" else valid, starts, 0)
    table = kernel_table(col, _VALIDITY_KINDS[kind], 0)
    assert_table_matches_oracle(table, col)


@pytest.mark.parametrize("ft", FLOAT_TYPES, ids=lambda t: t.physical_type)
@pytest.mark.parametrize("kind", ["none", "bitmap"])
@pytest.mark.parametrize("bit_offset", [0, 8, 3])
def test_runs_of_small_pages_every_level(simd_level, ft, kind, bit_offset) -> None:
    # The AVX2 float16 level has a loop of its own for pages of 32 to 65,536
    # rows (no nulls, or a bitmap whose page starts at a byte) that reads
    # its last rows on past the page, finds the next page's reference row
    # after the page and hands a page it cannot take to the general
    # driver: runs of such pages with every length of last rows (none,
    # under a vector, over one), around both limits, pages of NaNs of one
    # sign (tracked in the loop or by the lean pass, as the page before
    # decides) and of both, pages opening with a NaN or with 64 null rows,
    # zeros of both signs, all NaN, and the last page ending at the end of
    # the data.
    rng = np.random.default_rng(41)
    pos_nan, neg_nan = int(ft.inf_bits) | 1, int(ft.sign_mask | ft.abs_mask)
    top = int(ft.abs_mask ^ ft.inf_bits)  # the largest payload
    def finite(k: int) -> list[int]:
        return [int(m) | (int(ft.sign_mask) if neg else 0) for m, neg in
                zip(rng.integers(0, int(ft.inf_bits), k, dtype=np.uint64), rng.random(k) < 0.5,
                    strict=True)]
    def nans(k: int, signs: tuple[int, ...]) -> list[int]:
        return [int(ft.inf_bits) | int(rng.integers(1, top + 1)) | signs[int(rng.integers(len(signs)))]
                for _ in range(k)]
    def page(length: int, style: str) -> tuple[list[int], list[bool]]:
        rows = finite(length)
        valid = (rng.random(length) > 0.1).tolist()
        at = rng.choice(length, max(1, length // 60), replace=False)
        if style in ("both", "plus", "minus"):
            signs = {"both": (0, int(ft.sign_mask)), "plus": (0,), "minus": (int(ft.sign_mask),)}
            for i, b in zip(at, nans(len(at), signs[style]), strict=True):
                rows[i] = b
        elif style == "nan_first":
            rows[0], valid[0] = (pos_nan, neg_nan)[int(rng.integers(2))], True
        elif style == "null_head":
            valid[:64] = [False] * min(64, length)
            rows[:64] = nans(min(64, length), (0,))
        elif style == "zeros":
            rows = [int(ft.sign_mask) if r else 0 for r in (rng.random(length) < 0.5)]
        elif style == "all_nan":
            rows = nans(length, (0, int(ft.sign_mask)))
        return rows, valid
    lengths = [32, 33, 40, 47, 48, 49, 63, 64, 65, 96, 104, 1000, 1001, 2040, 2047, 2048,
               2049, 31, 16]
    lengths_at_limit = {40: 65536, 80: 65537}  # the page loop's limit, and one row past it
    styles = ["both", "plus", "plus", "minus", "both", "none", "nan_first", "null_head",
              "zeros", "all_nan", "minus", "minus", "both"]
    bits: list[int] = []
    valid: list[bool] = []
    starts: list[int] = []
    for i in range(120):
        length = lengths[i % len(lengths)] if i % 3 else 1000 - 8 * int(rng.integers(0, 3))
        length = lengths_at_limit.get(i, length)
        rows, ok = page(length, styles[i % len(styles)])
        starts.append(len(bits))
        bits += rows
        valid += ok
    bits += finite(40)  # the last page: 40 rows at the very end of the data
    valid += (rng.random(40) > 0.1).tolist()
    starts.append(len(bits) - 40)
    col = Column(ft, bits, None if kind == "none" else valid, starts, 0)
    table = kernel_table(col, _VALIDITY_KINDS[kind], bit_offset)
    assert_table_matches_oracle(table, col)


@pytest.mark.parametrize("ft", FLOAT_TYPES, ids=lambda t: t.physical_type)
@pytest.mark.parametrize("kind", ["none", "bitmap"])
def test_sparse_nans_of_both_signs_every_level(simd_level, ft, kind) -> None:
    # Few NaNs, of either sign: the AVX2 float16 loops take a page's only
    # NaN as its own other end (no second pass), keep a long page in mode 0
    # once it has shown NaNs of both signs, and move the page loop to a
    # one-sign mode only after 16 NaNs in a row of that sign.  Pages of
    # 1,000 rows (and some shorter) holding 0 to 3 NaNs of random signs,
    # a run of pages of +NaN only long enough to change mode followed by
    # pages with a single -NaN, a single +NaN and none; long pages (past the
    # page loop's limit) whose chunks of 8,192 rows hold a single NaN, a
    # NaN of one sign in two chunks far apart, or both signs and then one;
    # null rows holding NaN bits.
    rng = np.random.default_rng(61)
    top = int(ft.abs_mask ^ ft.inf_bits)
    def finite(k: int) -> list[int]:
        return [int(m) | (int(ft.sign_mask) if neg else 0) for m, neg in
                zip(rng.integers(0, int(ft.inf_bits), k, dtype=np.uint64), rng.random(k) < 0.5,
                    strict=True)]
    def nan(sign: str) -> int:
        return int(ft.inf_bits) | int(rng.integers(1, top + 1)) | (
            int(ft.sign_mask) if sign == "-" else 0)
    def page(length: int, placed: list[tuple[int, str]]) -> list[int]:
        rows = finite(length)
        for at, sign in placed:
            rows[at] = nan(sign)
        return rows
    pages: list[list[int]] = []
    for i in range(160):
        length = 1000 if i % 5 else int(rng.integers(32, 1000))
        k = int(rng.choice([0, 1, 1, 2, 3]))
        at = rng.choice(np.arange(1, length), k, replace=False)
        pages.append(page(length, [(int(a), "+-"[int(rng.integers(2))]) for a in at]))
    for _ in range(12):  # +NaN only: the page loop moves to +NaN's mode
        pages.append(page(1000, [(int(a), "+") for a in rng.choice(np.arange(1, 1000), 3,
                                                                  replace=False)]))
    for placed in ([(500, "-")], [(20, "+")], [], [(7, "-"), (900, "-")], [(3, "+")]):
        pages.append(page(1000, placed))
    chunk = 8192  # the general driver's float16 chunk (NS_CHUNK)
    long = 32 * chunk
    for placed in ([(5 * chunk + 17, "+")], [(3, "-")], [(40, "-"), (7 * chunk + 5, "-")],
                   [(2 * chunk, "+"), (3 * chunk + 9, "-"), (5 * chunk + 1, "+"),
                    (9 * chunk + 2, "+")],
                   [(chunk + 1, "-"), (chunk + 2, "+"), (20 * chunk, "-")],
                   [(30 * chunk + 11, "+"), (31 * chunk + 3, "+")]):
        pages.append(page(long, placed))
    # A page's first NaN alone in its chunk, with the smallest bits of the
    # page's NaNs, and one more of the same sign chunks later: the smallest
    # bits (the other end) are the first NaN's, taken when its chunk ended
    # (in mode 0: each such page follows one with NaNs of both signs).
    first_nans: list[int] = []
    for sign, at, later in (("+", 40, 7 * chunk + 5), ("-", 40, 9 * chunk + 1),
                            ("+", 3 * chunk + 2, 6 * chunk + 9), ("-", 3 * chunk + 2, 6 * chunk)):
        pages.append(page(1000, [(10, "+"), (11, "-"), (500, "+"), (501, "-")]))
        first_nans += [sum(map(len, pages)) - 1000 + i for i in (10, 11, 500, 501)]
        rows = page(long, [])
        s_bit = int(ft.sign_mask) if sign == "-" else 0
        rows[at] = int(ft.inf_bits) | 1 | s_bit  # the smallest payload
        rows[later] = int(ft.abs_mask) | s_bit  # the largest
        first_nans += [sum(map(len, pages)) + at, sum(map(len, pages)) + later]
        pages.append(rows)
    bits = [b for p in pages for b in p]
    starts = np.cumsum([0] + [len(p) for p in pages[:-1]]).tolist()
    valid = (rng.random(len(bits)) > 0.1).tolist()
    for s in starts + first_nans:
        valid[s] = True
    # Null rows holding NaN bits of either sign, which must count for nothing.
    for i in rng.choice(len(bits), 300, replace=False):
        if not valid[i]:
            bits[i] = nan("+-"[int(i) % 2])
    assert_pages_match_oracle(ft, bits, None if kind == "none" else valid, starts, kind)


@pytest.mark.parametrize("ft", FLOAT_TYPES, ids=lambda t: t.physical_type)
@pytest.mark.parametrize("kind", ["none", "bytes", "bitmap"])
@pytest.mark.parametrize("sign", ["+", "-"])
def test_few_nans_of_one_sign_in_lanes_every_level(simd_level, ft, kind, sign) -> None:
    # The AVX2 float16 page loop finds the other end of a page's few NaNs
    # of one sign from its accumulators' lanes when each NaN had a lane of
    # its own (rows apart by a multiple of 16 share one), else from a pass
    # over the rows.  Pages of 2 to 17 NaNs of one sign: in lanes of their
    # own, two in one lane with the page's other end among them (first or
    # second in its lane), 16 filling every lane, 17; the same payload
    # twice; NaN bits under nulls in lanes of their own (no NaN of the
    # page); the other end in the page's last rows (read past the page).
    # Each page follows one holding NaNs of both signs, so that the loop is
    # in the mode that keeps both.
    rng = np.random.default_rng(83)
    top = int(ft.abs_mask ^ ft.inf_bits)
    s_bit = int(ft.sign_mask) if sign == "-" else 0

    def finite(k: int) -> list[int]:
        return [int(m) | (int(ft.sign_mask) if neg else 0) for m, neg in
                zip(rng.integers(0, int(ft.inf_bits), k, dtype=np.uint64), rng.random(k) < 0.5,
                    strict=True)]

    def nan(payload: int, s: int = s_bit) -> int:
        return int(ft.inf_bits) | payload | s

    pages: list[list[int]] = []
    nulls: list[int] = []  # rows that must be null
    forced: list[int] = []  # rows that must be valid

    def add(rows: list[int], placed: dict[int, int], null_nans: tuple[int, ...] = ()) -> None:
        mixed = finite(1000)
        mixed[100], mixed[301] = nan(5, 0), nan(7, int(ft.sign_mask))
        base = sum(map(len, pages))
        forced.extend([base, base + 100, base + 301])
        pages.append(mixed)
        base += 1000
        for at, payload in placed.items():
            rows[at] = nan(payload)
            forced.append(base + at)
        for at in null_nans:
            rows[at] = nan(1)  # smaller than any NaN of the page
            nulls.append(base + at)
        forced.append(base)
        pages.append(rows)

    for length in (1000, 200, 4096):
        for k in (2, 3, 5, 9):
            lanes = rng.choice(16, k, replace=False)
            at = [int(lane) + 16 * int(rng.integers(1, length // 16 - 1)) for lane in lanes]
            add(finite(length), {a: int(rng.integers(2, top + 1)) for a in at})
        # Two NaNs in one lane, the smallest payload first or second in it.
        for first in (True, False):
            a, b = 16 * 3 + 5, 16 * 9 + 5
            placed = {a: 2 if first else top, b: top if first else 2, 16 * 4 + 1: top - 1}
            add(finite(length), placed)
        # Every lane, and one more.
        for k in (16, 17):
            at = [16 + i for i in range(16)] + ([16 + 16 * 5] if k == 17 else [])
            add(finite(length), {a: int(rng.integers(2, top + 1)) for a in at})
        # One payload twice, in lanes of their own.
        add(finite(length), {33: 9, 50: 9, 71: top})
        # NaN bits under nulls in lanes the page's NaNs leave free.
        add(finite(length), {40: 9, 61: top}, null_nans=(42, 75, 90))
        # The other end in the last rows.
        add(finite(length), {length - 1: 2, length - 40: top, 17: top})
    bits = [b for p in pages for b in p]
    starts = np.cumsum([0] + [len(p) for p in pages[:-1]]).tolist()
    valid = (rng.random(len(bits)) > 0.1).tolist()
    for i in forced:
        valid[i] = True
    for i in nulls:
        valid[i] = False
    if kind == "none":
        for i in nulls:  # without nulls those rows are values instead
            bits[i] = finite(1)[0]
    assert_pages_match_oracle(ft, bits, None if kind == "none" else valid, starts, kind)


@pytest.mark.parametrize("ft", FLOAT_TYPES, ids=lambda t: t.physical_type)
@pytest.mark.parametrize("kind", ["none", "bytes", "bitmap"])
def test_ordered_and_repeated_values_every_level(simd_level, ft, kind) -> None:
    # The portable float64 loop updates its extremes only for a row outside
    # those seen so far (a NaN always is): columns where every row is a new
    # extreme (ascending, descending, growing outward with alternating
    # signs), where rows repeat the extremes exactly, where -0.0 and +0.0
    # alternate, all with NaNs of both signs and null rows holding values
    # beyond every valid one, in pages of several lengths.
    rng = np.random.default_rng(31)
    n = 3000
    mags = np.sort(rng.integers(1, int(ft.inf_bits), n, dtype=np.uint64))
    neg = int(ft.sign_mask)
    cols = {
        "ascending": [int(m) | neg for m in mags[::-1]] + [int(m) for m in mags],
        "descending": [int(m) for m in mags[::-1]] + [int(m) | neg for m in mags],
        "outward": [int(m) | (neg if i % 2 else 0) for i, m in enumerate(mags)],
        "repeated": [int(mags[i % 3]) | (neg if i % 5 == 0 else 0) for i in range(n)],
        "zeros": [neg if i % 2 else 0 for i in range(n)],
    }
    nan = [int(ft.inf_bits) | 1, int(ft.sign_mask | ft.abs_mask)]
    beyond = [int(ft.inf_bits), int(ft.sign_mask | ft.inf_bits)]
    for bits in cols.values():
        bits = list(bits)
        valid = (rng.random(len(bits)) > 0.2).tolist()
        for i in rng.integers(0, len(bits), len(bits) // 50):
            bits[i] = nan[int(i) % 2]
        if kind != "none":
            bits = [b if ok else beyond[i % 2]
                    for i, (b, ok) in enumerate(zip(bits, valid, strict=True))]
        starts = [0, 1, 17, 1000, 1001, 2500, 4096]
        starts = [s for s in starts if s < len(bits)]
        assert_pages_match_oracle(ft, bits, None if kind == "none" else valid, starts, kind)


@pytest.mark.parametrize("kind", ["none", "bytes", "bitmap"])
def test_float64_portable_loops_switch_within_a_scan(kind) -> None:
    # The portable float64 scan runs a block (8,192 rows, or a page) through
    # a branching loop or a masked one, chosen by how many rows of the last
    # block were NaNs or new extremes: blocks alternating between half NaN,
    # 1% NaN and ascending, in one page and in pages of 1,000 rows, through
    # both loops and back.
    ft = next(t for t in FLOAT_TYPES if t.physical_type == "DOUBLE")
    rng = np.random.default_rng(32)
    parts = []
    for frac in (0.5, 0.01, 0.5, 0.0, 0.01):
        v = rng.standard_normal(8192)
        if frac == 0.0:
            v = np.sort(v)
        v[rng.random(8192) < frac] = np.nan
        v[rng.random(8192) < frac / 2] = -np.nan
        parts.append(v)
    bits = np.concatenate(parts).view(np.uint64).tolist()
    valid = (rng.random(len(bits)) > 0.1).tolist()
    before = _kernels.simd_level()
    _kernels.set_simd_level("portable")
    try:
        for starts in ([0], list(range(0, len(bits), 1000))):
            assert_pages_match_oracle(ft, bits, None if kind == "none" else valid, starts, kind)
    finally:
        _kernels.set_simd_level(before)


@pytest.mark.parametrize(("kind", "bit_offset"), [("none", 0), ("bitmap", 0), ("bitmap", 3)])
def test_nans_mostly_of_one_sign_every_level(simd_level, kind, bit_offset) -> None:
    # NaNs mostly of one sign with a few of the other: the AVX2 float16
    # page loop's one-sign mode is broken page after page and mode 0 ends
    # many pages rare, so it moves to mode 3, which also keeps the NaN
    # lanes' least bits, for its next 1,048,576 rows, then back.  Pages of
    # 1,000 rows: first pages that alternate +NaN only (a one-sign run) and
    # +NaN with one -NaN (a broken mode), enough to move it; then, in mode
    # 3, pages of +NaN only, -NaN only (the other end in the page's last
    # rows too), both, one of either sign, none, no values, zero extremes
    # of either sign, NaN bits under nulls with the smallest payload;
    # past mode 3's rows and on, so that it moves back and forth.  A bitmap
    # from bit 3 puts every page inside a byte (its bits shifted first).
    # Float16 only: the mode is its AVX2 loop's (every level is held to the
    # oracle).
    ft = next(t for t in FLOAT_TYPES if t.physical_type == "FLOAT16")
    rng = np.random.default_rng(97)
    top = int(ft.abs_mask ^ ft.inf_bits)
    sign_bit = int(ft.sign_mask)

    def finite(k: int, signs: str = "+-") -> list[int]:
        mags = rng.integers(1, int(ft.inf_bits), k, dtype=np.uint64)
        neg = rng.random(k) < (0.5 if signs == "+-" else float(signs == "-"))
        return [int(m) | (sign_bit if n else 0) for m, n in zip(mags, neg, strict=True)]

    def nan(sign: str, payload: int | None = None) -> int:
        p = int(rng.integers(1, top + 1)) if payload is None else payload
        return int(ft.inf_bits) | p | (sign_bit if sign == "-" else 0)

    def page(placed: dict[int, int], rows: list[int] | None = None) -> list[int]:
        rows = finite(1000) if rows is None else rows
        for at, b in placed.items():
            rows[at] = b
        return rows

    def spread(k: int, sign: str) -> dict[int, int]:
        return {int(a): nan(sign) for a in rng.choice(np.arange(1, 1000), k, replace=False)}

    pages: list[list[int]] = []
    for i in range(60):
        placed = spread(20, "+")
        if i % 2:
            placed[int(rng.integers(1, 1000))] = nan("-")
        pages.append(page(placed))
    null_nans: list[int] = []
    for i in range(1200):
        t = i % 12
        if t == 0:
            pages.append(page(spread(int(rng.integers(2, 40)), "+")))
        elif t == 1:
            pages.append(page(spread(int(rng.integers(2, 40)), "-")))
        elif t == 2:  # the other end (smallest bits) in the last rows
            placed = spread(5, "-") | {995: nan("-", 1)}
            pages.append(page(placed))
        elif t == 3:
            pages.append(page(spread(7, "+") | spread(3, "-")))
        elif t in (4, 5):
            pages.append(page({int(rng.integers(1, 1000)): nan("+-"[t - 4])}))
        elif t == 6:
            pages.append(page({}))
        elif t == 7:  # no values: NaNs only
            pages.append([nan("+-"[int(s)]) for s in rng.integers(0, 2, 1000)])
        elif t == 8:  # zero extremes: -0.0 the least, +0.0 the greatest
            rows = finite(1000, "+")
            rows[500] = sign_bit
            pages.append(page(spread(3, "+"), rows))
        elif t == 9:
            rows = finite(1000, "-")
            rows[300] = 0
            pages.append(page(spread(3, "-"), rows))
        elif t == 10:  # NaN bits under nulls, smaller than the page's NaNs
            base = sum(map(len, pages))
            placed = {at: nan("+", top) for at in (10, 400)}
            for at in (20, 600, 999):
                placed[at] = nan("+", 1)
                null_nans.append(base + at)
            pages.append(page(placed))
        else:
            pages.append(page(spread(int(rng.integers(0, 30)), "+") | spread(1, "-")))
    bits = [b for p in pages for b in p]
    starts = np.arange(0, len(bits), 1000).tolist()
    valid = (rng.random(len(bits)) > 0.1).tolist()
    for s in starts:
        valid[s] = True
    for r in null_nans:
        valid[r] = False
    col = Column(ft, bits, None if kind == "none" else valid, starts, 0)
    assert_table_matches_oracle(kernel_table(col, _VALIDITY_KINDS[kind], bit_offset), col)
