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

import os
import re
import urllib.parse
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pyarrow.fs as pafs

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["Location", "resolve", "is_uri"]

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


@dataclass(frozen=True)
class Location:
    """A file or folder: the filesystem that holds it and its path there.

    ``uri`` is how messages name it (the local path for local files, else
    a URI with the scheme the filesystem answers to).

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> where = resolve(folder).child("day=1").child("a.parquet")
    >>> os.path.relpath(where.path, folder).replace(os.sep, "/")
    'day=1/a.parquet'
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
        """Another path on the same filesystem (as a listing returns it)."""
        if self.is_local:
            return Location(self.filesystem, path, path)
        scheme = self.uri.split("://", 1)[0]
        return Location(self.filesystem, path, f"{scheme}://{path}")

    def open_input_file(self) -> pa.NativeFile:
        """The file opened for random access reads (ranged requests on object stores)."""
        return self.filesystem.open_input_file(self.path)

    def info(self) -> pafs.FileInfo:
        """What the filesystem says of the entry (type, size, mtime)."""
        return self.filesystem.get_file_info(self.path)

    def __str__(self) -> str:
        return self.uri


def _wrap_fsspec(filesystem: Any) -> pafs.FileSystem:
    return pafs.PyFileSystem(pafs.FSSpecHandler(filesystem))


def _as_pyarrow(filesystem: Any) -> pafs.FileSystem:
    if isinstance(filesystem, pafs.FileSystem):
        return filesystem
    if hasattr(filesystem, "protocol") and hasattr(filesystem, "open"):  # fsspec, duck-typed
        return _wrap_fsspec(filesystem)
    raise TypeError(f"filesystem= must be a pyarrow.fs.FileSystem or an fsspec filesystem, "
                    f"not {type(filesystem).__name__}")


def resolve(target: str | os.PathLike[str] | Location, filesystem: Any = None) -> Location:
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
        kind = getattr(fs, "type_name", "fs")
        return Location(fs, text.split("://", 1)[-1], f"{kind}://{text.split('://', 1)[-1]}")
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
    uri = f"{scheme}://{rest}"
    if scheme in _PYARROW_SCHEMES:
        try:
            fs, path = pafs.FileSystem.from_uri(uri)
        except (pa_errors() + (ValueError,)) as exc:
            raise ValueError(f"{text}: cannot open its filesystem: {exc}") from exc
        return Location(fs, path, uri)
    try:
        import fsspec
        fs_spec, path = fsspec.core.url_to_fs(text)
    except ImportError as exc:
        raise ValueError(f"{text}: no filesystem for the scheme {scheme!r} (pyarrow has none; "
                         "install fsspec and the package for that scheme)") from exc
    except (ValueError, KeyError) as exc:
        raise ValueError(f"{text}: no filesystem for the scheme {scheme!r} ({exc})") from exc
    return Location(_wrap_fsspec(fs_spec), path, text)


def pa_errors() -> tuple[type[BaseException], ...]:
    """The exceptions pyarrow raises for a filesystem it cannot make."""
    import pyarrow as pa
    return (pa.ArrowException, OSError)
