"""``verify``: check every float statistic of a Parquet file against its data.

The values are decoded with pyarrow and every scope is recomputed with the
kernels (see :mod:`nanstats.parquet.recompute`): each column chunk, and each
data page, whose rows come from the OffsetIndex ``first_row_index`` or, with
no OffsetIndex, from the page headers' value counts.  What the file says is
then held against the truth and against the rules of the column's order
(SPEC.md sections 3-5):

* chunk ``Statistics`` (ColumnMetaData field 12),
* the ``Statistics`` of every data page header (v1 and v2),
* the ColumnIndex (bounds, ``null_pages``, ``null_counts``, ``nan_counts``,
  ``boundary_order``) and whether one may exist at all,
* the OffsetIndex rows against the page headers.

Each finding has a ``kind`` (a key of :data:`RULES`) and a severity
(``error``, ``warning``, ``info``; SPEC.md section 3, "How binding each rule
is"); the kinds are:

* ``nan_count`` missing from a float column's Statistics (footer or page
  header) or ``nan_counts`` from its ColumnIndex; a wrong ``nan_count`` or
  ``null_count`` anywhere;
* a bound that excludes a value of its scope (any order; the deprecated
  ``min``/``max`` too, unless NaN);
* IEEE_754_TOTAL_ORDER: bounds that are not exactly the totalOrder extremes
  (SPEC 4: "bounds are exact");
* TYPE_ORDER: a NaN bound, bounds for a scope whose non-null values are all
  NaN, a zero min written +0.0 or a zero max written -0.0, a ColumnIndex for
  a chunk with an all-NaN page;
* bounds for a scope with no non-null value; a bound that is not one PLAIN
  value of the column's width; ``min_value``/``max_value`` in a file without
  ``column_orders``;
* a ColumnIndex whose entry count, ``null_pages`` or claimed
  ``boundary_order`` (ASCENDING/DESCENDING) is wrong; OffsetIndex rows that
  disagree with the page headers' value counts;
* lost opportunities (``info``): no ColumnIndex for a chunk of several pages
  that nanstats would index, no ``nan_counts`` in a ColumnIndex;
* what a real engine is known to misread (``warning``): a dictionary-encoded
  chunk holding -0.0 and no +0.0, whose rows parquet-java's dictionary
  filter (Spark) drops for ``x = 0.0``.

Findings that real engines are known to turn into wrong rows say so in
``engines`` (DuckDB 2.0 skips the NaN rows of a chunk whose statistics have
bounds and no ``nan_count``).  What the format allows is never reported,
even where nanstats' own writing policy (``safe``) is stricter:

* Statistics or page header statistics left out altogether, and a missing
  ``null_count`` (SPEC: "should");
* TYPE_ORDER bounds wider than the values, and bounds from the non-NaN
  values of a scope that also holds NaN (the "format minimum");
* a ColumnIndex under IEEE_754_TOTAL_ORDER for pages with NaN;
* NaN in the deprecated ``min``/``max`` (readers ignore them); the bounds
  of null pages (readers skip them); ``UNORDERED`` for sorted lists;
* min/max under an undefined or unknown column order (they have no meaning
  to check; only the counts are checked).

Repeated (list or map) float columns are not checked (their values cannot be
recomputed per page here).  A file that cannot be read raises
:class:`~nanstats.errors.ParquetFormatError` (corrupt) or
:class:`~nanstats.errors.UnsupportedParquetError` (e.g. encrypted).

>>> import numpy as np, pyarrow as pa, pyarrow.parquet as papq, tempfile, os
>>> from nanstats.parquet.upgrading import upgrade
>>> d = tempfile.mkdtemp()
>>> src, dst = os.path.join(d, "legacy.parquet"), os.path.join(d, "new.parquet")
>>> papq.write_table(pa.table({"x": [1.0, np.nan, 0.0]}), src)
>>> for v in verify(src):
...     print(v)
legacy.parquet: column 'x', row group 0: statistics.nan_count absent, expected 1 (nan_count is mandatory for float columns)
legacy.parquet: column 'x', row group 0, page 0: page_header.statistics.nan_count absent, expected 1 (nan_count is mandatory for float columns)
>>> verify(src)[0].kind
'missing_nan_count'
>>> _ = upgrade(src, dst)
>>> verify(dst)
[]
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import IO, Any, Literal

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from nanstats.core.floats import FloatType
from nanstats.core.rules import (
    ColumnOrderName,
    boundary_order,
    bounds_within_rules,
    breaks_zero_rule,
    claimed_order_holds,
    column_index_refusal,
    excludes_extreme,
    order_keys,
)
from nanstats.core.stats import ColumnStats
from nanstats.lake.fs import RemoteFile, Target, remote_errors, resolve
from nanstats.metadata.convert import WrittenStatistics, written_statistics
from nanstats.metadata.footer import (
    ColumnOrderKind,
    Footer,
    LeafColumn,
    read_footer,
    refuse_encrypted,
)
from nanstats.metadata.page_index import PageIndex, PageIndexRegion
from nanstats.metadata.pages import (
    Page,
    check_offset_index_pages,
    chunk_range,
    header_row_starts_array,
    pages_from_bytes,
    read_pages,
)
from nanstats.metadata.thrift import pq
from nanstats.parquet.recompute import (
    ChunkStats,
    leaf_arrays,
    open_parquet_file,
    stats_for_array,
)

Severity = Literal["error", "warning", "info"]

#: The severities, gravest first (:class:`Rule` says what each means).
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")


@dataclass(frozen=True)
class Rule:
    """A kind of finding: how grave it is, and the rule in words.

    ``error``: the statistics contradict the data, or break a MUST rule in a
    way that lets a rule-following reader skip matching rows or report wrong
    counts.  ``warning``: a MUST rule of the format is broken but the data is
    still described truthfully, or a real engine is known to misread what
    the file holds.  ``info``: SHOULD rules and lost opportunities.
    ``in_metadata`` is False for findings about the data pages themselves,
    which an upgrade (metadata rewritten, pages copied) leaves as they are.

    >>> RULES["zero_rule"].severity, str(RULES["zero_rule"])
    ('info', 'TYPE_ORDER: a zero min is written -0.0, a zero max +0.0')
    >>> RULES["dictionary_negative_zero"].in_metadata
    False
    """

    severity: Severity
    text: str
    in_metadata: bool = True

    def __str__(self) -> str:
        return self.text


#: Every kind of finding :func:`verify` reports: its severity and the rule.
#: The one table of kinds and severities; the command line, the JSON schema
#: and the docs take theirs from here.
RULES: dict[str, Rule] = {
    "bound_excludes_value": Rule("error", "a bound must not exclude a value of its scope"),
    "wrong_nan_count": Rule("error", "nan_count must count the NaN values of the scope"),
    "wrong_null_count": Rule("error", "null_count must count the null values of the scope"),
    "nan_in_bounds": Rule("error", "TYPE_ORDER bounds never contain NaN"),
    "bounds_for_nan_scope": Rule("error",
                                 "TYPE_ORDER: no min/max when every non-null value is NaN"),
    "forbidden_column_index": Rule("error",
                                   "TYPE_ORDER: no ColumnIndex for a chunk with an all-NaN page"),
    "column_index_page_count": Rule("error", "a ColumnIndex has one entry per data page"),
    "wrong_null_pages": Rule("error",
                             "null_pages[i] is true exactly when page i has only nulls"),
    "wrong_boundary_order": Rule("error", "boundary_order must hold for both bound lists"),
    "wrong_first_row_index": Rule("error",
                                  "OffsetIndex first_row_index must match the pages' rows"),
    "missing_nan_count": Rule("warning", "nan_count is mandatory for float columns"),
    "inexact_bound": Rule("warning",
                          "IEEE_754_TOTAL_ORDER bounds are exactly the totalOrder extremes"),
    "bounds_for_null_scope": Rule("warning", "no min/max when every value is null"),
    "malformed_bound": Rule("warning", "a float bound is one PLAIN value of the column's width"),
    "undefined_column_order": Rule("warning",
                                   "min_value/max_value need column_orders in the footer"),
    "dictionary_negative_zero": Rule(
        "warning", "parquet-java's dictionary filter misreads a dictionary with -0.0 and "
        "no +0.0 (the format allows it)", in_metadata=False),
    "zero_rule": Rule("info", "TYPE_ORDER: a zero min is written -0.0, a zero max +0.0"),
    "missing_nan_counts": Rule("info", "ColumnIndex nan_counts let readers skip pages "
                               "for NaN predicates (optional)"),
    "no_column_index": Rule("info", "a ColumnIndex lets readers skip pages (optional)"),
}

#: What real engines are known to do wrong with a finding, by kind.
_DICTIONARY_ENCODINGS = (2, 8)  # PLAIN_DICTIONARY, RLE_DICTIONARY
_DUCKDB_NAN = ("DuckDB 2.0 skips the NaN rows of this chunk (it reads a missing nan_count "
               "as no NaN)")
_SPARK_ZERO = ("Spark (parquet-java's dictionary filter) drops this chunk's rows for "
               "x = 0.0, since -0.0 is not +0.0 in the dictionary")


def kinds_at_least(severity: str) -> frozenset[str]:
    """The kinds whose severity is ``severity`` or graver.

    >>> sorted(kinds_at_least("info")) == sorted(RULES)
    True
    >>> "zero_rule" in kinds_at_least("warning")
    False
    """
    if severity not in SEVERITIES:
        raise ValueError(f"severity must be one of {SEVERITIES}, not {severity!r}")
    rank = SEVERITIES.index(severity)
    return frozenset(k for k, r in RULES.items() if SEVERITIES.index(r.severity) <= rank)


@dataclass(frozen=True)
class Violation:
    """One finding: a statistic of a file that is wrong, breaks a rule, or misses a chance.

    ``row_group`` and ``page`` are None for the scopes above them (``page``
    None: the chunk or the whole ColumnIndex).  ``field`` names the Thrift
    field (``statistics.nan_count``, ``page_header.statistics.min_value``,
    ``column_index.max_values``, ...), ``found``/``expected`` what the file
    says and what it should say (values as text, NaNs with their bits),
    ``kind`` a stable identifier (a key of :data:`RULES`), ``rule`` the
    rule in words, ``engines`` what real engines are known to do wrong
    because of it, and ``values`` the found and expected values for JSON
    (numbers as numbers, bounds as ``{"bits": "0x...", "value": ...}``).
    :attr:`severity` comes from :data:`RULES`.

    >>> v = Violation("f.parquet", "x", 0, 2, "column_index.nan_counts", "3", "1",
    ...               "wrong_nan_count", RULES["wrong_nan_count"].text, values=(3, 1))
    >>> print(v)
    f.parquet: column 'x', row group 0, page 2: column_index.nan_counts is 3, expected 1 (nan_count must count the NaN values of the scope)
    >>> v.severity, v.to_dict()["found"]
    ('error', 3)
    """

    file: str
    column: str
    row_group: int | None
    page: int | None
    field: str
    found: str
    expected: str
    kind: str
    rule: str
    engines: tuple[str, ...] = ()
    values: tuple[Any, Any] | None = dataclass_field(default=None, repr=False, compare=False)

    @property
    def severity(self) -> Severity:
        """``error``, ``warning`` or ``info`` (see :class:`Rule`)."""
        return RULES[self.kind].severity

    def to_dict(self) -> dict[str, Any]:
        """Plain Python objects for JSON: numbers as numbers, bit patterns as hex strings."""
        found, expected = self.values if self.values is not None else (self.found,
                                                                         self.expected)
        return {"file": self.file, "column": self.column, "row_group": self.row_group,
                "page": self.page, "field": self.field, "found": found,
                "expected": expected, "kind": self.kind, "severity": self.severity,
                "rule": self.rule, "engines": list(self.engines)}

    def describe(self, file: str) -> str:
        """Where the finding is and what was found, the file named as ``file``.

        >>> v = Violation("lake/a.parquet", "x", 0, None, "statistics.nan_count", "absent",
        ...               "2", "missing_nan_count", "nan_count is mandatory")
        >>> v.describe("a.parquet")
        "a.parquet: column 'x', row group 0: statistics.nan_count absent, expected 2"
        """
        where = [f"column {self.column!r}"]
        if self.row_group is not None:
            where.append(f"row group {self.row_group}")
        if self.page is not None:
            where.append(f"page {self.page}")
        found = self.found if self.found == "absent" else f"is {self.found}"
        return f"{file}: {', '.join(where)}: {self.field} {found}, expected {self.expected}"

    def __str__(self) -> str:
        return f"{self.describe(os.path.basename(self.file))} ({self.rule})"


#: A finding is a Violation (the older name) whatever its severity.
Finding = Violation


class _Bound:
    """A float bound in a finding: text for people, bits and value for JSON."""

    def __init__(self, ft: FloatType, bits: int, relation: str = "") -> None:
        self.ft, self.bits, self.relation = ft, bits, relation

    def __str__(self) -> str:
        text = self.ft.format_bits(self.bits)
        return f"{self.relation} {text}" if self.relation else text

    def json(self) -> dict[str, Any]:
        value = None if self.ft.is_nan_bits(self.bits) else self.ft.bits_to_float(self.bits)
        if value is not None and not math.isfinite(value):
            value = None
        out: dict[str, Any] = {"bits": f"0x{self.bits:0{self.ft.nbytes * 2}x}",
                               "value": value, "text": self.ft.format_bits(self.bits)}
        if self.relation:
            out["relation"] = self.relation
        return out


class _Counts:
    """A list of counts in a finding: shortened for people, whole for JSON."""

    def __init__(self, counts: list[int]) -> None:
        self.counts = counts

    def __str__(self) -> str:
        c = self.counts
        shown = c if len(c) <= 8 else [*c[:6], "...", c[-1]]
        return f"[{', '.join(map(str, shown))}]"

    def json(self) -> list[int]:
        return self.counts


def _json(value: object) -> Any:
    if isinstance(value, _Bound | _Counts):
        return value.json()
    if value == "absent":
        return None
    if isinstance(value, bool | int | float) or value is None:
        return value
    return str(value)


class _Report:
    """Collects the findings of one column chunk."""

    def __init__(self, file: str, column: str, row_group: int | None) -> None:
        self.file, self.column, self.row_group = file, column, row_group
        self.found: list[Violation] = []

    def add(self, kind: str, page: int | None, field: str, found: object,
            expected: object, engines: tuple[str, ...] = ()) -> None:
        self.found.append(Violation(self.file, self.column, self.row_group, page, field,
                                    str(found), str(expected), kind, RULES[kind].text,
                                    engines, (_json(found), _json(expected))))


def verify(path: Target, *, filesystem: Any = None) -> list[Violation]:
    """Every float statistic of ``path`` that is wrong or breaks the rules, in file order.

    An empty list means the file is clean.  See the module docs for what is
    and is not a violation, and the module example.  ``path`` is a local
    path or any URI of :func:`nanstats.lake.fs.resolve`, or a path on
    ``filesystem``; a remote file is read by ranges: the footer and page
    index (as :func:`~nanstats.parquet.inspection.inspect`), then the float
    column chunks (other columns are never read).

    >>> import pyarrow as pa, tempfile, os
    >>> from nanstats.parquet.writing import write_table
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> _ = write_table(pa.table({"x": [2.0, float("nan"), 0.0]}), path)
    >>> verify(path)
    []
    """
    where = resolve(path, filesystem)
    with remote_errors(where), where.open_reader() as f:
        footer = read_footer(f)
        leaves = [c for c in footer.float_columns if c.max_repetition_level == 0]
        if not leaves:
            return []
        refuse_encrypted(footer, "nanstats cannot decode its pages")
        region = PageIndexRegion(f, footer)
        # A remote file: pyarrow reads through the same file, so the float chunks
        # fetched for their page headers are decoded from memory (one request each).
        source = None if where.is_local else pa.PythonFile(f, mode="r")
        with open_parquet_file(where, source) as parquet_file:
            found: list[Violation] = []
            for g in range(footer.num_row_groups):
                found += _verify_row_group(f, parquet_file, footer, region, g, leaves,
                                           not where.is_local)
                if isinstance(f, RemoteFile):
                    f.forget()
    return found


def _chunk_pages(f: IO[bytes], footer: Footer, g: int, leaf: int, remote: bool) -> list[Page]:
    """The page headers of a chunk: read one by one from a local file, from the
    chunk's bytes fetched in one request from a remote one."""
    if not remote:
        return read_pages(f, footer, g, leaf)
    start, length = chunk_range(footer, g, leaf)
    if isinstance(f, RemoteFile):
        data = f.keep(start, length)
    else:
        f.seek(start)
        data = f.read(length)
    return pages_from_bytes(data, start, footer, g, leaf)


