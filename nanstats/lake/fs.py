"""Where a file lives: one filesystem layer for paths, URIs and explicit filesystems.

Every function that takes a path takes a :class:`Location` through
:func:`resolve`: a local path, a ``file://`` URI, an object-store URI
(``s3://``, ``s3a://``, ``s3n://``, ``gs://``, ``abfs://``, ``abfss://``,
``hdfs://``), any other fsspec URL, or a path together with an explicit
``filesystem=`` (a :class:`pyarrow.fs.FileSystem` or an fsspec filesystem).
Credentials and endpoints come from where pyarrow and fsspec look for them
(``AWS_*`` variables including ``AWS_ENDPOINT_URL``, profiles, instance
roles); nanstats adds no settings of its own.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> where = resolve(os.path.join(folder, "a b.parquet"))
>>> where.is_local, where.path == os.path.join(folder, "a b.parquet")
(True, True)
>>> resolve("file://" + folder.replace(os.sep, "/") + "/a%20b.parquet").path.endswith("a b.parquet")
True
"""

from __future__ import annotations

import errno
import os
import re
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO, Generic, TypeVar, cast

import pyarrow.fs as pafs

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["TAIL_BYTES", "Location", "RemoteFile", "absolute_path", "is_uri", "join_path",
           "relative_path", "remote_errors", "resolve"]

#: Spark's and Hadoop's names for S3, read by the same S3 filesystem.
_S3_ALIASES = {"s3a": "s3", "s3n": "s3"}
#: Schemes pyarrow.fs opens itself (others go through fsspec).
_PYARROW_SCHEMES = frozenset({"s3", "gs", "gcs", "abfs", "abfss", "hdfs", "viewfs"})
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*)://")


def is_uri(target: str) -> bool:
    """True when ``target`` starts with a scheme (``s3://``, ``file://``, ...).

    A Windows drive (``C:\\data``) is a path, not a URI.

    >>> is_uri("s3://b/k"), is_uri("lake/x.parquet"), is_uri("C:\\\\lake")
    (True, False, False)
    """
    return _SCHEME.match(target) is not None


#: The last bytes of a remote file read in one request on first use: the
#: footer and, as writers place it, the page index lie there.
TAIL_BYTES = 64 * 1024


def absolute_path(path: str) -> str:
    """A local path made absolute; a URI as it is.

    >>> absolute_path("s3://bucket/a.parquet"), os.path.isabs(absolute_path("a.parquet"))
    ('s3://bucket/a.parquet', True)
    """
    return path if is_uri(path) else os.path.abspath(path)


def join_path(folder: str, relative: str) -> str:
    """``relative`` (``/``-separated) below ``folder``, a local path or a URI.

    >>> join_path("s3://bucket/out/", "day=1/a.parquet")
    's3://bucket/out/day=1/a.parquet'
    >>> join_path("out", "day=1/a.parquet").replace(os.sep, "/")
    'out/day=1/a.parquet'
    """
    if is_uri(folder):
        return folder.rstrip("/") + "/" + relative
    return os.path.join(folder, *relative.split("/"))


def relative_path(path: str, folder: str) -> str:
    """``path`` relative to ``folder`` (``/``-separated), as a listing of the folder gives it.

    >>> relative_path("s3a://bucket/lake/day=1/a.parquet", "s3a://bucket/lake/")
    'day=1/a.parquet'
    >>> relative_path(os.path.join("lake", "day=1", "a.parquet"), "lake")
    'day=1/a.parquet'
    """
    if is_uri(path):
        prefix = folder.rstrip("/") + "/"
        return path[len(prefix):] if path.startswith(prefix) else path
    if is_uri(folder):  # a file:// folder lists local paths
        folder = resolve(folder).path
    return os.path.relpath(path, folder).replace(os.sep, "/")


