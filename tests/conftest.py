import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "default", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "ci", max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow],
    derandomize=False, print_blob=True,
)
settings.load_profile("ci" if os.environ.get("CI") else "default")


# ---------------------------------------------------------------------------
# Kernel levels: which ones this run tested.  A test that runs the kernel at
# one level takes the level as its `simd_level` (fixture) or `level`
# parameter; a level counts as tested when such a test passed.  If any such
# test was collected, every level that this build has and this CPU runs must
# have passed one, or the run fails; levels the CPU lacks are reported as not
# tested, never as passed.
LEVEL_PARAMS = ("simd_level", "level")
_levels_passed: set[str] = set()
_level_tests_collected = False


def _level_of(item: pytest.Item) -> str | None:
    params = getattr(getattr(item, "callspec", None), "params", {})
    for name in LEVEL_PARAMS:
        if name in params:
            return str(params[name])
    return None


def pytest_collection_finish(session: pytest.Session) -> None:
    # session.items: what runs, after -k / -m deselection.
    global _level_tests_collected
    _level_tests_collected = any(_level_of(item) is not None for item in session.items)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call" and report.passed:
        level = _LEVEL_BY_NODEID.get(report.nodeid)
        if level is not None:
            _levels_passed.add(level)


_LEVEL_BY_NODEID: dict[str, str] = {}


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    level = _level_of(item)
    if level is not None:
        _LEVEL_BY_NODEID[item.nodeid] = level


def level_report() -> tuple[list[str], list[str]]:
    """Lines saying what happened to each level; the levels missed (runnable, untested)."""
    from nanstats import _kernels

    lines, missed = [], []
    built, runnable = _kernels.built_levels(), _kernels.simd_levels()
    for level in _kernels.SIMD_LEVELS:
        if level not in built:
            lines.append(f"{level}: not tested (not in this build)")
        elif level not in runnable:
            lines.append(f"{level}: not tested (this CPU cannot run it)")
        elif level in _levels_passed:
            lines.append(f"{level}: tested, passed")
        else:
            lines.append(f"{level}: NOT TESTED although this CPU runs it")
            missed.append(level)
    return lines, missed


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _level_tests_collected and level_report()[1] and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    if not _level_tests_collected:
        return
    lines, missed = level_report()
    terminalreporter.section("kernel levels")
    for line in lines:
        terminalreporter.write_line(line)
    if missed:
        terminalreporter.write_line(
            f"FAILED: levels this CPU runs but no passing test ran: {', '.join(missed)}",
            red=True)


# ---------------------------------------------------------------------------
# Iceberg: a SQLite catalog (pyiceberg's SqlCatalog) with a local warehouse,
# one per test, and a namespace "lake".
@pytest.fixture
def catalog(tmp_path):  # type: ignore[no-untyped-def]
    from pyiceberg.catalog.sql import SqlCatalog

    cat = SqlCatalog("test", uri=f"sqlite:///{tmp_path}/catalog.db",
                     warehouse=f"file://{tmp_path}/warehouse")
    cat.create_namespace("lake")
    return cat
