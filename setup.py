"""Build the Cython kernels; everything else is in pyproject.toml."""

import os

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

# Portable flags only: a wheel built here must run on any x86-64 or arm64
# machine.  ISA-specific code paths are chosen at run time, never here.
compile_args = ["-O3"]
if os.environ.get("NANSTATS_DEBUG"):
    compile_args = ["-O0", "-g"]

extensions = [
    Extension(
        "nanstats._kernels",
        [
            "nanstats/_kernels.pyx",
            "nanstats/_simd/scan_baseline.c",
            "nanstats/_simd/scan_avx2.c",
            "nanstats/_simd/scan_avx512.c",
            "nanstats/_simd/scan_dispatch.c",
        ],
        depends=[
            "nanstats/_simd/scan.h",
            "nanstats/_simd/scan_levels.h",
            "nanstats/_simd/scan_template.h",
            "nanstats/_simd/scan_avx512_template.h",
        ],
        include_dirs=[np.get_include(), "nanstats"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_2_0_API_VERSION")],
        extra_compile_args=compile_args,
    )
]

setup(ext_modules=cythonize(extensions, compiler_directives={"language_level": "3"}))