@dataclass(frozen=True)
class Location:
    """A file or folder: the filesystem that holds it and its path there.

    ``uri`` is how messages name it (the local path for local files, else
    the URI as given: ``s3a://`` stays ``s3a://``).

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> where = resolve(folder).child("day=1").child("a.parquet")
    >>> os.path.relpath(where.path, folder).replace(os.sep, "/")
    'day=1/a.parquet'
    >>> lake = resolve("memory://lake/day=1")          # fsspec's in-memory filesystem
    >>> lake.path, lake.with_path("/lake/x.parquet").uri
    ('/lake/day=1', 'memory://lake/x.parquet')
    """

    filesystem: pafs.FileSystem
    path: str
    uri: str

    @property
    def is_local(self) -> bool:
        """True when the file is on this machine's own file system."""
        return isinstance(self.filesystem, pafs.LocalFileSystem)

    @property
    def local_path(self) -> str | None:
        """The operating system's path of a local file, else None."""
        return self.path if self.is_local else None

    def child(self, name: str) -> Location:
        """The entry ``name`` inside this folder."""
        sep = os.sep if self.is_local else "/"
        path = self.path.rstrip(sep) + sep + name
        uri = path if self.is_local else self.uri.rstrip("/") + "/" + name
        return Location(self.filesystem, path, uri)

    def with_path(self, path: str) -> Location:
        """Another path on the same filesystem (as a listing returns it), named alike."""
        if self.is_local:
            return Location(self.filesystem, path, path)
        return Location(self.filesystem, path, _uri_for(self.uri, self.path, path))

    def open_input_file(self) -> pa.NativeFile:
        """The file opened for random access reads (ranged requests on object stores)."""
        with remote_errors(self):
            return self.filesystem.open_input_file(self.path)

    def info(self) -> pafs.FileInfo:
        """What the filesystem says of the entry (type, size, mtime)."""
        with remote_errors(self):
            return self.filesystem.get_file_info(self.path)

    def identity(self) -> tuple[str, int, int]:
        """``(uri, size, mtime_ns)``: what a cache kept per file checks, so that a
        file rewritten, grown or replaced is read again.  A local file costs a
        ``stat``, a remote one a metadata request; a missing file raises
        FileNotFoundError naming it.

        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "t.bin")
        >>> with open(path, "wb") as f:
        ...     _ = f.write(b"PAR1")
        >>> resolve(path).identity()[1]
        4
        """
        if self.is_local:
            st = os.stat(self.path)
            return self.uri, st.st_size, st.st_mtime_ns
        info = self.info()
        if info.type == pafs.FileType.NotFound:
            raise FileNotFoundError(f"{self.uri}: no such file")
        return self.uri, int(info.size or 0), int(info.mtime_ns or 0)

    def exists(self) -> bool:
        """True when a file or folder is there (on object stores: a key or a prefix)."""
        return bool(self.info().type != pafs.FileType.NotFound)

    def is_dir(self) -> bool:
        """True for a folder (on object stores: a prefix with keys below it)."""
        return bool(self.info().type == pafs.FileType.Directory)

    @contextmanager
    def open_reader(self) -> Iterator[BinaryIO]:
        """The file opened for ``seek``/``read``: a local file as it is, a remote
        one as a :class:`RemoteFile` (ranged reads, the last
        :data:`TAIL_BYTES` read once).

        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "t.bin")
        >>> with open(path, "wb") as f:
        ...     _ = f.write(b"PAR1 hello PAR1")
        >>> with resolve(path).open_reader() as f:
        ...     _ = f.seek(5)
        ...     f.read(5)
        b'hello'
        """
        if self.is_local:
            with open(self.path, "rb") as f:
                yield f
            return
        remote = RemoteFile(self.open_input_file(), self.uri)
        try:
            # RemoteFile has the part of BinaryIO the readers use (seek, tell, read, name).
            yield cast(BinaryIO, remote)
        finally:
            remote.close()

    def arrow_source(self) -> Any:
        """What to give pyarrow to read the file: the local path (pyarrow opens
        it itself), else the remote file opened for ranged reads (the caller
        closes it)."""
        return self.path if self.is_local else self.open_input_file()

    def __str__(self) -> str:
        return self.uri


#: What every path argument accepts: a path, a URI, or a :class:`Location`.
Target = str | os.PathLike[str] | Location


