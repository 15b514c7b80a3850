"""The engine profiles table of "Pruning and NaN semantics", from the profiles and a run.

Reads every profile of :mod:`nanstats.prune.profiles` (the four abstract
semantics and the measured engines), runs a small differential set of
``benchmarks/engine_runs.py`` on each installed engine (Spark excluded: it
takes tens of seconds to start; ``make engines`` includes it), and writes
``docs/_generated/engine_profiles.csv``: one row per profile, one column per
axis, and the cases this build ran against the engine with no mismatch.
Nothing in the table is typed by hand.

Run by ``docs/conf.py`` at every build (a few seconds).
"""

from __future__ import annotations

import csv
import sys
import warnings
from pathlib import Path

from nanstats.prune.profiles import PROFILES

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import engine_runs as harness  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "_generated" / "engine_profiles.csv"
HEADER = ["profile", "NaN order", "NaN = NaN", "-0.0 = +0.0", "float literal vs float32",
          "int literal vs float32", "in", "in-list literals", "is_nan(null)", "NaN is missing",
          "cases run at this build"]

_ORDER = {"ieee": "unordered", "nan_greatest": "greatest", "nan_least": "least",
          "total_order": "totalOrder"}
_TYPING = {"column": "float32", "double": "float64", "column_exact": "float32, exact or error"}
_IN = {"equal": "OR of =", "nan_equal": "hash, NaNs equal", "identical": "hash, same bits"}


def rows(cases: dict[str, int]) -> list[list[str]]:
    """One row per profile."""
    out = []
    for name, p in PROFILES.items():
        nan_eq = "by bits" if p.order == "total_order" else str(p.nan_equal).lower()
        out.append([name, _ORDER[p.order], nan_eq, str(p.zeros_equal).lower(),
                    _TYPING[p.float_literal], _TYPING[p.int_literal], _IN[p.membership],
                    _TYPING[p.in_literal], p.is_nan_null, "yes" if p.nan_is_missing else "no",
                    str(cases[name]) if name in cases else
                    ("not run here" if name == "spark" else "")])
    return out


def main() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        outcome = harness.run(range(8), predicates=12)
    if outcome.mismatches:
        raise SystemExit("engine profiles: " + "; ".join(outcome.mismatches[:5]))
    cases: dict[str, int] = {}
    for (engine, _), n in outcome.cases.items():
        cases[engine] = cases.get(engine, 0) + n
    OUT.parent.mkdir(exist_ok=True)
    with open(OUT, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(HEADER)
        w.writerows(rows(cases))


if __name__ == "__main__":
    main()
