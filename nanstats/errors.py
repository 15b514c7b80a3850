"""Exceptions users may want to catch; plain misuse raises TypeError/ValueError."""


class NanstatsError(Exception):
    """Base class of the errors nanstats raises about data and files.

    >>> import numpy as np, nanstats
    >>> try:
    ...     nanstats.summary(np.arange(3))
    ... except nanstats.NanstatsError as exc:
    ...     print(type(exc).__name__)
    UnsupportedDtypeError
    """


class UnsupportedDtypeError(NanstatsError, TypeError):
    """The values are not float16, float32 or float64.

    Also a :class:`TypeError`, so code that catches that keeps working.

    >>> import numpy as np, nanstats
    >>> nanstats.summary(np.array([1, 2], dtype=np.int32))
    Traceback (most recent call last):
    ...
    nanstats.errors.UnsupportedDtypeError: ...
    """


class ParquetFormatError(NanstatsError, ValueError):
    """A Parquet file is corrupt, truncated, or says something impossible.

    ``path`` names the file and ``offset`` the byte where the problem lies
    (either may be None when unknown).

    >>> str(ParquetFormatError("footer length 99 exceeds the file", path="x.parquet", offset=12))
    'x.parquet: byte 12: footer length 99 exceeds the file'
    """

    def __init__(self, message: str, *, path: object = None, offset: int | None = None) -> None:
        self.reason = message
        self.path = None if path is None else str(path)
        self.offset = offset
        where = [p for p in (self.path, None if offset is None else f"byte {offset}") if p]
        super().__init__(": ".join([*where, message]))


class UnsupportedParquetError(NanstatsError, ValueError):
    """A valid Parquet file that nanstats cannot process (e.g. encrypted).

    Also a :class:`ValueError`; catch :class:`NanstatsError` for both kinds
    of Parquet trouble.

    >>> issubclass(UnsupportedParquetError, NanstatsError)
    True
    """


class SourceChangedError(NanstatsError):
    """The source of an upgrade was written, truncated or replaced in place during it.

    Nothing was written to the destination; run the upgrade again once the
    source is stable.  ``path`` names the source.

    >>> str(SourceChangedError("x.parquet", "size 10 -> 4"))
    'x.parquet: the source changed while it was being upgraded (size 10 -> 4)'
    """

    def __init__(self, path: str, what: str) -> None:
        self.path = path
        self.reason = what
        super().__init__(f"{path}: the source changed while it was being upgraded ({what})")


class UnsupportedTableError(NanstatsError, ValueError):
    """A Delta Lake or Iceberg table that nanstats cannot change safely.

    Raised before anything is written: a table whose files carry deletion
    vectors or delete files, a table found by its folder that has no catalog
    to commit to, a table feature whose bookkeeping a rewrite would lose.

    >>> issubclass(UnsupportedTableError, ValueError)
    True
    """


class MissingDependencyError(NanstatsError, ImportError):
    """An optional library needed for this input is not installed; the message
    names the extra that installs it.

    >>> issubclass(MissingDependencyError, ImportError)
    True
    """
