"""nanstats.spark.read against Spark's own scans of the same lake, interleaved, best of N.

Builds (or reuses, under ``--work``) the demo's sensor lake
(``demo.lake.make_lake``: half the days written by Spark, half by pyarrow,
NaN bursts), an upgraded copy (``nanstats.spark.upgrade_files``) and its
statistics table (``nanstats.spark.index_files``, kept in memory as Arrow),
then for every query counts the matching rows these ways, in turn, ``--repeat``
times, and keeps each one's best time:

* Spark with its Parquet filter pushdown on (the default): it trusts the
  writers' float statistics, so it may lose NaN rows (marked ``WRONG``);
* Spark with pushdown off: the correct full scan, the reference;
* ``nanstats.spark.read`` with the index (planning included), the path
  chosen by its cost rule (``method="auto"``); and each candidate path
  forced (``"native"``: Spark's reader over the kept files; ``"arrow"``:
  pyarrow in the Python workers over the kept pages), for the rule's record.

It prints rows, bytes read (Spark's input metrics plus what nanstats'
Python workers read), seconds, the share of
float-column pages the plan keeps, the planning time, and the ratios the
targets are about: nanstats over the correct scan (target <= 1.0 for every
query, <= 0.5 when the plan keeps <= 20% of the pages) and planning over
nanstats' read (target < 0.10).  Once per query it also counts with Spark's
pushdown on over the *upgraded* copy (rows and bytes: whether Spark's reader
can use the upgraded statistics to skip anything).

``--breakdown`` prints instead where nanstats' read spends its time, per
query, each part best of ``--repeat``: planning (index to plan), the key
range search, building the DataFrame on the driver, the count job, the
count job with a condition that reads the same columns but is always true
(so the exact filter's share is the difference), a trivial Spark job (the
floor of job set-up) and the schema inference job a read without a schema
runs (nanstats keeps the schema; Spark's full scan pays it every time).

``--tasks`` prints instead, per query, the pyarrow path read by one task and
by one task a core, with the values it decodes by the cost rule and the
tasks the rule gives (``nanstats.spark.scan.arrow_tasks``).

Usage: python benchmarks/spark_read.py [--rows 16000000] [--days 4] [--repeat 3]
                                       [--work DIR] [--master local[2]] [--csv FILE]
                                       [--breakdown | --tasks]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import warnings
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def prepare(spark: Any, work: str, rows: int, days: int) -> dict[str, str]:
    """The legacy lake, its upgraded copy and the index under ``work`` (reused when there)."""
    import nanstats.spark
    from demo.lake import make_lake

    paths = {"legacy": os.path.join(work, "legacy"), "upgraded": os.path.join(work, "upgraded"),
             "index": os.path.join(work, "index")}
    marker = os.path.join(work, "lake.json")
    wanted = {"rows": rows, "days": days}
    if os.path.exists(marker):
        with open(marker) as f:
            if json.load(f) == wanted:
                return paths
    os.makedirs(work, exist_ok=True)
    make_lake(spark, paths["legacy"], rows=rows, days=days)
    failed = [r for r in nanstats.spark.upgrade_files(spark, paths["legacy"],
                                                      paths["upgraded"]).collect() if r.error]
    if failed:
        raise RuntimeError(f"upgrade failed: {failed}")
    nanstats.spark.save_index(nanstats.spark.index_files(spark, paths["upgraded"]),
                              paths["index"])
    with open(marker, "w") as f:
        json.dump(wanted, f)
    return paths


def run(spark: Any, paths: dict[str, str], queries: list[str], repeat: int
        ) -> list[dict[str, Any]]:
    """Each query three ways, interleaved, best of ``repeat``."""
    import nanstats.spark
    from demo.job import page_share
    from demo.measure import measure
    from nanstats.prune.parser import parse
    from nanstats.spark.native_scan import lake_schema
    from nanstats.spark.scan import choose_method
    from nanstats.spark.sql import to_spark_sql

    index = nanstats.spark.load_index(spark, paths["index"]).toArrow()
    legacy, upgraded = paths["legacy"], paths["upgraded"]
    previous = spark.conf.get("spark.sql.parquet.filterPushdown")
    out = []
    try:
        for q in queries:
            pred = parse(q)
            sql = to_spark_sql(pred)
            best: dict[str, Any] = {}

            def keep(name: str, m: Any, best: dict[str, Any] = best) -> None:
                if name not in best or m.seconds < best[name].seconds:
                    best[name] = m

            for _ in range(repeat):
                spark.conf.set("spark.sql.parquet.filterPushdown", "true")
                keep("pushdown", measure(spark, lambda sql=sql: spark.read.parquet(legacy)
                                         .where(sql).count()))
                spark.conf.set("spark.sql.parquet.filterPushdown", "false")
                keep("full", measure(spark, lambda sql=sql: spark.read.parquet(legacy)
                                     .where(sql).count()))
                spark.conf.set("spark.sql.parquet.filterPushdown", previous)
                t = time.perf_counter()
                plan = nanstats.spark.plan_scan(index, pred, path=upgraded)
                plan_seconds = time.perf_counter() - t
                # nanstats' choice (method="auto", the default), then each
                # candidate path forced, for the cost rule's record.
                for name, method in (("nanstats", "auto"), ("native", "native"),
                                     ("arrow", "arrow")):
                    m = measure(spark, lambda plan=plan, pred=pred, method=method:
                                nanstats.spark.read(spark, upgraded, pred, scan_plan=plan,
                                                    method=method).count())
                    keep(name, m.plus_seconds(plan_seconds))
                if "plan" not in best or plan_seconds < best["plan"]:
                    best["plan"] = plan_seconds
                    best["plan_obj"] = plan
            share = page_share(best["plan_obj"], index)
            schema = lake_schema(spark, upgraded, best["plan_obj"].all_files)
            chosen = choose_method(best["plan_obj"], len(schema.fields))
            spark.conf.set("spark.sql.parquet.filterPushdown", "true")
            on_upgraded = measure(spark, lambda sql=sql: spark.read.parquet(upgraded)
                                  .where(sql).count())
            spark.conf.set("spark.sql.parquet.filterPushdown", previous)
            out.append({"query": q, "pages_kept": share, "chosen": chosen,
                        "plan_seconds": best["plan"],
                        "upgraded_pushdown_rows": on_upgraded.result,
                        "upgraded_pushdown_bytes": on_upgraded.bytes_read,
                        **{f"{k}_{f}": getattr(best[k], a) for k in ("pushdown", "full", "nanstats", "native", "arrow")
                           for f, a in (("rows", "result"), ("seconds", "seconds"),
                                        ("bytes", "bytes_read"))}})
    finally:
        spark.conf.set("spark.sql.parquet.filterPushdown", previous)
    return out


def report(results: list[dict[str, Any]], rows: int, repeat: int) -> bool:
    """Print the table and the targets; True when every target holds."""
    print(f"\n{rows:,}-row lake, best of {repeat}, interleaved; seconds include Spark's job "
          "set-up; nanstats' include planning")
    header = (f"{'query':<52} {'pages':>6} | {'pushdown on':>22} | {'pushdown off':>16} | "
              f"{'nanstats':>16} | {'ratio':>5} {'plan':>5}")
    print(header)
    print("-" * len(header))
    ok = True
    for r in results:
        wrong = r["pushdown_rows"] != r["full_rows"]
        ratio = r["nanstats_seconds"] / r["full_seconds"]
        plan_share = r["plan_seconds"] / r["nanstats_seconds"]
        target = 0.5 if r["pages_kept"] <= 0.20 else 1.0
        hit = ratio <= target and plan_share < 0.10 and r["nanstats_rows"] == r["full_rows"]
        ok &= hit
        print(f"{r['query']:<52} {r['pages_kept']:>6.0%} | "
              f"{r['pushdown_rows']:>10,}{'!' if wrong else ' '} {r['pushdown_bytes'] / 1e6:>5.0f}MB "
              f"{r['pushdown_seconds']:>4.2f}s | "
              f"{r['full_bytes'] / 1e6:>5.0f}MB {r['full_seconds']:>5.2f}s | "
              f"{r['nanstats_bytes'] / 1e6:>5.0f}MB {r['nanstats_seconds']:>5.2f}s | "
              f"{ratio:>5.2f} {plan_share:>5.2f}{'' if hit else '  (target missed)'}")
        cand = "; ".join(f"{k} {r[k + '_seconds']:.2f}s {r[k + '_bytes'] / 1e6:.0f}MB "
                         f"(ratio {r[k + '_seconds'] / r['full_seconds']:.2f})"
                         for k in ("native", "arrow"))
        print(f"{'':<52} {'':>6}   chose {r['chosen']}; candidates: {cand}; Spark's pushdown "
              f"on the upgraded copy: {r['upgraded_pushdown_rows']:,} rows, "
              f"{r['upgraded_pushdown_bytes'] / 1e6:.0f}MB")
        ok &= r["native_rows"] == r["arrow_rows"] == r["full_rows"]
    print("\n! rows lost by Spark's pushdown (NaN rows its own semantics must return).")
    print("ratio = nanstats / Spark pushdown off (target <= 1.0; <= 0.5 when pages <= 20%); "
          "plan = planning / nanstats (target < 0.10)")
    print("targets: " + ("all hold" if ok else "MISSED"))
    return ok


def write_csv(results: list[dict[str, Any]], path: str) -> None:
    """The table as CSV: seconds best of the run, ratios to Spark's correct scan."""
    import csv

    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["query", "pages kept", "Spark, pushdown off (s, MB)",
                    "nanstats (s, MB)", "ratio", "path taken",
                    "Spark's reader forced (ratio)", "pyarrow forced (ratio)", "planning"])
        for r in results:
            full = r["full_seconds"]
            w.writerow([f"``{r['query']}``", f"{r['pages_kept']:.0%}",
                        f"{full:.2f}, {r['full_bytes'] / 1e6:.0f}",
                        f"{r['nanstats_seconds']:.2f}, {r['nanstats_bytes'] / 1e6:.0f}",
                        f"{r['nanstats_seconds'] / full:.2f}",
                        "pyarrow" if r["chosen"] == "arrow" else "Spark's reader",
                        f"{r['native_seconds'] / full:.2f}", f"{r['arrow_seconds'] / full:.2f}",
                        f"{r['plan_seconds'] / r['nanstats_seconds']:.0%}"])


