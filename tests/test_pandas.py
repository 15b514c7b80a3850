"""The pandas accessor against the core API on the same data."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings

import nanstats
from nanstats.core.inputs import from_pandas as kernel_input
from nanstats.pandas import SUMMARY_COLUMNS
from tests.strategies import Column, columns

ARROW_TYPES = {2: pa.float16(), 4: pa.float32(), 8: pa.float64()}
MASKED = {4: "Float32", 8: "Float64"}


def series_forms(col: Column) -> dict[str, tuple[pd.Series, np.ndarray | None]]:
    """The column as every Series dtype that can hold it, with the null mask the
    core API should see."""
    values, valid = col.values(), col.mask()
    forms: dict[str, tuple[pd.Series, np.ndarray | None]] = {}
    if valid is None:
        forms["numpy"] = (pd.Series(values, copy=False), None)
    nulls = np.zeros(len(values), bool) if valid is None else ~valid
    arrow = pa.Array.from_buffers(
        ARROW_TYPES[col.ft.nbytes], len(values),
        [pa.py_buffer(np.packbits(~nulls, bitorder="little").tobytes()),
         pa.py_buffer(values.tobytes())], null_count=int(nulls.sum()))
    forms["arrow"] = (pd.Series(pd.arrays.ArrowExtensionArray(arrow)), valid)
    if col.ft.nbytes in MASKED:
        masked = pd.arrays.FloatingArray(values.copy(), nulls.copy())
        forms["masked"] = (pd.Series(masked), valid)
    return forms


@settings(max_examples=100)
@given(columns())
def test_every_series_form_equals_the_core_api(col: Column) -> None:
    expected = nanstats.summary(col.values(), col.mask())
    expected_pages = nanstats.page_stats(col.values(), col.mask(), page_starts=col.page_starts)
    for form, (s, _) in series_forms(col).items():
        assert s.nanstats.summary() == expected, form
        assert nanstats.summary(s) == expected, form
        assert s.nanstats.page_stats(page_starts=col.page_starts) == expected_pages, form
        for order in ("ieee754", "type_order"):
            assert s.nanstats.statistics(order) == expected.statistics(order)
            assert s.nanstats.column_index(page_starts=col.page_starts, order=order) == \
                nanstats.column_index(col.values(), col.mask(), page_starts=col.page_starts,
                                      order=order)


def test_masked_nan_and_na_under_both_settings() -> None:
    raw = np.array([1.0, np.nan, -np.nan, 2.0])
    if "future.distinguish_nan_and_na" in pd._config.config._registered_options:
        with pd.option_context("future.distinguish_nan_and_na", True):
            s = pd.Series(raw).astype("Float64")
            st = s.nanstats.summary()
            assert (st.nan_count, st.pos_nan_count, st.neg_nan_count, st.null_count) == (2, 1, 1, 0)
        with pd.option_context("future.distinguish_nan_and_na", False):
            st = pd.Series(raw).astype("Float64").nanstats.summary()
            assert (st.nan_count, st.null_count) == (0, 2)
    # Built from buffers, the NaN in the data stays a NaN whatever the option.
    arr = pd.arrays.FloatingArray(raw.copy(), np.array([False, False, False, True]))
    st = pd.Series(arr).nanstats.summary()
    assert (st.nan_count, st.null_count, st.max) == (2, 1, 1.0)


def test_data_is_read_in_place() -> None:
    values = np.arange(10, dtype=np.float32)
    inp = kernel_input(pd.Series(values, copy=False))
    assert np.shares_memory(inp.bits, values)
    masked = pd.array(values, dtype="Float32")
    assert np.shares_memory(kernel_input(masked).bits, masked._data)
    assert np.shares_memory(kernel_input(masked).validity, masked._mask)
    ro = values.copy()
    ro.flags.writeable = False
    assert pd.Series(ro, copy=False).nanstats.summary().max == 9.0


def test_sliced_and_chunked_arrow_series() -> None:
    chunked = pa.chunked_array([pa.array([1.0, None, np.nan]), pa.array([], pa.float64()),
                                pa.array([-5.0])])
    s = pd.Series(pd.arrays.ArrowExtensionArray(chunked))
    st = s.nanstats.summary()
    assert (st.num_values, st.null_count, st.nan_count, st.min, st.max) == (4, 1, 1, -5.0, 1.0)
    tail = s.iloc[2:].nanstats.summary()
    assert (tail.num_values, tail.null_count, tail.nan_count, tail.min) == (2, 0, 1, -5.0)
    half = pd.Series([1.0, None, 0.5], dtype=pd.ArrowDtype(pa.float16())).nanstats.summary()
    assert (half.physical_type, half.null_count, half.min) == ("FLOAT16", 1, 0.5)


@pytest.mark.parametrize(
    "series",
    [pd.Series([1, 2]), pd.Series(["a"]), pd.Series([1], dtype="Int64"),
     pd.Series([True]), pd.Series(pd.to_datetime(["2026-01-01"])),
     pd.Series([1.0], dtype=pd.ArrowDtype(pa.decimal128(5, 2)))],
    ids=lambda s: str(s.dtype),
)
def test_unsupported_dtypes_have_no_accessor(series: pd.Series) -> None:
    assert not hasattr(series, "nanstats")
    with pytest.raises(AttributeError, match=re.escape(str(series.dtype))):
        series.nanstats  # noqa: B018
    with pytest.raises(TypeError):
        nanstats.summary(series)


def test_mask_with_pandas_input_is_refused() -> None:
    with pytest.raises(TypeError, match="mask must be None"):
        nanstats.summary(pd.Series([1.0]), np.ones(1, bool))


def _frame() -> pd.DataFrame:
    return pd.DataFrame({
        "f64": [1.0, -0.0, np.nan, 4.0],
        "f32": pd.array([None, 2.0, 3.0, None], dtype="Float32"),
        "f16": pd.Series([0.5, None, -np.inf, 1.0], dtype=pd.ArrowDtype(pa.float16())),
        "ints": [1, 2, 3, 4],
        "text": list("abcd"),
    })


def _row(st: nanstats.ColumnStats) -> list:
    bounded = st.num_values > st.null_count
    return [st.physical_type, st.num_values, st.null_count, st.nan_count, st.pos_nan_count,
            st.neg_nan_count, st.min if bounded else np.nan, st.max if bounded else np.nan,
            st.min_bits if bounded else pd.NA, st.max_bits if bounded else pd.NA]


def _same(a: list, b: list) -> bool:
    def norm(v):
        if v is pd.NA:
            return "NA"
        if isinstance(v, float) and v != v:
            return "NaN"
        return v.item() if hasattr(v, "item") else v

    return [norm(v) for v in a] == [norm(v) for v in b]


def test_dataframe_summary() -> None:
    df = _frame()
    out = df.nanstats.summary()
    assert list(out.columns) == SUMMARY_COLUMNS
    assert out["column"].tolist() == ["f64", "f32", "f16"]
    for _, r in out.iterrows():
        st = df[r["column"]].nanstats.summary()
        assert _same(r.tolist()[1:], _row(st)), r["column"]
    assert out.dtypes["min_bits"] == "UInt64" and out.dtypes["nan_count"] == "int64"
    f16 = out.set_index("column").loc["f16"]
    assert f16["min"] == -np.inf and f16["min_bits"] == 0xFC00  # bits in the column's width
    assert out.set_index("column").loc["f32", "null_count"] == 2
    assert df.nanstats.summary(columns=["f16"])["column"].tolist() == ["f16"]
    assert pd.DataFrame({"s": ["x"]}).nanstats.summary().empty
    assert list(pd.DataFrame({"s": ["x"]}).nanstats.summary().columns) == SUMMARY_COLUMNS


def test_dataframe_summary_columns_errors() -> None:
    df = _frame()
    with pytest.raises(ValueError, match="no column 'nope'"):
        df.nanstats.summary(columns=["nope"])
    with pytest.raises(TypeError, match="column 'ints' is int64"):
        df.nanstats.summary(columns=["ints"])
    with pytest.raises(ValueError, match="no group column 'g'"):
        df.nanstats.summary(by="g")


@pytest.mark.parametrize("by", ["k", ["k", "j"]])
def test_dataframe_summary_by_groups(by) -> None:
    rng = np.random.default_rng(3)
    n = 400
    v = rng.normal(size=n)
    v[rng.random(n) < 0.15] = np.nan
    v[::9] = -np.nan
    v[::7] = -0.0
    nulls = rng.random(n) < 0.1
    df = pd.DataFrame({
        "k": pd.Series(rng.choice(["a", "b", "c", None], n), dtype=object),
        "j": rng.integers(0, 3, n),
        "v": v,
        "m": pd.arrays.FloatingArray(v.astype(np.float32), nulls.copy()),
        "h": pd.Series(pa.array(v.astype(np.float16), mask=nulls),
                       dtype=pd.ArrowDtype(pa.float16())),
    })
    keys = [by] if isinstance(by, str) else by
    out = df.nanstats.summary(by=by)
    assert list(out.columns) == [*keys, *SUMMARY_COLUMNS]
    described = ["v", "m", "h"]  # the float columns; "j" (int) is a key or skipped
    groups = df.groupby(keys, sort=True, dropna=False)
    assert len(out) == groups.ngroups * len(described)
    # Groups in key order, columns in frame order within a group.
    assert out["column"].tolist()[:len(described)] == described
    assert out[keys].drop_duplicates().shape[0] == groups.ngroups
    for key, part in groups:
        key = key if isinstance(key, tuple) else (key,)
        sel = np.ones(len(out), bool)
        for name, value in zip(keys, key, strict=True):
            sel &= out[name].isna().to_numpy() if pd.isna(value) else \
                (out[name] == value).to_numpy()
        rows = out[sel]
        assert rows["column"].tolist() == described
        for _, r in rows.iterrows():
            st = part[r["column"]].nanstats.summary()
            assert _same(r.tolist()[len(keys) + 1:], _row(st))


def test_groupby_without_float_columns_or_rows() -> None:
    df = pd.DataFrame({"k": pd.Series([], dtype=object), "x": pd.Series([], dtype="float64")})
    out = df.nanstats.summary(by="k")
    assert out.empty and list(out.columns) == ["k", *SUMMARY_COLUMNS]
    assert pd.DataFrame({"k": ["a"], "s": ["b"]}).nanstats.summary(by="k").empty


def test_nan_as_null_gives_what_to_parquet_writes(tmp_path) -> None:
    from nanstats.parquet import inspect

    df = pd.DataFrame({
        "numpy": [1.0, np.nan, -0.0, np.nan],
        "f32": np.array([np.nan, 2.0, 3.0, 0.5], np.float32),
        "masked": pd.array([1.0, None, 2.0, -1.0], dtype="Float64"),
        "arrow": pd.Series(pa.array([np.nan, None, 1.5, 2.0]), dtype=pd.ArrowDtype(pa.float64())),
    })
    path = tmp_path / "frame.parquet"
    df.to_parquet(path, index=False)
    written = {c.name: c.row_groups[0].statistics for c in inspect(str(path)).columns}
    as_written = df.nanstats.summary(nan_as_null=True).set_index("column")
    as_held = df.nanstats.summary().set_index("column")
    for name, st in written.items():
        assert as_written.loc[name, "null_count"] == st.null_count, name
    # numpy-backed columns: pandas' writer turns NaN into null; the others keep NaN.
    assert (as_held.loc["numpy", "nan_count"], as_written.loc["numpy", "nan_count"]) == (2, 0)
    assert as_written.loc["numpy", "null_count"] == 2 and as_written.loc["f32", "null_count"] == 1
    assert as_written.loc["arrow", "nan_count"] == as_held.loc["arrow", "nan_count"] == 1
    s = df["numpy"].nanstats.summary(nan_as_null=True)
    assert (s.null_count, s.nan_count, s.min, s.max) == (2, 0, -0.0, 1.0)
