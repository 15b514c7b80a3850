"""The ``nanstats`` command line (also ``python -m nanstats``).

    nanstats inspect PATH... [--json]
    nanstats verify PATH... [--details] [--select KIND] [--ignore KIND]
                            [--fail-on error|warning|info] [--json]
    nanstats upgrade SRC DST [--order ieee754|type_order] [--truncate N] [--overwrite]
                             [--no-memory-map] [--json]
    nanstats upgrade TABLE [--catalog NAME] [...]
    nanstats prune PATH... --where "x > 1.5" [--semantics nan_greatest | --engine duckdb]
                           [--explain] [--json]
    nanstats --version

A folder stands for every ``.parquet`` file under it (a Delta Lake or
Iceberg table's folder for the table's live files, read through its library,
and ``upgrade`` of a table commits a new version of it in place); with several files a
progress display runs on stderr when stderr is a terminal (never with
``--json``), and folder commands end with a summary.  ``--json`` prints one
document of the same shape for every command (:mod:`nanstats.cli_output`).

Exit status: 0 on success, 1 when some files failed (``verify``: findings at
or above ``--fail-on``), 2 on unusable input (a missing path, a folder
without Parquet files, an unreadable file, bad arguments).  Errors are one
line on stderr naming the path once, never a traceback.

>>> main(["inspect", "/no/such/file.parquet"])
2
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TextIO

import pyarrow.fs as pafs

from nanstats.cli_output import (
    Document,
    finding_json,
    inspect_results,
    safe_lines,
    safe_text,
)
from nanstats.errors import NanstatsError
from nanstats.lake.fs import absolute_path, is_uri, join_path, relative_path, resolve
from nanstats.lake.listing import Listing, is_glob, list_lake
from nanstats.prune.profiles import ENGINES

#: What a command may raise for one bad input: reported as an error naming
#: the path, never as a traceback.
_INPUT_ERRORS = (NanstatsError, OSError, ValueError, TypeError, KeyError)


def _describe(exc: BaseException, path: str | None) -> str:
    """One line naming ``path`` once: ``path: what went wrong``."""
    if isinstance(exc, OSError) and exc.strerror:
        name = exc.filename if exc.filename is not None else path
        text = exc.strerror if name is None else f"{name}: {exc.strerror}"
    elif isinstance(exc, KeyError) and exc.args:
        text = str(exc.args[0])
    else:
        text = str(exc) or type(exc).__name__
    if path is not None and path not in text:
        text = f"{path}: {text}"
    return safe_text(text)


def _say(args: argparse.Namespace, message: str) -> None:
    print(f"nanstats {args.command}: {safe_text(message)}", file=sys.stderr)


def _listed(path: str, doc: Document) -> Listing:
    """The files under ``path``; entries that could not be listed become errors
    of ``doc``, skipped non-files a note on stderr."""
    listing = list_lake(path)
    for problem in listing.problems:
        if problem.is_error:
            doc.error(problem.path, f"{problem.path}: {problem.reason}")
        else:
            print(f"nanstats: note: {safe_text(problem.path)}: {safe_text(problem.reason)}",
                  file=sys.stderr)
    return listing


def _table_files(path: str, doc: Document) -> list[str] | None:
    """The live files of the Delta Lake or Iceberg table in folder ``path`` (read
    through the table's library); None when ``path`` is no table.  A table
    that cannot be read, or has no live file, is an error of ``doc``."""
    from nanstats.lake.tables import live_files

    try:
        files = live_files(path)
        if files is None:
            return None
    except _INPUT_ERRORS as exc:
        doc.error(path, _describe(exc, path))
        return []
    if not files:
        doc.error(path, f"{path}: nothing to check, the table has no live files")
    return files


def _kind(path: str) -> str:
    """What a PATH argument names: ``file``, ``folder`` (a prefix on object
    stores), ``glob`` or ``missing``.  Raises ValueError (a URI no filesystem
    answers to) or OSError (the store cannot be reached), naming it."""
    if not is_uri(path):
        if os.path.exists(path):
            return "folder" if os.path.isdir(path) else "file"
        return "glob" if is_glob(path) else "missing"
    if is_glob(path):
        return "glob"
    info = resolve(path).info()
    return {pafs.FileType.Directory: "folder",
            pafs.FileType.File: "file"}.get(info.type, "missing")


class _Inputs:
    """The Parquet files named by the PATH arguments, each with the name to show.

    PATH is a local path or a URI (``s3://bucket/lake``), a file, a folder or a
    glob.  A missing path, a folder without Parquet files, or an entry that
    could not be listed (an unreadable folder, a dangling link, a FIFO named
    as a file) is an error: exit status 2.
    """

    def __init__(self, paths: Sequence[str], doc: Document) -> None:
        self.files: list[str] = []
        self.shown: dict[str, str] = {}
        self.unusable = False
        for path in paths:
            live = _table_files(path, doc)
            if live is not None:
                self.unusable |= not live
                for f in live:
                    self.files.append(f)
                    rel = os.path.relpath(f, path) if os.path.isabs(f) else f
                    self.shown[f] = rel if len(paths) == 1 else os.path.join(path, rel)
                continue
            try:
                kind = _kind(path)
            except (ValueError, OSError) as exc:
                self._unusable(doc, path, _describe(exc, path))
                continue
            if kind == "missing":
                self._unusable(doc, path, f"{path}: no such file or folder")
                continue
            before = len(doc.errors)
            found = _listed(path, doc).files
            self.unusable |= len(doc.errors) > before
            if kind == "file":
                self.files += found
                self.shown.update((f, f) for f in found)
                continue
            if not found and len(doc.errors) == before:
                self._unusable(doc, path, f"{path}: nothing to check, no Parquet files "
                               f"{'match' if kind == 'glob' else 'in this folder'}")
            for f in found:
                self.files.append(f)
                rel = relative_path(f, path) if kind == "folder" else f
                self.shown[f] = rel if len(paths) == 1 or kind == "glob" \
                    else join_path(path, rel)

    def _unusable(self, doc: Document, path: str, message: str) -> None:
        doc.error(path, message)
        self.unusable = True


def _progress(count: int, args: argparse.Namespace, what: str) -> Any:
    """A progress display on stderr, on a terminal, for several files (else None)."""
    if getattr(args, "json", False) or count < 2 or not sys.stderr.isatty():
        return None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    return Progress(TextColumn(what), BarColumn(), MofNCompleteColumn(),
                    TextColumn("{task.fields[current]}", markup=False),
                    console=Console(stderr=True), transient=True)


def _each(files: list[str], shown: dict[str, str], args: argparse.Namespace, what: str,
          run: Callable[[str], Any]) -> Iterator[tuple[str, Any, BaseException | None]]:
    """(path, result, None) or (path, None, error) per file, with progress on a terminal."""
    progress = _progress(len(files), args, what)
    if progress is None:
        for path in files:
            try:
                yield path, run(path), None
            except _INPUT_ERRORS as exc:
                yield path, None, exc
        return
    with progress:
        task = progress.add_task(what, total=len(files), current="")
        for path in files:
            progress.update(task, current=safe_text(shown.get(path, path)))
            try:
                result, error = run(path), None
            except _INPUT_ERRORS as exc:
                result, error = None, exc
            progress.advance(task)
            yield path, result, error


def _console(file: TextIO | None = None) -> Any:
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:  # rich would exit with status 1 itself
            raise BrokenPipeError

    out = file or sys.stdout
    # On a terminal rich takes its width; elsewhere 80 columns, wrapped, never cut.
    return _Console(file=out, width=None if out.isatty() else 80, highlight=False,
                   soft_wrap=False, markup=False, emoji=False)


def _text(value: object) -> Any:
    from rich.text import Text

    return Text(safe_text("" if value is None else value))


def _arguments(args: argparse.Namespace) -> dict[str, Any]:
    return {k: v for k, v in vars(args).items() if k not in ("run", "command")}


def _finish(args: argparse.Namespace, doc: Document) -> None:
    """Print the JSON document (with --json) and the errors, one line each, on stderr."""
    if args.json:
        print(doc.dumps())
    for error in doc.errors:
        _say(args, error["message"])


def _inspect(args: argparse.Namespace) -> int:
    from nanstats.parquet.inspection import inspect

    doc = Document("inspect", _arguments(args))
    inputs = _Inputs(args.paths, doc)
    texts = []
    for path, report, error in _each(inputs.files, inputs.shown, args, "inspecting", inspect):
        if error is not None:
            message = _describe(error, path)
            doc.file(path, "error", error=message)
            doc.error(path, message)
        else:
            doc.file(path, "ok", inspect_results(report.to_dict()))
            texts.append(safe_lines(report))
    ok = sum(1 for f in doc.files if f["status"] == "ok")
    doc.summary = {"files": len(doc.files), "read": ok, "failed": len(doc.files) - ok}
    if not args.json and texts:
        print("\n\n".join(texts))
    _finish(args, doc)
    if not args.json and len(inputs.files) > 1:
        print(f"{ok} of {len(inputs.files)} file(s) inspected"
              + (f", {len(doc.files) - ok} unreadable" if ok < len(doc.files) else ""))
    if inputs.unusable or (len(args.paths) == 1 and len(doc.files) == 1 and ok == 0):
        return 2
    return 1 if ok < len(doc.files) else 0


def _kinds(text: str) -> list[str]:
    from nanstats.parquet.verification import RULES

    kinds = [k.strip() for k in text.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in RULES]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown kind {', '.join(unknown)} (kinds: {', '.join(RULES)})")
    return kinds


def _verify(args: argparse.Namespace) -> int:
    from nanstats.parquet.verification import RULES, SEVERITIES, kinds_at_least, verify

    doc = Document("verify", _arguments(args))
    inputs = _Inputs(args.paths, doc)
    select = {k for group in args.select or [] for k in group} or set(RULES)
    select -= {k for group in args.ignore or [] for k in group}
    failing = kinds_at_least(args.fail_on)
    findings: list[Any] = []
    checked = 0
    for path, found, error in _each(inputs.files, inputs.shown, args, "verifying", verify):
        if error is not None:
            message = _describe(error, path)
            doc.file(path, "error", error=message)
            doc.error(path, message)
            continue
        checked += 1
        kept = [v for v in found if v.kind in select]
        findings += kept
        doc.file(path, "ok", {"findings": [finding_json(v) for v in kept]})
    by_kind = _by_kind(findings, RULES)
    by_severity: dict[str, int] = {s: sum(1 for v in findings if v.severity == s)
                                   for s in SEVERITIES}
    failed = any(v.kind in failing for v in findings)
    doc.summary = {"files_checked": checked,
                   "files_with_findings": len({v.file for v in findings}),
                   "by_severity": by_severity, "by_kind": by_kind,
                   "fail_on": args.fail_on, "failed": failed}
    if not args.json:
        for entry in doc.errors:  # first, so that the verdict is the last line
            _say(args, entry["message"])
        console = _console()
        if args.details and findings:
            for v in findings:
                console.print(_text(_detail(v, inputs.shown)), soft_wrap=True)  # grep-able
        elif by_kind:
            console.print(_summary_table(by_kind))
            for line in _summary_notes(by_kind):  # whole lines: paths stay copyable
                console.print(_text(line), soft_wrap=True)
        console.print(_text(_verdict(checked, findings, by_severity, args, failed,
                                     len(doc.errors))), soft_wrap=True)
    elif args.json:
        _finish(args, doc)
    if doc.errors or checked == 0:
        return 2
    return 1 if failed else 0


def _by_kind(findings: list[Any], rules: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per kind, gravest first: severity, findings, files, chunks, pages, an example."""
    from nanstats.parquet.verification import SEVERITIES

    out: dict[str, dict[str, Any]] = {}
    kinds = sorted({v.kind for v in findings},
                   key=lambda k: (SEVERITIES.index(rules[k].severity), list(rules).index(k)))
    for kind in kinds:
        mine = [v for v in findings if v.kind == kind]
        first = mine[0]
        where = [f"column {first.column!r}"]
        if first.row_group is not None:
            where.append(f"row group {first.row_group}")
        if first.page is not None:
            where.append(f"page {first.page}")
        out[kind] = {
            "severity": rules[kind].severity, "findings": len(mine),
            "files": len({v.file for v in mine}),
            "chunks": len({(v.file, v.row_group, v.column) for v in mine}),
            "pages": len({(v.file, v.row_group, v.column, v.page) for v in mine
                          if v.page is not None}),
            "example": f"{absolute_path(first.file)}: {', '.join(where)}: {first.field}",
            "engines": sorted({e for v in mine for e in v.engines})}
    return out


def _summary_table(by_kind: dict[str, dict[str, Any]]) -> Any:
    from rich import box
    from rich.table import Table

    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("severity", no_wrap=True)
    table.add_column("kind", no_wrap=True)
    for name in ("files", "chunks", "pages"):
        table.add_column(name, justify="right", no_wrap=True)
    for kind, row in by_kind.items():
        table.add_row(_text(row["severity"]), _text(kind), _text(row["files"]),
                      _text(row["chunks"]), _text(row["pages"]))
    return table


def _summary_notes(by_kind: dict[str, dict[str, Any]]) -> list[str]:
    """Below the summary table: one example location per kind (full path), and the
    engines known to return wrong rows."""
    lines = ["", "for example:"]
    lines += [f"  {kind}: {row['example']}" for kind, row in by_kind.items()]
    wrong = [(kind, e) for kind, row in by_kind.items() for e in row["engines"]]
    if wrong:
        lines += ["", "engines known to return wrong rows:"]
        lines += [f"  {kind}: {e}" for kind, e in wrong]
    return lines + [""]


def _detail(v: Any, shown: dict[str, str]) -> str:
    """One finding on one line: severity, where, what was found and expected, kind."""
    return f"{v.severity:7} {v.describe(shown.get(v.file, v.file))} [{v.kind}]"


def _verdict(checked: int, findings: list[Any], by_severity: dict[str, int],
             args: argparse.Namespace, failed: bool, errors: int) -> str:
    files = len({v.file for v in findings})
    counts = ", ".join(f"{n} {s}{'s' if n != 1 and s != 'info' else ''}"
                       for s, n in by_severity.items())
    text = f"{checked} file(s) checked"
    if checked == 0:
        text += ": nothing to check."
    elif findings:
        text += f", {files} with findings: {counts}."
    else:
        text += ": no findings."
    if errors:
        text += f" {errors} input(s) unusable (see above): not a clean result."
    elif failed:
        text += f" FAIL: findings at or above {args.fail_on}."
    else:
        text += f" OK: nothing at or above {args.fail_on}."
    if findings and not args.details:
        text += " (--details lists every finding)"
    return text


def _name(path: str) -> str:
    """The last name of a path or URI."""
    return path.rstrip("/" if is_uri(path) else "/" + os.sep).replace(os.sep, "/") \
        .rsplit("/", 1)[-1]


def _upgrade_pairs(args: argparse.Namespace, doc: Document) -> list[tuple[str, str]]:
    src, dst = args.src, args.dst
    try:
        src_kind, dst_kind = _kind(src), _kind(dst)
    except (ValueError, OSError) as exc:
        doc.error(None, _describe(exc, None))
        return []
    if src_kind in ("folder", "glob"):
        before = len(doc.errors)
        files = _listed(src, doc).files
        if not files and len(doc.errors) == before:
            doc.error(src, f"{src}: nothing to upgrade, no Parquet files "
                      f"{'match' if src_kind == 'glob' else 'in this folder'}")
        if dst_kind == "file":
            doc.error(dst, f"{dst}: is a file; the upgrade of a folder goes to a folder")
            return []
        if src_kind == "glob":  # below the folder the glob starts in
            src = src[:max(0, src[:_first_glob(src)].rfind("/"))] or "."
        return [(f, join_path(dst, relative_path(f, src))) for f in files]
    if src_kind == "missing":
        doc.error(src, f"{src}: no such file or folder")
        return []
    if dst_kind == "folder" or dst.endswith(("/", os.sep)):
        dst = join_path(dst, _name(src))  # like cp: into the folder
    return [(src, dst)]


def _first_glob(path: str) -> int:
    return min((path.index(c) for c in "*?[" if c in path), default=len(path))


def _exists(path: str) -> bool:
    return resolve(path).exists() if is_uri(path) else os.path.exists(path)


def _positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number of bytes, got {text!r}")
    return int(text)


def _table_to_upgrade(args: argparse.Namespace) -> Any:
    """The table SRC names (a folder holding one, or ``--catalog``'s
    identifier), None when SRC is no table; raises when SRC is a table that
    would be copied to DST without its log."""
    from nanstats.lake.fs import is_uri
    from nanstats.lake.tables import iceberg_table, open_table, table_root

    if args.catalog is not None:
        return iceberg_table(args.catalog, args.src)
    root = table_root(args.src) if os.path.isdir(args.src) or is_uri(args.src) else None
    if root is None:
        return None
    kind, folder = root
    name = {"delta": "a Delta Lake table", "iceberg": "an Iceberg table"}[kind]
    if os.path.abspath(folder) != os.path.abspath(args.src):
        raise ValueError(f"{args.src}: is inside {name} ({folder}): upgrade the whole table "
                         f"in place (nanstats upgrade {folder})")
    if args.dst is not None and os.path.abspath(args.dst) != os.path.abspath(args.src):
        raise ValueError(
            f"{args.src}: is {name}; copying its files to {args.dst} would leave them without "
            f"the table's log. Upgrade it in place (nanstats upgrade {args.src}): a new version "
            "of the table is committed and the old one stays readable; to keep the table "
            "untouched, copy the whole folder first and upgrade the copy")
    return open_table(args.src)


def _upgrade_table(args: argparse.Namespace, table: Any) -> int:
    from nanstats.parquet.upgrading import upgrade_table

    doc = Document("upgrade", _arguments(args))
    report = upgrade_table(table, args.order, truncate=args.truncate,
                           memory_map=args.memory_map)
    reports = [f.report for f in report.rewritten if f.report is not None]
    for f in report.files:
        doc.file(f.old, "ok", None if f.new is None or f.report is None else f.report.to_dict())
    doc.summary = {"table": report.table, "format": report.format,
                   "version_before": report.version_before,
                   "version_after": report.version_after, "committed": report.committed,
                   "files": len(report.files), "upgraded": len(report.rewritten), "failed": 0,
                   "bytes_in": sum(r.bytes_in for r in reports),
                   "bytes_out": sum(r.bytes_out for r in reports),
                   "columns_upgraded": sum(len(r.upgraded) for r in reports)}
    _finish(args, doc)
    if not args.json:
        s = doc.summary
        what = {"delta": "Delta Lake", "iceberg": "Iceberg"}[report.format]
        if report.committed:
            print(safe_text(
                f"{what} table {report.table}: version {report.version_before} -> "
                f"{report.version_after}: {s['upgraded']} of {s['files']} live file(s) "
                f"upgraded ({_size(s['bytes_in'])} read, {_size(s['bytes_out'])} written); "
                f"{s['columns_upgraded']} float column(s) upgraded; the previous version "
                "still reads the old files"))
        else:
            print(safe_text(f"{what} table {report.table}: nothing to upgrade in "
                            f"{s['files']} live file(s); no new version"))
    return 0


def _upgrade(args: argparse.Namespace) -> int:
    from nanstats.parquet.upgrading import upgrade

    table = _table_to_upgrade(args)
    if table is not None:
        return _upgrade_table(args, table)
    if args.dst is None:
        _say(args, f"{args.src}: DST is needed (only a Delta Lake or Iceberg table is "
             "upgraded in place)")
        return 2
    doc = Document("upgrade", _arguments(args))
    pairs = _upgrade_pairs(args, doc)
    dst_of = dict(pairs)
    folder = len(pairs) > 1 or bool(pairs and pairs[0][0] != args.src)
    shown = {s: relative_path(s, args.src) if folder and not is_glob(args.src) else s
             for s, _ in pairs}

    def run(src: str) -> Any:
        dst = dst_of[src]
        if _exists(dst) and not args.overwrite:
            raise FileExistsError(f"{dst}: exists (--overwrite replaces it)")
        if absolute_path(dst) == absolute_path(src):
            raise ValueError(f"{dst}: is the source itself")
        if not is_uri(dst):
            os.makedirs(os.path.dirname(os.path.abspath(dst)), exist_ok=True)
        return upgrade(src, dst, args.order, truncate=args.truncate,
                       memory_map=args.memory_map)

    reports = []
    for src, report, error in _each([s for s, _ in pairs], shown, args, "upgrading", run):
        if error is not None:
            message = _describe(error, src)
            doc.file(src, "error", error=message)
            doc.error(src, message)
            continue
        reports.append(report)
        doc.file(src, "ok", report.to_dict())
        if not args.json and len(pairs) == 1:
            print(safe_text(
                f"{src} -> {report.dst}: upgraded {', '.join(report.upgraded) or 'nothing'}"
                + (f"; skipped {', '.join(report.skipped)}" if report.skipped else "")
                + (f"; truncated bounds of {', '.join(report.truncated)}"
                   if report.truncated else "")))
        if not args.json:
            for note in report.notes:  # stale temporaries removed, say: as plain text
                print(safe_text(f"{src}: {note}"))
    skipped: dict[str, int] = {}
    for r in reports:
        for c in r.columns:
            if c.action == "skipped":
                why = c.reason or "skipped"
                skipped[why] = skipped.get(why, 0) + 1
    doc.summary = {"files": len(pairs), "upgraded": len(reports),
                   "failed": len(pairs) - len(reports),
                   "bytes_in": sum(r.bytes_in for r in reports),
                   "bytes_out": sum(r.bytes_out for r in reports),
                   "columns_upgraded": sum(len(r.upgraded) for r in reports),
                   "columns_skipped": skipped}
    _finish(args, doc)
    if not args.json and folder and pairs:
        s = doc.summary
        line = (f"{s['upgraded']} of {s['files']} file(s) upgraded to {args.dst} "
                f"({_size(s['bytes_in'])} read, {_size(s['bytes_out'])} written); "
                f"{s['columns_upgraded']} float column(s) upgraded")
        if skipped:
            line += "; skipped: " + ", ".join(f"{n} ({why})" for why, n in skipped.items())
        if s["failed"]:
            line += f"; {s['failed']} failed (see above)"
        print(safe_text(line))
    if not pairs or (len(pairs) == 1 and not reports):
        return 2
    return 2 if doc.errors and not reports else 1 if doc.errors else 0


def _size(n: int) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:,} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000  # type: ignore[assignment]
    return f"{n} B"  # pragma: no cover


def _prune(args: argparse.Namespace) -> int:
    from nanstats.prune.files import explain
    from nanstats.prune.parser import parse

    doc = Document("prune", _arguments(args))
    # The predicate once, before any file: a bad one is one error, not one per file.
    try:
        predicate = parse(args.where)
    except (ValueError, TypeError) as exc:
        _say(args, f"--where {args.where!r}: {exc}")
        return 2
    inputs = _Inputs(args.paths, doc)

    def run(path: str) -> Any:
        return explain(path, predicate, semantics=args.engine or args.semantics)

    ok = 0
    for path, report, error in _each(inputs.files, inputs.shown, args, "pruning", run):
        if isinstance(error, TypeError):  # the predicate's fault (a value, say), not the file's
            _say(args, f"--where {args.where!r}: {error} (compare it: x > 1.5, is_nan(x), ...)")
            return 2
        if error is not None:
            message = _describe(error, path)
            doc.file(path, "error", error=message)
            doc.error(path, message)
            continue
        ok += 1
        d = report.to_dict()
        d.pop("path", None)
        doc.file(path, "ok", d)
        if args.json:
            continue
        if args.explain:
            print(safe_lines(report))
            continue
        sel = report.selection
        groups = len(report.row_groups)
        print(safe_text(f"{inputs.shown.get(path, path)}: {report.predicate} "
                        f"under {report.semantics}"))
        print(f"  row groups to read: {len(sel.ranges)} of {groups}"
              + (f" ({', '.join(map(str, sel.row_groups))})" if 0 < len(sel.ranges) <= 20
                 else ""))
        pct = 100.0 * sel.num_rows / sel.total_rows if sel.total_rows else 0.0
        print(f"  rows to read: {sel.num_rows:,} of {sel.total_rows:,} ({pct:.1f}%)")
        steps = sum(d.steps for d in report.row_groups)
        print(f"  page-search steps: {steps}")
    doc.summary = {"files": len(doc.files), "read": ok, "failed": len(doc.files) - ok}
    _finish(args, doc)
    if not args.json and len(inputs.files) > 1:
        print(f"{ok} of {len(inputs.files)} file(s) pruned")
    if inputs.unusable or ok == 0:
        return 2
    return 1 if ok < len(doc.files) else 0


def parser() -> argparse.ArgumentParser:
    """The argument parser of the command line.

    >>> parser().parse_args(["prune", "f.parquet", "--where", "x > 1"]).semantics
    'nan_greatest'
    """
    from nanstats import __version__
    from nanstats.parquet.verification import SEVERITIES

    p = argparse.ArgumentParser(prog="nanstats", description="Float statistics for Parquet.")
    p.add_argument("--version", action="version", version=f"nanstats {__version__}",
                   help="print the version and exit")
    sub = p.add_subparsers(dest="command", required=True)
    json_help = "print one JSON document (nanstats/schemas/cli.schema.json) instead of text"
    i = sub.add_parser("inspect", help="what files say about their float columns")
    i.add_argument("paths", nargs="+", metavar="PATH",
                   help="Parquet files, or folders (every .parquet file under them)")
    i.add_argument("--json", action="store_true", help=json_help)
    i.set_defaults(run=_inspect)
    v = sub.add_parser(
        "verify", help="check float statistics against the data and the rules",
        description="Recompute every float statistic from the data and report findings "
        "(error, warning, info). Exit status: 0 nothing at or above --fail-on, 1 findings "
        "at or above it, 2 unreadable input or nothing to check.")
    v.add_argument("paths", nargs="+", metavar="PATH",
                   help="Parquet files, or folders (every .parquet file under them)")
    v.add_argument("--details", action="store_true",
                   help="list every finding (default: a summary by kind)")
    v.add_argument("--select", action="append", type=_kinds, metavar="KIND[,KIND]",
                   help="report only these kinds (repeatable)")
    v.add_argument("--ignore", action="append", type=_kinds, metavar="KIND[,KIND]",
                   help="leave these kinds out (repeatable)")
    v.add_argument("--fail-on", choices=SEVERITIES, default="error",
                   help="the least severity that makes the exit status 1 (default: error)")
    v.add_argument("--json", action="store_true", help=json_help)
    v.set_defaults(run=_verify)
    u = sub.add_parser("upgrade", help="rewrite files with correct float statistics")
    u.add_argument("src", help="a Parquet file or a folder of them; or a Delta Lake or "
                   "Iceberg table's folder, upgraded in place as a new version of the table")
    u.add_argument("dst", nargs="?",
                   help="the new file; a folder (existing, or ending in /) receives "
                   "SRC's name; for a folder SRC, the folder that mirrors it; none for a table")
    u.add_argument("--catalog", metavar="NAME",
                   help="SRC is an Iceberg table's identifier (namespace.table) in the "
                   "pyiceberg catalog NAME (.pyiceberg.yaml, PYICEBERG_CATALOG__NAME__*), "
                   "through which the upgrade is committed")
    u.add_argument("--order", choices=["ieee754", "type_order"], default="ieee754",
                   help="the column order written: ieee754 (IEEE_754_TOTAL_ORDER, NaN "
                   "counted and bounded) or type_order (the legacy order, parquet-java's "
                   "policy); default ieee754")
    u.add_argument("--truncate", type=_positive_int, metavar="N",
                   help="also rewrite string columns' statistics, bounds cut to N bytes")
    u.add_argument("--overwrite", action="store_true",
                   help="replace destination files that exist (default: refuse)")
    u.add_argument("--no-memory-map", dest="memory_map", action="store_false",
                   help="read sources with pread instead of a memory map (for sources that "
                   "may be rewritten in place meanwhile)")
    u.add_argument("--json", action="store_true", help=json_help)
    u.set_defaults(run=_upgrade)
    r = sub.add_parser("prune", help="which row groups and pages a predicate may skip")
    r.add_argument("paths", nargs="+", metavar="PATH",
                   help="Parquet files, or folders (every .parquet file under them)")
    r.add_argument("--where", required=True, help='a predicate, e.g. "x > 1.5 and not is_nan(y)"')
    r.add_argument("--semantics", default="nan_greatest",
                   choices=["nan_greatest", "ieee", "nan_least", "total_order"],
                   help="how the reading engine compares NaN (default: Spark's nan_greatest)")
    r.add_argument("--engine", choices=list(ENGINES),
                   help="the engine that reads the file: its measured profile (NaN order, "
                   "literal typing, is_nan(null), membership); overrides --semantics")
    r.add_argument("--explain", action="store_true", help="why each scope is kept or skipped")
    r.add_argument("--json", action="store_true", help=json_help)
    r.set_defaults(run=_prune)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    >>> main(["prune", "/no/such/file.parquet", "--where", "x > 1"])
    2
    """
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:  # argparse already printed the problem (or --help, --version)
        return 2 if exc.code else 0
    try:
        return int(args.run(args))
    except BrokenPipeError:
        # The reader went away (``| head``): say nothing, and let no flush at
        # exit complain either.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 141
    except _INPUT_ERRORS as exc:
        _say(args, _describe(exc, None))
        return 2
    except KeyboardInterrupt:
        print("nanstats: interrupted", file=sys.stderr)
        return 130


def main_exit() -> None:
    """Entry point of the ``nanstats`` console script.

    >>> import sys
    >>> sys.argv = ["nanstats", "prune", "/no/such/file.parquet", "--where", "x > 1"]
    >>> try:
    ...     main_exit()
    ... except SystemExit as exit:
    ...     print("exit status", exit.code)
    exit status 2
    """
    sys.exit(main())
