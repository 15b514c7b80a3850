"""Upgrades from and to object stores: staged through local temporary files.

When the source or the destination of an upgrade is not on this machine's
file system, :func:`upgrade_staged` streams a remote source down to a local
temporary file, runs the local upgrade (the same code, the same output) to a
local temporary file, and uploads the result.  An upload never shows a
partial object under the destination's name: the bytes go to a temporary key
beside it (``.NAME.XXXXXXXX.nanstats-tmp``, a hidden name no listing
returns), which is complete once its stream is closed (on S3, the multipart
upload is completed then), and only then copied to the destination (one
server-side copy: the destination appears whole, or an old one stays as it
was) and deleted.  On any failure the temporary key is deleted too; if even
that fails, the error names it.  Local temporary files are removed whatever
happens.

pyarrow's S3 streams have no abort: a stream closed after a failure
completes its upload, which is why the temporary key exists at all.  A
server-side copy is one request up to 5 GB on S3; larger results fail with
the store's error, leaving no object and no temporary key behind.

>>> import os, tempfile, fsspec, numpy as np, pyarrow as pa, pyarrow.parquet as papq
>>> from nanstats.parquet.upgrading import upgrade
>>> src = os.path.join(tempfile.mkdtemp(), "a.parquet")
>>> papq.write_table(pa.table({"x": [1.0, np.nan]}), src)
>>> report = upgrade(src, "memory://upgraded/a.parquet")        # fsspec's memory filesystem
>>> report.dst, fsspec.filesystem("memory").ls("/upgraded", detail=False)
('memory://upgraded/a.parquet', ['/upgraded/a.parquet'])
"""

from __future__ import annotations

import dataclasses
import errno
import os
import secrets
import shutil
import tempfile
from collections.abc import Callable

import pyarrow.fs as pafs

from nanstats.lake.fs import Location, remote_errors
from nanstats.parquet.upgrading.report import UpgradeReport

#: Bytes per read and write while streaming a file down or up.
CHUNK_BYTES = 8 * 1024 * 1024

__all__ = ["CHUNK_BYTES", "same_location", "upgrade_staged"]


def same_location(a: Location, b: Location) -> bool:
    """Whether two locations name the same remote object (``s3a://`` and ``s3://`` alike).

    >>> from nanstats.lake.fs import resolve
    >>> same_location(resolve("memory://b/x.parquet"), resolve("memory://b/./x.parquet"))
    False
    >>> same_location(resolve("memory://b/x.parquet"), resolve("memory://b/x.parquet"))
    True
    """
    return (a.filesystem.type_name == b.filesystem.type_name
            and a.path.rstrip("/") == b.path.rstrip("/"))


def _copy(read: Callable[[int], bytes], write: Callable[[bytes], object]) -> int:
    done = 0
    while True:
        data = read(CHUNK_BYTES)
        if not data:
            return done
        write(data)
        done += len(data)


def _download(src: Location, local: str) -> None:
    """Stream ``src`` down to the local file ``local``."""
    with remote_errors(src), src.filesystem.open_input_stream(src.path) as f, \
            open(local, "wb") as out:
        _copy(f.read, out.write)


def _temporary_key(dst: Location) -> str:
    folder, _, name = dst.path.rstrip("/").rpartition("/")
    tmp = f".{name}.{secrets.token_hex(4)}.nanstats-tmp"
    return f"{folder}/{tmp}" if folder else tmp


def _upload(local: str, dst: Location) -> None:
    """Upload ``local`` to ``dst``: through a temporary key, copied last, always removed."""
    fs = dst.filesystem
    tmp = _temporary_key(dst)
    try:
        with remote_errors(dst):
            with fs.open_output_stream(tmp) as out, open(local, "rb") as f:
                _copy(f.read, out.write)
            fs.copy_file(tmp, dst.path)
    except BaseException:
        _remove(fs, tmp, dst)
        raise
    _remove(fs, tmp, dst)


def _remove(fs: pafs.FileSystem, tmp: str, dst: Location) -> None:
    try:
        fs.delete_file(tmp)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise OSError(errno.EIO, f"the temporary object {dst.with_path(tmp).uri} could not be "
                      f"deleted ({' '.join(str(exc).split())}); delete it by hand",
                      dst.uri) from exc


def upgrade_staged(src: Location, dst: Location,
                   upgrade_local: Callable[[str, str], UpgradeReport]) -> UpgradeReport:
    """Run ``upgrade_local(local_src, local_dst)`` with remote sides staged locally.

    A remote ``src`` is streamed down first; a remote ``dst`` is written
    locally, then uploaded as the module says.  The report names the
    locations as given (URIs).  Raises ValueError when both name the same
    object, FileNotFoundError (naming the URI) for a missing source.

    >>> import os, tempfile, numpy as np, pyarrow as pa, pyarrow.parquet as papq
    >>> from nanstats.lake.fs import resolve
    >>> from nanstats.parquet.upgrading import upgrade
    >>> src = os.path.join(tempfile.mkdtemp(), "a.parquet")
    >>> papq.write_table(pa.table({"x": [1.0, np.nan]}), src)
    >>> report = upgrade_staged(resolve(src), resolve("memory://staged/a.parquet"), upgrade)
    >>> report.upgraded, report.dst
    (('x',), 'memory://staged/a.parquet')
    """
    if not src.is_local and not dst.is_local and same_location(src, dst):
        raise ValueError(f"upgrade writes a new file: src and dst are the same object "
                         f"({src.uri!r})")
    staging = tempfile.mkdtemp(prefix="nanstats-upgrade-")
    try:
        local_src = src.path
        if not src.is_local:
            local_src = os.path.join(staging, "source.parquet")
            _download(src, local_src)
        local_dst = dst.path if dst.is_local else os.path.join(staging, "upgraded.parquet")
        report = upgrade_local(local_src, local_dst)
        if not dst.is_local:
            _upload(local_dst, dst)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return dataclasses.replace(report, src=src.uri, dst=dst.uri)
