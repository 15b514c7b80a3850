"""Which kernel levels the compiler at hand can build (used by setup.py).

Like bottleneck's ``bn_config.py``, nothing is assumed about the compiler:
small C snippets are compiled with it, and the levels whose snippets compile
are built.  :func:`probe` runs the snippets; :func:`decide` turns the
results into levels and is pure, so that its choices (MSVC, a compiler
without GCC vector extensions, ``NANSTATS_PORTABLE=1``) are unit-tested
where those compilers are absent (``tests/test_build_probe.py``).

The levels (``nanstats._kernels.SIMD_LEVELS``):

- ``portable``: typed Cython loops; always built.
- ``baseline``: C with GCC vector extensions for the compiler's default
  target: NEON on arm64 and other non-x86 targets.  Not built for x86,
  where the compiler's default is SSE2 and the portable level matches or
  beats it at every width and validity kind (measured on AMD EPYC, gcc 12,
  1e7 values: 1.06-2.7x faster).
- ``avx2``, ``avx512``: the same C with per-function
  ``__attribute__((target(...)))``, chosen at run time with
  ``__builtin_cpu_supports``.

>>> decide("unix", dict.fromkeys(PROBES, True), portable_only=False).levels
('portable', 'avx2', 'avx512')
>>> decide("msvc", dict.fromkeys(PROBES, True), portable_only=False).levels
('portable',)
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass

#: The tuning of the AVX-512 level's float16 and float64 functions
#: (``tune=`` in their target attribute, passed to scan_avx512.c as
#: NS_AVX512_TUNE where the compiler takes it; float32's keep the
#: compiler's, see there): Intel's AVX-512 server cores rather than gcc's
#: generic tuning, under which gcc 12 keeps the page loops' general
#: registers in mask registers between pages (``kmov`` to and from
#: ``k0``-``k7`` in the loops without nulls and with a bitmap: float16 56
#: -> 20, float64 43 -> 7).  AMD Zen 4, 1e6 values in L3, the kernel alone,
#: both builds in one process, best of 150, us, one summary / pages of
#: 1,000 rows: float16 with a bitmap 53.3 / 65.1 -> 53.7 / 63.7, without
#: nulls 48.4 / 59.5 -> 48.3 / 56.1, with a bool mask 55.9 / 73.7 -> 54.9 /
#: 69.0; float64 218.3 / 236.4 -> 214.2 / 225.9, 203.9 / 215.7 -> 199.9 /
#: 210.2, 245.5 / 263.9 -> 240.6 / 253.5.  ``skylake-avx512`` and
#: ``sapphirerapids`` measured the same, ``znver3`` (gcc 12 has no
#: ``znver4``) between generic and them.
AVX512_TUNE = "icelake-server"

_AVX512_SNIPPET = r"""
#include <immintrin.h>
#include <stdint.h>
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,bmi,bmi2,popcnt%s")))
long long probe(const void *p, __mmask8 k)
{
    __m512i x = _mm512_loadu_si512(p);
    __m512i m = _mm512_mask_min_epi64(x, k, x, _mm512_set1_epi64(3));
    __mmask64 t = _mm512_test_epi8_mask(x, x);
    return _mm512_reduce_add_epi64(m) + (long long)t + _mm512_reduce_add_epi32(x);
}
"""

#: Snippet per probe.  Each uses what the matching level's code uses.
PROBES: dict[str, str] = {
    # scan_template.h: vector_size types, lane-wise compare/select/shift,
    # splats, subscripts and __builtin_convertvector.
    "vector_extensions": r"""
#include <stdint.h>
#include <string.h>
typedef int16_t v8 __attribute__((vector_size(16)));
typedef uint16_t vu8 __attribute__((vector_size(16)));
typedef uint8_t vb8 __attribute__((vector_size(8)));
int16_t probe(const uint8_t *p, v8 a, v8 b)
{
    vb8 raw;
    memcpy(&raw, p, sizeof raw);
    v8 m = (v8)(a < b) & __builtin_convertvector(raw, v8);
    v8 c = (m & a) | (~m & ((v8){} + 7));
    c = (v8)((vu8)c >> 1);
    return c[0] + c[7];
}
""",
    # The compiler targets x86 (asked of the compiler, not of the build
    # machine, so that cross-compiling decides right).
    "x86": r"""
#if !defined(__x86_64__) && !defined(__i386__) && !defined(_M_X64) && !defined(_M_IX86)
#error not x86
#endif
int probe(void) { return 0; }
""",
    # scan_dispatch.c: run-time CPU detection, linked into a program.
    "cpu_supports": r"""
