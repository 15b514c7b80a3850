"""The typed stub of the Thrift structures (parquet_idl.pyi) matches the IDL."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from nanstats.metadata.thrift import pq

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("thrift_stub", ROOT / "tools" / "thrift_stub.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_stub_is_up_to_date_with_the_idl(tool):
    # If this fails: python tools/thrift_stub.py, and commit the new stub.
    assert tool.STUB.read_text() == tool.render()


def test_stub_changes_when_the_idl_does(tool, tmp_path):
    idl = tmp_path / "changed.thrift"
    text = tool.IDL.read_text()
    idl.write_text(text.replace("  9: optional i64 nan_count", "  9: required i64 nan_count", 1))
    changed = tool.render(idl)
    assert "    nan_count: int\n" in changed and "    nan_count: int | None\n" in tool.render()


def test_stub_declares_every_struct_field_and_constant(tool):
    stub = tool.STUB.read_text()
    names = [n for n in vars(pq) if not n.startswith("_")]
    for name in names:
        value = getattr(pq, name)
        if isinstance(value, int):
            assert f"\n{name}: Final[int]\n" in stub, name
        elif hasattr(value, "thrift_spec"):
            assert f"\nclass {name}:\n" in stub, name
            for entry in value.thrift_spec.values():
                assert f"    {entry[1]}: " in stub, (name, entry[1])
    assert "    statistics: Statistics | None\n" in stub
    assert "    path_in_schema: list[bytes] | None\n" in stub
