"""Thrift <-> nanstats: the one place where the Parquet metadata's enums and
structures meet nanstats' own types.

Each Thrift enum is named once here; every module that reads or writes a
``BoundaryOrder``, a physical type or a column order asks this module.

>>> BOUNDARY_ORDER_NAMES[pq.BOUNDARY_ASCENDING], BOUNDARY_ORDER_CODES["DESCENDING"]
('ASCENDING', 2)
>>> PHYSICAL_TYPE_NAMES[pq.TYPE_DOUBLE]
'DOUBLE'
"""

from __future__ import annotations

from nanstats.core.rules import BoundaryOrder
from nanstats.metadata.thrift import pq

#: ColumnIndex.boundary_order (a Thrift enum) by its number.
BOUNDARY_ORDER_NAMES: dict[int, BoundaryOrder] = {
    pq.BOUNDARY_UNORDERED: "UNORDERED",
    pq.BOUNDARY_ASCENDING: "ASCENDING",
    pq.BOUNDARY_DESCENDING: "DESCENDING",
}
#: The number of each boundary order name.
BOUNDARY_ORDER_CODES: dict[BoundaryOrder, int] = {n: c for c, n in BOUNDARY_ORDER_NAMES.items()}

#: Parquet physical types by their number.
PHYSICAL_TYPE_NAMES: dict[int, str] = {
    pq.TYPE_BOOLEAN: "BOOLEAN",
    pq.TYPE_INT32: "INT32",
    pq.TYPE_INT64: "INT64",
    pq.TYPE_INT96: "INT96",
    pq.TYPE_FLOAT: "FLOAT",
    pq.TYPE_DOUBLE: "DOUBLE",
    pq.TYPE_BYTE_ARRAY: "BYTE_ARRAY",
    pq.TYPE_FIXED_LEN_BYTE_ARRAY: "FIXED_LEN_BYTE_ARRAY",
}
