"""Pages and rows each engine profile lets a reader skip on the demo lake, legacy vs nanstats.

The demo's sample lake (``demo.lake.make_lake``: sensor readings by day, NaN
bursts, nulls, half the days written by Spark's Parquet writer and half by
pyarrow) is pruned for each of the demo's queries under every measured
engine profile (``nanstats.prune.profiles.ENGINES``), twice:

``legacy``
    the statistics the writers left in the files (read by nanstats' reading
    rules: bounds that exclude NaN, a NaN maximum, no ``nan_count``);
``nanstats``
    the same files after ``nanstats.parquet.upgrade`` (IEEE 754 total order,
    ``nan_count``, a ColumnIndex with nan_counts for every chunk).

Pages are those of the predicate's columns (the upgraded file's OffsetIndex:
upgrade leaves every data page where it was, so both copies have the same
pages); a page is skipped when no row the plan keeps lies in it.  Every plan
is checked sound first: the rows the profile's own filter matches
(``nanstats.prune.row_filter.filter_mask``) all lie in kept ranges, or the
script stops with UNSOUND.

    python benchmarks/lake_tightness.py [--lake DIR] [--rows N] [--days N] [--rst FILE]

Without ``--lake`` it writes a lake with local Spark (``--rows``, default
2,000,000) in a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow.parquet as papq

from nanstats.lake.listing import list_parquet_files
from nanstats.metadata.footer import read_footer
from nanstats.metadata.page_index import read_page_index
from nanstats.parquet.upgrading import upgrade
from nanstats.prune.files import pages as plan_pages
from nanstats.prune.parser import parse
from nanstats.prune.profiles import ENGINES
from nanstats.prune.row_filter import filter_mask

STATISTICS = ("legacy", "nanstats")


@dataclass
class Tally:
    """Pages and rows of one (query, profile, statistics) over the lake."""

    pages: int = 0
    pages_skipped: int = 0
    rows: int = 0
    rows_skipped: int = 0

    def add(self, other: Tally) -> None:
        self.pages += other.pages
        self.pages_skipped += other.pages_skipped
        self.rows += other.rows
        self.rows_skipped += other.rows_skipped


def page_rows(path: str, columns: set[str]) -> dict[int, list[tuple[int, int]]]:
    """Per row group, the row range of every page of the named columns."""
    footer = read_footer(path)
    out: dict[int, list[tuple[int, int]]] = {}
    with open(path, "rb") as f:
        for g in range(footer.num_row_groups):
            n = footer.row_groups[g].num_rows
            for leaf in footer.columns:
                if leaf.name not in columns:
                    continue
                _, oi = read_page_index(f, footer, g, leaf.index)
                starts = ([loc.first_row_index for loc in oi.page_locations]
                          if oi is not None else [0])
                ends = [*starts[1:], n]
                out.setdefault(g, []).extend(zip(starts, ends, strict=True))
    return out


def tally(path: str, pages_of: dict[int, list[tuple[int, int]]], query: str,
          profile: str, table: object, starts: np.ndarray) -> Tally:
    """Plan one file and check the plan sound against the profile's own filter."""
    pred = parse(query)
    selection = plan_pages(path, pred, semantics=profile)
    keep = np.zeros(int(starts[-1]), dtype=bool)
    for g, ranges in selection.ranges.items():
        for a, b in ranges:
            keep[starts[g] + a:starts[g] + b] = True
    match = np.flatnonzero(filter_mask(pred, table, profile))
    if not keep[match].all():
        raise AssertionError(f"UNSOUND: {query!r} under {profile} on {path}")
    t = Tally(rows=len(keep), rows_skipped=int(len(keep) - keep.sum()))
    for g, spans in pages_of.items():
        for a, b in spans:
            t.pages += 1
            t.pages_skipped += not keep[starts[g] + a:starts[g] + b].any()
    return t


