"""Arrow input: pyarrow arrays, chunked arrays, and any Arrow C Data producer."""

from __future__ import annotations

import gc

import numpy as np
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nanstats
from nanstats import UnsupportedDtypeError
from nanstats.core.arrow_c import _pyarrow_chunks, import_chunks
from tests.strategies import Column, columns

ARROW_TYPES = {2: pa.float16(), 4: pa.float32(), 8: pa.float64()}


def arrow_slice(col: Column, lo: int, hi: int) -> pa.Array:
    """Rows lo..hi of the column as a pyarrow array that is itself a slice at an
    odd offset of a larger buffer (so data and validity offsets are exercised)."""
    pad = 3
    bits = np.r_[np.zeros(pad, col.ft.bits_dtype), np.array(col.bits[lo:hi], col.ft.bits_dtype)]
    valid = [True] * (hi - lo) if col.valid is None else col.valid[lo:hi]
    valid_bits = np.packbits(np.array([False] * pad + valid, bool), bitorder="little")
    full = pa.Array.from_buffers(ARROW_TYPES[col.ft.nbytes], pad + hi - lo,
                                 [pa.py_buffer(valid_bits.tobytes()), pa.py_buffer(bits.tobytes())])
    return full.slice(pad)


class CArrayOnly:
    """A producer that exposes only the C Data Interface (no pyarrow type)."""

    def __init__(self, obj: object, stream: bool) -> None:
        self._obj, self._stream = obj, stream
        if stream:
            self.__arrow_c_stream__ = obj.__arrow_c_stream__  # type: ignore[attr-defined]
        else:
            self.__arrow_c_array__ = obj.__arrow_c_array__  # type: ignore[attr-defined]


@settings(max_examples=150)
@given(columns(), st.data())
def test_chunked_input_equals_one_array(col: Column, data: st.DataObject) -> None:
    n = len(col.bits)
    cuts = sorted(data.draw(st.lists(st.integers(0, n), max_size=5)))  # repeats: empty chunks
    bounds = [0, *cuts, n]
    chunks = [arrow_slice(col, a, b) for a, b in zip(bounds, bounds[1:], strict=False)]
    chunked = pa.chunked_array(chunks, type=ARROW_TYPES[col.ft.nbytes])
    expected = nanstats.page_stats(col.values(), col.mask(), page_starts=col.page_starts)
    producers = {
        "pyarrow.ChunkedArray": chunked,
        "C stream": CArrayOnly(chunked, stream=True),
    }
    if col.ft.nbytes != 2:  # polars has no float16
        producers["polars.Series"] = pl.Series(chunked)
    for name, producer in producers.items():
        got = nanstats.page_stats(producer, page_starts=col.page_starts)
        assert got == expected, name
        assert nanstats.summary(producer) == nanstats.summary(col.values(), col.mask()), name
    single = arrow_slice(col, 0, n)
    assert nanstats.summary(CArrayOnly(single, stream=False)) == nanstats.summary(
        col.values(), col.mask())


