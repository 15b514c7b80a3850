"""What the command line prints: the JSON document and the terminal text.

Every command, for one file or many, prints the same JSON document with
``--json`` (``nanstats/schemas/cli.schema.json`` describes it)::

    {"schema_version": 1, "command": "verify", "arguments": {...},
     "files": [{"path": "/abs/a.parquet", "status": "ok", "results": {...}}, ...],
     "errors": [{"path": "/abs/b.parquet", "message": "..."}],
     "summary": {...}}

Names and paths come from files and users: they are printed as text (never
as rich markup), with control characters escaped so that none reaches the
terminal raw.

>>> safe_text("a\\x1b[31mred")
'a\\\\x1b[31mred'
>>> doc = Document("inspect", {"paths": ["a.parquet"], "json": True})
>>> doc.error("a.parquet", "a.parquet: no such file or folder")
>>> sorted(doc.to_dict())
['arguments', 'command', 'errors', 'files', 'schema_version', 'summary']
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from nanstats.lake.fs import absolute_path

#: The version of the JSON document's shape; it changes when a field is
#: removed or changes meaning, not when one is added.
SCHEMA_VERSION = 1


def safe_text(text: object) -> str:
    """``text`` with every non-printable character escaped (``\\x1b``, ``\\n``, ...)."""
    out = []
    for ch in str(text):
        if ch.isprintable():
            out.append(ch)
        else:
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else
                       f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return "".join(out)


def safe_lines(text: object) -> str:
    """:func:`safe_text` line by line: the line breaks of ``text`` stay.

    >>> print(safe_lines("a\\n\\x07b"))
    a
    \\x07b
    """
    return "\n".join(safe_text(line) for line in str(text).split("\n"))


def schema() -> dict[str, Any]:
    """The JSON Schema of the document every command prints with ``--json``.

    >>> schema()["properties"]["schema_version"]["const"]
    1
    """
    text = resources.files("nanstats").joinpath("schemas/cli.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def number_or_text(text: str | None) -> float | str | None:
    """A bound as written in a report: a finite number as a number, else the text.

    >>> number_or_text("1.5"), number_or_text("-0.0"), number_or_text("+nan(0x7ff8000000000000)")
    (1.5, -0.0, '+nan(0x7ff8000000000000)')
    >>> number_or_text("inf"), number_or_text(None)
    ('inf', None)
    """
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        return text
    return value if math.isfinite(value) else text


def _hex(bits: str | None) -> str | None:
    return None if bits is None else f"0x{bits}"


def inspect_results(report: dict[str, Any]) -> dict[str, Any]:
    """An inspect report (``FileReport.to_dict()``) with bounds as numbers, bits as hex."""
    out = dict(report)
    out.pop("path", None)
    columns = []
    for column in report["columns"]:
        chunks = []
        for chunk in column["row_groups"]:
            chunk = dict(chunk)
            st = chunk["statistics"]
            if st is not None:
                st = dict(st)
                for key in ("min", "max", "deprecated_min", "deprecated_max"):
                    st[key] = number_or_text(st[key])
                st["min_bits"], st["max_bits"] = _hex(st["min_bits"]), _hex(st["max_bits"])
                chunk["statistics"] = st
            chunk["pages"] = [{**p, "min": number_or_text(p["min"]),
                               "max": number_or_text(p["max"])} for p in chunk["pages"]]
            chunks.append(chunk)
        columns.append({**column, "row_groups": chunks})
    out["columns"] = columns
    return out


def finding_json(finding: Any) -> dict[str, Any]:
    """One verify finding (a :class:`~nanstats.parquet.verification.Violation`)."""
    d = finding.to_dict()
    return {"severity": d["severity"], "kind": d["kind"], "rule": d["rule"],
            "location": {"column": d["column"], "row_group": d["row_group"],
                         "page": d["page"], "field": d["field"]},
            "found": d["found"], "expected": d["expected"], "engines": d["engines"]}


def _plain(value: Any) -> Any:
    """json.dumps default: numpy scalars, tuples of them and the rest as text."""
    item = getattr(value, "item", None)
    if callable(item):
        return item()
    if isinstance(value, set | frozenset):
        return sorted(value)
    return str(value)


@dataclass
class Document:
    """The JSON document of one command run (see the module docs)."""

    command: str
    arguments: dict[str, Any]
    files: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)

    def file(self, path: str, status: str, results: Any = None,
             error: str | None = None) -> None:
        """A file that was read: ``status`` ``ok`` (``results`` set) or ``error``."""
        entry: dict[str, Any] = {"path": absolute_path(path), "status": status,
                                 "results": results}
        if error is not None:
            entry["error"] = error
        self.files.append(entry)

    def error(self, path: str | None, message: str) -> None:
        """An input that could not be used (with the path at fault, if any)."""
        self.errors.append({"path": None if path is None else absolute_path(path),
                            "message": message})

    def to_dict(self) -> dict[str, Any]:
        """The document as plain Python objects."""
        return {"schema_version": SCHEMA_VERSION, "command": self.command,
                "arguments": self.arguments, "files": self.files, "errors": self.errors,
                "summary": self.summary}

    def dumps(self) -> str:
        """The document as JSON text (NaN and infinities never appear as numbers)."""
        return json.dumps(self.to_dict(), indent=1, default=_plain, allow_nan=False)


__all__ = ["SCHEMA_VERSION", "Document", "finding_json", "inspect_results", "number_or_text",
           "safe_lines", "safe_text", "schema"]