def measure(lake: str, upgraded: str, queries: Sequence[str], profiles: Sequence[str]
            ) -> dict[tuple[str, str, str], Tally]:
    """Tallies by (query, profile, statistics) over every file of the lake."""
    legacy_files = list_parquet_files(lake)
    out: dict[tuple[str, str, str], Tally] = {}
    for src in legacy_files:
        dst = os.path.join(upgraded, os.path.relpath(src, lake))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if not os.path.exists(dst):
            upgrade(src, dst)
        table = papq.read_table(src)
        meta = papq.ParquetFile(src).metadata
        starts = np.cumsum([0] + [meta.row_group(g).num_rows for g in range(meta.num_row_groups)])
        pages_by_columns: dict[frozenset[str], dict[int, list[tuple[int, int]]]] = {}
        for q in queries:
            qcols = frozenset(parse(q).columns())
            if qcols not in pages_by_columns:
                pages_by_columns[qcols] = page_rows(dst, set(qcols))
            q_pages = pages_by_columns[qcols]
            for prof in profiles:
                for stats, path in (("legacy", src), ("nanstats", dst)):
                    out.setdefault((q, prof, stats), Tally()).add(
                        tally(path, q_pages, q, prof, table, starts))
    return out


def render(result: dict[tuple[str, str, str], Tally], queries: Sequence[str],
           profiles: Sequence[str], fmt: str = "text") -> str:
    """Share of pages skipped (and of rows), per query and profile, legacy / nanstats."""
    def cell(q: str, p: str) -> str:
        a, b = result[q, p, "legacy"], result[q, p, "nanstats"]
        return (f"{100 * a.pages_skipped / max(a.pages, 1):.0f}% / "
                f"{100 * b.pages_skipped / max(b.pages, 1):.0f}%")

    rows = [[q, *[cell(q, p) for p in profiles]] for q in queries]
    totals = ["all queries (rows)"]
    for p in profiles:
        a = [result[q, p, "legacy"] for q in queries]
        b = [result[q, p, "nanstats"] for q in queries]
        totals.append(f"{100 * sum(t.rows_skipped for t in a) / max(sum(t.rows for t in a), 1):.0f}%"
                      f" / {100 * sum(t.rows_skipped for t in b) / max(sum(t.rows for t in b), 1):.0f}%")
    rows.append(totals)
    if fmt == "rst":
        out = [".. list-table:: Pages skipped on the demo lake, legacy / nanstats statistics",
               "   :header-rows: 1", "", "   * - query"]
        out += [f"     - {p}" for p in profiles]
        for r in rows:
            out.append(f"   * - ``{r[0]}``" if r is not totals else f"   * - **{r[0]}**")
            out += [f"     - {c}" for c in r[1:]]
        return "\n".join(out) + "\n"
    width = max(len(r[0]) for r in rows) + 2
    head = f"{'query':<{width}}" + "".join(f"{p:>14}" for p in profiles)
    return "\n".join([head, *(f"{r[0]:<{width}}" + "".join(f"{c:>14}" for c in r[1:])
                              for r in rows)])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lake", help="an existing demo lake (default: write one with local Spark)")
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--days", type=int, default=4)
    ap.add_argument("--rst", help="also write the table as reStructuredText to this file")
    args = ap.parse_args(argv)
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from demo.job import QUERIES

    with tempfile.TemporaryDirectory() as folder:
        lake = args.lake
        if lake is None:
            from demo.lake import make_lake
            from nanstats.spark.session import local_session

            lake = os.path.join(folder, "lake")
            spark = local_session()
            try:
                make_lake(spark, lake, rows=args.rows, days=args.days)
            finally:
                spark.stop()
        files = len(list_parquet_files(lake))
        t0 = time.perf_counter()
        result = measure(lake, os.path.join(folder, "upgraded"), QUERIES, ENGINES)
        seconds = time.perf_counter() - t0
    print(f"Demo lake ({files} files): share of pages of the query's columns skipped, "
          "legacy / nanstats statistics, per engine profile (every plan checked sound; "
          f"{seconds:.1f} s)")
    print(render(result, QUERIES, ENGINES))
    if args.rst:
        with open(args.rst, "w") as f:
            f.write(render(result, QUERIES, ENGINES, "rst"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
