"""Shared by the corpus tests (tests/parquet/test_corpus.py, tests/spark/test_corpus_spark.py):
float data with every awkward bit pattern, and the checks every real file must pass."""

from __future__ import annotations

import os
from collections import defaultdict

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as papq

from nanstats.metadata.footer import read_footer
from nanstats.parquet.inspection import inspect
from nanstats.parquet.upgrading import upgrade
from nanstats.parquet.verification import RULES, verify

_UINT = {16: np.uint16, 32: np.uint32, 64: np.uint64}
_FLOAT = {16: np.float16, 32: np.float32, 64: np.float64}
_EXP = {16: 0x7C00, 32: 0x7F800000, 64: 0x7FF0000000000000}

#: Rows [100, 160) are NaN (-NaN then +NaN), rows [200, 260) null: with pages of
#: 37 rows, pages 3 (rows 111..147) and 6 (rows 222..258) are all-NaN and all-null.
ALL_NAN = (100, 160)
ALL_NULL = (200, 260)


def float_array(n: int, width: int, seed: int) -> pa.Array:
    """Normal values, NaNs of both signs and many payloads, +-0, +-inf, nulls, runs."""
    rng = np.random.default_rng(seed)
    ut = _UINT[width]
    bits = rng.normal(size=n).astype(_FLOAT[width]).view(ut).copy()
    exp, sign = ut(_EXP[width]), ut(1) << ut(width - 1)
    r = rng.random(n)
    nan = r < 0.1
    payload = rng.integers(1, 1 << (10 if width == 16 else 20), size=n).astype(ut)
    bits[nan] = exp | payload[nan]
    bits[nan & (rng.random(n) < 0.5)] |= sign
    bits[(r >= 0.10) & (r < 0.13)] = 0
    bits[(r >= 0.13) & (r < 0.16)] = sign
    bits[(r >= 0.16) & (r < 0.17)] = exp
    bits[(r >= 0.17) & (r < 0.18)] = exp | sign
    lo, hi = ALL_NAN
    bits[lo:hi] = exp | ut(3) | sign  # -NaN
    bits[(lo + hi) // 2:hi] = exp | ut(5)  # +NaN
    mask = rng.random(n) < 0.08
    mask[ALL_NULL[0]:ALL_NULL[1]] = True
    return pa.array(bits.view(_FLOAT[width]), mask=mask)


def corpus_table(n: int = 600, float16: bool = True) -> pa.Table:
    """float64, float32, (float16,) an optional struct with a float field, an int column."""
    struct_nulls = np.random.default_rng(99).random(n) < 0.1
    s = pa.StructArray.from_arrays([float_array(n, 64, 4)], ["v"], mask=pa.array(struct_nulls))
    cols = {"d": float_array(n, 64, 1), "f": float_array(n, 32, 2)}
    if float16:
        cols["h"] = float_array(n, 16, 3)
    cols.update(s=s, i=pa.array(np.arange(n)))
    return pa.table(cols)


def bits_view(arr: pa.Array) -> pa.Array:
    """The array with every float leaf (in structs and lists too) replaced by its
    bit patterns, so that NaN payloads and zero signs compare."""
    t = arr.type
    if pa.types.is_floating(t):
        return arr.view({16: pa.uint16(), 32: pa.uint32(), 64: pa.uint64()}[t.bit_width])
    if pa.types.is_struct(t):
        fields = [bits_view(arr.field(i)) for i in range(t.num_fields)]
        names = [t.field(i).name for i in range(t.num_fields)]
        return pa.StructArray.from_arrays(fields, names, mask=arr.is_null())
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return type(arr).from_arrays(arr.offsets, bits_view(arr.values), mask=arr.is_null())
    return arr


def table_bits(table: pa.Table) -> pa.Table:
    table = table.combine_chunks()
    return pa.table({name: bits_view(table.column(name).chunk(0)) if table.num_rows
                     else table.column(name) for name in table.column_names})


def nan_counts(path: str) -> dict[tuple[str, int], int]:
    """NaN count per (float leaf, row group), straight from pyarrow's values."""
    pf = papq.ParquetFile(path)
    footer = read_footer(path)
    out = {}
    for g in range(pf.num_row_groups):
        t = pf.read_row_group(g)
        for leaf in footer.float_columns:
            arr = t.column(leaf.path[0]).combine_chunks()
            for name in leaf.path[1:]:
                arr = pc.struct_field(arr, [arr.type.get_field_index(name)])
            if pa.types.is_float16(arr.type):
                values = np.asarray(arr.view(pa.uint16()).fill_null(0)).view(np.float16)
                valid = np.asarray(arr.is_valid())
                out[leaf.name, g] = int(np.isnan(values[valid]).sum())
            else:
                out[leaf.name, g] = int(pc.sum(pc.is_nan(arr)).as_py() or 0)
    return out


def check_file(path: str, expected_kinds: set[str], tmp_dir: str) -> None:
    """The checks every file of the corpus must pass.

    inspect reads it; verify reports exactly ``expected_kinds``, and every
    reported chunk NaN count is the one pyarrow's values give; upgrading to
    either order gives a file verify finds clean, whose values read back bit
    for bit.
    """
    report = inspect(path)
    footer = read_footer(path)
    assert [c.name for c in report.columns] == [c.name for c in footer.float_columns]
    assert report.num_rows == papq.ParquetFile(path).metadata.num_rows
    found = verify(path)
    assert {v.kind for v in found} == expected_kinds, ({v.kind for v in found}, [str(v) for v in found][:5])
    truth = nan_counts(path)
    per_chunk: dict[tuple[str, int], list[str]] = defaultdict(list)
    for v in found:
        assert v.file == path and 0 <= (v.row_group or 0) < footer.num_row_groups
        if v.field == "statistics.nan_count":
            per_chunk[v.column, v.row_group].append(v.expected)
    for (column, g), expected in per_chunk.items():
        assert expected == [str(truth[column, g])]
    original = table_bits(papq.read_table(path))
    for order in ("ieee754", "type_order"):
        dst = os.path.join(tmp_dir, f"{os.path.basename(path)}.{order}.parquet")
        upgrade(path, dst, order)
        # what an upgrade rewrites is clean; the data pages are copied as they were
        assert [v for v in verify(dst) if RULES[v.kind].in_metadata] == []
        out = read_footer(dst)
        assert {out.column_order(c.index) for c in out.float_columns} == {order}
        assert table_bits(papq.read_table(dst)).equals(original)
