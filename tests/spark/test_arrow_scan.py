"""The pyarrow read path: tasks dealt evenly, bytes counted by the workers, and the cost rule."""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nanstats.parquet.page_reader import ReadCounts, SelectionReader
from nanstats.parquet.reading import selection_bytes
from nanstats.prune.parser import parse
from nanstats.prune.results import RowSelection
from nanstats.spark import plan_scan, read
from nanstats.spark.arrow_scan import bytes_read, counts_since, deal, read_counts
from nanstats.spark.scan import (
    ARROW_FIXED_VALUES,
    ARROW_TASK_VALUES,
    ScanPlan,
    arrow_tasks,
    arrow_values,
    choose_method,
)
from nanstats.spark.sql import to_spark_sql


@settings(max_examples=200, deadline=None)
@given(weights=st.lists(st.integers(0, 10_000), min_size=1, max_size=60),
       parts=st.integers(1, 8))
def test_deal_gives_every_task_once_and_balances(weights, parts) -> None:
    tasks = [{"path": f"f{i % 3}", "row_group": i, "rows": w} for i, w in enumerate(weights)]
    groups = deal(tasks, parts)
    assert 1 <= len(groups) <= min(parts, len(tasks))
    dealt = sorted(t["row_group"] for g in groups for t in g)
    assert dealt == list(range(len(tasks)))
    for g in groups:  # file order kept inside a group
        assert [t["row_group"] for t in g] == sorted(t["row_group"] for t in g)
    loads = [sum(t["rows"] for t in g) for g in groups]
    # Largest first to the lightest: no group exceeds another by more than one task.
    assert max(loads) - min(loads) <= max(weights)


def _plan(kept: int, total: int, predicate: str = "(x > 1)") -> ScanPlan:
    return ScanPlan(predicate, "spark", {"a.parquet": RowSelection({0: ((0, kept),)}, total)},
                    ("a.parquet",), 1, total, {"x": 64})