def _verify_row_group(f: IO[bytes], parquet_file: Any, footer: Footer,
                      region: PageIndexRegion, g: int,
                      leaves: list[LeafColumn], remote: bool = False) -> list[Violation]:

    headers = {}
    for leaf in leaves:
        pages = _chunk_pages(f, footer, g, leaf.index, remote)
        ci, oi = region.read_page_index(footer, g, leaf.index)
        check_offset_index_pages(pages, oi, footer, g, leaf.index)
        headers[leaf.index] = (pages, oi, PageIndex.from_thrift(ci, oi))
    arrays = leaf_arrays(parquet_file, footer, g, [leaf.index for leaf in leaves])
    out: list[Violation] = []
    for leaf in leaves:
        pages, oi, index = headers[leaf.index]
        report = _Report(footer.path, leaf.name, g)
        where = f"row group {g}, column {leaf.name!r}"
        if index.first_row_index is not None and not _offset_index_matches_headers(
                report, pages, index.first_row_index, footer, g, leaf.index):
            oi = None  # the headers' counts are what the data pages hold
        array = arrays.pop(leaf.index)
        stats = stats_for_array(array, pages, oi, path=footer.path, where=where)
        _verify_chunk(report, footer, leaf, stats, index)
        if stats.chunk.value_count and leaf.float_type is not None:
            _check_dictionary_zeros(report, leaf.float_type, pages, array)
        out += report.found
    return out


