"""Exceptions users may want to catch; plain misuse raises TypeError/ValueError."""


class NanstatsError(Exception):
    """Base class of the errors nanstats raises about data and files."""


class UnsupportedDtypeError(NanstatsError, TypeError):
    """The values are not float16, float32 or float64."""


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
    """A valid Parquet file that nanstats cannot process (e.g. encrypted)."""
