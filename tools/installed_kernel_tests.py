"""The kernel exactness tests against an installed nanstats (cibuildwheel's test command).

Usage: python tools/installed_kernel_tests.py PROJECT [pytest options...]

Runs ``tests/test_kernels.py`` and ``tests/test_threads.py`` of the source
tree PROJECT against the nanstats installed in this interpreter (a wheel),
never against the sources beside them: the tests are imported with
``--import-mode=append`` and without the project's ``pythonpath``, so that
the installed package comes first on ``sys.path``; the script refuses to run
if ``import nanstats`` still finds the source tree.  The kernel levels the
wheel has are each run and reported (tests/conftest.py).
"""

from __future__ import annotations

import os
import sys

KERNEL_TESTS = ("tests/test_kernels.py", "tests/test_threads.py")


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    project, options = os.path.abspath(argv[0]), argv[1:]
    import nanstats
    from nanstats import _kernels

    where = os.path.dirname(os.path.abspath(nanstats.__file__))
    if os.path.commonpath([where, project]) == project:
        print(f"nanstats is imported from the source tree ({where}), not from a wheel",
              file=sys.stderr)
        return 2
    print(f"nanstats {nanstats.__version__} from {where}; kernel levels built: "
          f"{', '.join(_kernels.built_levels())}; this CPU runs: "
          f"{', '.join(_kernels.simd_levels())}")
    import pytest

    return int(pytest.main([
        *(os.path.join(project, t) for t in KERNEL_TESTS),
        "--rootdir", project, "--import-mode=append", "-o", "pythonpath=", "-o", "addopts=",
        "-p", "no:cacheprovider", "-q", *options,
    ]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