def _uri_for(uri: str, path: str, new_path: str) -> str:
    """The URI of ``new_path``, given that ``uri`` names ``path`` on the same filesystem."""
    if uri.endswith(path):
        return uri[:len(uri) - len(path)] + new_path
    stripped, new = path.lstrip("/"), new_path.lstrip("/")
    if stripped and uri.endswith(stripped):  # fsspec's '/x' for 'memory://x'
        return uri[:len(uri) - len(stripped)] + new
    scheme = uri.split("://", 1)[0]
    return f"{scheme}://{new}"


@contextmanager
def remote_errors(where: Location) -> Iterator[None]:
    """pyarrow's and fsspec's errors for a remote entry, re-raised naming its URI.

    A missing key or bucket is a FileNotFoundError, a refusal a
    PermissionError, anything else (an unreachable endpoint, bad
    credentials) an OSError; the message starts with the URI.  Local errors
    pass unchanged (they name the path already).

    >>> where = resolve("memory://remote-errors/nothing.parquet")
    >>> with remote_errors(where):
    ...     where.filesystem.open_input_file(where.path)
    Traceback (most recent call last):
    ...
    FileNotFoundError: [Errno 2] no such file or folder: 'memory://remote-errors/nothing.parquet'
    """
    if where.is_local:
        yield
        return
    try:
        yield
    except FileNotFoundError as exc:
        raise FileNotFoundError(errno.ENOENT, "no such file or folder", where.uri) from exc
    except PermissionError as exc:
        raise PermissionError(errno.EACCES, f"access denied ({_short(exc)})", where.uri) from exc
    except OSError as exc:
        if where.uri in str(exc):
            raise
        raise OSError(f"{where.uri}: {_short(exc)}") from exc


def _short(exc: BaseException) -> str:
    return " ".join(str(exc).split())


class RemoteFile:
    """A remote file read by ranges: ``seek``, ``tell``, ``read`` as on a local file.

    The first read that touches the last :data:`TAIL_BYTES` of the file
    fetches all of them in one request, and later reads there (the rest of
    the footer, the page index) cost nothing; ranges fetched with
    :meth:`keep` are served from memory too until :meth:`forget`; every
    other read is one ranged request.  ``requests`` and ``bytes_read`` count
    what was fetched.

    >>> import pyarrow as pa
    >>> f = RemoteFile(pa.BufferReader(b"PAR1" + bytes(100) + b"PAR1"), "mem://x")
    >>> _ = f.seek(-4, 2); f.read(4), f.requests, f.bytes_read
    (b'PAR1', 1, 108)
    >>> _ = f.seek(0); f.read(4), f.requests
    (b'PAR1', 1)
    >>> g = RemoteFile(pa.BufferReader(bytes(1000)), "mem://y", tail_bytes=8)
    >>> g.keep(10, 20) == bytes(20), g.requests
    (True, 1)
    >>> _ = g.seek(15); g.read(5) == bytes(5), g.requests    # kept: no request
    (True, 1)
    """

    def __init__(self, native: Any, name: str, tail_bytes: int = TAIL_BYTES) -> None:
        self._file = native
        self.name = name
        self._size = int(native.size())
        self._tail_start = max(0, self._size - tail_bytes)
        self._tail: bytes | None = None
        self._kept: list[tuple[int, bytes]] = []
        self._pos = 0
        self.requests = 0
        self.bytes_read = 0

    def size(self) -> int:
        """The file's size in bytes."""
        return self._size

    def is_cached(self, offset: int) -> bool:
        """True when the bytes from ``offset`` to the end are in memory already."""
        return self._tail is not None and offset >= self._tail_start

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        """Move to ``offset`` (from the start, the current position or the end)."""
        base = {os.SEEK_SET: 0, os.SEEK_CUR: self._pos, os.SEEK_END: self._size}[whence]
        if base + offset < 0:
            raise ValueError(f"{self.name}: seek to a negative position {base + offset}")
        self._pos = base + offset
        return self._pos

    def tell(self) -> int:
        """The current position."""
        return self._pos

    def _fetch(self, offset: int, length: int) -> bytes:
        data = bytes(self._file.read_at(length, offset))
        self.requests += 1
        self.bytes_read += len(data)
        return data

    def keep(self, offset: int, length: int) -> bytes:
        """The bytes at ``offset``, fetched in one request and kept: later reads within
        them cost nothing (a chunk's page headers, then its values read by pyarrow)."""
        self.seek(offset)
        data = self.read(length)
        self._kept.append((offset, data))
        return data

    def forget(self) -> None:
        """Drop the ranges :meth:`keep` kept."""
        self._kept.clear()

    def read(self, n: int = -1) -> bytes:
        """Up to ``n`` bytes from the current position (all that is left with -1)."""
        lo = min(self._pos, self._size)
        hi = self._size if n is None or n < 0 else min(self._size, lo + n)
        if hi <= lo:
            return b""
        for start, kept in self._kept:
            if start <= lo and hi <= start + len(kept):
                self._pos = hi
                return kept[lo - start:hi - start]
        if hi <= self._tail_start:
            data = self._fetch(lo, hi - lo)
        else:
            if self._tail is None:
                self._tail = self._fetch(self._tail_start, self._size - self._tail_start)
            head = self._fetch(lo, self._tail_start - lo) if lo < self._tail_start else b""
            data = head + self._tail[max(lo, self._tail_start) - self._tail_start:
                                     hi - self._tail_start]
        self._pos = lo + len(data)
        return data

    def close(self) -> None:
        """Close the underlying file."""
        self._file.close()

    @property
    def closed(self) -> bool:
        """Whether the underlying file is closed (a file object's attribute, for pyarrow)."""
        return bool(self._file.closed)

    def readable(self) -> bool:
        """True: a file for reading (for pyarrow's ``PythonFile``)."""
        return True

    def seekable(self) -> bool:
        """True: reads may start anywhere (for pyarrow's ``PythonFile``)."""
        return True

    def __enter__(self) -> RemoteFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _scheme_of(fs: pafs.FileSystem) -> str:
    """The scheme that names entries of ``fs`` in messages (``s3``, ``memory``, ...)."""
    kind = str(getattr(fs, "type_name", "fs"))
    if kind.startswith("py::fsspec+"):
        kind = kind[len("py::fsspec+"):].strip("()' ").split("'")[0] or "fsspec"
    return {"gcs": "gs"}.get(kind, kind)


