"""Build the Cython kernels; everything else is in pyproject.toml.

The portable level (typed Cython loops in _kernels.pyx) is always built,
and so is the page-header walker (_pagewalk.pyx, plain Cython).
The C levels (nanstats/_simd/) are built only where build_probe.py finds
that the compiler in use compiles what they need; NANSTATS_PORTABLE=1
builds the portable level alone.
"""

import os
import sys

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import build_probe  # noqa: E402 -- beside this file, not an installed module

SIMD_SOURCES = [
    "nanstats/_simd/scan_baseline.c",
    "nanstats/_simd/scan_avx2.c",
    "nanstats/_simd/scan_avx512.c",
    "nanstats/_simd/scan_dispatch.c",
]


def compile_args(compiler_type):
    """Portable flags only: a wheel built here must run on any machine of its
    architecture.  ISA-specific code is chosen at run time, never here."""
    if compiler_type == "msvc":
        return ["/O2"]
    if os.environ.get("NANSTATS_DEBUG"):
        return ["-O0", "-g"]
    return ["-O3"]


class ProbingBuildExt(build_ext):
    """build_ext that asks the actual compiler which kernel levels it can build."""

    def build_extensions(self):
        ctype = self.compiler.compiler_type
        args = compile_args(ctype)
        portable_only = build_probe.portable_only_requested()
        probes = {}
        if not portable_only and ctype != "msvc":
            probes = build_probe.probe(self.compiler, args, log=print)
        decision = build_probe.decide(ctype, probes, portable_only)
        print(f"nanstats kernel levels: {', '.join(decision.levels)} ({decision.reason})"
              + (f"; flags {' '.join(decision.flags)}" if decision.flags else ""))
        for ext in self.extensions:
            kernels = ext.name == "nanstats._kernels"
            # The decision's flags for the kernels only (a new list each).
            ext.extra_compile_args = args + list(decision.flags if kernels else ())
            if kernels:
                ext.sources = [s for s in ext.sources if s not in SIMD_SOURCES]
                ext.sources += decision.sources
                ext.define_macros = list(ext.define_macros) + decision.macros
        super().build_extensions()


extensions = [
    Extension(
        "nanstats._kernels",
        ["nanstats/_kernels.pyx", *SIMD_SOURCES],
        depends=[
            "nanstats/_simd/scan.h",
            "nanstats/_simd/scan_bits.h",
            "nanstats/_simd/scan_kinds.h",
            "nanstats/_simd/scan_levels.h",
            "nanstats/_simd/scan_template.h",
            "nanstats/_simd/scan_avx2_template.h",
            "nanstats/_simd/scan_avx512_template.h",
            "build_probe.py",
        ],
        include_dirs=[np.get_include(), "nanstats"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_2_0_API_VERSION")],
    ),
    # The page-header walker: plain Cython, the same flags on every platform.
    Extension(
        "nanstats._pagewalk",
        ["nanstats/_pagewalk.pyx"],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_2_0_API_VERSION")],
    ),
]

setup(
    ext_modules=cythonize(extensions, compiler_directives={"language_level": "3"}),
    cmdclass={"build_ext": ProbingBuildExt},
)
