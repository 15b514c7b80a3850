"""Listing the Parquet files of a lake: files and folders, walked once.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> for name in ("b.parquet", "a.parquet", "_SUCCESS", ".a.parquet.crc"):
...     open(os.path.join(folder, name), "wb").close()
>>> [os.path.basename(p) for p in list_parquet_files(folder)]
['a.parquet', 'b.parquet']
"""

from __future__ import annotations

import os
from collections.abc import Sequence

__all__ = ["list_parquet_files"]


def _is_data_file(name: str) -> bool:
    # Hidden and underscore names are the writers' bookkeeping (_SUCCESS,
    # _delta_log, .crc files), never data.
    return name.endswith(".parquet") and not name.startswith((".", "_"))


def list_parquet_files(path_or_paths: str | os.PathLike[str] | Sequence[str]) -> list[str]:
    """Every ``.parquet`` file under the given folders (and the given files), sorted.

    A path that does not exist raises FileNotFoundError naming it.

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> os.mkdir(os.path.join(folder, "day=2"))
    >>> for name in ("day=2/b.parquet", "a.parquet", "notes.txt"):
    ...     open(os.path.join(folder, name), "wb").close()
    >>> [os.path.relpath(p, folder).replace(os.sep, "/") for p in list_parquet_files(folder)]
    ['a.parquet', 'day=2/b.parquet']
    >>> list_parquet_files([os.path.join(folder, "notes.txt")]) == [os.path.join(folder, "notes.txt")]
    True
    >>> list_parquet_files(os.path.join(folder, "missing"))
    Traceback (most recent call last):
    ...
    FileNotFoundError: no such file or folder: .../missing
    """
    items = [path_or_paths] if isinstance(path_or_paths, (str, os.PathLike)) else path_or_paths
    found: list[str] = []
    for item in items:
        item = os.fspath(item)
        if os.path.isdir(item):
            for root, _, names in os.walk(item):
                found += [os.path.join(root, n) for n in names if _is_data_file(n)]
        elif os.path.isfile(item):
            found.append(item)
        else:
            raise FileNotFoundError(f"no such file or folder: {item}")
    return sorted(found)
