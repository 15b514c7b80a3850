"""setup.py's compiler probe (build_probe.py): its decisions, for compilers absent here too."""

from __future__ import annotations

import platform
from pathlib import Path

import pytest

build_probe = pytest.importorskip("build_probe")  # beside setup.py, at the repository root

ALL_OK = dict.fromkeys(build_probe.PROBES, True)


@pytest.mark.parametrize("probes", [ALL_OK, dict.fromkeys(build_probe.PROBES, False), {}])
def test_msvc_builds_the_portable_level_only(probes) -> None:
    d = build_probe.decide("msvc", probes, portable_only=False)
    assert d.levels == ("portable",)
    assert d.macros == [] and d.sources == ["nanstats/_simd/scan_dispatch.c"]


def test_no_vector_extensions_means_portable_only() -> None:
    probes = ALL_OK | {"vector_extensions": False}
    assert build_probe.decide("unix", probes, portable_only=False).levels == ("portable",)


def test_portable_only_wins_over_every_probe() -> None:
    assert build_probe.decide("unix", ALL_OK, portable_only=True).levels == ("portable",)
    assert build_probe.portable_only_requested({"NANSTATS_PORTABLE": "1"})
    assert not build_probe.portable_only_requested({})


def test_x86_levels_follow_their_probes() -> None:
    assert build_probe.decide("unix", ALL_OK, False).levels == ("portable", "avx2", "avx512")
    no_cpu = ALL_OK | {"cpu_supports": False}
    assert build_probe.decide("unix", no_cpu, False).levels == ("portable",)
    no_512 = ALL_OK | {"target_avx512": False}
    d = build_probe.decide("unix", no_512, False)
    assert d.levels == ("portable", "avx2") and "target_avx512" in d.reason
    assert d.macros == [("NS_BUILT_AVX2", "1")]
    assert d.sources == ["nanstats/_simd/scan_avx2.c", "nanstats/_simd/scan_dispatch.c"]


def test_avx512_tuning_only_where_the_level_is_built_and_its_probe_passed() -> None:
    tune = ("NS_AVX512_TUNE", f'",tune={build_probe.AVX512_TUNE}"')
    assert build_probe.decide("unix", ALL_OK, False).macros == [
        ("NS_BUILT_AVX2", "1"), ("NS_BUILT_AVX512", "1"), tune]
    untuned = build_probe.decide("unix", ALL_OK | {"avx512_tune": False}, False)
    assert untuned.levels == ("portable", "avx2", "avx512") and tune not in untuned.macros
    no_512 = build_probe.decide("unix", ALL_OK | {"target_avx512": False}, False)
    assert tune not in no_512.macros
    assert tune not in build_probe.decide("unix", ALL_OK, True).macros
    # The tuned probe is the level's own snippet with the tune added.
    assert build_probe.PROBES["avx512_tune"] == build_probe.PROBES["target_avx512"].replace(
        'popcnt"', f'popcnt,tune={build_probe.AVX512_TUNE}"')


def test_non_x86_vector_extensions_build_the_baseline_c_level() -> None:
    d = build_probe.decide("unix", ALL_OK | {"x86": False}, False)
    assert d.levels == ("portable", "baseline")
    assert d.sources == ["nanstats/_simd/scan_baseline.c", "nanstats/_simd/scan_dispatch.c"]


class FailingCompiler:
    """A compiler that compiles nothing (as MSVC would fail our snippets)."""

    compiler_type = "unix"

    def compile(self, sources, **kwargs):
        raise RuntimeError("cannot compile")

    def link_executable(self, objects, name, **kwargs):
        raise RuntimeError("cannot link")


def test_a_compiler_that_fails_every_snippet_gets_the_portable_level() -> None:
    probes = build_probe.probe(FailingCompiler())
    assert probes == dict.fromkeys(build_probe.PROBES, False)
    assert build_probe.decide("unix", probes, False).levels == ("portable",)


@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"), reason="x86-64 only")
def test_the_real_compiler_here(tmp_path: Path) -> None:
    # This machine's default compiler (gcc or CC): every probe compiles.
    from setuptools._distutils.ccompiler import new_compiler
    from setuptools._distutils.sysconfig import customize_compiler

    compiler = new_compiler()
    customize_compiler(compiler)
    probes = build_probe.probe(compiler, ["-O2"])
    # gcc's tuning switches compile with gcc only (clang rejects them).
    is_gcc = "clang" not in " ".join(compiler.compiler)  # type: ignore[attr-defined]
    assert probes == ALL_OK | {"gcc_tuning": is_gcc}, probes
    flags = build_probe.decide("unix", probes, False).flags
    assert flags == build_probe.NO_WRAPV + build_probe.ALIGN_LOOPS + (
        build_probe.GCC_TUNING if is_gcc else ())


def test_kernel_flags_only_with_a_c_level() -> None:
    every = build_probe.NO_WRAPV + build_probe.ALIGN_LOOPS + build_probe.GCC_TUNING
    assert build_probe.decide("unix", ALL_OK, False).flags == every
    no_gcc = ALL_OK | {"gcc_tuning": False}
    assert (build_probe.decide("unix", no_gcc, False).flags
            == build_probe.NO_WRAPV + build_probe.ALIGN_LOOPS)
    no_align = ALL_OK | {"align_loops": False}
    assert (build_probe.decide("unix", no_align, False).flags
            == build_probe.NO_WRAPV + build_probe.GCC_TUNING)
    # The x86 flags never for another target; -fno-wrapv for its baseline level.
    d = build_probe.decide("unix", ALL_OK | {"x86": False}, False)
    assert d.levels == ("portable", "baseline") and d.flags == build_probe.NO_WRAPV
    # No C level, or the portable level alone: no flags.
    assert build_probe.decide("unix", ALL_OK | {"cpu_supports": False}, False).flags == ()
    assert build_probe.decide("unix", ALL_OK | {"vector_extensions": False}, False).flags == ()
    assert build_probe.decide("unix", ALL_OK, True).flags == ()
    assert build_probe.decide("msvc", ALL_OK, False).flags == ()
