"""Encrypted Parquet files are valid files nanstats refuses, never "corrupt" ones."""

from __future__ import annotations

import os

import pyarrow as pa
import pytest

from nanstats.cli import main
from nanstats.errors import ParquetFormatError, UnsupportedParquetError
from nanstats.metadata.footer import read_footer
from nanstats.parquet import inspect, upgrade, verify
from tests.encrypted import write_encrypted

MODES = {"encrypted footer": False, "plaintext footer": True}


@pytest.fixture(params=list(MODES))
def encrypted(request, tmp_path):
    path = str(tmp_path / "enc.parquet")
    table = pa.table({"x": [1.0, float("nan"), -0.0], "s": ["a", "b", "c"]})
    write_encrypted(path, table, plaintext_footer=MODES[request.param],
                    encrypted_columns=["x"])
    return path, request.param


def test_read_footer_names_the_encryption(encrypted) -> None:
    path, mode = encrypted
    with pytest.raises(UnsupportedParquetError, match=rf"enc\.parquet: .*encrypted \({mode}"):
        read_footer(path)


@pytest.mark.parametrize("job", ["inspect", "verify", "upgrade"])
def test_inspect_verify_upgrade_refuse_encrypted_files(encrypted, job, tmp_path) -> None:
    path, _ = encrypted
    dst = str(tmp_path / "out.parquet")
    run = {"inspect": lambda: inspect(path), "verify": lambda: verify(path),
           "upgrade": lambda: upgrade(path, dst)}[job]
    with pytest.raises(UnsupportedParquetError, match="encrypted") as caught:
        run()
    assert not isinstance(caught.value, ParquetFormatError)
    assert not os.path.exists(dst)


def test_cli_reports_encryption_not_corruption(encrypted, capsys) -> None:
    path, _ = encrypted
    assert main(["inspect", path]) == 2
    err = capsys.readouterr().err
    assert "encrypted" in err and "does not start" not in err and "footer bytes" not in err