def _wrap_fsspec(filesystem: Any) -> pafs.FileSystem:
    return pafs.PyFileSystem(pafs.FSSpecHandler(filesystem))


def _as_pyarrow(filesystem: Any) -> pafs.FileSystem:
    if isinstance(filesystem, pafs.FileSystem):
        return filesystem
    if hasattr(filesystem, "protocol") and hasattr(filesystem, "open"):  # fsspec, duck-typed
        return _wrap_fsspec(filesystem)
    raise TypeError(f"filesystem= must be a pyarrow.fs.FileSystem or an fsspec filesystem, "
                    f"not {type(filesystem).__name__}")


T = TypeVar("T")


class FileCache(Generic[T]):
    """Values made from files, each kept while its file is unchanged.

    The key is :meth:`Location.identity` (path, size, modification time), so
    a file rewritten, grown or replaced is made again; past ``limit`` files
    the one used longest ago is dropped (memory stays bounded).

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.bin")
    >>> with open(path, "wb") as f:
    ...     _ = f.write(b"PAR1")
    >>> sizes = FileCache(lambda p: os.path.getsize(p))
    >>> sizes(path), sizes(path) is sizes(path)
    (4, True)
    """

    def __init__(self, make: Callable[[str], T], limit: int = 4096) -> None:
        self._make = make
        self._limit = limit
        self._kept: dict[tuple[str, int, int], T] = {}

    def __call__(self, path: str) -> T:
        key = resolve(path).identity()
        found = self._kept.pop(key, None)
        if found is None:
            found = self._make(path)
            while len(self._kept) >= self._limit:
                self._kept.pop(next(iter(self._kept)))  # the one used longest ago
        self._kept[key] = found  # (re)inserted last: the most recently used
        return found