def _offset_index_matches_headers(report: _Report, pages: list[Page],
                                  first_row_index: npt.NDArray[np.int64], footer: Footer,
                                  g: int, leaf: int) -> bool:
    """Each OffsetIndex ``first_row_index`` against the row the page headers put the page
    at (:func:`~nanstats.metadata.pages.header_row_starts`, the one place that counts
    them); each difference is a violation."""
    starts = header_row_starts_array(pages, footer, g, leaf)
    if starts is None:  # a repeated leaf of v1 pages: the headers do not say
        return True
    if len(starts) != len(first_row_index):
        raise ValueError("one first_row_index per data page expected")
    bad = np.flatnonzero(first_row_index != starts)  # only the differences in Python
    for i in bad.tolist():
        report.add("wrong_first_row_index", i, "offset_index.first_row_index",
                   int(first_row_index[i]), int(starts[i]))
    return not len(bad)


def _verify_chunk(report: _Report, footer: Footer, leaf: LeafColumn, stats: ChunkStats,
                  index: PageIndex) -> None:
    order = footer.column_order(leaf.index)
    ft = leaf.float_type
    assert ft is not None
    meta = footer.chunk_meta(report.row_group or 0, leaf.index)
    st = written_statistics(meta.statistics)
    if order == "undefined" and st is not None and st.has_bounds:
        report.add("undefined_column_order", None, "column_orders", "absent",
                   "a ColumnOrder for every leaf")
    _check_statistics(report, ft, order, st, stats.chunk, None, "statistics")
    assert isinstance(stats.pages_list, list)  # verify reads Page objects
    data_pages = [p for p in stats.pages_list if p.is_data]
    for i, page in enumerate(data_pages):
        _check_statistics(report, ft, order, written_statistics(page.statistics),
                          stats.page(i), i, "page_header.statistics")
    if index.has_column_index:
        _check_column_index(report, ft, order, index, stats)
    elif len(stats.pages) > 1 and order in ("ieee754", "type_order") and \
            column_index_refusal(stats.pages, "ieee754" if order == "ieee754"
                                 else "type_order") is None:
        report.add("no_column_index", None, "column_index", "absent",
                   f"one ({len(stats.pages)} data pages)")


