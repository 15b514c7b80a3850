"""The changelog page, from the git history: what each area of nanstats gained.

Each commit (merges left out) is filed under the area where it changed the
most lines, areas being folders and files of the repository (see ``AREAS``).
Writes ``docs/_generated/changelog.rst``, included by ``docs/changelog.rst``;
run by ``docs/conf.py`` at every build.  Outside a git checkout (an sdist) the
page says so instead.
"""

from __future__ import annotations

import subprocess
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "_generated" / "changelog.rst"

#: (area title, path prefixes), first match wins for a path.  Paths of the
#: layout before the move to layers (nanstats/stats*.py, order_rules.py,
#: float_types.py, buffers.py, demo.py) stay listed for the commits that
#: touched them.
AREAS: list[tuple[str, tuple[str, ...]]] = [
    ("Kernels and SIMD", ("nanstats/_kernels", "nanstats/_simd/", "nanstats/threads.py",
                          "setup.py")),
    ("Statistics, column orders and column indexes",
     ("nanstats/core/", "tests/core/", "nanstats/stats", "nanstats/column_index.py",
      "nanstats/order_rules.py", "nanstats/float_types.py", "nanstats/buffers.py",
      "nanstats/__init__.py", "nanstats/errors.py", "nanstats/testing/oracle.py")),
    ("pandas and Arrow", ("nanstats/pandas.py", "nanstats/arrow", "tests/test_pandas.py",
                          "tests/test_arrow.py")),
    ("Parquet files", ("nanstats/parquet/", "tests/parquet/", "nanstats/metadata/",
                       "tests/metadata/", "nanstats/lake/", "tests/lake/")),
    ("Pruning", ("nanstats/prune/", "tests/prune/", "nanstats/testing/predicate_oracle.py")),
    ("Spark", ("nanstats/spark/", "tests/spark/")),
    ("Command line and demos", ("nanstats/cli.py", "nanstats/__main__.py", "nanstats/demo.py",
                                "demo/", "tests/test_cli.py", "tests/test_demo.py")),
    ("Benchmarks", ("benchmarks/", "asv_bench/")),
    ("Documentation", ("docs/", "README.md")),
    ("Tests, build and tooling", ("",)),
]


def area_of(path: str) -> str:
    return next(title for title, prefixes in AREAS if path.startswith(prefixes))


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True,
                          text=True).stdout


def commits() -> list[tuple[str, str, str, dict[str, int]]]:
    """(short hash, date, subject, lines changed per area), oldest first."""
    out = git("log", "--no-merges", "--reverse", "--numstat", "--format=\x01%h\x02%as\x02%s")
    result = []
    for block in out.split("\x01")[1:]:
        head, _, body = block.partition("\n")
        short, date, subject = head.split("\x02", 2)
        lines: dict[str, int] = defaultdict(int)
        for row in body.splitlines():
            parts = row.split("\t")
            if len(parts) == 3:
                added, removed, path = parts
                n = (int(added) if added.isdigit() else 1) + (
                    int(removed) if removed.isdigit() else 0)
                lines[area_of(path)] += n
        result.append((short, date, subject, dict(lines)))
    return result


def escape(text: str) -> str:
    """Plain text for reST: no markup characters read as markup."""
    for ch in "\\`*_|":
        text = text.replace(ch, "\\" + ch)
    return text


def main() -> None:
    OUT.parent.mkdir(exist_ok=True)
    try:
        history = commits()
    except (OSError, subprocess.CalledProcessError):
        OUT.write_text("This copy of the sources has no git history; the changelog is built "
                       "from it.\n")
        return
    by_area: dict[str, list[str]] = defaultdict(list)
    for short, date, subject, lines in history:
        if lines:
            area = max(lines, key=lambda a: lines[a])
            by_area[area].append(f"* {escape(subject)} (``{short}``, {date})")
    parts = []
    for title, _ in AREAS:
        if by_area[title]:
            parts += [title, "-" * len(title), "", *by_area[title], ""]
    OUT.write_text("\n".join(parts))


if __name__ == "__main__":
    main()
