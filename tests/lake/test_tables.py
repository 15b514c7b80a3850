"""Delta Lake and Iceberg tables: recognised by their folders, live files read through their libraries."""

from __future__ import annotations

import os
import shutil
import sys

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake

from nanstats.errors import MissingDependencyError, NanstatsError
from nanstats.lake.tables import (
    delta_table,
    iceberg_table,
    open_table,
    table_format,
    table_root,
)

NAN = float("nan")


def data(n: int = 6) -> pa.Table:
    x = [1.5, NAN, -0.0, None, 0.0, -NAN][:n]
    return pa.table({"k": pa.array([i % 2 for i in range(n)], pa.int32()),
                     "x": pa.array(x, pa.float64()),
                     "y": pa.array([None if v is None else v for v in x], pa.float32())})


@pytest.mark.parametrize("partition_by", [None, ["k"]])
def test_delta_live_files_are_the_logs_not_the_folders(tmp_path, partition_by):
    folder = str(tmp_path / "events")
    write_deltalake(folder, data(), partition_by=partition_by)
    write_deltalake(folder, data(4), partition_by=partition_by, mode="overwrite")
    assert table_format(folder) == "delta"
    table = open_table(folder)
    on_disk = sorted(os.path.join(d, f) for d, _, fs in os.walk(folder) for f in fs
                     if f.endswith(".parquet"))
    live = sorted(DeltaTable(folder).file_uris())
    assert table.format == "delta" and table.version == 1
    assert table.paths == live
    assert len(on_disk) > len(live)  # the overwritten files are still there, and not listed
    assert sum(f.records for f in table.files) == 4
    if partition_by:
        assert {f.partition["k"] for f in table.files} == {0, 1}
    old = delta_table(folder, version=0)
    assert old.version == 0 and sorted(old.paths) == sorted(DeltaTable(folder, version=0)
                                                            .file_uris())


def test_delta_paths_with_escaped_partition_values(tmp_path):
    folder = str(tmp_path / "t")
    write_deltalake(folder, pa.table({"k": ["a b", "c%d"], "x": [1.0, NAN]}), partition_by=["k"])
    table = open_table(folder)
    assert all(os.path.isfile(p) for p in table.paths)
    assert sorted(table.paths) == sorted(DeltaTable(folder).file_uris())


def test_not_a_table(tmp_path):
    assert table_format(str(tmp_path)) is None
    assert table_format(str(tmp_path / "missing")) is None
    with pytest.raises(ValueError, match="not a Delta Lake or Iceberg table"):
        open_table(str(tmp_path))
    assert table_root(str(tmp_path)) is None


def test_table_root_of_a_partition_folder_and_a_data_file(tmp_path):
    folder = str(tmp_path / "t")
    write_deltalake(folder, data(), partition_by=["k"])
    some_file = open_table(folder).paths[0]
    assert table_root(os.path.dirname(some_file)) == ("delta", folder)
    assert table_root(some_file) == ("delta", folder)


@pytest.mark.parametrize("partitioned", [False, True])
def test_iceberg_from_catalog_and_from_folder(catalog, partitioned):
    table = catalog.create_table("lake.t", schema=data().schema)
    if partitioned:
        with table.update_spec() as spec:
            spec.add_identity("k")
    table.append(data())
    table.append(data(4))
    lake = iceberg_table(catalog, "lake.t")
    planned = sorted(t.file.file_path for t in table.scan().plan_files())
    assert lake.format == "iceberg" and lake.commit_refusal is None
    assert [f.log_path for f in lake.files] == planned
    assert all(os.path.isfile(p) for p in lake.paths)
    assert sum(f.records for f in lake.files) == 10
    if partitioned:
        assert {f.partition["k"] for f in lake.files} == {0, 1}
    folder = table.location().removeprefix("file://")
    assert table_format(folder) == "iceberg"
    static = open_table(folder)
    assert static.paths == lake.paths and static.version == lake.version
    assert static.commit_refusal is not None and "catalog" in static.commit_refusal
    assert table_root(os.path.dirname(lake.paths[0])) == ("iceberg", folder)


def test_iceberg_folder_follows_the_metadata_not_the_names(catalog):
    table = catalog.create_table("lake.t", schema=data().schema)
    table.append(data())
    table.append(data(4))
    folder = table.location().removeprefix("file://")
    metadata = os.path.join(folder, "metadata")
    current = table.metadata_location.removeprefix("file://")
    # a name that sorts after every other, holding an older version
    oldest = min(f for f in os.listdir(metadata) if f.endswith(".metadata.json"))
    shutil.copy(os.path.join(metadata, oldest), os.path.join(metadata, "99999-zz.metadata.json"))
    assert open_table(folder).version == table.current_snapshot().snapshot_id
    # two files equally new: which one is current only the catalog knows
    shutil.copy(current, os.path.join(metadata, "99998-copy.metadata.json"))
    with pytest.raises(NanstatsError, match="equally new"):
        open_table(folder)
    # ... or a version hint
    with open(os.path.join(metadata, "version-hint.text"), "w") as f:
        f.write(os.path.basename(current).removesuffix(".metadata.json"))
    assert open_table(folder).version == table.current_snapshot().snapshot_id


def test_iceberg_table_without_snapshots(catalog):
    catalog.create_table("lake.empty", schema=data().schema)
    lake = iceberg_table(catalog, "lake.empty")
    assert lake.files == () and lake.version is None


def test_missing_library_names_the_extra(tmp_path, monkeypatch):
    folder = str(tmp_path / "t")
    write_deltalake(folder, data())
    monkeypatch.setitem(sys.modules, "deltalake", None)
    with pytest.raises(MissingDependencyError, match=r"parquet-nanstats\[delta\]"):
        open_table(folder)
    monkeypatch.setitem(sys.modules, "pyiceberg.catalog", None)
    with pytest.raises(MissingDependencyError, match=r"parquet-nanstats\[iceberg\]"):
        iceberg_table("any", "lake.t")


def test_delta_on_s3(s3):
    uri = f"s3://{s3.bucket}/events"
    write_deltalake(uri, data(), partition_by=["k"])
    assert table_format(uri) == "delta"
    table = open_table(uri)
    assert table.paths == sorted(DeltaTable(uri).file_uris())
    assert all(p.startswith(f"s3://{s3.bucket}/events/k=") for p in table.paths)
    keys = s3.keys(s3.bucket)
    assert all(p.removeprefix(f"s3://{s3.bucket}/") in keys for p in table.paths)
