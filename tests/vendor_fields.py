"""Parquet metadata with fields nanstats' IDL does not know: a "vendor" IDL.

The vendor IDL is ours with, in every struct, fields of every Thrift type at
ids we do not declare (``vendor_*``), ``RowGroup.ordinal`` (field 7) declared
with another type (``vendor_ordinal``, i64 instead of i16), and in every
union a ``VENDOR`` member we do not know.  It is loaded by thriftpy2 and
encoded and decoded by thriftpy2's own (pure Python) compact protocol, so
the tests check nanstats' codec against a codec that is not nanstats'.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

import thriftpy2
from thriftpy2.protocol import TCompactProtocolFactory
from thriftpy2.thrift import TType
from thriftpy2.utils import deserialize, serialize

from nanstats.metadata.footer import read_footer
from nanstats.metadata.page_index import read_page_index
from nanstats.metadata.pages import read_pages
from nanstats.metadata.thrift import _IDL, pq

_EXTRA = """
struct VendorInner {
  1: optional i32 a
  2: optional binary b
  3: optional list<i64> c
}
"""


def _vendor_idl() -> str:
    text = Path(_IDL).read_text()
    text = text.replace("  7: optional i16 ordinal", "  7: optional i64 vendor_ordinal")
    text = text.replace(" {}\n", " {\n}\n")  # every body ends with a "}" line

    def extend(match: re.Match[str]) -> str:
        kind, name, body = match.group(1), match.group(2), match.group(3)
        ids = [int(i) for i in re.findall(r"^\s*(\d+):", body, re.M)]
        if kind == "union":
            return f"union {name} {{{body}  40: VendorInner VENDOR\n}}"
        extra = (f"  {max(ids, default=0) + 1}: optional i32 vendor_next\n"
                 "  1000: optional binary vendor_note\n"
                 "  1001: optional VendorInner vendor_inner\n"
                 "  1002: optional list<VendorInner> vendor_list\n"
                 "  1003: optional map<binary, i64> vendor_map\n"
                 "  1004: optional set<i32> vendor_set\n"
                 "  1005: optional bool vendor_flag\n"
                 "  1006: optional double vendor_ratio\n"
                 "  1007: optional byte vendor_byte\n"
                 "  20000: optional i16 vendor_far\n")
        return f"{kind} {name} {{{body}{extra}}}"

    text = re.sub(r"^(struct|union) (\w+) \{(.*?)^\}", extend, text, flags=re.M | re.S)
    # VendorInner first: the structs above refer to it.
    return text.replace("struct SizeStatistics {", _EXTRA + "\nstruct SizeStatistics {", 1)


def _load() -> Any:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "vendor_parquet.thrift"
        path.write_text(_vendor_idl())
        return thriftpy2.load(str(path), module_name="vendor_parquet_thrift")


#: The vendor IDL's module: ``vendor.FileMetaData``, ``vendor.VendorInner``, ...
vendor = _load()
_FACTORY = TCompactProtocolFactory()


def vendor_encode(obj: Any) -> bytes:
    """Compact bytes of a vendor struct (thriftpy2's encoder)."""
    return bytes(serialize(obj, _FACTORY))


def vendor_decode(name: str, raw: bytes) -> Any:
    """A vendor struct of class ``name`` from compact bytes (thriftpy2's decoder)."""
    return deserialize(getattr(vendor, name)(), raw, _FACTORY)


def _is_union(cls: type) -> bool:
    return "VENDOR" in {entry[1] for entry in cls.thrift_spec.values()}


def to_vendor(obj: Any) -> Any:
    """The vendor twin of one of our structs (a field the vendor renamed is dropped)."""
    if isinstance(obj, list):
        return [to_vendor(v) for v in obj]
    if not hasattr(obj, "thrift_spec"):
        return obj
    vcls = getattr(vendor, type(obj).__name__)
    names = {entry[1] for entry in vcls.thrift_spec.values()}
    out = vcls()
    for entry in type(obj).thrift_spec.values():
        value = getattr(obj, entry[1])
        if value is not None and entry[1] in names:
            setattr(out, entry[1], to_vendor(value))
    return out


def fill(obj: Any, tag: str, counter: list[int] | None = None) -> Any:
    """Set every vendor field of every struct (not union) below ``obj``, with values
    that differ from struct to struct."""
    counter = [0] if counter is None else counter
    if isinstance(obj, list):
        for v in obj:
            fill(v, tag, counter)
        return obj
    if not hasattr(obj, "thrift_spec"):
        return obj
    for entry in type(obj).thrift_spec.values():
        name = entry[1]
        value = getattr(obj, name)
        if value is not None and not name.startswith("vendor_") and name != "VENDOR":
            fill(value, tag, counter)
    if _is_union(type(obj)) or type(obj).__name__ == "VendorInner":
        return obj
    counter[0] += 1
    n = counter[0]
    note = f"{tag} #{n}".encode()
    for entry in type(obj).thrift_spec.values():
        name = entry[1]
        if not name.startswith("vendor_"):
            continue
        value: Any
        if name == "vendor_inner":
            value = vendor.VendorInner(a=n, b=note, c=[n, -n, 2**40])
        elif name == "vendor_list":
            value = [vendor.VendorInner(a=-n), vendor.VendorInner(b=b"")]
        elif name == "vendor_map":
            value = {note: n, b"other": -1}
        elif name == "vendor_set":
            value = {n, n + 1}
        elif entry[0] == TType.BOOL:
            value = n % 2 == 0
        elif entry[0] == TType.DOUBLE:
            value = n / 3
        elif entry[0] == TType.BYTE:
            value = n % 100 - 50
        elif entry[0] == TType.BINARY:
            value = note
        else:
            value = -n
        setattr(obj, name, value)
    return obj


def vendor_values(obj: Any, path: str = "", skip: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Every vendor field and VENDOR member below ``obj`` by its path (``skip``: paths left out)."""
    out: dict[str, Any] = {}
    if path in skip:
        return out
    if isinstance(obj, list):
        for i, v in enumerate(obj):
            out.update(vendor_values(v, f"{path}[{i}]", skip))
        return out
    if not hasattr(obj, "thrift_spec"):
        return out
    for entry in type(obj).thrift_spec.values():
        name = entry[1]
        value = getattr(obj, name)
        if value is None:
            continue
        if name.startswith("vendor_") or name == "VENDOR":
            out[f"{path}.{name}"] = sorted(value) if name == "vendor_set" else value
        else:
            out.update(vendor_values(value, f"{path}.{name}", skip))
    return out


def write_with_vendor_fields(src: str, dst: str, *, tweak: Any = None) -> dict[str, Any]:
    """Rewrite the Parquet file ``src`` as ``dst`` with vendor fields everywhere: in the
    footer, every page header, every ColumnIndex and OffsetIndex (pages copied
    byte for byte, offsets moved).  ``tweak(vendor_meta)`` may change the footer
    last.  Returns the vendor structs written, by what they are."""
    footer = read_footer(src)
    data = Path(src).read_bytes()
    meta = fill(to_vendor(footer.metadata), "footer")
    out = bytearray(b"PAR1")
    written: dict[str, Any] = {"footer": meta}
    indexes = []
    with open(src, "rb") as f:
        for g in range(footer.num_row_groups):
            vrg = meta.row_groups[g]
            for leaf in range(len(footer.columns)):
                start = len(out)
                locations = []
                dictionary = None
                for k, page in enumerate(read_pages(f, footer, g, leaf)):
                    header = fill(to_vendor(page.header), f"page {g}/{leaf}/{k}")
                    written[f"page {g}/{leaf}/{k}"] = header
                    at = len(out)
                    out += vendor_encode(header) + data[page.data_offset:page.end]
                    if page.page_type == pq.PAGE_DICTIONARY:
                        dictionary = at
                    elif page.is_data:
                        locations.append((at, len(out) - at))
                chunk = vrg.columns[leaf]
                cm = chunk.meta_data
                old_size = cm.total_compressed_size
                cm.data_page_offset, cm.dictionary_page_offset = locations[0][0], dictionary
                cm.total_compressed_size = len(out) - start
                cm.total_uncompressed_size += cm.total_compressed_size - old_size
                if chunk.file_offset:
                    chunk.file_offset = start
                if leaf == 0:
                    vrg.file_offset = start
                ci, oi = read_page_index(f, footer, g, leaf)
                vci = None if ci is None else fill(to_vendor(ci), f"ci {g}/{leaf}")
                voi = None if oi is None else fill(to_vendor(oi), f"oi {g}/{leaf}")
                if voi is not None:
                    for loc, (at, size) in zip(voi.page_locations, locations, strict=True):
                        loc.offset, loc.compressed_page_size = at, size
                written[f"ci {g}/{leaf}"], written[f"oi {g}/{leaf}"] = vci, voi
                indexes.append((chunk, vci, voi))
            vrg.total_compressed_size = sum(c.meta_data.total_compressed_size
                                            for c in vrg.columns)
    for chunk, vci, _ in indexes:
        if vci is not None:
            raw = vendor_encode(vci)
            chunk.column_index_offset, chunk.column_index_length = len(out), len(raw)
            out += raw
    for chunk, _, voi in indexes:
        if voi is not None:
            raw = vendor_encode(voi)
            chunk.offset_index_offset, chunk.offset_index_length = len(out), len(raw)
            out += raw
    if tweak is not None:
        tweak(meta)
    raw = vendor_encode(meta)
    out += raw + len(raw).to_bytes(4, "little") + b"PAR1"
    Path(dst).write_bytes(out)
    return written


def read_vendor(path: str) -> dict[str, Any]:
    """The vendor view of a Parquet file: footer, page headers, page index (as
    :func:`write_with_vendor_fields` returns them), decoded by thriftpy2."""
    footer = read_footer(path)
    data = Path(path).read_bytes()
    out: dict[str, Any] = {"footer": vendor_decode(
        "FileMetaData", data[footer.metadata_offset:footer.metadata_offset + footer.metadata_length])}
    with open(path, "rb") as f:
        for g in range(footer.num_row_groups):
            for leaf in range(len(footer.columns)):
                for k, page in enumerate(read_pages(f, footer, g, leaf)):
                    out[f"page {g}/{leaf}/{k}"] = vendor_decode(
                        "PageHeader", data[page.offset:page.data_offset])
                chunk = footer.chunk(g, leaf)
                for key, name, off, n in (
                        ("ci", "ColumnIndex", chunk.column_index_offset, chunk.column_index_length),
                        ("oi", "OffsetIndex", chunk.offset_index_offset, chunk.offset_index_length)):
                    out[f"{key} {g}/{leaf}"] = None if off is None else \
                        vendor_decode(name, data[off:off + n])
    return out
