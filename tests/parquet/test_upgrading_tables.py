"""upgrade_table: a Delta Lake or Iceberg table upgraded in place, committed through its library.

After the upgrade the table's library reads the same rows (bit for bit) at
the new version and, by time travel, at the previous one (from the old
files); DuckDB and Spark reading the live files directly see them too; the
new files verify clean and keep what the log and the engines rely on
(Iceberg field ids, Delta per-file statistics).
"""

from __future__ import annotations

import json
import os
import struct
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as papq
import pytest
from deltalake import DeltaTable, write_deltalake

import nanstats.parquet
from nanstats.errors import UnsupportedTableError
from nanstats.lake.tables import delta_table, iceberg_table, open_table
from nanstats.metadata.footer import read_footer
from nanstats.parquet.upgrading import tables as upgrading_tables
from nanstats.parquet.upgrading.tables import upgrade_table

NAN = float("nan")
NEG_NAN = struct.unpack("<d", struct.pack("<Q", 0xFFF8000000000000))[0]


def data(n: int = 8, offset: int = 0) -> pa.Table:
    x = [1.5, NAN, -0.0, None, 0.0, NEG_NAN, -2.5, 7.0][:n]
    return pa.table({
        "k": pa.array([(i + offset) % 3 for i in range(n)], pa.int32()),
        "x": pa.array(x, pa.float64()),
        "y": pa.array([None if v is None else -v for v in reversed(x)], pa.float32()),
        "s": pa.array([f"r{i + offset}" for i in range(n)]),
    })


def _cell(value: Any) -> Any:
    # floats by their bits: NaN signs and -0.0 count
    return ("f", struct.pack("<d", value)) if isinstance(value, float) else value


def rows(table: Any, columns: list[str] | None = None) -> list[tuple[Any, ...]]:
    """The rows of an Arrow table (or anything with the Arrow stream interface), bit-exact, sorted."""
    table = pa.table(table)
    names = sorted(columns or table.column_names)
    out = [tuple(_cell(r[n]) for n in names) for r in table.select(names).to_pylist()]
    return sorted(out, key=repr)


def duckdb_rows(paths: list[str], columns: list[str]) -> list[tuple[Any, ...]]:
    quoted = ", ".join(f'"{c}"' for c in sorted(columns))
    files = "[" + ", ".join("'" + p.replace("'", "''") + "'" for p in paths) + "]"
    with duckdb.connect() as con:
        return rows(con.sql(f"select {quoted} from read_parquet({files})").to_arrow_table())


def assert_clean(paths: list[str]) -> None:
    """No finding about what the files say (findings about the data itself, such as
    a dictionary holding -0.0 without +0.0, are the data's: an upgrade keeps it)."""
    for path in paths:
        found = [v for v in nanstats.parquet.verify(path)
                 if nanstats.parquet.RULES[v.kind].in_metadata]
        assert found == [], path
        report = nanstats.parquet.inspect(path)
        orders = {c.name: c.column_order for c in report.columns}
        assert orders["x"] == "ieee754" and orders["y"] == "ieee754", orders


# -- Delta Lake ----------------------------------------------------------------------------


def _stats(dt: DeltaTable) -> dict[int, Any]:
    """Per-file statistics of the log, by the file's first row (paths change)."""
    out = {}
    for r in pa.table(dt.get_add_actions(flatten=True)).to_pylist():
        r.pop("path"), r.pop("size_bytes"), r.pop("modification_time")
        out[json.dumps(r, default=str, sort_keys=True)] = True
    return out