def _check_dictionary_zeros(report: _Report, ft: FloatType, pages: list[Page],
                            array: Any) -> None:
    """-0.0 without +0.0 in a chunk whose data pages are all dictionary-encoded.

    The dictionary then holds -0.0 and not +0.0, and parquet-java's dictionary
    filter (used by Spark) drops the chunk for ``x = 0.0``, though -0.0 = 0.0.
    """
    headers = [p.data_header for p in pages if p.is_data]
    if not any(p.page_type == pq.PAGE_DICTIONARY for p in pages) or not headers or any(
            h is None or h.encoding not in _DICTIONARY_ENCODINGS for h in headers):
        return
    bits = array.to_numpy(zero_copy_only=False).view(ft.bits_dtype)  # nulls read as NaN
    if (bits == ft.sign_mask).any() and not (bits == 0).any():
        report.add("dictionary_negative_zero", None, "dictionary_page", "-0.0 and no +0.0",
                   "no -0.0 without +0.0", (_SPARK_ZERO,))


def _fmt(ft: FloatType, bits: int | None) -> str:
    return "absent" if bits is None else ft.format_bits(bits)


def _bits(ft: FloatType, raw: bytes) -> int | None:
    return int.from_bytes(raw, "little") if len(raw) == ft.nbytes else None


