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


def test_dataframe_summary() -> None:
    df = pd.DataFrame({
        "f64": [1.0, -0.0, np.nan, 4.0],
        "f32": pd.array([None, 2.0, 3.0, None], dtype="Float32"),
        "f16": pd.Series([0.5, None, -np.inf, 1.0], dtype=pd.ArrowDtype(pa.float16())),
        "ints": [1, 2, 3, 4],
        "text": list("abcd"),
    })
    out = df.nanstats.summary()
    assert list(out.columns) == SUMMARY_COLUMNS
    assert list(out.index) == ["f64", "f32", "f16"]
    for name in out.index:
        st = df[name].nanstats.summary()
        assert out.loc[name].tolist() == [getattr(st, c) for c in SUMMARY_COLUMNS]
    assert out.loc["f16", "min"] == -np.inf and out.loc["f32", "null_count"] == 2
    assert pd.DataFrame({"s": ["x"]}).nanstats.summary().empty
