"""Listing the Parquet files of a lake: files and folders, walked once.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> for name in ("b.parquet", "a.parquet", "_SUCCESS", ".a.parquet.crc"):
...     open(os.path.join(folder, name), "wb").close()
>>> [os.path.basename(p) for p in list_parquet_files(folder)]
['a.parquet', 'b.parquet']

A walk never stops at a bad entry: :func:`list_lake` returns the files and,
per entry, what was wrong (a folder it could not list, a FIFO or a dangling
link named like a data file, a name that is not UTF-8), for the caller to
report.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = ["Listing", "ListingProblem", "list_lake", "list_parquet_files"]

ProblemKind = Literal["unreadable_folder", "not_a_regular_file", "dangling_link",
                      "name_not_utf8"]


@dataclass(frozen=True)
class ListingProblem:
    """An entry of a walk that is not listed as a file, and why.

    ``kind`` is ``"not_a_regular_file"`` (a FIFO, socket or device named like
    a data file: skipped, since opening it could block forever),
    ``"unreadable_folder"`` (its files are unknown), ``"dangling_link"`` or
    ``"name_not_utf8"`` (pyarrow cannot open such a path).  ``is_error`` is
    False only for a non-file met in a folder: skipping it loses no data
    file (one named explicitly is an error).

    >>> ListingProblem("lake/secret", "unreadable_folder", "cannot list the folder").to_dict()
    {'path': 'lake/secret', 'kind': 'unreadable_folder', 'reason': 'cannot list the folder', 'error': True}
    """

    path: str
    kind: ProblemKind
    reason: str
    is_error: bool = True

    def to_dict(self) -> dict[str, object]:
        """The problem as plain values (for JSON)."""
        return {"path": self.path, "kind": self.kind, "reason": self.reason,
                "error": self.is_error}


@dataclass(frozen=True)
class Listing:
    """The data files of a walk, sorted, and the problems met on the way.

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> open(os.path.join(folder, "a.parquet"), "wb").close()
    >>> listing = list_lake(folder)
    >>> [os.path.basename(p) for p in listing.files], listing.problems
    (['a.parquet'], ())
    """

    files: tuple[str, ...]
    problems: tuple[ListingProblem, ...]


def _is_data_file(name: str) -> bool:
    # Hidden and underscore names are the writers' bookkeeping (_SUCCESS,
    # _delta_log, .crc files), never data.
    return name.endswith(".parquet") and not name.startswith((".", "_"))


def _not_utf8(path: str) -> bool:
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:  # undecodable bytes, kept by the OS as surrogates
        return True
    return False


def _file_problem(path: str, *, named: bool = False) -> ListingProblem | None:
    """None when ``path`` is a regular file (or a link to one) that can be opened by name."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        if os.path.islink(path):
            return ListingProblem(path, "dangling_link",
                                  f"a symbolic link to {os.readlink(path)!r}, which does "
                                  "not exist")
        raise
    except OSError as exc:
        return ListingProblem(path, "dangling_link", f"cannot follow: {exc.strerror}")
    if not stat.S_ISREG(mode):
        kind = ("FIFO" if stat.S_ISFIFO(mode) else "socket" if stat.S_ISSOCK(mode)
                else "device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "special file")
        return ListingProblem(path, "not_a_regular_file",
                              f"{'' if named else 'skipped: '}a {kind}, not a regular file",
                              is_error=named)
    if _not_utf8(path):
        return ListingProblem(path, "name_not_utf8",
                              "the name is not valid UTF-8, which pyarrow cannot open; "
                              "rename the file")
    return None


def _walk(folder: str, files: list[str], problems: list[ListingProblem]) -> None:
    try:
        with os.scandir(folder) as it:
            entries = list(it)
    except OSError as exc:
        problems.append(ListingProblem(folder, "unreadable_folder",
                                       f"cannot list the folder: {exc.strerror}"))
        return
    for entry in entries:
        try:
            is_folder = entry.is_dir(follow_symlinks=False)
            linked_folder = not is_folder and entry.is_symlink() and entry.is_dir()
        except OSError:
            is_folder = linked_folder = False
        if is_folder:
            _walk(entry.path, files, problems)
        elif linked_folder:
            continue  # links to folders are not followed (no cycles, no leaving the lake)
        elif _is_data_file(entry.name):
            problem = _file_problem(entry.path)
            if problem is None:
                files.append(entry.path)
            else:
                problems.append(problem)


def list_lake(path_or_paths: str | os.PathLike[str] | Sequence[str]) -> Listing:
    """Every ``.parquet`` file under the given folders (and the given files), sorted,
    with the problems met on the way (sorted by path).

    A path that does not exist raises FileNotFoundError naming it; anything
    wrong below a folder is a :class:`ListingProblem`, and the walk goes on.

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> open(os.path.join(folder, "a.parquet"), "wb").close()
    >>> os.mkdir(os.path.join(folder, "sub"))
    >>> [os.path.basename(p) for p in list_lake(folder).files]
    ['a.parquet']
    """
    items = [path_or_paths] if isinstance(path_or_paths, (str, os.PathLike)) else path_or_paths
    files: list[str] = []
    problems: list[ListingProblem] = []
    for item in items:
        item = os.fspath(item)
        if os.path.isdir(item):
            _walk(item, files, problems)
        elif os.path.exists(item):
            problem = _file_problem(item, named=True)
            if problem is None:
                files.append(item)
            else:
                problems.append(problem)
        else:
            raise FileNotFoundError(f"no such file or folder: {item}")
    return Listing(tuple(sorted(files)), tuple(sorted(problems, key=lambda p: p.path)))


def list_parquet_files(path_or_paths: str | os.PathLike[str] | Sequence[str]) -> list[str]:
    """Every ``.parquet`` file under the given folders (and the given files), sorted.

    A path that does not exist raises FileNotFoundError naming it.  Entries
    that are not readable data files are left out; :func:`list_lake` says
    which and why.

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> os.mkdir(os.path.join(folder, "day=2"))
    >>> for name in ("day=2/b.parquet", "a.parquet", "notes.txt"):
    ...     open(os.path.join(folder, name), "wb").close()
    >>> [os.path.relpath(p, folder).replace(os.sep, "/") for p in list_parquet_files(folder)]
    ['a.parquet', 'day=2/b.parquet']
    >>> list_parquet_files(os.path.join(folder, "missing"))
    Traceback (most recent call last):
    ...
    FileNotFoundError: no such file or folder: .../missing
    """
    return list(list_lake(path_or_paths).files)