@pytest.mark.parametrize("partition_by", [None, ["k"]])
def test_delta_upgraded_in_place(tmp_path, partition_by):
    folder = str(tmp_path / "events")
    write_deltalake(folder, data(), partition_by=partition_by)
    write_deltalake(folder, data(5, offset=1), partition_by=partition_by, mode="append")
    before = DeltaTable(folder)
    old_files, old_rows, old_stats = before.file_uris(), rows(before.to_pyarrow_table()), \
        _stats(before)

    report = upgrade_table(folder)

    assert (report.format, report.version_before, report.version_after) == ("delta", 1, 2)
    assert len(report.rewritten) == len(old_files) and report.committed
    after = DeltaTable(folder)
    assert after.version() == 2
    new_files = after.file_uris()
    assert set(new_files).isdisjoint(old_files)
    assert sorted(new_files) == sorted(f.new for f in report.files)
    assert all(os.path.dirname(f.new) == os.path.dirname(f.old) for f in report.files)
    assert rows(after.to_pyarrow_table()) == old_rows
    # time travel: the previous version still reads the old files, which are still there
    previous = DeltaTable(folder, version=1)
    assert sorted(previous.file_uris()) == sorted(old_files)
    assert rows(previous.to_pyarrow_table()) == old_rows
    # the log's per-file statistics stay those of the same rows; no data change recorded
    assert _stats(after) == old_stats
    history = after.history(1)[0]
    assert history["operationParameters"]["mode"] == "Append" and "nanstats" in history
    log = (tmp_path / "events" / "_delta_log" / "00000000000000000002.json").read_text()
    actions = [json.loads(line) for line in log.splitlines()]
    assert all(a["add"]["dataChange"] is False for a in actions if "add" in a)
    assert all(a["remove"]["dataChange"] is False for a in actions if "remove" in a)
    # DuckDB reading the files directly: the same rows, before and after
    data_columns = ["x", "y", "s"] + ([] if partition_by else ["k"])
    assert duckdb_rows(new_files, data_columns) == duckdb_rows(old_files, data_columns)
    assert duckdb_rows(new_files, data_columns) == rows(after.to_pyarrow_table(), data_columns)
    assert_clean(new_files)


def test_delta_upgraded_twice_and_escaped_names(tmp_path):
    folder = str(tmp_path / "t")
    write_deltalake(folder, pa.table({"k": ["a b", "c%d"], "x": [1.0, NAN]}), partition_by=["k"])
    first = upgrade_table(folder)
    second = upgrade_table(folder)
    assert second.version_after == 2
    names = [os.path.basename(f.new) for f in second.files]
    assert all(n.count("-nanstats-") == 1 for n in names)  # the tag is replaced, not stacked
    assert {f.old for f in second.files} == {f.new for f in first.files}
    assert rows(DeltaTable(folder).to_pyarrow_table()) == rows(
        DeltaTable(folder, version=0).to_pyarrow_table())
    assert all(os.path.isfile(p) for p in DeltaTable(folder).file_uris())


def test_delta_without_float_columns_commits_nothing(tmp_path):
    folder = str(tmp_path / "t")
    write_deltalake(folder, pa.table({"n": [1, 2, 3]}))
    report = upgrade_table(folder)
    assert not report.committed and report.version_after == 0
    assert DeltaTable(folder).version() == 0
    assert sorted(os.listdir(folder)) == ["_delta_log", os.path.basename(report.files[0].old)]


def test_delta_failed_commit_leaves_the_table_untouched(tmp_path, monkeypatch):
    folder = str(tmp_path / "t")
    write_deltalake(folder, data(), partition_by=["k"])
    listing = sorted(os.path.join(d, f) for d, _, fs in os.walk(folder) for f in fs)

    def refuse(*args: Any) -> int:
        raise OSError("the log's store went away")

    monkeypatch.setattr(upgrading_tables, "_commit_delta", refuse)
    with pytest.raises(OSError, match="went away"):
        upgrade_table(folder)
    assert sorted(os.path.join(d, f) for d, _, fs in os.walk(folder) for f in fs) == listing
    assert DeltaTable(folder).version() == 0


def test_delta_refuses_what_it_cannot_keep(tmp_path):
    folder = str(tmp_path / "t")
    write_deltalake(folder, data(), configuration={"delta.columnMapping.mode": "name"})
    listing = sorted(os.listdir(folder))
    with pytest.raises(UnsupportedTableError, match="column mapping.*nothing was written"):
        upgrade_table(folder)
    assert DeltaTable(folder).version() == 0 and sorted(os.listdir(folder)) == listing