def test_cost_rule_takes_arrow_only_when_few_rows_are_kept_of_large_files() -> None:
    total = 50_000_000
    assert choose_method(_plan(1_000, total), 8) == "arrow"
    assert choose_method(_plan(total // 2, total), 8) == "native"
    # A small lake: the Python job's fixed cost is more than reading it all in the JVM.
    assert choose_method(_plan(10, ARROW_FIXED_VALUES // 2), 8) == "native"
    # The other columns count (read where rows pass): more of them, native sooner.
    kept = 3_000_000
    assert choose_method(_plan(kept, 20_000_000), 2) == "arrow"
    assert choose_method(_plan(kept, 20_000_000), 40) == "native"


def test_task_rule_splits_only_reads_that_pay_for_another_worker() -> None:
    total = 50_000_000
    # One predicate column of eight: a kept row costs 1 + 0.5 x 7 values.
    assert arrow_values(_plan(1_000, total), 8) == 1_000 * 4.5
    per_task = ARROW_TASK_VALUES / 4.5
    assert arrow_tasks(_plan(10, total), 8, 2) == 1
    assert arrow_tasks(_plan(int(per_task * 1.9), total), 8, 2) == 1
    assert arrow_tasks(_plan(int(per_task * 2.1), total), 8, 2) == 2
    assert arrow_tasks(_plan(int(per_task * 2.1), total), 8, 1) == 1
    assert arrow_tasks(_plan(total, total), 8, 64) == int(total * 4.5 // ARROW_TASK_VALUES)
    assert arrow_tasks(_plan(total, total), 8, 3) == 3
    # Fewer columns, fewer values: the same rows may stay one task.
    assert arrow_tasks(_plan(int(per_task * 2.1), total), 1, 2) == 1


def test_cost_rule_takes_arrow_when_spark_sql_cannot_say_it() -> None:
    plan = ScanPlan("(x > 1)", "ieee", {"a.parquet": RowSelection({0: ((0, 5),)}, 10)},
                    ("a.parquet",), 1, 10, {"x": 64})
    assert choose_method(plan) == "arrow"


@pytest.fixture(scope="module")
def paged_lake(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("paged"))
    rng = np.random.default_rng(7)
    for day in (1, 2):
        os.makedirs(os.path.join(root, f"day={day}"))
        n = 40_000
        x = np.sort(rng.normal(size=n)) * 10
        x[rng.random(n) < 0.01] = np.nan
        papq.write_table(pa.table({"x": x, "k": np.arange(n), "s": [f"s{i % 5}" for i in range(n)]}),
                         os.path.join(root, f"day={day}", "part-0.parquet"),
                         data_page_size=4096, write_page_index=True, row_group_size=10_000)
    return root


def test_arrow_path_counts_the_bytes_its_workers_read(spark, paged_lake) -> None:
    query = "x > 20 and day == 2"
    plan = plan_scan(paged_lake, query)
    before = bytes_read(spark)
    df = read(spark, paged_lake, query, scan_plan=plan, method="arrow")
    got = df.collect()
    counted = bytes_read(spark) - before
    want = spark.read.parquet(paged_lake).where("(x > 20 OR isnan(x)) AND day = 2").count()
    assert len(got) == want > 0 and {r.day for r in got} == {2}
    pages = sum(selection_bytes(p, s, ["x"]) for p, s in plan.selections.items())
    files = sum(os.path.getsize(p) for p in plan.selections)
    # The filter column's kept pages at least (plus footers, page indexes and
    # the other columns where rows passed), never the whole files.
    assert pages <= counted < files


def test_arrow_path_counts_files_row_groups_and_pages_as_its_readers_do(spark, paged_lake
                                                                          ) -> None:
    """The workers' counts, gathered per file, equal fresh readers' counts of the same reads."""
    query = "x < -20 or (k > 39000 and k < 39100)"  # the first and the last row group
    plan = plan_scan(paged_lake, query)
    assert arrow_tasks(plan, 4, 2) == 1  # a small read: one task, one read_where a file
    before = read_counts(spark)
    rows = read(spark, paged_lake, query, scan_plan=plan, method="arrow").count()
    got = counts_since(spark, before)
    schema = spark.read.parquet(paged_lake).schema
    want = ReadCounts()
    for path, sel in plan.selections.items():
        reader = SelectionReader(path)
        day = {"day": pa.scalar(int(path.split("day=")[1][0]), pa.int32())}
        reader.read_where(sel, parse(query), "spark", schema.names, day)
        want += reader.counts()
    assert rows > 0 and got.files == want.files == len(plan.selections) == 2
    assert (got.row_groups, got.pages) == (want.row_groups, want.pages)
    assert got.row_groups == 4 < sum(papq.ParquetFile(p).num_row_groups for p in plan.selections)
    # Footers and page indexes are read once a worker: at most the fresh readers' bytes.
    assert 0 < got.bytes <= want.bytes


def test_arrow_path_returns_sparks_rows_with_partition_values(spark, paged_lake) -> None:
    """Few rows pass: the other columns are read only there; the rows are Spark's correct ones."""
    previous = spark.conf.get("spark.sql.parquet.filterPushdown")
    try:
        spark.conf.set("spark.sql.parquet.filterPushdown", "false")
        for query in ("x < -25", "is_nan(x) or k == 3", "s == 's3' and x > 15",
                      "day == 1 and x > 24"):
            ours = read(spark, paged_lake, query, method="arrow")
            full = spark.read.parquet(paged_lake).where(to_spark_sql(parse(query)))
            assert ours.schema == full.schema
            assert ours.count() == full.count() > 0
            assert ours.exceptAll(full).isEmpty() and full.exceptAll(ours).isEmpty()
    finally:
        spark.conf.set("spark.sql.parquet.filterPushdown", previous)
