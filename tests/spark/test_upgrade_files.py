"""upgrade_files on Spark: every file upgraded, same data, spec statistics."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq
import pytest

import nanstats
import nanstats.spark
from nanstats.lake.listing import list_parquet_files
from nanstats.metadata.footer import read_footer


def test_upgrade_files(spark, tmp_path) -> None:
    src, dst = tmp_path / "src", tmp_path / "dst"
    rng = np.random.default_rng(3)
    for part in range(4):
        folder = src / f"part={part}"
        folder.mkdir(parents=True)
        x = rng.normal(size=2000)
        x[rng.random(2000) < 0.1] = np.nan
        papq.write_table(pa.table({"x": x, "n": np.arange(2000)}), folder / "f.parquet",
                         write_page_index=True)
    (src / "broken.parquet").write_bytes(b"PAR1 not really")
    rows = {r.src: r for r in nanstats.spark.upgrade_files(spark, str(src), str(dst)).collect()}
    assert len(rows) == 5
    broken = rows[str(src / "broken.parquet")]
    assert broken.error is not None and "ParquetFormatError" in broken.error
    for path in list_parquet_files(str(src / "part=0").rsplit("/part=0", 1)[0]):
        if path.endswith("broken.parquet"):
            continue
        r = rows[path]
        assert r.error is None and r.columns_upgraded == 1
        out = r.dst
        footer = read_footer(out)
        assert footer.column_order(0) == "ieee754"
        stats = footer.chunk(0, 0).meta_data.statistics
        expected = nanstats.summary(papq.read_table(path).column("x")).statistics("ieee754")
        assert (stats.nan_count, stats.min_value, stats.max_value) == (
            expected.nan_count, expected.min_value, expected.max_value)
        a, b = papq.read_table(out), papq.read_table(path)
        assert a.schema == b.schema and a["n"].equals(b["n"])
        bits = [t["x"].to_numpy().view(np.uint64) for t in (a, b)]
        np.testing.assert_array_equal(bits[0], bits[1])  # NaN != NaN; bits are exact
    assert not (dst / "broken.parquet").exists()


def test_upgrade_files_refuses_same_folder(spark, tmp_path) -> None:
    with pytest.raises(ValueError, match="must differ"):
        nanstats.spark.upgrade_files(spark, str(tmp_path), str(tmp_path))


def test_upgrade_files_refuses_a_table(spark, tmp_path) -> None:
    from deltalake import write_deltalake

    from nanstats.errors import UnsupportedTableError

    folder = str(tmp_path / "t")
    write_deltalake(folder, pa.table({"k": [1], "x": [np.nan]}), partition_by=["k"])
    for src in (folder, str(tmp_path / "t" / "k=1")):
        with pytest.raises(UnsupportedTableError, match="without the table's log"):
            nanstats.spark.upgrade_files(spark, src, str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()


def test_a_retry_removes_what_a_killed_attempt_left(spark, tmp_path) -> None:
    # Attempt 1 is killed (SIGKILL, as a lost executor) in the middle of its
    # write.  Where its temporary file stays, the retry's commit removes it.
    import os
    import subprocess
    import sys

    src, dst = tmp_path / "src", tmp_path / "dst"
    src.mkdir()
    x = np.random.default_rng(1).normal(size=50_000)
    papq.write_table(pa.table({"x": x}), src / "a.parquet", row_group_size=5000)

    def kill_an_attempt(**env: str) -> None:
        killed = subprocess.run(
            [sys.executable, "-c",
             "import os, signal, sys\n"
             "from nanstats.spark.upgrade import upgrade_one\n"
             "def die(done, total):\n"
             "    if done: os.kill(os.getpid(), signal.SIGKILL)\n"
             "upgrade_one(sys.argv[1], sys.argv[2], 'ieee754', 1, progress=die)\n",
             str(src / "a.parquet"), str(dst / "a.parquet")],
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **env}, timeout=120)
        assert killed.returncode == -9

    # On Linux the upgrade writes an unnamed file (O_TMPFILE): a kill leaves nothing.
    kill_an_attempt()
    assert os.listdir(dst) == []
    # Elsewhere (as with NANSTATS_PORTABLE_IO=1) a named temporary stays behind.
    kill_an_attempt(NANSTATS_PORTABLE_IO="1")
    left = sorted(os.listdir(dst))
    assert len(left) == 1 and left[0].startswith("..a.parquet.attempt-1.nanstats-part.")
    rows = nanstats.spark.upgrade_files(spark, str(src), str(dst)).collect()
    assert [r.error for r in rows] == [None]
    assert sorted(os.listdir(dst)) == ["a.parquet"]
    np.testing.assert_array_equal(papq.read_table(dst / "a.parquet")["x"].to_numpy(), x)


def test_listing_problems_are_rows(spark, tmp_path) -> None:
    import os

    src, dst = tmp_path / "src", tmp_path / "dst"
    src.mkdir()
    papq.write_table(pa.table({"x": [1.0]}), src / "a.parquet")
    os.symlink(tmp_path / "nowhere.parquet", src / "b.parquet")
    rows = {os.path.basename(r.src): r
            for r in nanstats.spark.upgrade_files(spark, str(src), str(dst)).collect()}
    assert rows["a.parquet"].error is None
    assert rows["b.parquet"].dst is None
    assert rows["b.parquet"].error.startswith("dangling_link: a symbolic link to")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="no Parquet file"):
        nanstats.spark.upgrade_files(spark, str(tmp_path / "empty"), str(dst))
