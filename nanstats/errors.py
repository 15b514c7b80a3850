"""Exceptions users may want to catch; plain misuse raises TypeError/ValueError."""


class NanstatsError(Exception):
    """Base class of the errors nanstats raises about data and files."""


class UnsupportedDtypeError(NanstatsError, TypeError):
    """The values are not float16, float32 or float64."""
