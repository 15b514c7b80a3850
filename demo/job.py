"""The main job (``make demo``): a float lake through nanstats on local Spark.

With no ``--input`` it generates a sample lake with Spark (sensor readings by
day, NaN bursts of both signs, nulls, all-NaN pages; half the files written
by Spark, half by pyarrow; beside it a few float16 files by pyarrow, which
Spark 4.3 cannot read), then, on the executors:

1. indexes every page of every float column (``nanstats.spark.index_files``)
   and saves the index beside the output;
2. audits the legacy statistics the writers left in the footers;
3. upgrades every file to IEEE 754 total-order statistics with NaN counts and
   a page index (``nanstats.spark.upgrade_files``), and checks the float16
   files with ``nanstats.parquet.verification``;
4. checks that Spark reads exactly the same values from the upgraded lake,
   bit for bit, through ``nanstats.spark.summary``;
5. answers a fixed set of queries four ways: Spark with its filter pushdown
   (which trusts the writers' float statistics and may lose NaN rows),
   Spark's correct full scan (pushdown off), and ``nanstats.spark.read``
   pruned with the statistics the writers left (``plan_scan`` of the files)
   and with nanstats' statistics table (exact, NaN signs known); reports
   files, row groups, pages and bytes read, time taken, and checks that
   nanstats returns the rows of the correct scan.

With ``--lake URI`` (``s3://bucket/prefix``, or any URI both Spark and
nanstats reach) the sample lake, its index and the upgraded copy are written
there instead, and every step runs on the object store (demo/object_store.py
says what Spark needs for it); the report stays in ``--output``.

    python -m demo [--input DIR|URI] [--lake URI] [--output DIR] [--master URL] [--rows N]
                   [--spark-conf KEY=VALUE ...]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import warnings
from collections import Counter
from typing import Any


def audit_legacy_statistics(paths: list[str]) -> Counter[str]:
    """What the footers say about float columns, counted over column chunks."""
    from nanstats.core.floats import BY_PHYSICAL_TYPE  # noqa: F401  (float types known)
    from nanstats.metadata.footer import read_footer

    seen: Counter[str] = Counter()
    for path in paths:
        footer = read_footer(path)
        for g in range(footer.num_row_groups):
            for leaf in footer.float_columns:
                chunk = footer.chunk(g, leaf.index)
                stats = chunk.meta_data.statistics
                seen["float column chunks"] += 1
                seen[f"column order {footer.column_order(leaf.index)}"] += 1
                if stats is None or stats.nan_count is None:
                    seen["no nan_count"] += 1
                ft = leaf.float_type
                assert ft is not None
                for name in ("min_value", "max_value"):
                    raw = getattr(stats, name, None) if stats is not None else None
                    if raw is not None and len(raw) == ft.nbytes and ft.is_nan_bits(
                            ft.plain_to_bits(raw)):
                        seen[f"NaN as {name.split('_')[0]} bound"] += 1
                if chunk.column_index_offset is None:
                    seen["no column index"] += 1
    return seen


#: The demo's queries, as a Spark user would write them against the sample lake.
QUERIES = (
    "temperature > 27",
    "temperature < 12 and humidity > 90",
    "is_nan(humidity)",
    "voltage < 0 or voltage > 3.45",
    "pressure between 1025 and 1030",
    "not is_nan(temperature) and temperature * 1.8 + 32 > 85",
)


def _page_rows(index: Any) -> dict[tuple[str, int], list[tuple[int, int]]]:
    """Row ranges (within its row group) of every indexed float-column page."""
    table = index.toArrow() if hasattr(index, "toArrow") else index
    out: dict[tuple[str, int], list[tuple[int, int]]] = {}
    base: dict[tuple[str, int], int] = {}
    rows = table.select(["path", "row_group", "first_row", "num_values"]).to_pylist()
    for r in rows:
        key = (r["path"], r["row_group"])
        base[key] = min(base.get(key, r["first_row"]), r["first_row"])
    for r in rows:
        key = (r["path"], r["row_group"])
        start = r["first_row"] - base[key]
        out.setdefault(key, []).append((start, start + r["num_values"]))
    return out


def pages_kept(plan: Any, page_rows: dict[tuple[str, int], list[tuple[int, int]]]) -> int:
    """Pages of the indexed float columns that hold a row the plan keeps."""
    n = 0
    for path, sel in plan.selections.items():
        for g, ranges in sel.ranges.items():
            for start, stop in page_rows.get((path, g), ()):
                n += any(a < stop and start < b for a, b in ranges)
    return n


def page_share(plan: Any, index: Any) -> float:
    """The share of the indexed float-column pages (of the plan's lake) that the plan keeps."""
    rows = _page_rows(index)
    lake = set(plan.all_files)
    total = sum(len(v) for (path, _), v in rows.items() if path in lake)
    return pages_kept(plan, rows) / total if total else 0.0


def _counted(m: Any) -> dict[str, Any]:
    """What a measured read counted: files, row groups, pages, rows read and MB
    (row groups and pages None where only Spark's reader read: it counts neither)."""
    return {"files": m.files, "row_groups": m.row_groups, "pages": m.pages,
            "rows_read": m.rows_read, "mb": m.bytes_read / 1e6}


#: The methods of the query table, in order.
METHODS = ("Spark, pushdown on", "Spark, pushdown off", "nanstats, writers' stats",
           "nanstats, exact index")


def compare_queries(spark: Any, lake: str, index: Any, queries: tuple[str, ...] = QUERIES,
                    progress: Any = None, repeat: int = 3) -> list[dict[str, Any]]:
    """Each query four ways; one result row per query and method, with a same-rows check.

    Spark with its filter pushdown (which trusts the writers' float
    statistics), Spark's correct full scan (pushdown off, the reference),
    and ``nanstats.spark.read`` planned from the writers' statistics and from
    nanstats' exact index.  Bytes are what Spark's readers read (Spark's input
    metrics, ``demo.measure``); seconds are the best of ``repeat`` runs taken
    in turn and include nanstats' planning.
    """
    import nanstats.spark
    from demo.measure import measure
    from nanstats.lake.listing import list_parquet_files
    from nanstats.prune.parser import parse
    from nanstats.spark.native_scan import lake_schema
    from nanstats.spark.scan import choose_method
    from nanstats.spark.sql import to_spark_sql

    files = list_parquet_files(lake)
    table = index.toArrow() if hasattr(index, "toArrow") else index
    page_rows = _page_rows(table)
    lake_files = set(files)
    total_pages = sum(len(v) for (path, _), v in page_rows.items() if path in lake_files)
    results = []
    previous = spark.conf.get("spark.sql.parquet.filterPushdown")
    try:
        for q in queries:
            pred = parse(q)
            sql = to_spark_sql(pred)
            spark.conf.set("spark.sql.parquet.filterPushdown", "false")  # a true full scan
            full = spark.read.parquet(lake).where(sql)
            # The four reads taken in turn, ``repeat`` times; each keeps its best.
            measured: dict[str, Any] = {}
            plans: dict[str, Any] = {}
            for _ in range(repeat):
                for method in METHODS:
                    if method in METHODS[:2]:
                        spark.conf.set("spark.sql.parquet.filterPushdown",
                                       "true" if method == METHODS[0] else "false")
                        m = measure(spark, lambda sql=sql: spark.read.parquet(lake)
                                    .where(sql).count())
                        spark.conf.set("spark.sql.parquet.filterPushdown", previous)
                    else:
                        source = lake if method == METHODS[2] else table
                        t = time.perf_counter()
                        plan = nanstats.spark.plan_scan(source, pred,
                                                        path=None if source is lake else lake)
                        planning = time.perf_counter() - t
                        plans[method] = plan
                        m = measure(spark, lambda plan=plan, pred=pred: nanstats.spark.read(
                            spark, lake, pred, scan_plan=plan).count())
                        m = m.plus_seconds(planning)
                    if method not in measured or m.seconds < measured[method].seconds:
                        measured[method] = m
            reference = measured[METHODS[1]].result
            for method in METHODS[:2]:
                m = measured[method]
                results.append({"query": q, "method": method, **_counted(m),
                                "lake_pages": total_pages, "rows": m.result,
                                "seconds": m.seconds, "same": m.result == reference})
            for method in METHODS[2:]:
                plan, m = plans[method], measured[method]
                path = choose_method(plan, len(lake_schema(spark, lake, plan.all_files).fields))
                df = nanstats.spark.read(spark, lake, pred, scan_plan=plan)
                spark.conf.set("spark.sql.parquet.filterPushdown", "false")
                same = m.result == reference and df.exceptAll(full).isEmpty() \
                    and full.exceptAll(df).isEmpty()
                spark.conf.set("spark.sql.parquet.filterPushdown", previous)
                results.append({
                    "query": q, "method": method, **_counted(m), "path": path,
                    "pages_kept": pages_kept(plan, page_rows), "lake_pages": total_pages,
                    "rows": m.result, "seconds": m.seconds, "same": same})
            if progress is not None:
                progress()
    finally:
        spark.conf.set("spark.sql.parquet.filterPushdown", previous)
    return results


def _console() -> Any:
    try:
        from rich.console import Console

        console = Console()
        if not console.is_terminal and "COLUMNS" not in os.environ:
            # Written to a file or a pipe (CI logs, ``| tee``): rich would wrap the
            # query table at 80 columns; a log has room for all of it.
            console = Console(width=150)
        return console
    except ImportError:  # pragma: no cover - rich is a dependency of the demo
        return None


def _say(console: Any, text: str) -> None:
    if console is None:
        print(text)
    else:
        console.print(text)


def _table(console: Any, title: str, headers: list[str], rows: list[list[Any]]) -> None:
    if console is None:
        print(title)
        for r in [headers, *rows]:
            print("  " + " | ".join(str(c) for c in r))
        return
    from rich.table import Table

    table = Table(*headers, title=title)
    for r in rows:
        table.add_row(*(str(c) for c in r))
    console.print(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m demo",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--input", help="a folder of Parquet files (default: generate one)")
    parser.add_argument("--lake", help="where the lake, its index and the upgraded copy go: "
                        "a folder or an object-store URI (default: in --output)")
    parser.add_argument("--output", help="where to write the report (and, without --lake, "
                        "the lake; default: a new temporary folder)")
    parser.add_argument("--spark-conf", action="append", default=[], metavar="KEY=VALUE",
                        help="a Spark setting for the demo's session (repeatable)")
    parser.add_argument("--master", default="local[2]", help="Spark master URL")
    parser.add_argument("--rows", type=int, default=2_000_000, help="rows of the sample lake")
    parser.add_argument("--repeat", type=int, default=3,
                        help="query timings: best of this many runs, taken in turn")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

    import nanstats.spark
    from demo.lake import make_float16_files, make_lake
    from demo.object_store import connect, spark_uri
    from nanstats.lake.fs import join_path, resolve
    from nanstats.lake.listing import list_parquet_files
    from nanstats.spark.session import local_session

    console = _console()
    output = args.output or tempfile.mkdtemp(prefix="nanstats-demo-")
    os.makedirs(output, exist_ok=True)
    started = time.perf_counter()
    from pyspark.sql import SparkSession

    own_session = SparkSession.getActiveSession() is None
    from demo.measure import SESSION_CONF

    conf = dict(SESSION_CONF)
    for item in args.spark_conf:
        key, sep, value = item.partition("=")
        if not sep:
            parser.error(f"--spark-conf takes KEY=VALUE, not {item!r}")
        conf[key] = value
    spark = local_session(args.master, "nanstats-demo",
                          **{k.replace(".", "_"): v for k, v in conf.items()})
    spark.sparkContext.setLogLevel("ERROR")
    root = spark_uri(args.lake) if args.lake else output
    for where in (root, *([spark_uri(args.input)] if args.input else [])):
        connect(spark, where)
    _say(console, f"[bold]nanstats demo[/bold] on Spark {spark.version} ({args.master}); "
                  f"lake in {root}, report in {output}")

    lake16 = None
    if args.input:
        lake = spark_uri(args.input)
    else:
        lake = join_path(root, "lake")
        t = time.perf_counter()
        info = make_lake(spark, lake, rows=args.rows)
        _say(console, f"1. generated a lake of {info['rows']:,} readings in {info['files']} files "
                      f"({info['bytes'] / 1e6:.1f} MB; days {info['spark_days']} by Spark, "
                      f"{info['pyarrow_days']} by pyarrow) in {time.perf_counter() - t:.1f} s")
        lake16 = join_path(root, "lake-float16")
        info16 = make_float16_files(lake16, rows=max(20_000, args.rows // 10))
        _say(console, f"   and {info16['rows']:,} float16 readings in {info16['files']} files "
                      "written by pyarrow (Spark 4.3 cannot read FLOAT16 columns: nanstats "
                      "works on them through pyarrow on the executors)")
    files = list_parquet_files(lake)
    files16 = list_parquet_files(lake16) if lake16 else []

    t = time.perf_counter()
    index = nanstats.spark.index_files(spark, [lake, *([lake16] if lake16 else [])])
    nanstats.spark.save_index(index, join_path(root, "index"))
    index = nanstats.spark.load_index(spark, join_path(root, "index"))
    rows = index.groupBy("column").agg(
        {"page": "count", "nan_count": "sum", "neg_nan_count": "sum", "null_count": "sum"}
    ).collect()
    all_nan = {r.column: r["count"] for r in index.where(
        "nan_count > 0 AND nan_count + null_count = num_values").groupBy("column").count().collect()}
    _table(console, f"2. page index of {len(files) + len(files16)} files "
                    f"({time.perf_counter() - t:.1f} s)",
           ["column", "pages", "all-NaN pages", "NaNs", "of which -NaN", "nulls"],
           [[r.column, r["count(page)"], all_nan.get(r.column, 0), r["sum(nan_count)"],
             r["sum(neg_nan_count)"], r["sum(null_count)"]] for r in sorted(rows)])

    audit = audit_legacy_statistics(files + files16)
    _table(console, "3. what the writers left in the footers (float column chunks)",
           ["finding", "chunks"], [[k, v] for k, v in sorted(audit.items())])

    t = time.perf_counter()
    upgraded = join_path(root, "upgraded")
    results = nanstats.spark.upgrade_files(spark, lake, upgraded).collect()
    errors = [r for r in results if r.error]
    _say(console, f"4. upgraded {len(results) - len(errors)} of {len(results)} files to IEEE 754 "
                  f"total order in {time.perf_counter() - t:.1f} s: "
                  f"{sum(r.column_indexes or 0 for r in results)} column indexes written, "
                  f"{sum(r.bytes_in or 0 for r in results) / 1e6:.1f} MB in, "
                  f"{sum(r.bytes_out or 0 for r in results) / 1e6:.1f} MB out")
    for r in errors:
        _say(console, f"   [red]failed[/red] {r.src}: {r.error}")
    audit_after = audit_legacy_statistics(list_parquet_files(upgraded))
    _say(console, "   after: " + ", ".join(f"{k}: {v}" for k, v in sorted(audit_after.items())))
    clean16 = True
    if lake16:
        upgraded16 = join_path(root, "upgraded-float16")
        results16 = nanstats.spark.upgrade_files(spark, lake16, upgraded16).collect()
        clean16 = not any(r.error for r in results16) and _float16_checked(lake16, upgraded16)
        _say(console, f"   float16 files: {len(results16)} upgraded; nanstats.parquet.verification "
                      "clean and values identical bit for bit: "
                      + ("[green]yes[/green]" if clean16 else "[red]NO[/red]"))

    t = time.perf_counter()
    fields = ["column", "num_values", "null_count", "pos_nan_count", "neg_nan_count",
              "min_bits", "max_bits"]
    before = sorted(tuple(r[f] for f in fields) for r in nanstats.spark.summary(
        spark.read.parquet(lake)).collect())
    after = sorted(tuple(r[f] for f in fields) for r in nanstats.spark.summary(
        spark.read.parquet(upgraded)).collect())
    same = before == after
    _say(console, f"5. Spark reads the same values from both lakes, bit for bit: "
                  f"{'[green]yes[/green]' if same else '[red]NO[/red]'} "
                  f"({time.perf_counter() - t:.1f} s)")
    t = time.perf_counter()
    results = _with_progress(console, "6. queries", len(QUERIES),
                             lambda tick: compare_queries(spark, lake, index, QUERIES, tick,
                                                          args.repeat))
    for i, q in enumerate(QUERIES, 1):
        _say(console, f"   Q{i}: {q}")
    n = len(METHODS)
    _table(console, f"6. the queries four ways, semantics nan_greatest (Spark's) "
                    f"({time.perf_counter() - t:.1f} s)",
           ["Q", "read by", "files", "row groups", "pages", "rows read", "MB read", "rows", "s",
            "right"],
           [[f"Q{1 + i // n}",
             _SHORT[r["method"]] + (" via pyarrow" if r.get("path") == "arrow" else ""),
             r["files"], _maybe(r["row_groups"]), _maybe(r["pages"]),
             _maybe(r["rows_read"]), f"{r['mb']:.1f}", f"{r['rows']:,}",
             f"{r['seconds']:.2f}",
             "yes" if r["same"] else "WRONG" if r["method"] == METHODS[0] else "NO"]
            for i, r in enumerate(results)])
    _say(console, "   counted as each read ran: files, rows read (rows Spark's Parquet "
                  "reader produced) and MB read are Spark's own metrics; via pyarrow "
                  "(when nanstats' cost rule takes that path) its readers count files, "
                  "row groups, data pages (of every column read) and MB; Spark's reader "
                  "counts no row groups or pages (-); s: best of "
                  f"{args.repeat}, taken in turn, nanstats' with planning")
    # The floors under any read: a Spark job, and a Spark job over one Parquet
    # file that needs no page (the rows counted from the footer).
    floor = min(_seconds(lambda: spark.range(1).count()) for _ in range(args.repeat))
    one = min(list_parquet_files(lake), key=lambda f: resolve(f).info().size)
    reader = spark.read.schema(spark.read.parquet(lake).schema).option("basePath", lake)
    file_floor = min(_seconds(lambda: reader.parquet(one).count()) for _ in range(args.repeat))
    _say(console, "   nanstats with its index over Spark's correct scan: " + ", ".join(
        f"Q{i} {r['ratio']:.2f}" + (f" ({r['pages_share']:.0%} of pages)"
                                     if r["pages_share"] <= 0.2 else "")
        for i, r in enumerate(_ratios(results), 1))
        + f"; the floors under any read: a Spark job that counts one row, {floor:.2f} s; "
          f"one that counts a file's rows from its footer, {file_floor:.2f} s")
    identical = all(r["same"] for r in results if r["method"] != METHODS[0])
    _say(console, "   nanstats returns the rows of Spark's correct scan: "
                  + ("[green]yes[/green]" if identical else "[red]NO[/red]"))
    for r in results:
        if r["method"] == METHODS[0] and not r["same"]:
            i = 1 + QUERIES.index(r["query"]) if r["query"] in QUERIES else 0
            reference = next(x["rows"] for x in results
                             if x["query"] == r["query"] and x["method"] == METHODS[1])
            _say(console, f"   [yellow]Spark's own Parquet filter pushdown, trusting the "
                          f"writers' statistics, returns {reference - r['rows']:,} rows fewer "
                          f"for Q{i}[/yellow] (NaN rows its semantics must keep)")
    _write_report(output, results)
    _say(console, f"done in {time.perf_counter() - started:.1f} s; look in {output}")
    if own_session:
        spark.stop()
    return 0 if same and identical and clean16 and not errors else 1


_SHORT = dict(zip(METHODS, ("Spark, pushdown", "Spark, no pushdown", "nanstats, writers'",
                          "nanstats, index"), strict=True))


def _float16_checked(src_dir: str, dst_dir: str) -> bool:
    """verify() finds nothing in the upgraded files, and pyarrow reads the same bits."""
    import numpy as np
    import pyarrow.parquet as papq

    from nanstats.lake.fs import join_path, relative_path, resolve
    from nanstats.lake.listing import list_parquet_files
    from nanstats.parquet.verification import RULES, verify

    def read(path: str) -> Any:
        where = resolve(path)
        return papq.read_table(where.path, filesystem=where.filesystem)

    for src in list_parquet_files(src_dir):
        dst = join_path(dst_dir, relative_path(src, src_dir))
        if any(RULES[v.kind].in_metadata for v in verify(dst)):  # pages are copied as is
            return False
        a, b = read(src), read(dst)
        for name in a.column_names:
            x, y = a.column(name).combine_chunks(), b.column(name).combine_chunks()
            if x.null_count != y.null_count or not x.is_null().equals(y.is_null()):
                return False
            xs = np.asarray(x.fill_null(0).to_numpy(zero_copy_only=False))
            ys = np.asarray(y.fill_null(0).to_numpy(zero_copy_only=False))
            if xs.tobytes() != ys.tobytes():
                return False
    return True


def _with_progress(console: Any, title: str, total: int, work: Any) -> Any:
    if console is None:
        return work(lambda: None)
    from rich.progress import Progress

    with Progress(console=console, transient=True) as progress:
        task = progress.add_task(title, total=total)
        return work(lambda: progress.advance(task))


def _maybe(count: int | None) -> str:
    return "-" if count is None else f"{count:,}"


def _seconds(action: Any) -> float:
    t = time.perf_counter()
    action()
    return time.perf_counter() - t


def _ratios(results: list[dict[str, Any]]) -> list[dict[str, float]]:
    """Per query: nanstats with its index over Spark's correct scan, and its share of pages."""
    out = []
    for q in dict.fromkeys(r["query"] for r in results):
        rows = {r["method"]: r for r in results if r["query"] == q}
        full, ours = rows[METHODS[1]], rows[METHODS[3]]
        out.append({"ratio": ours["seconds"] / full["seconds"],
                    "pages_share": ours["pages_kept"] / ours["lake_pages"]
                    if ours["lake_pages"] else 0.0})
    return out


def _write_report(output: str, results: list[dict[str, Any]]) -> None:
    import json

    with open(os.path.join(output, "queries.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
