"""Listing the Parquet files of a lake: files, folders, prefixes and globs, walked once.

The rules (the same for the command line, the API and Spark):

* a folder (on an object store: a prefix) stands for every data file below
  it, Hive partitions (``day=1/``) included;
* a glob (``s3://bucket/lake/day=*/*.parquet``, ``lake/*/part-*``) stands
  for what it matches (``*``, ``?``, ``[...]`` within one name; ``**`` any
  number of folders);
* a data file is named ``*.parquet`` (any case: ``.PARQUET``), or has
  another name (Spark's and Hive's ``part-00000``, ``000000_0``) and starts
  with the Parquet magic ``PAR1`` (its first 4 bytes are read);
* never listed, at any depth: hidden and ``_``-prefixed names (``_SUCCESS``,
  ``_delta_log/``, ``_spark_metadata/``, ``.part-0.parquet.crc``), except
  ``_`` names of Hive partitions (holding ``=``), ``*.crc`` checksums and
  files Hadoop is still copying (``*._COPYING_``).

Local paths come back as paths; remote entries as URIs with the scheme
given (``s3a://`` stays ``s3a://``), so that they can be handed to every
other function; with ``filesystem=``, as paths on that filesystem.

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

import glob
import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import pyarrow.fs as pafs

from nanstats.lake.fs import Location, Target, is_uri, remote_errors, resolve

__all__ = ["Listing", "ListingProblem", "hive_partitions", "is_bookkeeping", "is_glob", "list_lake",
           "list_parquet_files"]

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


MAGIC = b"PAR1"
_GLOB = re.compile(r"[*?\[]")


def is_glob(path: str) -> bool:
    """True when a path or URI holds a glob character (``*``, ``?``, ``[``).

    >>> is_glob("s3://bucket/lake/day=*/"), is_glob("lake/day=1")
    (True, False)
    """
    return _GLOB.search(path) is not None


def is_bookkeeping(name: str) -> bool:
    """True for an entry no data file lies in or is: the writers' own files.

    Hidden and ``_`` names (``_SUCCESS``, ``_delta_log``,
    ``_spark_metadata``, ``.crc`` files) except Hive partitions (``_c=1``),
    checksums and files still being copied.

    >>> [is_bookkeeping(n) for n in ("_SUCCESS", "_delta_log", ".x.crc", "day=1", "_c=1")]
    [True, True, True, False, False]
    """
    if name.startswith("_"):
        return "=" not in name
    return name.startswith(".") or name.endswith((".crc", "._COPYING_"))


def _named_parquet(name: str) -> bool:
    return name.lower().endswith(".parquet")


def _has_magic_local(path: str) -> bool:
    """True when a regular file starts with the Parquet magic (a FIFO is never opened)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with open(path, "rb") as f:
            return f.read(4) == MAGIC
    except OSError:
        return False


def _has_magic_remote(where: Location, size: int | None) -> bool:
    if size is not None and size < 12:
        return False
    try:
        with where.filesystem.open_input_file(where.path) as f:
            return bytes(f.read_at(4, 0)) == MAGIC
    except OSError:
        return False


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
        if is_bookkeeping(entry.name):
            continue
        try:
            is_folder = entry.is_dir(follow_symlinks=False)
            linked_folder = not is_folder and entry.is_symlink() and entry.is_dir()
        except OSError:
            is_folder = linked_folder = False
        if is_folder:
            _walk(entry.path, files, problems)
        elif linked_folder:
            continue  # links to folders are not followed (no cycles, no leaving the lake)
        elif _named_parquet(entry.name) or _has_magic_local(entry.path):
            problem = _file_problem(entry.path)
            if problem is None:
                files.append(entry.path)
            else:
                problems.append(problem)


def _list_local(item: str, files: list[str], problems: list[ListingProblem]) -> None:
    first = _GLOB.search(item)
    if first is not None and not os.path.lexists(item):  # 'x[1].parquet' may exist
        # Bookkeeping is skipped below the folder the glob starts in.
        base = os.path.dirname(item[:first.start()] + "x")
        for match in sorted(glob.glob(item, recursive=True)):
            if any(is_bookkeeping(n) for n in os.path.relpath(match, base or ".").split(os.sep)):
                continue
            if os.path.isdir(match):
                _walk(match, files, problems)
            elif _named_parquet(match) or _has_magic_local(match):
                _add_named_local(match, files, problems)
        return
    if os.path.isdir(item):
        _walk(item, files, problems)
    elif os.path.exists(item) or os.path.islink(item):
        _add_named_local(item, files, problems)
    else:
        raise FileNotFoundError(f"no such file or folder: {item}")


def _add_named_local(item: str, files: list[str], problems: list[ListingProblem]) -> None:
    problem = _file_problem(item, named=True)
    if problem is None:
        files.append(item)
    else:
        problems.append(problem)


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """A path pattern: ``*``, ``?``, ``[...]`` within a name, ``**`` across folders.

    >>> bool(_glob_regex("day=*/*.parquet").match("day=1/a.parquet"))
    True
    >>> bool(_glob_regex("*.parquet").match("day=1/a.parquet"))
    False
    """
    out = []
    parts = pattern.split("/")
    sep = ""
    for i, part in enumerate(parts):
        if part == "**":
            # any folders (none too): 'a/**/b' matches 'a/b'; a final '**' anything below
            out.append(f"(?:{sep}[^/]+)*" if i == len(parts) - 1 else f"{sep}(?:[^/]+/)*")
            sep = "" if i < len(parts) - 1 else "/"
            continue
        out.append(sep)
        sep = "/"
        j = 0
        while j < len(part):
            c = part[j]
            end = part.find("]", j + 2) if c == "[" else -1
            if c == "*":
                out.append("[^/]*")
            elif c == "?":
                out.append("[^/]")
            elif end > 0:
                body = part[j + 1:end]
                body = "^" + body[1:] if body.startswith("!") else body
                out.append("[" + body.replace("\\", "\\\\") + "]")
                j = end
            else:
                out.append(re.escape(c))
            j += 1
    return re.compile("".join(out) + r"\Z")


def _list_remote(where: Location, name: Any, files: list[str],
                 problems: list[ListingProblem]) -> None:
    """Files under a prefix or matching a glob, on any pyarrow filesystem."""
    path = where.path
    pattern = None
    if _GLOB.search(path):
        parts = path.split("/")
        first = next(i for i, p in enumerate(parts) if _GLOB.search(p))
        base = "/".join(parts[:first])
        pattern = _glob_regex("/".join(parts[first:]))
    else:
        base = path
    with remote_errors(where.with_path(base)):
        info = where.filesystem.get_file_info(base)
        if pattern is None and info.type == pafs.FileType.File:
            files.append(name(where))
            return
        if info.type == pafs.FileType.NotFound and pattern is None:
            raise FileNotFoundError(f"no such file or folder: {where.uri}")
        if info.type != pafs.FileType.Directory:
            return
    try:
        entries = where.filesystem.get_file_info(
            pafs.FileSelector(base, recursive=True, allow_not_found=True))
    except OSError as exc:
        problems.append(ListingProblem(where.with_path(base).uri, "unreadable_folder",
                                       f"cannot list the folder: {' '.join(str(exc).split())}"))
        return
    prefix = base.rstrip("/") + "/"
    for entry in entries:
        if entry.type != pafs.FileType.File or not entry.path.startswith(prefix):
            continue
        rel = entry.path[len(prefix):]
        names = rel.split("/")
        if any(is_bookkeeping(n) for n in names):
            continue
        if pattern is not None and not any(
                pattern.match("/".join(names[:k])) for k in range(1, len(names) + 1)):
            continue
        found = where.with_path(entry.path)
        if _named_parquet(names[-1]) or _has_magic_remote(found, entry.size):
            files.append(name(found))


def list_lake(path_or_paths: Target | Sequence[Target], *, filesystem: Any = None) -> Listing:
    """Every data file under the given folders, prefixes and globs (and the given
    files), sorted, with the problems met on the way (sorted by path).

    Paths and URIs as for :func:`nanstats.lake.fs.resolve` (``filesystem=``
    for all of them); the module docs give the rules.  A path that does not
    exist raises FileNotFoundError naming it (a glob that matches nothing
    lists nothing); anything wrong below a folder is a
    :class:`ListingProblem`, and the walk goes on.

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> open(os.path.join(folder, "a.parquet"), "wb").close()
    >>> os.mkdir(os.path.join(folder, "sub"))
    >>> with open(os.path.join(folder, "sub", "part-00000"), "wb") as f:   # Hive's name
    ...     _ = f.write(b"PAR1...")
    >>> [os.path.relpath(p, folder) for p in list_lake(folder).files]
    ['a.parquet', 'sub/part-00000']
    >>> [os.path.basename(p) for p in list_lake(os.path.join(folder, "*.parquet")).files]
    ['a.parquet']
    """
    items = [path_or_paths] if isinstance(path_or_paths, (str, os.PathLike, Location)) \
        else path_or_paths
    files: list[str] = []
    problems: list[ListingProblem] = []
    for item in items:
        if filesystem is None and isinstance(item, (str, os.PathLike)) \
                and not is_uri(os.fspath(item)):
            _list_local(os.fspath(item), files, problems)
            continue
        where = resolve(item, filesystem)
        if where.is_local and filesystem is None:
            _list_local(where.path, files, problems)
            continue

        def name(found: Location) -> str:
            return found.path if filesystem is not None else found.uri

        _list_remote(where, name, files, problems)
    return Listing(tuple(sorted(set(files))), tuple(sorted(problems, key=lambda p: p.path)))


def list_parquet_files(path_or_paths: Target | Sequence[Target], *,
                       filesystem: Any = None) -> list[str]:
    """Every data file under the given folders, prefixes and globs (and the given files), sorted.

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
    return list(list_lake(path_or_paths, filesystem=filesystem).files)


def hive_partitions(path: str, root: str | os.PathLike[str] | None = None
                    ) -> list[tuple[str, str | None]]:
    """The Hive partition folders of a file's path, ``(name, value)``, outermost first.

    Values are unescaped as Spark and Hive write them (``%3A`` for ``:``);
    ``__HIVE_DEFAULT_PARTITION__`` (a null key) gives None.  With ``root``,
    only the folders below it count (a ``=`` above the lake is not a key).

    >>> hive_partitions("/lake/day=0/city=S%C3%A3o Paulo/part-0.parquet")
    [('day', '0'), ('city', 'São Paulo')]
    >>> hive_partitions("/data/x=1/lake/day=__HIVE_DEFAULT_PARTITION__/a.parquet", "/data/x=1/lake")
    [('day', None)]
    """
    import urllib.parse

    text = path
    if root is not None:
        base = os.fspath(root)
        if "://" in text:
            prefix = base.rstrip("/") + "/"
            text = text[len(prefix):] if text.startswith(prefix) else text
        else:
            text = os.path.relpath(path, base)
    out: list[tuple[str, str | None]] = []
    for segment in text.replace("\\", "/").split("/")[:-1]:
        name, sep, value = segment.partition("=")
        if sep and name:
            out.append((name, None if value == "__HIVE_DEFAULT_PARTITION__"
                        else urllib.parse.unquote(value)))
    return out
