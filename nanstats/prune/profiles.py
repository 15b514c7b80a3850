"""Engine profiles: everything about an engine that decides which float rows match.

NaN order (:mod:`nanstats.prune.semantics`) is one axis of an engine's
semantics; these are the others that change which rows a predicate accepts,
and so what pruning may skip (SPEC.md section 6):

* ``float_literal`` / ``int_literal``: a literal compared with a float32 or
  float16 column is rounded to the column's precision (``"column"``), or the
  column is promoted to float64 (``"double"``); ``"column_exact"`` rounds
  only what the column type holds exactly and refuses the rest (Arrow raises
  on ``pc.equal(float32_array, 16777217)``);
* ``in_literal``: the same for the values of an ``in`` list;
* ``membership``: ``x in (...)`` is an OR of ``=`` (``"equal"``, null for a
  null), a hash lookup where every NaN is equal and so are the zeros
  (``"nan_equal"``, false for a null), or one that matches a NaN only with
  identical bits and tells -0.0 from +0.0 (``"identical"``, false for a null);
* ``is_nan_null``: what ``is_nan(null)`` gives, ``"false"`` or ``"null"``
  (then ``not is_nan(x)`` drops null rows);
* ``nan_is_missing``: a null is a NaN (numpy-backed pandas columns): it
  compares as a NaN, and ``is_null``/``is_nan`` are both ``isna``.

The four abstract semantics are profiles too (SQL-like on every other axis).
Every engine profile was measured by ``tests/prune/test_engines.py`` (with
``benchmarks/engine_runs.py``), which
runs randomized predicates on the engine itself and on nanstats with the
profile, and requires identical rows (``make engines`` runs a large set).

>>> profile("duckdb")
EngineProfile('duckdb': order nan_greatest, float literals column, int literals column, in: equal (literals column), is_nan(null) null)
>>> profile("ieee").order, profile(profile("polars")).name
('ieee', 'polars')
>>> profile("postgres")
Traceback (most recent call last):
...
ValueError: no profile for 'postgres': not measured here (no PostgreSQL server to run the differential tests against); use one of ...
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal, get_args

from nanstats.prune.semantics import SEMANTICS, NanSemantics

LiteralTyping = Literal["column", "double"]
IntLiteralTyping = Literal["column", "double", "column_exact"]
Membership = Literal["equal", "nan_equal", "identical"]
IsNanNull = Literal["false", "null"]


@dataclass(frozen=True)
class EngineProfile:
    """How one engine evaluates predicates over float columns (immutable).

    >>> p = profile("arrow")
    >>> p.order, p.membership, p.nan_equal, p.zeros_equal
    ('ieee', 'identical', False, True)
    >>> p.to_dict()["is_nan_null"]
    'null'
    """

    name: str
    order: NanSemantics
    float_literal: LiteralTyping = "double"
    int_literal: IntLiteralTyping = "double"
    in_literal: LiteralTyping = "double"
    membership: Membership = "equal"
    is_nan_null: IsNanNull = "false"
    nan_is_missing: bool = False
    description: str = ""

    def __post_init__(self) -> None:
        for field, allowed in (("order", SEMANTICS), ("float_literal", get_args(LiteralTyping)),
                               ("int_literal", get_args(IntLiteralTyping)),
                               ("in_literal", get_args(LiteralTyping)),
                               ("membership", get_args(Membership)),
                               ("is_nan_null", get_args(IsNanNull))):
            if getattr(self, field) not in allowed:
                raise ValueError(f"EngineProfile {self.name!r}: {field} must be one of "
                                 f"{allowed}, not {getattr(self, field)!r}")

    @property
    def nan_equal(self) -> bool:
        """Whether ``nan = nan`` is true (a comparison, not membership)."""
        return self.order != "ieee"

    @property
    def zeros_equal(self) -> bool:
        """Whether ``-0.0 = +0.0`` is true."""
        return self.order != "total_order"

    @property
    def membership_order(self) -> NanSemantics:
        """The order whose equality ``in`` uses (identical bits: totalOrder's)."""
        return {"equal": self.order, "nan_equal": "nan_greatest",
                "identical": "total_order"}[self.membership]

    @property
    def null_in(self) -> bool | None:
        """What ``null in (...)`` gives."""
        return None if self.membership == "equal" else False

    def to_dict(self) -> dict[str, Any]:
        """The profile's fields, as plain values."""
        return asdict(self)

    def __repr__(self) -> str:
        text = (f"order {self.order}, float literals {self.float_literal}, "
                f"int literals {self.int_literal}, in: {self.membership} "
                f"(literals {self.in_literal}), is_nan(null) {self.is_nan_null}")
        if self.nan_is_missing:
            text += ", NaN is missing"
        return f"EngineProfile({self.name!r}: {text})"


def _abstract(order: NanSemantics) -> EngineProfile:
    return EngineProfile(order, order, description="abstract semantics (SQL-like otherwise)")


#: Profiles by name: the four abstract semantics, then the measured engines.
PROFILES: dict[str, EngineProfile] = {
    **{s: _abstract(s) for s in SEMANTICS},
    "spark": EngineProfile(
        "spark", "nan_greatest",
        description="Spark SQL (promotes float32 columns to double against literals)"),
    "duckdb": EngineProfile(
        "duckdb", "nan_greatest", float_literal="column", int_literal="column",
        in_literal="column", is_nan_null="null",
        description="DuckDB SQL, literals in decimal notation (1e300 is a DOUBLE literal)"),
    "polars": EngineProfile(
        "polars", "nan_greatest", float_literal="column", int_literal="column",
        is_nan_null="null", description="Polars expressions (is_in promotes to float64)"),
    "numpy": EngineProfile(
        "numpy", "ieee", float_literal="column", int_literal="column",
        description="numpy 2 comparisons (NEP 50: Python scalars take the array's type); "
                    "in is np.isin (its list is a float64 array)"),
    "arrow": EngineProfile(
        "arrow", "ieee", int_literal="column_exact", in_literal="column",
        membership="identical", is_nan_null="null",
        description="pyarrow.compute (is_in casts the value set to the column's type)"),
    "pandas": EngineProfile(
        "pandas", "ieee", float_literal="column", int_literal="column",
        membership="nan_equal",
        nan_is_missing=True,
        description="pandas, numpy-backed float columns (nulls are NaN; isna; isin "
                    "compares in float64, every NaN alike)"),
}

#: Engine names that are refused, and why.
REFUSED: dict[str, str] = {
    "postgres": "not measured here (no PostgreSQL server to run the differential tests "
                "against)",
    "pandas_nullable": "pandas' nullable Float dtypes turn NaN into NA when converting, so "
                       "the rows depend on how the data reached pandas",
    "pandas_arrow": "pandas' ArrowDtype treats a NaN scalar as NA in comparisons and isin, "
                    "which no profile expresses",
}

#: The engine names (not the abstract semantics).
ENGINES: tuple[str, ...] = tuple(n for n in PROFILES if n not in SEMANTICS)


def profile(semantics: str | EngineProfile) -> EngineProfile:
    """The profile for an engine or semantics name (a profile is returned as is).

    >>> profile("pandas").nan_is_missing, profile("spark").float_literal
    (True, 'double')
    """
    if isinstance(semantics, EngineProfile):
        return semantics
    if isinstance(semantics, str) and semantics in PROFILES:
        return PROFILES[semantics]
    names = tuple(PROFILES)
    if isinstance(semantics, str) and semantics in REFUSED:
        raise ValueError(f"no profile for {semantics!r}: {REFUSED[semantics]}; use one of "
                         f"{names}")
    raise ValueError(f"semantics must be an EngineProfile or one of {names}, "
                     f"not {semantics!r}")