def breakdown(spark: Any, paths: dict[str, str], queries: list[str], repeat: int) -> None:
    """Print where nanstats' read spends its time, part by part, best of ``repeat``."""
    import nanstats.spark
    from nanstats.spark.arrow_scan import arrow_frame
    from nanstats.spark.native_scan import lake_schema, native_frame, plan_key_ranges
    from nanstats.spark.scan import arrow_tasks

    index = nanstats.spark.load_index(spark, paths["index"]).toArrow()
    upgraded = paths["upgraded"]

    def best(action: Any) -> tuple[float, Any]:
        seconds, result = float("inf"), None
        for _ in range(repeat):
            t = time.perf_counter()
            result = action()
            seconds = min(seconds, time.perf_counter() - t)
        return seconds, result

    cores = spark.sparkContext.defaultParallelism
    empty = spark.range(0, cores, 1, cores)
    single = spark.range(0, 1, 1, 1)
    for _ in range(repeat):  # warm: the JVM's code and the Python workers
        spark.range(1).count()
        empty.mapInArrow(_no_rows, empty.schema).count()
        single.mapInArrow(_no_rows, single.schema).count()
    floor, _ = best(lambda: spark.range(1).count())
    inference, _ = best(lambda: spark.read.parquet(upgraded).schema)
    py_floor, _ = best(lambda: empty.mapInArrow(_no_rows, empty.schema).count())
    py_one, _ = best(lambda: single.mapInArrow(_no_rows, single.schema).count())
    print(f"\nbest of {repeat}, in seconds; a trivial Spark job (count of one row): "
          f"{floor:.3f}; a Python job that reads nothing (the pyarrow path's floor), of one "
          f"task: {py_one:.3f}, of one task per core: {py_floor:.3f}; the schema inference "
          f"job a read without a schema runs: {inference:.3f}")
    print("native path: plan, key ranges, DataFrame, count job, the same job without the "
          "exact filter, the filter's share; pyarrow path: DataFrame, count job")
    print(f"{'query':<56} {'plan':>6} {'keys':>6} {'frame':>6} {'count':>6} "
          f"{'no filter':>9} {'filter':>6} | {'frame':>6} {'count':>6}")
    for q in queries:
        plan_s, plan = best(lambda q=q: nanstats.spark.plan_scan(index, q, path=upgraded))
        keys_s, keys = best(lambda plan=plan: plan_key_ranges(plan))
        frame_s, df = best(lambda plan=plan, keys=keys: native_frame(spark, upgraded, plan,
                                                                   keys=keys))
        count_s, _ = best(lambda df=df: df.count())
        # The same files and columns, a condition always true (NaN is greatest,
        # null made true) that Spark neither folds nor pushes: the read without
        # the exact filter (one comparison per column left).
        schema = lake_schema(spark, upgraded, plan.all_files)
        names = sorted(parse_columns(q))
        trivial = " AND ".join(f"coalesce((`{n}` + 0.0D) >= CAST('-Infinity' AS DOUBLE), true)"
                               for n in names)
        files = plan.files if len(plan.files) < len(plan.all_files) else [upgraded]
        reader = spark.read.schema(schema)
        if len(files) > 1 or files[0] != upgraded:
            reader = reader.option("basePath", upgraded)
        bare_s, _ = best(lambda reader=reader, files=files, trivial=trivial:
                         reader.parquet(*files).where(trivial).count())
        rows = reader.parquet(*files).where(trivial).count()
        if rows != reader.parquet(*files).count():
            raise AssertionError(f"the always-true condition dropped rows: {trivial}")
        arrow_frame_s, adf = best(lambda plan=plan, schema=schema: arrow_frame(
            spark, upgraded, plan, schema, tasks=arrow_tasks(plan, len(schema.fields), cores)))
        arrow_count_s, _ = best(lambda adf=adf: adf.count())
        print(f"{q:<56} {plan_s:>6.3f} {keys_s:>6.3f} {frame_s - keys_s:>6.3f} "
              f"{count_s:>6.3f} {bare_s:>9.3f} {count_s - bare_s:>6.3f} | "
              f"{arrow_frame_s:>6.3f} {arrow_count_s:>6.3f}")


