"""The C kernel levels built by another C compiler (a cross compiler), checked bit for bit.

Usage: python tools/cross_kernels.py --cc aarch64-linux-gnu-gcc [--run qemu-aarch64]
                                     [--out build/kernel-builds/aarch64]

1. ``build_probe`` probes ``--cc`` exactly as setup.py probes the compiler
   of a build (compile and link only: nothing it builds runs here) and
   decides the levels; for aarch64, the portable level and the ``baseline``
   C level (GCC vector extensions, which the compiler turns into NEON).
2. Each C source of that decision is compiled to an object file with the
   flags setup.py uses (``-O3``): the proof that the levels build there.
   The portable level is Cython's C, which needs that target's Python
   headers, and is not compiled here.
3. With ``--run``, tests/c/scan_exactness.c is linked (statically) with
   those objects and run through the emulator (qemu-user); the same harness
   is built for this machine with every C level its compiler can build
   (baseline included) and run natively.  Each run checks every level
   against the scalar reference on random bit patterns; the digests of the
   two runs must be the same, so the cross-compiled kernels give this
   machine's results bit for bit.

Exit status 0 when every step passed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
import build_probe  # noqa: E402 -- beside setup.py, not an installed module

SIMD = os.path.join(ROOT, "nanstats", "_simd")
HARNESS = os.path.join(ROOT, "tests", "c", "scan_exactness.c")
FLAGS = ["-O3", "-Wall"]  # setup.py's compile_args for gcc and clang


def unix_compiler(cc: str) -> object:
    """A distutils-style compiler that runs ``cc`` for every step (what build_probe takes)."""
    from setuptools._distutils.ccompiler import new_compiler

    compiler = new_compiler()
    compiler.set_executables(compiler=[cc], compiler_so=[cc], compiler_cxx=[cc],
                             linker_so=[cc, "-shared"], linker_exe=[cc])
    return compiler


def decide(cc: str) -> build_probe.Decision:
    probes = build_probe.probe(unix_compiler(cc), FLAGS, log=print)
    decision = build_probe.decide("unix", probes, portable_only=False)
    print(f"{cc}: kernel levels {', '.join(decision.levels)} ({decision.reason})")
    return decision


def compile_objects(cc: str, sources: list[str], macros: list[tuple[str, str]],
                    out: str, flags: tuple[str, ...] = ()) -> list[str]:
    """Object files of the sources, with setup.py's flags and the decision's."""
    defines = [f"-D{name}={value}" for name, value in macros]
    objects = []
    for src in sources:
        obj = os.path.join(out, os.path.basename(src).replace(".c", ".o"))
        subprocess.run([cc, *FLAGS, *flags, "-I", SIMD, *defines, "-c", src, "-o", obj],
                       check=True)
        objects.append(obj)
    return objects


def harness(cc: str, objects: list[str], macros: list[tuple[str, str]], out: str,
            static: bool) -> str:
    exe = os.path.join(out, "scan_exactness")
    defines = [f"-D{name}={value}" for name, value in macros]
    subprocess.run([cc, *FLAGS, "-std=c99", *(["-static"] if static else []), "-I", SIMD,
                    *defines, HARNESS, *objects, "-o", exe], check=True)
    return exe


def run(command: list[str]) -> str:
    t0 = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    print(f"$ {' '.join(command)}  ({time.perf_counter() - t0:.2f} s)")
    print(done.stdout, end="")
    if done.returncode:
        sys.exit(f"{command[-1]} failed (exit {done.returncode})")
    return done.stdout


def digests(output: str) -> set[str]:
    """The digest of each width, whichever levels produced them (each equals the reference's)."""
    return {f"{line.split()[1]} {line.split()[-1]}" for line in output.splitlines()
            if " digest " in line}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cc", required=True, help="the cross compiler")
    parser.add_argument("--run", help="how to run its programs here (qemu-aarch64)")
    parser.add_argument("--host-cc", default=os.environ.get("CC", "cc"))
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "kernel-builds", "cross"))
    args = parser.parse_args(argv)
    shutil.rmtree(args.out, ignore_errors=True)
    target_dir, host_dir = os.path.join(args.out, "target"), os.path.join(args.out, "host")
    os.makedirs(target_dir)
    os.makedirs(host_dir)

    decision = decide(args.cc)
    c_sources = [os.path.join(ROOT, s) for s in decision.sources]
    objects = compile_objects(args.cc, c_sources, decision.macros, target_dir,
                              decision.flags)
    print(f"compiled for {args.cc}: {', '.join(os.path.basename(o) for o in objects)}")
    if len(decision.levels) < 2:
        print(f"{args.cc} builds no C level: nothing to run")
        return 1
    if not args.run:
        print("no --run: compiled only")
        return 0
    target_out = run([*args.run.split(), harness(args.cc, objects, decision.macros,
                                                 target_dir, static=True)])

    # This machine: every C level its compiler builds, the baseline included.
    host = decide(args.host_cc)
    host_macros = sorted(set(host.macros) | {("NS_BUILT_BASELINE", "1")})
    host_sources = sorted({os.path.join(ROOT, s) for s in host.sources}
                          | {os.path.join(SIMD, "scan_baseline.c")})
    host_objects = compile_objects(args.host_cc, host_sources, host_macros, host_dir,
                                   host.flags)
    host_out = run([harness(args.host_cc, host_objects, host_macros, host_dir, static=False)])
    if digests(target_out) != digests(host_out) or len(digests(host_out)) != 3:
        print(f"the digests differ: {sorted(digests(target_out))} here "
              f"{sorted(digests(host_out))}")
        return 1
    print(f"{args.cc} under {args.run}: the same results as this machine, bit for bit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