int main(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") + __builtin_cpu_supports("avx512bw");
}
""",
    # scan_avx2.c: AVX2 intrinsics and 32-byte vectors in functions carrying
    # the target attribute, in a file compiled for the default target.
    "target_avx2": r"""
#include <immintrin.h>
#include <stdint.h>
typedef int16_t v16 __attribute__((vector_size(32)));
__attribute__((target("avx2,bmi,bmi2,popcnt")))
int probe(const uint8_t *p, v16 a)
{
    v16 w = (v16)_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)p));
    v16 m = (v16)_mm256_min_epi16((__m256i)w, (__m256i)a);
    return m[3] + (int)_pdep_u64(5, 3) + __builtin_popcountll(7);
}
""",
    # scan_avx512.c: AVX-512 F/BW/DQ/VL intrinsics with mask registers.
    "target_avx512": _AVX512_SNIPPET % "",
    # The same with the AVX-512 level's tuning (AVX512_TUNE above).
    "avx512_tune": _AVX512_SNIPPET % f",tune={AVX512_TUNE}",
}

#: Probes whose snippet is linked into a program, not only compiled.
LINKED = {"cpu_supports"}

#: gcc's generic tuning, two of its choices turned off for the x86 levels:
#: an xor clearing the destination before each popcnt (a false dependency
#: of Intel CPUs before Cannon Lake; in the kernels' loops no popcnt waits
#: on a chain longer than the loop's own step), and vector constants built
#: in general registers and moved over where one load would do.  AMD Zen 4,
#: float16 at the AVX2 level, instructions per 1,000 rows in one page
#: 1186 -> 1152 without nulls and 1416 -> 1350 with an Arrow bitmap, and
#: 247 -> 218 and 337 -> 313 a page besides its rows for pages of 1,000
#: rows (callgrind).  clang has no such option; its probe fails there.
GCC_TUNING: tuple[str, ...] = (
    "-mtune-ctrl=^avoid_false_dep_for_bmi,^inter_unit_moves_to_vec",)

#: The kernels' loops start at a 64-byte boundary (gcc and clang): where a
#: loop starts otherwise moves its speed by several percent from one build
#: to the next, with its instructions unchanged.  AMD Zen 3, AVX2, 1e6
#: values in L3, the kernel alone, this build against one without it
#: (both in one process, interleaved, best of 300, two runs): float32
#: pages of 1,000 rows without nulls 131.3 -> 120.2 us, float64 without
#: nulls one summary 236.4 -> 217.2 and pages of 1,000 rows 242.0 ->
#: 225.6; every other case (float16, bitmaps, bool masks, +NaN only)
#: within 1%.  32 bytes measured the same as 64; 64 keeps a loop's start
#: on the op cache's line whatever code comes before it (a change to other
#: code once moved float16's no-null loop, its instructions the same, from
#: a 64-byte boundary to 48 bytes past one: 62.1 -> 66.8 us in L3).  x86
#: only, where it was measured.
ALIGN_LOOPS: tuple[str, ...] = ("-falign-loops=64",)

#: Signed overflow undefined again in the kernels (Python's own flags, which
#: setuptools passes to every extension, make it wrap with ``-fwrapv``): the
#: C levels never overflow a signed integer, and gcc then keeps loop
#: indices in fewer instructions.  AMD Zen 4, AVX2, one page in cache:
#: float32 without nulls 111.6 -> 102.5 ns per 1,000 rows, float64 217 ->
#: 199; float16 unchanged.  gcc and clang both accept it.
NO_WRAPV: tuple[str, ...] = ("-fno-wrapv",)

#: Arguments a probe adds to its compile: the probe passes when the
#: compiler accepts them.
PROBE_ARGS: dict[str, tuple[str, ...]] = {"gcc_tuning": GCC_TUNING, "no_wrapv": NO_WRAPV,
                                           "align_loops": ALIGN_LOOPS}
# Their snippet: any C at all (what is probed is whether the flags are taken).
PROBES.update(dict.fromkeys(PROBE_ARGS, "int probe(void) { return 0; }\n"))


@dataclass(frozen=True)
class Decision:
    """The levels to build, the C macros that tell scan_dispatch.c, why, and
    the compiler flags the kernels add (NO_WRAPV, and on x86 ALIGN_LOOPS and
    GCC_TUNING, where the compiler accepts them and a C level is built)."""

    levels: tuple[str, ...]
    reason: str
    flags: tuple[str, ...] = ()
    #: The AVX-512 level's functions carry ``tune=AVX512_TUNE``.
    avx512_tuned: bool = False

    @property
    def sources(self) -> list[str]:
        """The C files of the levels built (scan_dispatch.c always)."""
        files = {"baseline": "scan_baseline.c", "avx2": "scan_avx2.c",
                 "avx512": "scan_avx512.c"}
        return [f"nanstats/_simd/{files[lv]}" for lv in self.levels if lv in files] + [
            "nanstats/_simd/scan_dispatch.c"]

    @property
    def macros(self) -> list[tuple[str, str]]:
        built = [(f"NS_BUILT_{lv.upper()}", "1") for lv in self.levels if lv != "portable"]
        tune = [("NS_AVX512_TUNE", f'",tune={AVX512_TUNE}"')] if self.avx512_tuned else []
        return built + tune


def decide(compiler_type: str, probes: Mapping[str, bool], portable_only: bool) -> Decision:
    """The levels to build from the compiler's type and the probe results.

    >>> decide("unix", dict.fromkeys(PROBES, False), portable_only=False).levels
    ('portable',)
    >>> ok = dict.fromkeys(PROBES, True)
    >>> decide("unix", ok | {"target_avx512": False}, portable_only=False).levels
    ('portable', 'avx2')
    >>> decide("unix", ok | {"x86": False}, portable_only=False).levels
    ('portable', 'baseline')
    >>> decide("unix", ok, portable_only=True).reason
    'NANSTATS_PORTABLE is set'
    >>> decide("unix", ok, portable_only=False).flags == NO_WRAPV + ALIGN_LOOPS + GCC_TUNING
    True
    >>> decide("unix", ok | {"gcc_tuning": False}, portable_only=False).flags
    ('-fno-wrapv', '-falign-loops=64')
    >>> decide("unix", ok, portable_only=False).macros[-1]
    ('NS_AVX512_TUNE', '",tune=icelake-server"')
    """
    if portable_only:
        return Decision(("portable",), "NANSTATS_PORTABLE is set")
    if compiler_type == "msvc":
        # MSVC accepts none of the snippets; not even worth running them.
        return Decision(("portable",), "MSVC has no GCC vector extensions")
    if not probes.get("vector_extensions", False):
        return Decision(("portable",), "the compiler lacks GCC vector extensions")
    no_wrapv = NO_WRAPV if probes.get("no_wrapv", False) else ()
    if not probes.get("x86", False):
        return Decision(("portable", "baseline"), "vector extensions for a non-x86 target",
                        no_wrapv)
    levels = ["portable"]
    missing = []
    for level in ("avx2", "avx512"):
        needs = ("cpu_supports", f"target_{level}")
        if all(probes.get(p, False) for p in needs):
            levels.append(level)
        else:
            missing.append(f"{level} (failed: "
                           f"{', '.join(p for p in needs if not probes.get(p, False))})")
    reason = ("x86; every level's probes compiled" if not missing
              else "x86; not built: " + "; ".join(missing))
    flags: tuple[str, ...] = ()
    if len(levels) > 1:  # a C level to compile
        flags = (no_wrapv + (ALIGN_LOOPS if probes.get("align_loops", False) else ())
                 + (GCC_TUNING if probes.get("gcc_tuning", False) else ()))
    tuned = "avx512" in levels and probes.get("avx512_tune", False)
    return Decision(tuple(levels), reason, flags, tuned)


def probe(compiler: object, extra_args: list[str] | None = None,
          log: Callable[[str], None] | None = None) -> dict[str, bool]:
    """Compile (and for LINKED, link) each snippet with a distutils-style compiler.

    A probe passes when no step raises; any error (CompileError, LinkError,
    a missing tool) fails it.
    """
    results = {}
    with tempfile.TemporaryDirectory(prefix="nanstats-probe-") as tmp:
        for name, code in PROBES.items():
            src = os.path.join(tmp, f"{name}.c")
            with open(src, "w") as f:
                f.write(code)
            try:
                objects = compiler.compile(  # type: ignore[attr-defined]
                    [src], output_dir=tmp,
                    extra_postargs=[*(extra_args or []), *PROBE_ARGS.get(name, ())])
                if name in LINKED:
                    compiler.link_executable(  # type: ignore[attr-defined]
                        objects, os.path.join(tmp, name), output_dir=tmp)
                results[name] = True
            except Exception as exc:  # noqa: BLE001 -- any failure means "cannot"
                results[name] = False
                if log:
                    log(f"nanstats build probe {name}: failed ({type(exc).__name__})")
    return results


def portable_only_requested(environ: Mapping[str, str] = os.environ) -> bool:
    """NANSTATS_PORTABLE set to anything but '', '0', 'false', 'no'.

    >>> portable_only_requested({"NANSTATS_PORTABLE": "1"})
    True
    >>> portable_only_requested({"NANSTATS_PORTABLE": "0"})
    False
    """
    return environ.get("NANSTATS_PORTABLE", "").strip().lower() not in ("", "0", "false", "no")