def _check_statistics(report: _Report, ft: FloatType, order: ColumnOrderKind,
                      st: WrittenStatistics | None,
                      truth: ColumnStats, page: int | None, prefix: str) -> None:
    """One Statistics struct (footer or page header) against its scope."""
    if st is None:
        return  # Statistics are optional
    if st.nan_count is None:
        engines = (_DUCKDB_NAN,) if page is None and truth.nan_count and st.has_bounds else ()
        report.add("missing_nan_count", page, f"{prefix}.nan_count", "absent", truth.nan_count,
                   engines)
    elif st.nan_count != truth.nan_count:
        report.add("wrong_nan_count", page, f"{prefix}.nan_count", st.nan_count,
                   truth.nan_count)
    if st.null_count is not None and st.null_count != truth.null_count:
        report.add("wrong_null_count", page, f"{prefix}.null_count", st.null_count,
                   truth.null_count)
    for field, raw, is_min in (("min_value", st.min_value, True),
                               ("max_value", st.max_value, False)):
        if raw is not None:
            _check_bound(report, ft, order, raw, truth, is_min, page, f"{prefix}.{field}")
    # The deprecated fields compare as signed numbers; a NaN there is
    # ignored by readers, a number that excludes a value is not.
    for field, raw, same, is_min in (("min", st.min, st.min_value, True),
                                     ("max", st.max, st.max_value, False)):
        if raw is None or raw == same:  # checked above
            continue
        bits = _bits(ft, raw)
        if bits is None or ft.is_nan_bits(bits) or truth.value_min_bits is None:
            continue
        _check_excludes(report, ft, bits, truth, is_min, page, f"{prefix}.{field}")