def resolve(target: Target, filesystem: Any = None) -> Location:
    """The :class:`Location` of a path, a URI or (with ``filesystem=``) a path on that filesystem.

    Percent-escapes of ``file://`` URIs are decoded (Spark's ``inputFiles()``
    gives ``odd%20lake``).  An unknown scheme is handed to fsspec; a scheme
    neither knows raises ValueError naming it.

    >>> import pyarrow.fs as pafs
    >>> resolve("bucket/key.parquet", filesystem=pafs.LocalFileSystem()).path
    'bucket/key.parquet'
    >>> resolve("nosuchscheme://x/y")
    Traceback (most recent call last):
    ...
    ValueError: nosuchscheme://x/y: no filesystem for the scheme 'nosuchscheme' ...
    """
    if isinstance(target, Location):
        return target
    if not isinstance(target, (str, os.PathLike)):
        raise TypeError(f"a path or URI is needed, not {type(target).__name__}")
    text = os.fspath(target)
    if filesystem is not None:
        fs = _as_pyarrow(filesystem)
        if isinstance(fs, pafs.LocalFileSystem):
            return Location(fs, text, text)
        path = text.split("://", 1)[-1]
        return Location(fs, path, f"{_scheme_of(fs)}://{path.lstrip('/')}")
    match = _SCHEME.match(text)
    if match is None:
        return Location(pafs.LocalFileSystem(), text, text)
    scheme = match.group(1).lower()
    rest = text[match.end():]
    if scheme == "file":
        parsed = urllib.parse.urlparse(text)
        path = urllib.parse.unquote(parsed.path)
        if os.name == "nt" and re.match(r"^/[A-Za-z]:", path):
            path = path[1:]
        return Location(pafs.LocalFileSystem(), path, path)
    scheme = _S3_ALIASES.get(scheme, scheme)
    if scheme in _PYARROW_SCHEMES:
        fs, path = _pyarrow_filesystem(scheme, rest, text)
        return Location(fs, path, text)
    try:
        import fsspec
        fs_spec, path = fsspec.core.url_to_fs(text)
    except ImportError as exc:
        raise ValueError(f"{text}: no filesystem for the scheme {scheme!r} (pyarrow has none; "
                         "install fsspec and the package for that scheme)") from exc
    except (ValueError, KeyError) as exc:
        raise ValueError(f"{text}: no filesystem for the scheme {scheme!r} ({exc})") from exc
    return Location(_wrap_fsspec(fs_spec), path, text)


#: Filesystems made from URIs, by scheme, authority and the environment they
#: were made in: pyarrow's may ask the store (an S3 bucket's region) when
#: made, so one is made per bucket, not per file.
_MADE: dict[tuple[str, str, tuple[tuple[str, str], ...]], pafs.FileSystem] = {}
_ENVIRONMENT = ("AWS_", "GOOGLE_", "GCS_", "AZURE_", "HADOOP_", "ARROW_")


def _pyarrow_filesystem(scheme: str, rest: str, text: str) -> tuple[pafs.FileSystem, str]:
    if scheme in ("s3", "gs", "gcs") and "?" not in rest:
        # One filesystem per bucket; the key percent-decoded as pyarrow
        # decodes it (and spaces, which its URI parser refuses, kept).
        bucket = rest.partition("/")[0]
        key = (scheme, bucket, tuple(sorted((k, v) for k, v in os.environ.items()
                                            if k.startswith(_ENVIRONMENT))))
        if key not in _MADE:
            if len(_MADE) >= 64:
                _MADE.clear()
            _MADE[key] = _from_uri(f"{scheme}://{bucket}", text)[0]
        return _MADE[key], urllib.parse.unquote(rest).rstrip("/")
    return _from_uri(f"{scheme}://{rest}", text)


def _from_uri(uri: str, text: str) -> tuple[pafs.FileSystem, str]:
    try:
        fs, path = pafs.FileSystem.from_uri(uri)
    except (pa_errors() + (ValueError,)) as exc:
        raise ValueError(f"{text}: cannot open its filesystem: {_short(exc)}") from exc
    return fs, str(path)


def pa_errors() -> tuple[type[BaseException], ...]:
    """The exceptions pyarrow raises for a filesystem it cannot make."""
    import pyarrow as pa
    return (pa.ArrowException, OSError)
