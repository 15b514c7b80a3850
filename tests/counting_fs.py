"""A filesystem that counts what is asked of another: requests and bytes read.

``counting(fs)`` wraps any pyarrow filesystem (S3 against the test server,
say) in a ``PyFileSystem``; each call that is one request to an object store
(an open, which asks for the size; a read, a ranged GET; a listing; an info)
is counted in ``handler.requests`` by kind, and the bytes read in
``handler.bytes_read``.  Passed as ``filesystem=``, it shows what a function
read.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs


class _CountingReader:
    def __init__(self, native: Any, handler: CountingHandler) -> None:
        self.native, self.handler = native, handler
        self.closed = False

    def read(self, n: int = -1) -> bytes:
        data = self.native.read(n) if n is not None and n >= 0 else self.native.read()
        self.handler.requests["read"] += 1
        self.handler.bytes_read += len(data)
        return bytes(data)

    def seek(self, offset: int, whence: int = 0) -> int:
        return int(self.native.seek(offset, whence))

    def tell(self) -> int:
        return int(self.native.tell())

    def size(self) -> int:
        return int(self.native.size())

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def writable(self) -> bool:
        return False

    def close(self) -> None:
        self.closed = True
        self.native.close()


class CountingHandler(pafs.FileSystemHandler):
    def __init__(self, fs: pafs.FileSystem) -> None:
        self.fs = fs
        self.requests: Counter[str] = Counter()
        self.bytes_read = 0

    @property
    def total_requests(self) -> int:
        return sum(self.requests.values())

    def reset(self) -> None:
        self.requests.clear()
        self.bytes_read = 0

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return self is not other

    def get_type_name(self) -> str:
        return f"counting+{self.fs.type_name}"

    def normalize_path(self, path: str) -> str:
        return str(self.fs.normalize_path(path))

    def get_file_info(self, paths: list[str]) -> list[pafs.FileInfo]:
        self.requests["info"] += len(paths)
        return list(self.fs.get_file_info(paths))

    def get_file_info_selector(self, selector: pafs.FileSelector) -> list[pafs.FileInfo]:
        self.requests["list"] += 1
        return list(self.fs.get_file_info(selector))

    def open_input_file(self, path: str) -> Any:
        self.requests["open"] += 1
        return pa.PythonFile(_CountingReader(self.fs.open_input_file(path), self), mode="r")

    def open_input_stream(self, path: str) -> Any:
        self.requests["open"] += 1
        return pa.PythonFile(_CountingReader(self.fs.open_input_file(path), self), mode="r")

    # Writes and changes pass through (counted only as what they are).
    def create_dir(self, path: str, recursive: bool) -> None:
        self.fs.create_dir(path, recursive=recursive)

    def delete_dir(self, path: str) -> None:
        self.fs.delete_dir(path)

    def delete_dir_contents(self, path: str, missing_dir_ok: bool = False) -> None:
        self.fs.delete_dir_contents(path, missing_dir_ok=missing_dir_ok)

    def delete_root_dir_contents(self) -> None:
        self.fs.delete_dir_contents("/", accept_root_dir=True)

    def delete_file(self, path: str) -> None:
        self.fs.delete_file(path)

    def move(self, src: str, dest: str) -> None:
        self.fs.move(src, dest)

    def copy_file(self, src: str, dest: str) -> None:
        self.fs.copy_file(src, dest)

    def open_output_stream(self, path: str, metadata: Any) -> Any:
        return self.fs.open_output_stream(path, metadata=metadata)

    def open_append_stream(self, path: str, metadata: Any) -> Any:
        return self.fs.open_append_stream(path, metadata=metadata)


def counting(fs: pafs.FileSystem) -> tuple[pafs.FileSystem, CountingHandler]:
    """``fs`` wrapped so that what is read through it is counted."""
    handler = CountingHandler(fs)
    return pafs.PyFileSystem(handler), handler