def test_delta_append_only_table_is_upgraded(tmp_path):
    folder = str(tmp_path / "t")
    write_deltalake(folder, data(), configuration={"delta.appendOnly": "true"})
    report = upgrade_table(folder)
    assert report.version_after == 1
    assert rows(DeltaTable(folder).to_pyarrow_table()) == rows(data())


def test_delta_read_by_spark_from_the_files(tmp_path, spark):
    folder = str(tmp_path / "t")
    write_deltalake(folder, data(), partition_by=["k"])
    old = delta_table(folder).paths
    upgrade_table(folder)
    new = delta_table(folder).paths
    columns = ["x", "y", "s"]

    def spark_rows(paths: list[str]) -> list[tuple[Any, ...]]:
        frame = spark.read.parquet(*paths).select(*columns).toArrow()
        return rows(frame, columns)

    assert spark_rows(new) == spark_rows(old) == duckdb_rows(new, columns)
    nan_rows = spark.read.parquet(*new).where("x = 'NaN' or x > 1.0").count()
    assert nan_rows == 3  # 1.5 and both NaNs (Spark: NaN = NaN, NaN greatest)


def test_delta_upgraded_on_s3(s3, tmp_path):
    uri = f"s3://{s3.bucket}/events"
    write_deltalake(uri, data(), partition_by=["k"])
    write_deltalake(uri, data(5, offset=1), partition_by=["k"], mode="append")
    old = DeltaTable(uri)
    old_files, old_rows = old.file_uris(), rows(old.to_pyarrow_table())
    report = upgrade_table(uri)
    assert report.version_after == 2 and len(report.rewritten) == len(old_files)
    after = DeltaTable(uri)
    assert rows(after.to_pyarrow_table()) == old_rows
    assert rows(DeltaTable(uri, version=1).to_pyarrow_table()) == old_rows
    keys = s3.keys(s3.bucket)
    for path in after.file_uris() + old_files:
        assert path.removeprefix(f"s3://{s3.bucket}/") in keys
    assert not [k for k in keys if "nanstats-tmp" in k]
    # the new objects verify clean (read back from the server)
    client = s3.client()
    for path in after.file_uris():
        key = path.removeprefix(f"s3://{s3.bucket}/")
        local = str(tmp_path / os.path.basename(key))
        client.download_file(s3.bucket, key, local)
        assert_clean([local])


# -- Iceberg -------------------------------------------------------------------------------


@pytest.mark.parametrize("partitioned", [False, True])
def test_iceberg_upgraded_in_place(catalog, partitioned):
    table = catalog.create_table("lake.t", schema=data().schema)
    if partitioned:
        with table.update_spec() as spec:
            spec.add_identity("k")
    table.append(data())
    table.append(data(5, offset=1))
    previous = table.current_snapshot().snapshot_id
    old_files = sorted(t.file.file_path for t in table.scan().plan_files())
    old_rows = rows(table.scan().to_arrow())

    report = upgrade_table(iceberg_table(catalog, "lake.t"))

    table = catalog.load_table("lake.t")
    assert report.version_before == previous
    assert report.version_after == table.current_snapshot().snapshot_id != previous
    tasks = list(table.scan().plan_files())
    new_files = sorted(t.file.file_path for t in tasks)
    assert set(new_files).isdisjoint(old_files) and len(new_files) == len(old_files)
    assert rows(table.scan().to_arrow()) == old_rows
    assert sorted(t.file.file_path for t in table.scan(snapshot_id=previous).plan_files()) \
        == old_files
    assert rows(table.scan(snapshot_id=previous).to_arrow()) == old_rows
    summary = table.current_snapshot().summary
    assert summary["nanstats.operation"] == "upgrade"
    assert summary["total-records"] == "13"
    local = [p.removeprefix("file://") for p in new_files]
    # the field ids of the Parquet schema survive, and the layout facts follow the new files
    for task in tasks:
        path = task.file.file_path.removeprefix("file://")
        schema = papq.read_schema(path)
        assert {f.name: f.metadata[b"PARQUET:field_id"] for f in schema} == {
            "k": b"1", "x": b"2", "y": b"3", "s": b"4"}
        footer = read_footer(path)
        assert task.file.file_size_in_bytes == os.path.getsize(path)
        assert task.file.split_offsets == [footer.chunk_meta(g, 0).data_page_offset
                                           if not footer.chunk_meta(g, 0).dictionary_page_offset
                                           else footer.chunk_meta(g, 0).dictionary_page_offset
                                           for g in range(footer.num_row_groups)]
    columns = ["k", "x", "y", "s"]
    old_local = [p.removeprefix("file://") for p in old_files]
    assert duckdb_rows(local, columns) == duckdb_rows(old_local, columns) == old_rows
    assert_clean(local)
    # a filter pyiceberg evaluates on the files' statistics still finds every row
    assert table.scan(row_filter="x > 1.0").to_arrow().num_rows == 3