def task_counts(spark: Any, paths: dict[str, str], queries: list[str], repeat: int) -> None:
    """The pyarrow path forced, read by one task and by one task per core, in turn, best of
    ``repeat``: the measurement behind ``nanstats.spark.scan.ARROW_TASK_VALUES``."""
    import nanstats.spark
    from nanstats.spark.arrow_scan import arrow_frame
    from nanstats.spark.native_scan import lake_schema
    from nanstats.spark.scan import ARROW_TASK_VALUES, arrow_tasks, arrow_values

    index = nanstats.spark.load_index(spark, paths["index"]).toArrow()
    upgraded = paths["upgraded"]
    cores = spark.sparkContext.defaultParallelism
    print(f"\nthe pyarrow path, one task against {cores} (one a core), best of {repeat} taken "
          f"in turn, seconds; the rule gives one task per {ARROW_TASK_VALUES / 1e6:.0f} M "
          "values decoded")
    print(f"{'query':<56} {'M values':>8} {'rule':>4} {'1 task':>7} {f'{cores} tasks':>8}")
    for q in queries:
        plan = nanstats.spark.plan_scan(index, q, path=upgraded)
        schema = lake_schema(spark, upgraded, plan.all_files)
        frames = {n: arrow_frame(spark, upgraded, plan, schema, tasks=n) for n in (1, cores)}
        best = dict.fromkeys(frames, float("inf"))
        for _ in range(repeat):
            for n, df in frames.items():
                t = time.perf_counter()
                df.count()
                best[n] = min(best[n], time.perf_counter() - t)
        values = arrow_values(plan, len(schema.fields))
        print(f"{q:<56} {values / 1e6:>8.1f} {arrow_tasks(plan, len(schema.fields), cores):>4} "
              f"{best[1]:>7.3f} {best[cores]:>8.3f}")


