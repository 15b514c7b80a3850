"""Fuzzing the readers: corrupt footers and page indexes of small real files.

Every mutation (flipped, inserted or overwritten bytes in the tail, or
anywhere, truncations, a wrong footer length, fields and lists of the decoded
footer and page indexes set to hostile values, huge list and string sizes)
must leave ``read_footer``, ``inspect``, ``verify`` and ``upgrade`` either
succeeding or raising ParquetFormatError / UnsupportedParquetError: never
another exception, never a hang (hypothesis deadline), never a large
allocation (tracemalloc peak).  ``upgrade`` runs twice, through the memory
map and with ``pread``: both must fail alike or write the same bytes, and
a failed upgrade leaves no file behind.

The suite runs a small, fixed set of examples; ``make fuzz`` runs many more,
randomly (``NANSTATS_FUZZ_EXAMPLES``, default 20000 there).
"""

from __future__ import annotations

import copy
import os
import struct
import tracemalloc
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nanstats.errors import ParquetFormatError, UnsupportedParquetError
from nanstats.metadata.footer import read_footer
from nanstats.metadata.thrift import encode
from nanstats.parquet.inspection import inspect
from nanstats.parquet.upgrading import upgrade
from nanstats.parquet.verification import verify
from nanstats.parquet.writing import write_table

FUZZ = int(os.environ.get("NANSTATS_FUZZ_EXAMPLES", "0"))
EXPECTED = (ParquetFormatError, UnsupportedParquetError)
MEMORY_LIMIT = 64 << 20  # bytes a reader may allocate for a file of a few kB


def fuzz_settings(examples: int) -> Any:
    return settings(max_examples=FUZZ or examples, deadline=10_000, derandomize=not FUZZ,
                    database=None, suppress_health_check=list(HealthCheck))


def _table() -> pa.Table:
    x = np.linspace(-2, 2, 120)
    x[::9] = np.nan
    x[40:60] = np.nan
    s = pa.StructArray.from_arrays([pa.array(x[::-1])], ["v"])
    return pa.table({"x": pa.array(x, mask=np.arange(120) % 11 == 0),
                     "f": pa.array(x.astype(np.float32)), "s": s,
                     "t": pa.array([str(i % 7) for i in range(120)])})


class Seed(bytes):
    """A seed file's bytes, named in hypothesis' reports instead of printed whole."""

    name = "seed"

    def __repr__(self) -> str:
        return f"<{self.name}: {len(self)} bytes>"


def _seed(name: str, data: bytes) -> Seed:
    seed = Seed(data)
    seed.name = name
    return seed


@pytest.fixture(scope="module")
def seeds(tmp_path_factory) -> dict[str, bytes]:
    """Small real files: page index or not, v1/v2 pages, IEEE order with nan_counts."""
    folder = tmp_path_factory.mktemp("seeds")
    t = _table()
    papq.write_table(t, folder / "pa_index.parquet", write_page_index=True, row_group_size=60,
                     data_page_size=128, write_batch_size=16)
    papq.write_table(t, folder / "pa_v2.parquet", data_page_version="2.0", row_group_size=80)
    write_table(t, folder / "ieee.parquet", data_page_size=128, write_batch_size=16)
    return {p.name: _seed(p.name, p.read_bytes()) for p in sorted(folder.iterdir())}


def tail_start(data: bytes) -> int:
    """Where the page index (or, without one, the footer) begins."""
    (length,) = struct.unpack("<I", data[-8:-4])
    footer_start = len(data) - 8 - length
    import io

    footer = read_footer(io.BytesIO(data))
    offsets = [o for rg in footer.metadata.row_groups for c in rg.columns
               for o in (c.column_index_offset, c.offset_index_offset) if o]
    return min([footer_start, *offsets])


HOSTILE_INTS = st.sampled_from([-1, 0, 1, 3, 4, 2**31 - 1, -(2**31), 2**62, 2**63 - 1,
                                -(2**63)])
HUGE_VARINTS = st.sampled_from([b"\xff\xff\xff\xff\x0f", b"\xff\xff\xff\xff\xff\xff\xff\xff\x7f",
                                b"\xf9\xff\xff\xff\x0f", b"\x1f\xff\xff\xff\x0f", b"\x19\xfe"])