def test_iceberg_found_by_its_folder_is_not_upgraded(catalog):
    table = catalog.create_table("lake.t", schema=data().schema)
    table.append(data())
    folder = table.location().removeprefix("file://")
    before = sorted(os.listdir(os.path.join(folder, "data")))
    with pytest.raises(UnsupportedTableError, match="no catalog to commit to.*iceberg_table"):
        upgrade_table(folder)
    assert sorted(os.listdir(os.path.join(folder, "data"))) == before


def test_iceberg_files_of_an_older_spec_are_refused(catalog):
    table = catalog.create_table("lake.t", schema=data().schema)
    table.append(data())
    with table.update_spec() as spec:
        spec.add_identity("k")
    table.append(data())
    with pytest.raises(UnsupportedTableError, match="older partition spec"):
        upgrade_table(iceberg_table(catalog, "lake.t"))
    assert catalog.load_table("lake.t").current_snapshot().snapshot_id \
        == table.current_snapshot().snapshot_id


def test_upgrade_table_needs_a_table(tmp_path):
    with pytest.raises(ValueError, match="not a Delta Lake or Iceberg table"):
        upgrade_table(str(tmp_path))


def test_open_table_then_upgrade(tmp_path):
    folder = str(tmp_path / "t")
    write_deltalake(folder, data())
    lake = open_table(folder)
    report = upgrade_table(lake, "type_order")
    assert report.version_after == 1
    for path in delta_table(folder).paths:
        assert {c.column_order for c in nanstats.parquet.inspect(path).columns
                if c.name in ("x", "y")} == {"type_order"}
        assert nanstats.parquet.verify(path) == []


def test_iceberg_upgraded_on_s3(s3, tmp_path):
    from pyiceberg.catalog.sql import SqlCatalog

    # pyiceberg's file IO takes the endpoint from the catalog's properties
    catalog = SqlCatalog("s3", uri=f"sqlite:///{tmp_path}/c.db",
                         warehouse=f"s3://{s3.bucket}/warehouse",
                         **{"s3.endpoint": s3.endpoint, "s3.region": "us-east-1"})
    catalog.create_namespace("lake")
    table = catalog.create_table("lake.t", schema=data().schema)
    table.append(data())
    previous = table.current_snapshot().snapshot_id
    old_rows = rows(table.scan().to_arrow())
    report = upgrade_table(iceberg_table(catalog, "lake.t"))
    after = catalog.load_table("lake.t")
    assert report.committed and after.current_snapshot().snapshot_id != previous
    assert rows(after.scan().to_arrow()) == old_rows
    assert rows(after.scan(snapshot_id=previous).to_arrow()) == old_rows
    keys = s3.keys(s3.bucket)
    for f in report.files:
        assert f.new.removeprefix(f"s3://{s3.bucket}/") in keys
        assert f.old.removeprefix(f"s3://{s3.bucket}/") in keys


def test_iceberg_format_v1_upgraded(catalog):
    table = catalog.create_table("lake.v1", schema=data().schema,
                                 properties={"format-version": "1"})
    table.append(data())
    table.append(data(5, offset=1))
    previous = table.current_snapshot().snapshot_id
    old_rows = rows(table.scan().to_arrow())
    assert upgrade_table(iceberg_table(catalog, "lake.v1")).committed
    after = catalog.load_table("lake.v1")
    assert after.metadata.format_version == 1
    assert rows(after.scan().to_arrow()) == old_rows
    assert rows(after.scan(snapshot_id=previous).to_arrow()) == old_rows