def _no_rows(batches: Any) -> Any:
    for _ in batches:
        pass
    return iter(())


def parse_columns(query: str) -> set[str]:
    """The columns a query reads."""
    from nanstats.prune.parser import parse

    return set(parse(query).columns())


def main(argv: list[str] | None = None) -> int:
    from demo.job import QUERIES

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=16_000_000)
    parser.add_argument("--days", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--work", help="where the lakes are kept (default: a temporary folder)")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--query", action="append", help="a query (default: the demo's)")
    parser.add_argument("--csv", help="also write the table to this CSV file "
                        "(docs/_generated/spark_read.csv is the one the docs show)")
    parser.add_argument("--breakdown", action="store_true",
                        help="where nanstats' read spends its time, instead of the table")
    parser.add_argument("--tasks", action="store_true",
                        help="the pyarrow path as one task and as one a core, instead of the "
                        "table")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from demo.measure import SESSION_CONF
    from nanstats.spark.session import local_session

    own_session = SparkSession.getActiveSession() is None
    spark = local_session(args.master, "nanstats-spark-read",
                          spark_ui_showConsoleProgress="false",
                          **{k.replace(".", "_"): v for k, v in SESSION_CONF.items()})
    spark.sparkContext.setLogLevel("ERROR")
    work = args.work or tempfile.mkdtemp(prefix="nanstats-spark-read-")
    try:
        paths = prepare(spark, work, args.rows, args.days)
        if args.breakdown:
            breakdown(spark, paths, args.query or list(QUERIES), args.repeat)
            return 0
        if args.tasks:
            task_counts(spark, paths, args.query or list(QUERIES), args.repeat)
            return 0
        results = run(spark, paths, args.query or list(QUERIES), args.repeat)
        ok = report(results, args.rows, args.repeat)
        if args.csv:
            write_csv(results, args.csv)
    finally:
        if own_session:
            spark.stop()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