def _check_excludes(report: _Report, ft: FloatType, bits: int, truth: ColumnStats,
                    is_min: bool, page: int | None, field: str) -> bool:
    """Report (and return True) when a non-NaN bound excludes a non-NaN value."""
    assert truth.value_min_bits is not None and truth.value_max_bits is not None
    extreme = truth.value_min_bits if is_min else truth.value_max_bits
    if excludes_extreme(ft, [bits], [extreme], is_min)[0]:
        report.add("bound_excludes_value", page, field, _Bound(ft, bits),
                   _Bound(ft, extreme, "<=" if is_min else ">="))
        return True
    return False


def _check_bound(report: _Report, ft: FloatType, order: ColumnOrderKind, raw: bytes,
                 truth: ColumnStats, is_min: bool, page: int | None, field: str) -> None:
    """One written min or max against its scope, under the rules of ``order``."""
    if order not in ("ieee754", "type_order"):
        return  # an undefined or unknown order gives min/max no meaning to check
    bits = _bits(ft, raw)
    if bits is None:
        report.add("malformed_bound", page, field, f"{len(raw)} bytes",
                   f"{ft.nbytes} bytes ({ft.physical_type})")
        return
    if truth.is_all_null:
        report.add("bounds_for_null_scope", page, field, _Bound(ft, bits), "absent")
        return
    if order == "ieee754":
        want = truth.min_bits if is_min else truth.max_bits
        assert want is not None
        if bits == want:
            return
        key, want_key = ft.key(bits), ft.key(want)
        excludes = key > want_key if is_min else key < want_key
        report.add("bound_excludes_value" if excludes else "inexact_bound", page, field,
                   _Bound(ft, bits), _Bound(ft, want))
        return
    # TYPE_ORDER
    if truth.is_all_nan:
        report.add("bounds_for_nan_scope", page, field, _Bound(ft, bits), "absent")
        return
    if ft.is_nan_bits(bits):
        report.add("nan_in_bounds", page, field, _Bound(ft, bits), "a non-NaN value")
        return
    if _check_excludes(report, ft, bits, truth, is_min, page, field):
        return
    extreme = truth.value_min_bits if is_min else truth.value_max_bits
    assert extreme is not None
    if breaks_zero_rule(ft, [bits], [extreme], is_min)[0]:
        zero = ft.sign_mask if is_min else 0
        report.add("zero_rule", page, field, _Bound(ft, bits), _Bound(ft, zero))


