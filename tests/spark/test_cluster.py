"""nanstats on a real Spark cluster: standalone master and worker on 127.0.0.1,
nanstats shipped to the executors as a packed environment (spark.archives).

``make test-cluster`` runs this file alone; ``make test`` runs it too.  The
packed environment is cached under build/cluster/ (rebuilt when the sources
change); every process the test starts it stops (process groups).
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq
import pytest

import nanstats
from tests.spark import standalone

pytestmark = pytest.mark.cluster


def _lake(root: Path) -> dict[int, pa.Table]:
    """Readings in Hive partitions day=0 and day=1, an int sensor key, a string site
    key, NaNs of both signs."""
    rng = np.random.default_rng(21)
    by_day = {}
    for day in range(2):
        n = 4000
        temp = rng.normal(20, 5, n)
        temp[rng.random(n) < 0.05] = np.nan
        temp[rng.random(n) < 0.02] = -np.nan
        sites = np.array(["north", "south", "Zürich", "east side"])[rng.integers(0, 4, n)]
        table = pa.table({"sensor": pa.array(rng.integers(0, 4, n), pa.int32()),
                          "site": pa.array(sites, pa.string()),
                          "temp": pa.array(temp, mask=rng.random(n) < 0.03)})
        folder = root / f"day={day}"
        folder.mkdir(parents=True)
        papq.write_table(table, folder / "part-0.parquet", row_group_size=1000,
                         data_page_size=2000, write_page_index=True)
        by_day[day] = table
    return by_day


def test_cluster(tmp_path_factory) -> None:
    archive, venv = standalone.packed_env()
    base = tmp_path_factory.mktemp("cluster")
    lake, out, work = base / "lake with space", base / "out", base / "spark"
    tables = _lake(lake)
    job_dir = base / "job"  # the driver runs from a folder holding only the job
    job_dir.mkdir()
    shutil.copy(Path(__file__).with_name("cluster_job.py"), job_dir / "job.py")
    with standalone.standalone_cluster(work) as cluster:
        done = standalone.submit(cluster, archive, venv, job_dir / "job.py", str(lake), str(out))
        pids = [p.pid for p in cluster.processes]
        assert _processes_in(work)  # the master, the worker and its executor
    assert all(_gone(pid) for pid in pids)
    assert _processes_in(work) == []
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("NANSTATS-REPORT ")]
    assert done.returncode == 0 and lines, done.stdout[-3000:] + done.stderr[-5000:]
    report = json.loads(lines[0].split(" ", 1)[1])

    # nanstats came from the archive on the executors and from the packed venv
    # on the driver, never from this source tree.
    assert report["driver"].startswith(str(venv) + os.sep)
    for r in report["executors"]:
        assert r["cwd"].startswith(str(work / "worker"))
        assert r["file"].startswith(os.path.join(r["cwd"], "environment") + os.sep), r
        assert r["python"].startswith(r["cwd"]) and r["threads"] == 1

    whole = pa.concat_tables(tables.values())
    keys = whole.column("sensor").to_numpy()
    expected = {}
    for k in np.unique(keys):
        s = nanstats.summary(whole.column("temp").filter(pa.array(keys == k)))
        expected[int(k)] = (s.num_values, s.null_count, s.nan_count, s.neg_nan_count,
                            s.min_bits, s.max_bits)
    for name in ("summary", "summary_rows"):
        got = {r["sensor"]: (r["num_values"], r["null_count"], r["nan_count"],
                             r["neg_nan_count"], r["min_bits"] % (1 << 64),
                             r["max_bits"] % (1 << 64)) for r in report[name]}
        assert got == expected, name
    sites = whole.column("site").to_numpy(zero_copy_only=False)
    for name in ("summary_site", "summary_site_rows"):
        got = {r["site"]: (r["num_values"], r["nan_count"], r["min_bits"] % (1 << 64),
                           r["max_bits"] % (1 << 64)) for r in report[name]}
        want = {}
        for site in np.unique(sites):
            s = nanstats.summary(whole.column("temp").filter(pa.array(sites == site)))
            want[str(site)] = (s.num_values, s.nan_count, s.min_bits, s.max_bits)
        assert got == want, name
    by_day = {r["day"]: r for r in report["summary_day"]}
    for day, table in tables.items():
        assert by_day[day]["nan_count"] == nanstats.summary(table.column("temp")).nan_count
    for r in report["pandas_udf"]:
        e = expected[r["sensor"]]
        assert (r["temp_num_values"], r["temp_nan_count"], r["temp_min_bits"] % (1 << 64),
                r["temp_max_bits"] % (1 << 64)) == (e[0], e[2], e[4], e[5])

    assert {r["path"] for r in report["index"]} == {
        str(lake / f"day={d}" / "part-0.parquet") for d in tables}
    assert sum(r["num_values"] for r in report["index"]) == whole.num_rows
    assert sum(r["nan_count"] for r in report["index"]) == sum(
        expected[k][2] for k in expected)

    assert [r["error"] for r in report["upgrade"]] == [None, None]
    for day, table in tables.items():
        upgraded = papq.read_table(out / f"day={day}" / "part-0.parquet")
        for a, b in zip(_bits(upgraded["temp"]), _bits(table["temp"]), strict=True):
            np.testing.assert_array_equal(a, b)
    assert sorted(p.name for p in (out / "day=0").iterdir()) == ["part-0.parquet"]

    # Spark's semantics: NaN (either sign) is above every number.
    temps = [t for t in whole.column("temp").to_pylist() if t is not None]
    got = [r["temp"] for r in report["read"]]
    assert sum(map(math.isnan, got)) == sum(map(math.isnan, temps)) > 0
    assert sorted(t for t in got if not math.isnan(t)) == sorted(
        t for t in temps if not math.isnan(t) and t > 25)


def _bits(column: pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    """Validity and the bit patterns of the valid values (NaN != NaN; bits are exact)."""
    array = column.combine_chunks()
    valid = np.asarray(array.is_valid(), dtype=bool)
    data = np.frombuffer(array.buffers()[1], np.uint64)[array.offset:array.offset + len(array)]
    return valid, data[valid]


def _processes_in(folder: Path) -> list[int]:
    """Processes whose working folder is under ``folder`` (Linux /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.readlink(entry / "cwd").startswith(str(folder)):
                    out.append(int(entry.name))
            except OSError:
                continue
    return out


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_docs_give_the_commands_the_test_runs() -> None:
    page = (standalone.ROOT / "docs" / "spark.rst").read_text()
    text = re.sub(r"\s*\\\n\s*", " ", page)  # shell lines continued with a backslash
    for name, command in standalone.COMMANDS.items():
        assert command in text, f"docs/spark.rst does not give the {name} command: {command}"
