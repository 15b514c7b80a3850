"""The engines' own readers against their in-memory answers: counts add up, wrong rows are seen."""

from __future__ import annotations

import engine_pushdown


def test_upgraded_files_read_right_and_counts_add_up() -> None:
    tally = engine_pushdown.run(range(4), predicates=8)
    engines = {e for e, _ in tally.cases}
    assert {"duckdb", "polars"} <= engines
    for e in engines:
        assert tally.cases[(e, "upgraded")] >= 20
        assert tally.wrong[(e, "upgraded")] == 0, tally.examples.get((e, "upgraded"))
        assert tally.wrong[(e, "pyarrow-written")] <= tally.cases[(e, "pyarrow-written")]
    assert "upgraded" in engine_pushdown.render(tally, "rst")


def test_a_reader_that_loses_rows_is_counted(monkeypatch) -> None:
    def lossy(path: str, e: object) -> set[int]:
        return set(list(engine_pushdown._polars_file(path, e))[1:])

    real = engine_pushdown.readers

    def readers(spark=None):  # type: ignore[no-untyped-def]
        return [engine_pushdown.Reader(r.engine, lossy) for r in real(spark)
                if r.engine.name == "polars"]

    monkeypatch.setattr(engine_pushdown, "readers", readers)
    tally = engine_pushdown.run(range(3), predicates=10)
    assert tally.wrong[("polars", "upgraded")] > 0
    assert tally.lost_rows[("polars", "upgraded")] >= tally.wrong[("polars", "upgraded")]