@st.composite
def byte_mutations(draw: Any, data: bytes) -> bytes:
    """Flips, overwrites, inserts, deletes and truncations in the tail of ``data``."""
    start = tail_start(data)
    buf = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "huge", "insert", "delete", "truncate",
                                     "length"]))
        end = len(buf) - 8
        if end <= start:
            break
        at = draw(st.integers(start, end - 1))
        if kind == "flip":
            buf[at] ^= draw(st.integers(1, 255))
        elif kind == "huge":
            raw = draw(HUGE_VARINTS)
            buf[at:at + len(raw)] = raw
        elif kind == "insert":
            buf[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif kind == "delete":
            del buf[at:at + draw(st.integers(1, 8))]
        elif kind == "truncate":
            buf = buf[:at] + buf[-8:] if draw(st.booleans()) else buf[:at]
        else:  # the footer length in the last 8 bytes
            (length,) = struct.unpack("<I", bytes(buf[-8:-4]))
            new = draw(st.sampled_from([0, 1, length - 1, length + 1, len(buf), 2**32 - 1]))
            buf[-8:-4] = struct.pack("<I", max(0, min(new, 2**32 - 1)))
    return bytes(buf)


@st.composite
def anywhere_mutations(draw: Any, data: bytes) -> bytes:
    """A few bytes overwritten, inserted or flipped anywhere: page headers and payloads too."""
    buf = bytearray(data)
    at = draw(st.integers(4, len(buf) - 9))
    raw = draw(st.binary(min_size=1, max_size=6))
    kind = draw(st.sampled_from(["overwrite", "insert", "flip"]))
    if kind == "overwrite":
        buf[at:at + len(raw)] = raw
    elif kind == "insert":
        buf[at:at] = raw
    else:
        buf[at] ^= raw[0] or 1
    return bytes(buf)


def _fields(obj: Any, out: list[tuple[Any, Any, bool]], depth: int = 0) -> None:
    """Every (container, key, is_list) below a thriftpy2 struct: int fields, list
    elements that are ints, and lists themselves (key is an attribute name or index)."""
    if depth > 8 or not hasattr(obj, "thrift_spec"):
        return
    for _, spec in sorted(obj.thrift_spec.items()):
        name = spec[1]
        value = getattr(obj, name)
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, int):
            out.append((obj, name, False))
        elif isinstance(value, list):
            out.append((obj, name, True))
            for i, item in enumerate(value):
                if isinstance(item, int) and not isinstance(item, bool):
                    out.append((value, i, False))
                else:
                    _fields(item, out, depth + 1)
        else:
            _fields(value, out, depth + 1)


def _mutate(draw: Any, root: Any) -> None:
    """Set ints to hostile values; drop, duplicate or clear list entries."""
    fields: list[tuple[Any, Any, bool]] = []
    _fields(root, fields)
    if not fields:
        return
    for _ in range(draw(st.integers(1, 3))):
        container, key, is_list = draw(st.sampled_from(fields))
        if not is_list:
            if isinstance(container, list):
                if key < len(container):  # an earlier step may have shortened it
                    container[key] = draw(HOSTILE_INTS)
            else:
                setattr(container, key, draw(HOSTILE_INTS))
            continue
        items = getattr(container, key)
        if items is None:  # an earlier step removed it
            continue
        how = draw(st.sampled_from(["drop", "duplicate", "clear", "none"]))
        if how == "drop" and items:
            del items[draw(st.integers(0, len(items) - 1))]
        elif how == "duplicate" and items:
            items.append(copy.deepcopy(items[draw(st.integers(0, len(items) - 1))]))
        elif how == "clear":
            items.clear()
        else:
            setattr(container, key, None)


def _encode_or(obj: Any, fallback: Any) -> bytes:
    try:
        return encode(obj)
    except (OverflowError, ValueError, TypeError, AttributeError):  # does not fit its field
        return encode(fallback)


@st.composite
def field_mutations(draw: Any, data: bytes) -> bytes:
    """The footer decoded, fields and lists set to hostile values, encoded again."""
    import io

    footer = read_footer(io.BytesIO(data))
    meta = copy.deepcopy(footer.metadata)
    _mutate(draw, meta)
    raw = _encode_or(meta, footer.metadata)
    body = data[:footer.metadata_offset]
    return body + raw + struct.pack("<I", len(raw)) + b"PAR1"


@st.composite
def page_index_mutations(draw: Any, data: bytes) -> bytes:
    """One ColumnIndex or OffsetIndex decoded, mutated, appended, pointed to by the footer."""
    import io

    from nanstats.metadata.page_index import read_page_index

    f = io.BytesIO(data)
    footer = read_footer(f)
    meta = copy.deepcopy(footer.metadata)
    g = draw(st.integers(0, footer.num_row_groups - 1))
    leaf = draw(st.integers(0, len(footer.columns) - 1))
    ci, oi = read_page_index(f, footer, g, leaf)
    which = draw(st.sampled_from([k for k, v in (("column_index", ci), ("offset_index", oi))
                                  if v is not None] or ["none"]))
    body = bytearray(data[:footer.metadata_offset])
    if which != "none":
        struct_ = ci if which == "column_index" else oi
        mutated = copy.deepcopy(struct_)
        _mutate(draw, mutated)
        raw = _encode_or(mutated, struct_)
        chunk = meta.row_groups[g].columns[leaf]
        setattr(chunk, f"{which}_offset", len(body))
        setattr(chunk, f"{which}_length", len(raw))
        body += raw
    footer_raw = encode(meta)
    return bytes(body) + footer_raw + struct.pack("<I", len(footer_raw)) + b"PAR1"