def _bound_bits(ft: FloatType, raws: list[bytes]) -> tuple[npt.NDArray[Any], npt.NDArray[np.bool_]]:
    """The bounds of a ColumnIndex list as bits (0 where malformed) and which are well-formed."""
    ok = np.fromiter((len(r) == ft.nbytes for r in raws), dtype=bool, count=len(raws))
    bits = np.zeros(len(raws), dtype=ft.bits_dtype)
    if ok.any():
        joined = b"".join(r for r, good in zip(raws, ok.tolist(), strict=True) if good)
        bits[ok] = np.frombuffer(joined, dtype=ft.bits_dtype.newbyteorder("<"))
    return bits, ok


def _check_column_index(report: _Report, ft: FloatType, order: ColumnOrderKind,
                        index: PageIndex, stats: ChunkStats) -> None:
    assert index.null_pages is not None and index.min_values is not None \
        and index.max_values is not None
    table = stats.pages
    n = index.num_pages
    if n != len(table):
        report.add("column_index_page_count", None, "column_index.null_pages",
                   f"{n} entries", f"{len(table)} (the data pages)")
        return
    all_nan = (table.nan_count > 0) & (table.value_count == 0)
    skip = np.zeros(n, dtype=bool)
    if order == "type_order" and all_nan.any():
        first = int(np.argmax(all_nan))
        report.add("forbidden_column_index", first, "column_index", "present",
                   f"absent (page {first} holds only NaN and null values)")
        skip = all_nan  # their bounds are wrong for the same reason
    if index.nan_counts is None:
        report.add("missing_nan_counts", None, "column_index.nan_counts", "absent",
                   _Counts(table.nan_count.tolist()))
    # The per-page comparisons run over whole arrays; only pages that fail
    # one are looked at one by one, for the report.
    null_pages = index.null_pages
    is_null = table.null_count == table.num_values
    suspects = null_pages != is_null
    for written, counted in ((index.nan_counts, table.nan_count),
                             (index.null_counts, table.null_count)):
        if written is not None:
            suspects |= written != counted
    checked = ~(null_pages | is_null | skip)  # readers skip the bounds of null pages
    # Bounds mean something to check under the two float orders only.
    known: ColumnOrderName | None = \
        "ieee754" if order == "ieee754" else "type_order" if order == "type_order" else None
    if known is not None:
        lo_bits, lo_ok = _bound_bits(ft, index.min_values)
        hi_bits, hi_ok = _bound_bits(ft, index.max_values)
        clean = (bounds_within_rules(table, known, lo_bits, lo_ok, True)
                 & bounds_within_rules(table, known, hi_bits, hi_ok, False))
        suspects |= checked & ~clean
    for i in np.flatnonzero(suspects).tolist():
        truth = stats.page(i)
        if null_pages[i] != is_null[i]:
            report.add("wrong_null_pages", i, "column_index.null_pages", bool(null_pages[i]),
                       bool(is_null[i]))
        if index.nan_counts is not None and index.nan_counts[i] != truth.nan_count:
            report.add("wrong_nan_count", i, "column_index.nan_counts",
                       int(index.nan_counts[i]), truth.nan_count)
        if index.null_counts is not None and index.null_counts[i] != truth.null_count:
            report.add("wrong_null_count", i, "column_index.null_counts",
                       int(index.null_counts[i]), truth.null_count)
        if not checked[i]:
            continue
        for field, raw, is_min in (("min_values", index.min_values[i], True),
                                   ("max_values", index.max_values[i], False)):
            _check_bound(report, ft, order, raw, truth, is_min, i, f"column_index.{field}")
    claim = index.boundary_order
    if claim is None or claim == "UNORDERED" or known is None:
        return
    used = lo_ok & hi_ok & ~null_pages
    lo, hi = order_keys(ft, known, lo_bits, hi_bits, used)
    if not claimed_order_holds(claim, lo, hi):
        report.add("wrong_boundary_order", None, "column_index.boundary_order", claim,
                   boundary_order(lo, hi) if len(lo) else "UNORDERED")


def verify_files(paths: list[str], *, filesystem: Any = None
                 ) -> Iterator[tuple[str, list[Violation] | None, Exception | None]]:
    """(path, violations, None) or (path, None, error) for each file, in order.

    Errors are the ones :func:`verify` raises for unusable input
    (NanstatsError, OSError); others propagate.  Paths and URIs as for
    :func:`verify` (``filesystem=`` for all of them).

    >>> [(p, v, type(e).__name__) for p, v, e in verify_files(["/no/such.parquet"])]
    [('/no/such.parquet', None, 'FileNotFoundError')]
    """
    from nanstats.errors import NanstatsError

    for p in paths:
        try:
            yield p, verify(p, filesystem=filesystem), None
        except (NanstatsError, OSError) as exc:
            yield p, None, exc


__all__ = ["RULES", "SEVERITIES", "Finding", "Rule", "Violation", "kinds_at_least", "verify",
           "verify_files"]
