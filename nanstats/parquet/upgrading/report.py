"""What an upgrade did: one :class:`ColumnSummary` per leaf column, in an
:class:`UpgradeReport`, totalled chunk by chunk as the chunks are written.

>>> import numpy as np, pyarrow as pa, pyarrow.parquet as papq, tempfile, os
>>> from nanstats.parquet import upgrade
>>> d = tempfile.mkdtemp()
>>> src, dst = os.path.join(d, "a.parquet"), os.path.join(d, "b.parquet")
>>> papq.write_table(pa.table({"x": [1.0, np.nan]}), src)
>>> upgrade(src, dst).columns[0].to_dict()["column_index"]
True
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from nanstats.core.rules import ColumnOrderName, TypeOrderPolicy
from nanstats.metadata.convert import PHYSICAL_TYPE_NAMES
from nanstats.metadata.footer import LeafColumn
from nanstats.parquet.upgrading.plan import Chunk

#: ColumnSummary.action of a string column rewritten with truncated bounds.
TRUNCATED = "upgraded (truncated bounds)"


@dataclass(frozen=True)
class ColumnSummary:
    """What upgrade did to one leaf column, over all row groups.

    ``action`` is ``'upgraded'`` (float statistics rewritten),
    ``'upgraded (truncated bounds)'`` (a string column's statistics
    recomputed with bounds of at most ``truncate`` bytes; ``nan_count`` is
    None), ``'copied'`` (any other column, kept as it was) or ``'skipped'``
    (a repeated float column, kept as it was).  ``column_index_row_groups`` counts the row
    groups that got a ColumnIndex; ``reason`` says why the others did not.

    >>> import numpy as np, pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> from nanstats.parquet import upgrade
    >>> d = tempfile.mkdtemp()
    >>> src, dst = os.path.join(d, "a.parquet"), os.path.join(d, "b.parquet")
    >>> papq.write_table(pa.table({"x": [1.0, np.nan], "s": ["p", "q"]}), src)
    >>> [(c.name, c.action, c.nan_count) for c in upgrade(src, dst).columns]
    [('x', 'upgraded', 1), ('s', 'copied', None)]
    """

    name: str
    physical_type: str
    action: str
    rows: int
    pages: int
    nan_count: int | None
    null_count: int | None
    column_index_row_groups: int
    row_groups: int
    reason: str | None = None

    @property
    def column_index(self) -> bool:
        """True when every row group of the column has a ColumnIndex."""
        return self.row_groups > 0 and self.column_index_row_groups == self.row_groups

    def to_dict(self) -> dict[str, Any]:
        """The fields, plus ``column_index``."""
        return {**asdict(self), "column_index": self.column_index}


@dataclass(frozen=True)
class UpgradeReport:
    """The result of :func:`~nanstats.parquet.upgrade`: one ColumnSummary per leaf column.

    >>> import numpy as np, pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> from nanstats.parquet import upgrade
    >>> d = tempfile.mkdtemp()
    >>> src, dst = os.path.join(d, "a.parquet"), os.path.join(d, "b.parquet")
    >>> papq.write_table(pa.table({"x": [1.0, np.nan], "s": ["p", "q"]}), src)
    >>> report = upgrade(src, dst, truncate=8)
    >>> report.upgraded, report.truncated, report.bytes_out > 0
    (('x',), ('s',), True)
    """

    src: str
    dst: str
    order: ColumnOrderName
    policy: TypeOrderPolicy
    columns: tuple[ColumnSummary, ...]
    row_groups: int
    bytes_in: int
    bytes_out: int
    bloom_filters: int
    notes: tuple[str, ...] = field(default=())
    truncate: int | None = None

    @property
    def upgraded(self) -> tuple[str, ...]:
        """Names of the columns whose float statistics were rewritten."""
        return tuple(c.name for c in self.columns if c.action == "upgraded")

    @property
    def truncated(self) -> tuple[str, ...]:
        """Names of the string columns whose statistics got truncated bounds."""
        return tuple(c.name for c in self.columns if c.action == TRUNCATED)

    @property
    def skipped(self) -> tuple[str, ...]:
        """Names of the float columns left as they were (repeated leaves)."""
        return tuple(c.name for c in self.columns if c.action == "skipped")

    def to_dict(self) -> dict[str, Any]:
        """Plain Python objects, for JSON."""
        d = asdict(self)
        d["columns"] = [c.to_dict() for c in self.columns]
        d["notes"] = list(self.notes)
        d["skipped"] = list(self.skipped)
        d["truncated"] = list(self.truncated)
        return d

    def __repr__(self) -> str:
        return (f"UpgradeReport({self.src!r} -> {self.dst!r}, order={self.order}, "
                f"upgraded={list(self.upgraded)}, skipped={list(self.skipped)})")


@dataclass
class ColumnTotals:
    """One leaf column's counts over the chunks written so far."""

    rows: int = 0
    pages: int = 0
    nans: int = 0
    nulls: int = 0
    ci_row_groups: int = 0
    reasons: list[str] = field(default_factory=list)

    def add(self, ch: Chunk) -> None:
        """Count a written chunk."""
        self.rows += int(ch.old.meta_data.num_values or 0) if ch.stats is None else \
            ch.stats.num_values
        self.pages += ch.pages.data_page_count
        if ch.stats is not None:
            self.nans += ch.stats.nan_count or 0
            self.nulls += ch.stats.null_count
        if ch.new_ci is not None:
            self.ci_row_groups += 1
        elif ch.stats is not None and ch.stats.refusal is not None \
                and ch.stats.refusal not in self.reasons:
            self.reasons.append(ch.stats.refusal)

    def summary(self, col: LeafColumn, row_groups: int, eligible: bool,
                truncate: int | None) -> ColumnSummary:
        """The ColumnSummary of ``col`` (``eligible``: its float statistics were
        rewritten; ``truncate``: its string bounds were)."""
        ptype = col.float_type.physical_type if col.float_type is not None else \
            PHYSICAL_TYPE_NAMES.get(col.physical_type, str(col.physical_type))
        if eligible:
            reason = "; ".join(self.reasons) or None
            return ColumnSummary(col.name, ptype, "upgraded", self.rows, self.pages, self.nans,
                                 self.nulls, self.ci_row_groups, row_groups, reason)
        if truncate is not None:
            return ColumnSummary(col.name, ptype, TRUNCATED, self.rows, self.pages, None,
                                 self.nulls, self.ci_row_groups, row_groups,
                                 "; ".join(self.reasons) or None)
        if col.float_type is not None:
            return ColumnSummary(col.name, ptype, "skipped", self.rows, self.pages, None, None,
                                 self.ci_row_groups, row_groups,
                                 "repeated (list or map) float column: left as it was")
        return ColumnSummary(col.name, ptype, "copied", self.rows, self.pages, None, None,
                             self.ci_row_groups, row_groups,
                             None if self.ci_row_groups == row_groups else "not a float column; "
                             "its page index (if any) is copied as it was")
