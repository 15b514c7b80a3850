"""The ``nanstats`` command line (also ``python -m nanstats``).

    nanstats inspect PATH... [--json]                         (files or folders)
    nanstats verify PATH... [--json]                          (files or folders)
    nanstats upgrade SRC DST [--order ieee754|type_order] [--truncate N] [--no-memory-map]
                                                              (files or folders)
    nanstats prune FILE --where "x > 1.5" [--semantics nan_greatest | --engine duckdb]
                   [--explain] [--json]

A folder stands for every ``.parquet`` file under it; with several files a
progress bar runs on stderr (not with ``--json``).

Exit status: 0 on success, 1 when some files failed (``verify``: when any
violation is found), 2 on unusable input (missing file, corrupt Parquet, bad
arguments).  Errors are one line on stderr, never a traceback.

>>> main(["inspect", "/no/such/file.parquet"])
2
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from nanstats.errors import NanstatsError
from nanstats.lake.listing import list_parquet_files
from nanstats.prune.profiles import ENGINES


def _expand(paths: Sequence[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """(the Parquet files named by files and folders, [(path, error)] for missing ones)."""
    files: list[str] = []
    missing: list[tuple[str, str]] = []
    for path in paths:
        if not os.path.exists(path):
            missing.append((path, f"no such file or folder: {path}"))
        else:
            files += list_parquet_files(path)
    return files, missing


def _progress(files: list[str], args: argparse.Namespace, what: str) -> Any:
    """A rich progress bar on stderr for several files (None for one file or --json)."""
    if args.json or len(files) < 2:
        return None
    try:
        from rich.console import Console
        from rich.progress import Progress
    except ImportError:  # pragma: no cover - rich is a dependency
        return None
    progress = Progress(console=Console(stderr=True), transient=True)
    progress.add_task(what, total=len(files))
    return progress


def _each(files: list[str], progress: Any, run: Any) -> list[tuple[str, Any, str | None]]:
    """(path, result, None) or (path, None, error) per file, advancing the progress bar."""
    out: list[tuple[str, Any, str | None]] = []
    if progress is not None:
        progress.start()
    try:
        for path in files:
            try:
                out.append((path, run(path), None))
            except (NanstatsError, OSError) as exc:
                out.append((path, None, str(exc)))
            if progress is not None:
                progress.advance(progress.task_ids[0])
    finally:
        if progress is not None:
            progress.stop()
    return out


def _inspect(args: argparse.Namespace) -> int:
    from nanstats.parquet.inspection import inspect

    if len(args.paths) == 1 and not os.path.isdir(args.paths[0]):
        report = inspect(args.paths[0])  # one file: errors go to main()
        print(json.dumps(report.to_dict(), indent=1) if args.json else report)
        return 0
    files, failed = _expand(args.paths)
    results = _each(files, _progress(files, args, "inspecting"), inspect)
    failed += [(path, error) for path, _, error in results if error is not None]
    reports = [report for _, report, error in results if error is None]
    if args.json:
        print(json.dumps({"files": [r.to_dict() for r in reports],
                          "failed": [{"path": p, "error": e} for p, e in failed]}, indent=1))
    else:
        print("\n\n".join(str(r) for r in reports))
    for path, error in failed:
        print(f"nanstats inspect: {path}: {error}" if path not in error else
              f"nanstats inspect: {error}", file=sys.stderr)
    return 1 if failed else 0


def _verify(args: argparse.Namespace) -> int:
    from nanstats.parquet.verification import verify

    files, failed = _expand(args.paths)
    results = _each(files, _progress(files, args, "verifying"), verify)
    failed += [(path, error) for path, _, error in results if error is not None]
    violations = [v for _, found, error in results if error is None for v in found]
    if args.json:
        print(json.dumps({
            "files": [{"path": p, "violations": None if e else [v.to_dict() for v in found],
                       "error": e} for p, found, e in results],
            "failed": [{"path": p, "error": e} for p, e in failed],
            "violations": len(violations)}, indent=1))
    else:
        _print_violations(violations, sum(1 for _, _, e in results if e is None))
    for path, error in failed:
        print(f"nanstats verify: {error}" if path in error else
              f"nanstats verify: {path}: {error}", file=sys.stderr)
    if failed:
        return 2
    return 1 if violations else 0


def _print_violations(violations: list[Any], checked: int) -> None:
    """A table of the violations (rich), then one summary line."""
    from rich.console import Console
    from rich.table import Table

    console = Console(width=None if sys.stdout.isatty() else 200, soft_wrap=False)
    if violations:
        table = Table("file", "column", "row group", "page", "field", "found", "expected",
                      "rule", show_lines=False)
        for v in violations:
            table.add_row(os.path.basename(v.file), v.column, str(v.row_group),
                          "" if v.page is None else str(v.page), v.field, v.found,
                          v.expected, v.rule)
        console.print(table)
    files = len({v.file for v in violations})
    console.print(f"{checked} file(s) checked: " + (
        f"{len(violations)} violation(s) in {files} file(s)" if violations
        else "no violations"), highlight=False)


def _pairs(src: str, dst: str) -> list[tuple[str, str]]:
    if os.path.isdir(src):
            return [(f, os.path.join(dst, os.path.relpath(f, src))) for f in list_parquet_files(src)]
    if not os.path.exists(src):
        raise FileNotFoundError(f"no such file or folder: {src}")
    return [(src, dst)]


def _positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number of bytes, got {text!r}")
    return int(text)


def _upgrade(args: argparse.Namespace) -> int:
    from nanstats.parquet.upgrading import upgrade

    pairs = _pairs(args.src, args.dst)
    failed: list[tuple[str, str]] = []
    reports: list[dict[str, Any]] = []
    progress: Any = None
    if not args.json and len(pairs) > 1:
        try:
            from rich.progress import Progress

            progress = Progress(transient=False)
        except ImportError:  # pragma: no cover - rich is a dependency
            progress = None
    total = sum(os.path.getsize(s) for s, _ in pairs)
    task = progress.add_task("upgrading", total=total) if progress else None
    if progress:
        progress.start()
    try:
        for src, dst in pairs:
            try:
                os.makedirs(os.path.dirname(os.path.abspath(dst)), exist_ok=True)
                report = upgrade(src, dst, args.order, truncate=args.truncate,
                                 memory_map=args.memory_map)
                reports.append(report.to_dict())
                if not args.json and progress is None:
                    print(f"{src} -> {dst}: upgraded {', '.join(report.upgraded) or 'nothing'}"
                          + (f"; skipped {', '.join(report.skipped)}" if report.skipped else "")
                          + (f"; truncated bounds of {', '.join(report.truncated)}"
                             if report.truncated else ""))
            except (NanstatsError, OSError) as exc:
                failed.append((src, str(exc)))
            if progress:
                progress.update(task, advance=os.path.getsize(src))
    finally:
        if progress:
            progress.stop()
    if args.json:
        print(json.dumps({"upgraded": reports,
                          "failed": [{"src": s, "error": e} for s, e in failed]}, indent=1))
    for src, error in failed:
        print(f"nanstats upgrade: {src}: {error}", file=sys.stderr)
    if failed and len(pairs) == 1:
        return 2
    return 1 if failed else 0



def _prune(args: argparse.Namespace) -> int:
    from nanstats.prune.files import explain

    report = explain(args.file, args.where, semantics=args.engine or args.semantics)
    if args.json:
        print(json.dumps(report.to_dict(), indent=1, default=str))
        return 0
    if args.explain:
        print(report)
        return 0
    sel = report.selection
    groups = len(report.row_groups)
    print(f"{report.path}: {report.predicate} under {report.semantics}")
    print(f"  row groups to read: {len(sel.ranges)} of {groups}"
          + (f" ({', '.join(map(str, sel.row_groups))})" if 0 < len(sel.ranges) <= 20 else ""))
    pct = 100.0 * sel.num_rows / sel.total_rows if sel.total_rows else 0.0
    print(f"  rows to read: {sel.num_rows:,} of {sel.total_rows:,} ({pct:.1f}%)")
    steps = sum(d.steps for d in report.row_groups)
    print(f"  page-search steps: {steps}")
    return 0


def parser() -> argparse.ArgumentParser:
    """The argument parser of the command line.

    >>> parser().parse_args(["prune", "f.parquet", "--where", "x > 1"]).semantics
    'nan_greatest'
    """
    p = argparse.ArgumentParser(prog="nanstats", description="Float statistics for Parquet.")
    sub = p.add_subparsers(dest="command", required=True)
    i = sub.add_parser("inspect", help="what files say about their float columns")
    i.add_argument("paths", nargs="+", metavar="PATH", help="Parquet files or folders")
    i.add_argument("--json", action="store_true", help="machine-readable output")
    i.set_defaults(run=_inspect)
    v = sub.add_parser("verify", help="check float statistics against the data and the rules")
    v.add_argument("paths", nargs="+", metavar="PATH", help="Parquet files or folders")
    v.add_argument("--json", action="store_true", help="machine-readable output")
    v.set_defaults(run=_verify)
    u = sub.add_parser("upgrade", help="rewrite files with correct float statistics")
    u.add_argument("src", help="a Parquet file or a folder of them")
    u.add_argument("dst", help="the new file, or the folder that mirrors src")
    u.add_argument("--order", choices=["ieee754", "type_order"], default="ieee754")
    u.add_argument("--truncate", type=_positive_int, metavar="N",
                   help="also rewrite string columns' statistics, bounds cut to N bytes")
    u.add_argument("--no-memory-map", dest="memory_map", action="store_false",
                   help="read sources with pread instead of a memory map (for sources that "
                   "may be rewritten in place meanwhile)")
    u.add_argument("--json", action="store_true", help="machine-readable output")
    u.set_defaults(run=_upgrade)
    r = sub.add_parser("prune", help="which row groups and pages a predicate may skip")
    r.add_argument("file")
    r.add_argument("--where", required=True, help='a predicate, e.g. "x > 1.5 and not is_nan(y)"')
    r.add_argument("--semantics", default="nan_greatest",
                   choices=["nan_greatest", "ieee", "nan_least", "total_order"],
                   help="how the reading engine compares NaN (default: Spark's nan_greatest)")
    r.add_argument("--engine", choices=list(ENGINES),
                   help="the engine that reads the file: its measured profile (NaN order, "
                   "literal typing, is_nan(null), membership); overrides --semantics")
    r.add_argument("--explain", action="store_true", help="why each scope is kept or skipped")
    r.add_argument("--json", action="store_true", help="machine-readable output")
    r.set_defaults(run=_prune)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    >>> main(["prune", "/no/such/file.parquet", "--where", "x > 1"])
    2
    """
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:  # argparse already printed the problem
        return 2 if exc.code else 0
    try:
        return int(args.run(args))
    except (NanstatsError, OSError, ValueError) as exc:
        print(f"nanstats {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyError as exc:  # an unknown column
        print(f"nanstats {args.command}: {exc.args[0] if exc.args else exc}", file=sys.stderr)
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