def upgrade_both_ways(path: str) -> None:
    """upgrade through the memory map and with pread: the same outcome, nothing left over."""
    folder = os.path.dirname(path)
    outcomes = []
    for memory_map in (True, False):
        dst = f"{path}.{memory_map}.out"
        if os.path.exists(dst):
            os.unlink(dst)
        try:
            upgrade(path, dst, memory_map=memory_map)
        except EXPECTED as exc:
            assert not os.path.exists(dst)
            outcomes.append(type(exc).__name__)
        else:
            with open(dst, "rb") as f:
                outcomes.append(f.read())
            os.unlink(dst)
        assert not [n for n in os.listdir(folder) if n.endswith(".nanstats-tmp")]
    assert outcomes[0] == outcomes[1]


def check_readers(data: bytes, path: str) -> None:
    with open(path, "wb") as f:
        f.write(data)
    run_readers(path)


def run_readers(path: str) -> None:
    """Every reader on the file at ``path``: our exception or a result, memory bounded."""
    tracemalloc.start()
    try:
        for reader in (read_footer, inspect, verify, upgrade_both_ways):
            try:
                reader(path)
            except EXPECTED:
                pass
            _, peak = tracemalloc.get_traced_memory()
            assert peak < MEMORY_LIMIT, f"{reader.__name__} allocated {peak} bytes"
    finally:
        tracemalloc.stop()


SEEDS = ["ieee.parquet", "pa_index.parquet", "pa_v2.parquet"]


#: (mutation strategy, examples in the suite, seeds it runs on)
MUTATIONS = {
    "byte": (byte_mutations, 60, SEEDS),
    "footer_field": (field_mutations, 40, SEEDS),
    "page_index": (page_index_mutations, 40, SEEDS[:2]),
    "anywhere": (anywhere_mutations, 30, SEEDS),
}


@pytest.mark.parametrize(("mutation", "seed"), [(m, seed) for m, (_, _, seeds) in
                                                MUTATIONS.items() for seed in seeds])
def test_mutations(seeds, mutation, seed, tmp_path) -> None:
    strategy, examples, _ = MUTATIONS[mutation]
    path = str(tmp_path / "fuzzed.parquet")

    @fuzz_settings(examples)
    @given(data=st.data())
    def run(data: Any) -> None:
        check_readers(data.draw(strategy(seeds[seed])), path)

    run()


def test_regression_column_name_not_utf8(seeds, tmp_path) -> None:
    """Found by fuzzing: pyarrow raised UnicodeDecodeError opening a file whose column
    name is not UTF-8 (verify and upgrade both open the file with pyarrow)."""
    import io

    from nanstats.parquet.upgrading import upgrade

    data = seeds["pa_index.parquet"]
    footer = read_footer(io.BytesIO(data))
    meta = copy.deepcopy(footer.metadata)
    meta.schema[1].name = b"\xd8"
    raw = encode(meta)
    path = tmp_path / "name.parquet"
    path.write_bytes(data[:footer.metadata_offset] + raw + struct.pack("<I", len(raw)) + b"PAR1")
    assert inspect(path).columns[0].name == "\ufffd"  # our reader keeps going
    with pytest.raises(ParquetFormatError, match="pyarrow cannot open the file"):
        verify(path)
    with pytest.raises(ParquetFormatError, match="UnicodeDecodeError"):
        upgrade(path, tmp_path / "out.parquet")
    assert not (tmp_path / "out.parquet").exists()


def test_seeds_are_readable(seeds, tmp_path) -> None:
    """The unmutated seeds read cleanly (so mutations start from valid files)."""
    for name, data in seeds.items():
        path = tmp_path / name
        path.write_bytes(data)
        assert inspect(path).columns
        assert {v.kind for v in verify(path)} <= {"missing_nan_count", "missing_nan_counts"}
    assert verify(tmp_path / "ieee.parquet") == []


# --- scale: what small mutated files cannot reach (issue 17 items 5 and 6) ----

#: Scale cases run in the suite with these sizes; ``make fuzz`` draws up to the larger.
SCALE = {"empty_structures": (20_000, 2_000_000), "gap": (64 << 20, 4 << 30)}


def _scale(name: str) -> int:
    small, large = SCALE[name]
    return large if FUZZ else small


def _with_footer(data: bytes, footer_offset: int, meta: Any) -> bytes:
    raw = encode(meta)
    return data[:footer_offset] + raw + struct.pack("<I", len(raw)) + b"PAR1"