@settings(max_examples=100)
@given(columns(), st.data())
def test_pyarrow_fields_equal_the_c_interface(col: Column, data: st.DataObject) -> None:
    """pyarrow arrays are read from their own attributes: the same inputs as
    through their C Data Interface capsules, sliced offsets and all."""
    n = len(col.bits)
    lo = data.draw(st.integers(0, n))
    hi = data.draw(st.integers(lo, n))
    arr = arrow_slice(col, lo, hi)
    for obj in (arr, pa.chunked_array([arr, arr[: (hi - lo) // 2]]),
                pa.chunked_array([], ARROW_TYPES[col.ft.nbytes])):
        stream = CArrayOnly(obj if isinstance(obj, pa.ChunkedArray) else pa.chunked_array([obj]),
                            stream=True)
        fast, slow = _pyarrow_chunks(obj), import_chunks(stream)
        assert fast is not None
        assert [(c.float_type, c.validity_kind, c.bit_offset, c.bits.tolist(),
                 c.validity.tolist(), c.bits.flags.writeable) for c in fast] == [
            (c.float_type, c.validity_kind, c.bit_offset, c.bits.tolist(), c.validity.tolist(),
             c.bits.flags.writeable) for c in slow]


def test_other_pyarrow_types_take_the_c_interface() -> None:
    for obj in (pa.array([1, 2]), pa.array([1.0]).dictionary_encode(),
                pa.chunked_array([pa.array([1.0]).dictionary_encode()]), np.zeros(2)):
        assert _pyarrow_chunks(obj) is None
    with pytest.raises(UnsupportedDtypeError, match="not int64"):
        nanstats.summary(pa.chunked_array([[1, 2]]))


def test_views_keep_the_producer_alive() -> None:
    arr = pa.array(np.linspace(-1, 1, 1000))
    chunks = import_chunks(CArrayOnly(pa.chunked_array([arr[:500], arr[500:]]), stream=True))
    del arr
    gc.collect()
    pa.array(np.zeros(100_000))  # reuse freed memory if any was freed
    assert float(chunks[1].bits[-1:].view(np.float64)[0]) == 1.0
    assert not chunks[0].bits.flags.writeable
    arr = pa.array(np.linspace(-1, 1, 1000))
    chunks = import_chunks(pa.chunked_array([arr[:500], arr[500:]]))  # pyarrow's own fields
    del arr
    gc.collect()
    pa.array(np.zeros(100_000))
    assert float(chunks[1].bits[-1:].view(np.float64)[0]) == 1.0
    assert not chunks[0].bits.flags.writeable


def test_page_spanning_chunks() -> None:
    chunked = pa.chunked_array([[1.0, None], [float("nan")], [], [-4.0, 2.0]])
    pages = nanstats.page_stats(chunked, page_starts=[0, 1, 4])
    assert [(p.num_values, p.null_count, p.nan_count) for p in pages] == [(1, 0, 0), (3, 1, 1),
                                                                          (1, 0, 0)]
    assert (pages[1].min, pages[1].max) == (-4.0, -4.0)


def test_arrow_errors() -> None:
    with pytest.raises(UnsupportedDtypeError, match="not int64 \\(format 'l'\\)"):
        nanstats.summary(CArrayOnly(pa.array([1, 2]), stream=False))
    with pytest.raises(UnsupportedDtypeError, match="not format 'vu'"):
        nanstats.summary(pl.Series(["a"]))
    with pytest.raises(TypeError, match="mask must be None"):
        nanstats.summary(pl.Series([1.0]), np.ones(1, bool))
    empty = nanstats.summary(pa.chunked_array([], pa.float32()))
    assert (empty.physical_type, empty.num_values) == ("FLOAT", 0)


@settings(max_examples=60)
@given(columns())
def test_compute_function_equals_summary(col: Column) -> None:
    import pyarrow.compute as pc

    from nanstats.arrow import FUNCTION_NAMES

    arr = arrow_slice(col, 0, len(col.bits))
    expected = nanstats.summary(col.values(), col.mask())
    if len(arr) == 0:
        # Arrow never calls an aggregate UDF on empty input (documented in nanstats.arrow).
        with pytest.raises(pa.ArrowInvalid, match="empty inputs"):
            pc.call_function(FUNCTION_NAMES[str(arr.type)], [arr])
        return
    got = pc.call_function(FUNCTION_NAMES[str(arr.type)], [arr])
    assert got.type.field("min").type == arr.type
    for name in ["num_values", "null_count", "nan_count", "pos_nan_count", "neg_nan_count"]:
        assert got[name].as_py() == getattr(expected, name)
    for name in ("min", "max"):
        scalar = got[name]
        bits = getattr(expected, f"{name}_bits")
        if bits is None:
            assert not scalar.is_valid
        else:  # bit for bit, NaN payloads included
            one = pa.repeat(scalar, 1)
            assert int(np.frombuffer(one.buffers()[1], col.ft.bits_dtype)[one.offset]) == bits


def test_group_by_aggregate_equals_per_group_summary() -> None:
    rng = np.random.default_rng(3)
    v = rng.normal(size=3000)
    v[rng.random(3000) < 0.1] = np.nan
    v[::7] = -np.nan
    keys = rng.integers(0, 5, 3000)
    mask = rng.random(3000) < 0.05
    t = pa.table({"k": keys, "v": pa.array(v, mask=mask), "h": pa.array(v.astype(np.float16))})
    out = t.group_by("k").aggregate([("v", "nanstats_summary"),
                                     ("h", "nanstats_summary_halffloat")]).to_pylist()
    for row in out:
        sel = keys == row["k"]
        s = nanstats.summary(v[sel], ~mask[sel])
        assert row["v_nanstats_summary"]["nan_count"] == s.nan_count
        assert row["v_nanstats_summary"]["neg_nan_count"] == s.neg_nan_count
        assert row["v_nanstats_summary"]["null_count"] == s.null_count
        assert row["v_nanstats_summary"]["min"] == s.min
        h = nanstats.summary(v[sel].astype(np.float16))
        assert row["h_nanstats_summary_halffloat"]["max"] == h.max


def test_summary_table() -> None:
    from nanstats.arrow import summary_table

    t = pa.table({"a": pa.array([1.0, None, -0.0], pa.float32()),
                  "b": pa.array(np.array([np.nan, 2.0], np.float16).tolist() + [None],
                                pa.float16()),
                  "n": [1, 2, 3]})
    out = summary_table(t).to_pylist()
    assert [r["column"] for r in out] == ["a", "b"]
    for r, name in zip(out, ["a", "b"], strict=True):
        s = nanstats.summary(t[name])
        assert (r["null_count"], r["nan_count"], r["min_bits"], r["max_bits"], r["min"]) == (
            s.null_count, s.nan_count, s.min_bits, s.max_bits, s.min)


def test_record_arrays_keep_bits_and_refuse_other_types() -> None:
    from nanstats.arrow import record_arrays, record_schema
    from nanstats.core.records import STATS_FIELDS, select, stats_columns

    h = np.array([0x7E01, 0x8000, 0xFC00], np.uint16).view(np.float16)  # NaN payload, -0, -inf
    cols = stats_columns([nanstats.summary(h), nanstats.summary(np.ma.masked_all(1, np.float16))])
    mins = record_arrays(cols, select("value"), value_type=pa.float16())[0]
    assert np.frombuffer(mins.buffers()[1], np.uint16)[0] == 0xFC00 and mins.null_count == 1
    signed = record_arrays(cols, STATS_FIELDS, signed_bits=True)
    assert signed[-1].type == pa.int64() and signed[-1].to_pylist() == [0x8000, None]  # -0.0: the non-NaN max
    assert record_schema(STATS_FIELDS).field("max_bits").type == pa.uint64()
    with pytest.raises(ValueError, match="another physical type than FLOAT"):
        record_arrays(cols, select("value"), value_type=pa.float32())


# --- producers that break the C Data Interface (issue 17 item 8) -------------

class Tampered:
    """Exports ``obj`` through pyarrow, then edits the exported C struct.

    The edits only touch fields the consumer reads; pyarrow's own release
    callback (through ``private_data``) still frees what it allocated.
    """

    def __init__(self, obj: object, edit, stream: bool = False) -> None:
        import ctypes

        from nanstats.core import arrow_c

        self._obj, self._edit, self._ctypes, self._c = obj, edit, ctypes, arrow_c
        if stream:
            self.__arrow_c_stream__ = self._stream
        else:
            self.__arrow_c_array__ = self._array

    def _array(self, requested_schema=None):
        schema, array = self._obj.__arrow_c_array__()
        c = self._c
        self._edit(c.ArrowSchema.from_address(c._capsule_pointer(schema, b"arrow_schema")),
                   c.ArrowArray.from_address(c._capsule_pointer(array, b"arrow_array")))
        return schema, array

    def _stream(self, requested_schema=None):
        capsule = self._obj.__arrow_c_stream__()
        c = self._c
        self._edit(c.ArrowArrayStream.from_address(
            c._capsule_pointer(capsule, b"arrow_array_stream")))
        return capsule


def _release_null(_schema, array) -> None:
    # What a consumer sees after the array was moved or released; pyarrow's
    # buffers leak (the release callback is gone), which a test can afford.
    array.release = None


def _data_null(_schema, array) -> None:
    array.buffers[1] = None


def _validity_null(_schema, array) -> None:
    array.buffers[0] = None


def _one_buffer(_schema, array) -> None:
    array.n_buffers = 1


def _negative_length(_schema, array) -> None:
    array.length = -5


def _huge_offset(_schema, array) -> None:
    array.offset = 2**62


def _too_many_nulls(_schema, array) -> None:
    array.null_count = array.length + 1


def _schema_released(schema, _array) -> None:
    schema.release = None


@pytest.mark.parametrize("edit, message", [
    (_release_null, "released"), (_data_null, "NULL data buffer"),
    (_validity_null, "NULL validity buffer"), (_one_buffer, "1 buffers"),
    (_negative_length, "malformed"), (_huge_offset, "malformed"),
    (_too_many_nulls, "null_count"), (_schema_released, "schema is released")])
def test_broken_arrays_are_refused_not_read(edit, message) -> None:
    from nanstats.core.arrow_c import ArrowInterfaceError

    arr = pa.array([1.0, None, 3.0, float("nan")])
    with pytest.raises(ArrowInterfaceError, match=message):
        nanstats.summary(Tampered(arr, edit))
    assert nanstats.summary(Tampered(arr, lambda s, a: None)) == nanstats.summary(arr)


def test_null_buffers_of_an_empty_array_are_fine() -> None:
    def empty(_schema, array) -> None:
        array.buffers[1] = None
        array.buffers[0] = None

    assert nanstats.summary(Tampered(pa.array([], pa.float64()), empty)).num_values == 0


@pytest.mark.parametrize("field", ["get_schema", "get_next", "release"])
def test_streams_with_null_callbacks_are_refused(field) -> None:
    from nanstats.core.arrow_c import ArrowInterfaceError

    def null(stream) -> None:
        if field == "release":
            stream.release = None
        else:
            setattr(stream, field, type(getattr(stream, field))())  # a NULL function pointer

    chunked = pa.chunked_array([[1.0, 2.0]])
    with pytest.raises(ArrowInterfaceError, match="NULL|released"):
        nanstats.summary(Tampered(chunked, null, stream=True))


# --- summary_table over any Arrow C stream, by group (issue 18 item 7) --------

def _grouped_table(rng: np.random.Generator, n: int) -> pa.Table:
    v = rng.normal(size=n)
    v[rng.random(n) < 0.1] = np.nan
    v[::11] = -np.nan
    v[::13] = -0.0
    k1 = pa.array(rng.integers(0, 4, n).astype(str).astype(object), mask=rng.random(n) < 0.05)
    k2 = rng.integers(0, 3, n).astype(np.float64)
    k2[::17] = np.nan
    return pa.table({"k1": k1, "k2": k2,
                     "v": pa.array(v, mask=rng.random(n) < 0.05),
                     "h": pa.array(v.astype(np.float16)),
                     "f": pa.array(v.astype(np.float32))})


def _expected_groups(t: pa.Table, by: list[str], names: list[str]) -> dict:
    """The oracle: each group's rows gathered in numpy, then nanstats.summary."""
    frame = {k: t.column(k).to_pylist() for k in by}
    keys = [tuple(("NaN",) if isinstance(x, float) and x != x else x for x in row)
            for row in zip(*(frame[k] for k in by), strict=True)]
    out = {}
    for key in set(keys):
        rows = [i for i, kk in enumerate(keys) if kk == key]
        for name in names:
            out[(key, name)] = nanstats.summary(t.column(name).take(pa.array(rows)))
    return out


def _plain(table: pa.Table) -> list[tuple]:
    """Rows with NaN as a string, so that equal tables compare equal."""
    return [tuple("NaN" if isinstance(v, float) and v != v else v for v in r.values())
            for r in table.to_pylist()]


def _check_rows(out: pa.Table, expected: dict, by: list[str]) -> None:
    rows = out.to_pylist()
    assert len(rows) == len(expected)
    for r in rows:
        key = tuple(("NaN",) if isinstance(r[k], float) and r[k] != r[k] else r[k] for k in by)
        s = expected[(key, r["column"])]
        assert (r["num_values"], r["null_count"], r["nan_count"], r["pos_nan_count"],
                r["neg_nan_count"], r["min_bits"], r["max_bits"]) == (
            s.num_values, s.null_count, s.nan_count, s.pos_nan_count, s.neg_nan_count,
            s.min_bits, s.max_bits)


@pytest.mark.parametrize("by", [["k1"], ["k1", "k2"], ["k2"]])
def test_summary_table_by_groups_over_many_batches(by: list[str]) -> None:
    from nanstats.arrow import summary_table

    t = _grouped_table(np.random.default_rng(len(by)), 2000)
    expected = _expected_groups(t, by, ["v", "h", "f"])
    batched = pa.Table.from_batches(t.to_batches(max_chunksize=170))
    out = summary_table(batched, ["v", "h", "f"], by=by)
    assert out.column_names[:len(by) + 1] == [*by, "column"]
    _check_rows(out, expected, by)
    # Null and NaN keys are one group each, as in GROUP BY.
    for k in by:
        assert any(x is None or x != x for x in out[k].to_pylist())
    # Groups come sorted by key, columns in order within a group; one batch agrees.
    assert out.take(np.arange(3))["column"].to_pylist() == ["v", "h", "f"]
    assert _plain(summary_table(t, ["v", "h", "f"], by=by)) == _plain(out)


def test_summary_table_takes_every_stream_producer() -> None:
    import duckdb

    from nanstats.arrow import summary_table

    t = _grouped_table(np.random.default_rng(5), 500).select(["k1", "v", "f"])
    want = summary_table(t, by="k1")
    producers = {
        "RecordBatchReader": pa.RecordBatchReader.from_batches(
            t.schema, t.to_batches(max_chunksize=64)),
        "C stream only": CArrayOnly(t, stream=True),
        "polars": pl.from_arrow(t),
    }
    for name, producer in producers.items():
        assert _plain(summary_table(producer, by="k1")) == _plain(want), name
    con = duckdb.connect()
    con.register("t", t)
    rel = con.sql("SELECT k1, v, f FROM t")
    got = summary_table(rel, by="k1")
    assert _plain(got) == _plain(want)
    # A record batch alone, and no groups.
    whole = summary_table(t.to_batches()[0])
    assert whole["column"].to_pylist() == ["v", "f"]


def test_summary_table_reads_a_stream_one_batch_at_a_time() -> None:
    import weakref

    from nanstats.arrow import summary_table

    alive = most = 0

    def freed() -> None:
        nonlocal alive
        alive -= 1

    def batches():
        nonlocal alive, most
        rng = np.random.default_rng(0)
        for i in range(40):
            # Arrow wraps the numpy buffer without a copy and holds it as long
            # as any batch over it lives: its finalizer says when none does.
            x = rng.normal(size=1000)
            weakref.finalize(x, freed)
            alive += 1
            most = max(most, alive)
            yield pa.record_batch({"k": pa.array(np.full(1000, i % 3)), "x": pa.array(x)})

    reader = pa.RecordBatchReader.from_batches(
        pa.schema({"k": pa.int64(), "x": pa.float64()}), batches())
    out = summary_table(reader, by="k")
    assert out["num_values"].to_pylist() == [14000, 13000, 13000]
    assert most <= 3, f"{most} batches alive at once"
    gc.collect()
    assert alive == 0


def test_summary_table_edges_and_errors() -> None:
    from nanstats.arrow import summary_table

    t = pa.table({"k": pa.array([], pa.string()), "x": pa.array([], pa.float64())})
    assert summary_table(t, by="k").num_rows == 0
    (row,) = summary_table(t).to_pylist()
    assert (row["num_values"], row["min"], row["min_bits"]) == (0, None, None)
    assert summary_table(pa.table({"s": ["a"]})).num_rows == 0
    assert summary_table(t, columns=[]).num_rows == 0
    with pytest.raises(ValueError, match="no column 'y'"):
        summary_table(t, columns=["y"])
    with pytest.raises(ValueError, match="no group column 'z'"):
        summary_table(t, by="z")
    with pytest.raises(TypeError, match="column 'k' is string"):
        summary_table(t, columns=["k"])
    with pytest.raises(TypeError, match="Arrow C stream producer.*not list"):
        summary_table([1.0])


def test_summary_of_a_table_points_to_summary_table() -> None:
    with pytest.raises(UnsupportedDtypeError, match=r"nanstats\.arrow\.summary_table"):
        nanstats.summary(pa.table({"x": [1.0]}))
    with pytest.raises(UnsupportedDtypeError, match=r"nanstats\.arrow\.summary_table"):
        nanstats.summary(pl.DataFrame({"x": [1.0]}))


def test_group_by_picks_the_function_of_each_type() -> None:
    from nanstats.arrow import group_by

    t = _grouped_table(np.random.default_rng(9), 600).drop_null()
    t = t.set_column(0, "k1", t["k1"].cast(pa.string()))
    out = group_by(t, "k1", columns=["v", "h", "f"])
    assert out.column_names == ["k1", "v_nanstats_summary", "h_nanstats_summary",
                                "f_nanstats_summary"]
    assert out.schema.field("h_nanstats_summary").type.field("min").type == pa.float16()
    keys = t["k1"].to_pylist()
    for i, k in enumerate(out["k1"].to_pylist()):
        rows = pa.array([j for j, kk in enumerate(keys) if kk == k])
        for name in ("v", "h", "f"):
            s = nanstats.summary(t[name].take(rows))
            got = out[f"{name}_nanstats_summary"][i].as_py()
            assert (got["num_values"], got["nan_count"], got["neg_nan_count"]) == (
                s.num_values, s.nan_count, s.neg_nan_count)
    every = group_by(t, ["k1"])
    assert [c for c in every.column_names if c != "k1"] == [
        "k2_nanstats_summary", "v_nanstats_summary", "h_nanstats_summary",
        "f_nanstats_summary"]
    empty = group_by(t.slice(0, 0), "k1", columns=["f"])
    assert empty.num_rows == 0 and empty.column_names == ["k1", "f_nanstats_summary"]