EMPTY_LISTS = ["row_groups", "schema", "key_value_metadata", "column_orders", "columns",
               "encoding_stats", "page_locations"]


@st.composite
def empty_structure_lists(draw: Any, data: bytes) -> tuple[bytes, int]:
    """A footer (or OffsetIndex) with a long list of empty structures somewhere."""
    import io

    from nanstats.metadata.thrift import pq

    footer = read_footer(io.BytesIO(data))
    meta = copy.deepcopy(footer.metadata)
    where = draw(st.sampled_from(EMPTY_LISTS))
    n = draw(st.integers(1, _scale("empty_structures")))
    rg = meta.row_groups[draw(st.integers(0, len(meta.row_groups) - 1))]
    chunk = rg.columns[draw(st.integers(0, len(rg.columns) - 1))]
    empty = {"row_groups": pq.RowGroup, "schema": pq.SchemaElement, "key_value_metadata":
             pq.KeyValue, "column_orders": pq.ColumnOrder, "columns": pq.ColumnChunk,
             "encoding_stats": pq.PageEncodingStats, "page_locations": pq.PageLocation}[where]()
    at = draw(st.integers(0, 3))  # where in the list the empty ones go
    if where == "page_locations":
        raw = encode(pq.OffsetIndex(page_locations=[empty] * n))
        chunk.offset_index_offset, chunk.offset_index_length = footer.metadata_offset, len(raw)
        return _with_footer(data[:footer.metadata_offset] + raw, footer.metadata_offset
                            + len(raw), meta), n
    owner = {"columns": rg, "encoding_stats": chunk.meta_data}.get(where, meta)
    values = list(getattr(owner, where) or [])
    setattr(owner, where, values[:at] + [empty] * n + values[at:])
    return _with_footer(data, footer.metadata_offset, meta), n


@pytest.mark.parametrize("seed", SEEDS)
def test_scale_empty_structure_lists(seeds, seed, tmp_path) -> None:
    """Lists of up to millions of empty structures: refused or read, in bounded time and memory."""
    import time

    path = str(tmp_path / "many.parquet")

    @fuzz_settings(8)
    @given(case=empty_structure_lists(seeds[seed]))
    def run(case: tuple[bytes, int]) -> None:
        data, _ = case
        start = time.perf_counter()
        check_readers(data, path)
        assert time.perf_counter() - start < 5

    run()


@st.composite
def far_page_indexes(draw: Any, data: bytes) -> bytes:
    """A legal gap between the page index and the footer; perhaps a hostile index offset."""
    import io

    footer = read_footer(io.BytesIO(data))
    meta = copy.deepcopy(footer.metadata)
    if draw(st.booleans()):
        chunks = [c for rg in meta.row_groups for c in rg.columns]
        chunk = chunks[draw(st.integers(0, len(chunks) - 1))]
        field = draw(st.sampled_from(["column_index_offset", "offset_index_offset"]))
        setattr(chunk, field, draw(st.sampled_from([4, 5, footer.metadata_offset - 1])))
    gap = draw(st.integers(1, _scale("gap")))
    return (footer.metadata_offset, gap, encode(meta))  # type: ignore[return-value]


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_scale_page_index_far_from_the_footer(seeds, seed, tmp_path) -> None:
    """Gigabytes of (sparse) gap before the footer cost nothing to inspect, verify, upgrade."""
    path = str(tmp_path / "far.parquet")
    data = seeds[seed]

    @fuzz_settings(6)
    @given(case=far_page_indexes(data))
    def run(case: tuple[int, int, bytes]) -> None:
        offset, gap, raw = case
        with open(path, "wb") as f:  # sparse: the gap takes no disk
            f.write(data[:offset])
            f.seek(gap, 1)
            f.write(raw + struct.pack("<I", len(raw)) + b"PAR1")
        run_readers(path)

    run()


def test_scale_large_legal_footer(tmp_path) -> None:
    """Many row groups, columns and pages: read whole, in memory linear in the footer.

    (No clock here: the worst cases' times are measured outside the tests.)"""
    columns, groups = (400, 50) if FUZZ else (60, 12)
    t = pa.table({f"c{i}": np.arange(groups * 8, dtype=np.float64) for i in range(columns)})
    path = str(tmp_path / "wide.parquet")
    papq.write_table(t, path, row_group_size=8, write_page_index=True, data_page_size=16,
                     write_batch_size=2)
    footer = read_footer(path)
    tracemalloc.start()
    try:
        report = inspect(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(report.columns) == columns and footer.num_row_groups == groups
    assert all(len(c.row_groups[0].pages) == 4 for c in report.columns)
    assert peak < 64 << 20 or peak < 400 * footer.metadata_length, peak
