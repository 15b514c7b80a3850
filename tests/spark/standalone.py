"""A Spark standalone cluster on 127.0.0.1 and nanstats packed for its executors.

What tests/spark/test_cluster.py runs, and what docs/spark.rst shows as
commands (:data:`COMMANDS`; a test checks that the page gives them):

1. ``packed_env`` builds the wheel of this tree, installs it with its runtime
   dependencies into a fresh venv and packs that venv with venv-pack.  It is
   cached under ``build/cluster/``, keyed by a hash of the sources that go
   into the wheel: it is rebuilt only when they change.
2. ``StandaloneCluster`` starts a master and one worker from pyspark's own
   jars, each in a process group of its own, with a clean environment (no
   PYTHONPATH) and a working folder outside the source tree; stopping kills
   both groups.
3. ``submit`` runs ``spark-submit`` in client mode with the archive in
   ``spark.archives`` and ``PYSPARK_PYTHON`` naming its unpacked Python.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: The commands, as docs/spark.rst gives them ($-variables are filled in by the test).
COMMANDS = {
    "wheel": 'pip wheel --no-deps -w dist .',
    "venv": 'python -m venv build/cluster/venv',
    "install": 'build/cluster/venv/bin/pip install dist/parquet_nanstats-*.whl "pandas>=2.2"',
    "pack": 'venv-pack -p build/cluster/venv -o build/cluster/nanstats-env.tar.gz',
    "spark_home": 'export SPARK_HOME=$(python -c "import os, pyspark; '
                  'print(os.path.dirname(pyspark.__file__))")',
    "scala": 'export SPARK_SCALA_VERSION=2.13 SPARK_LOCAL_IP=127.0.0.1',
    "master": 'java -cp "$SPARK_HOME/jars/*" org.apache.spark.deploy.master.Master '
              '--host 127.0.0.1 --port $PORT --webui-port 0',
    "worker": 'java -cp "$SPARK_HOME/jars/*" org.apache.spark.deploy.worker.Worker '
              'spark://127.0.0.1:$PORT --host 127.0.0.1 --webui-port 0 --cores 2 '
              '--memory 2g --work-dir $WORK',
    "submit": 'PYSPARK_DRIVER_PYTHON=python PYSPARK_PYTHON=./environment/bin/python '
              '$SPARK_HOME/bin/spark-submit --master spark://127.0.0.1:$PORT '
              '--deploy-mode client '
              '--conf spark.archives=build/cluster/nanstats-env.tar.gz#environment '
              '--conf spark.executorEnv.NANSTATS_THREADS=1 '
              'job.py $LAKE $OUT',
}

# The sources a wheel is built from: a change to any rebuilds the packed environment.
_SOURCE_SUFFIXES = (".py", ".pyx", ".pxd", ".pyi", ".h", ".thrift", ".typed")
_BUILD_FILES = ("setup.py", "pyproject.toml", "MANIFEST.in", "build_probe.py")


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def source_hash() -> str:
    """A hash of every file the wheel is built from, and of this recipe."""
    digest = hashlib.sha256()
    files = [ROOT / name for name in _BUILD_FILES if (ROOT / name).exists()]
    files.append(Path(__file__))  # the recipe
    files += sorted(p for p in (ROOT / "nanstats").rglob("*")
                    if p.is_file() and p.suffix in _SOURCE_SUFFIXES and "__pycache__" not in p.parts)
    for path in files:
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _run(cmd: list[str], **kwargs: object) -> None:
    # Without this run's PYTHONPATH (the source tree): pip would take it for an
    # installed nanstats, and the import check would pass from the tree.
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env,  # type: ignore[call-overload]
                          **kwargs)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}):\n"
                           f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")


def packed_env(build: Path = ROOT / "build" / "cluster") -> tuple[Path, Path]:
    """The packed environment (a .tar.gz) and the venv it was packed from.

    Built as the docs say (wheel, venv, pip install, venv-pack), under a
    name carrying the source hash, and marked complete last; older ones are
    removed.  A lock keeps two test runs from building at once.
    """
    import fcntl

    key = source_hash()
    archive, venv = build / f"nanstats-env-{key}.tar.gz", build / f"venv-{key}"
    complete = build / f"complete-{key}"
    build.parent.mkdir(parents=True, exist_ok=True)
    with open(build.parent / "cluster.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not complete.exists():
            _build_env(build, key, archive, venv)
            complete.touch()
    return archive, venv


def _build_env(build: Path, key: str, archive: Path, venv: Path) -> None:
    if build.exists():
        shutil.rmtree(build)
    build.mkdir(parents=True)
    wheels = build / f"wheel-{key}"
    # The wheel is built with this environment's build tools (setuptools, Cython,
    # numpy), as `pip wheel` would in an isolated one, without fetching them.
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
          "-w", str(wheels), str(ROOT)], cwd=ROOT)
    _run([sys.executable, "-m", "venv", str(venv)], cwd=build)
    wheel = next(wheels.glob("parquet_nanstats-*.whl"))
    # Not from the source tree: `python -m` puts the working folder on sys.path,
    # where pip would take the tree's egg-info for an installed nanstats.
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
          "--disable-pip-version-check", str(wheel), "pandas>=2.2"], cwd=build)
    _run([str(venv / "bin" / "python"), "-c", "import nanstats._kernels"], cwd=build)
    partial = archive.with_suffix(".partial")
    _run([sys.executable, "-m", "venv_pack", "-p", str(venv), "-o", str(partial),
          "--format", "tar.gz", "--compress-level", "1", "--force"], cwd=build)
    partial.rename(archive)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def clean_env(**extra: str) -> dict[str, str]:
    """The environment of the cluster's processes: no PYTHONPATH, no virtualenv."""
    keep = ("PATH", "HOME", "JAVA_HOME", "LANG", "LC_ALL", "TMPDIR", "USER")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if not p.startswith(str(Path(sys.prefix))))
    env.update(extra)
    return env


class StandaloneCluster:
    """A master and one worker, started from pyspark's jars on 127.0.0.1."""

    def __init__(self, work: Path, cores: int = 2, memory: str = "2g") -> None:
        self.work = work
        self.port = free_port()
        self.url = f"spark://127.0.0.1:{self.port}"
        self.home = spark_home()
        # pip's pyspark has no build folders for the worker's launcher to guess the
        # Scala version from; Spark 4 is built with Scala 2.13.
        self.env = clean_env(SPARK_HOME=str(self.home), SPARK_SCALA_VERSION="2.13",
                             SPARK_LOCAL_IP="127.0.0.1")
        self.cores, self.memory = cores, memory
        self.processes: list[subprocess.Popen[bytes]] = []

    def _java(self, cls: str, *args: str, log: str) -> subprocess.Popen[bytes]:
        java = shutil.which("java", path=self.env["PATH"]) or "java"
        cmd = [java, "-cp", f"{self.home}/jars/*", cls, *args]
        out = open(self.work / log, "wb")  # noqa: SIM115 - closed with the process
        process = subprocess.Popen(cmd, cwd=self.work, env=self.env, stdout=out,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        out.close()
        self.processes.append(process)
        return process

    def _wait_for(self, log: str, pattern: str, process: subprocess.Popen[bytes],
                  timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        path = self.work / log
        while time.monotonic() < deadline:
            text = path.read_text(errors="replace") if path.exists() else ""
            if re.search(pattern, text):
                return
            if process.poll() is not None:
                raise RuntimeError(f"{log}: exited ({process.returncode}):\n{text[-3000:]}")
            time.sleep(0.5)
        raise TimeoutError(f"{log}: no {pattern!r} after {timeout} s")

    def start(self) -> StandaloneCluster:
        self.work.mkdir(parents=True, exist_ok=True)
        master = self._java("org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                            "--port", str(self.port), "--webui-port", "0", log="master.log")
        self._wait_for("master.log", "I have been elected leader", master)
        (self.work / "worker").mkdir(exist_ok=True)
        worker = self._java("org.apache.spark.deploy.worker.Worker", self.url,
                            "--host", "127.0.0.1", "--webui-port", "0",
                            "--cores", str(self.cores), "--memory", self.memory,
                            "--work-dir", str(self.work / "worker"), log="worker.log")
        self._wait_for("worker.log", "Successfully registered with master", worker)
        return self

    def stop(self) -> None:
        """Kill both process groups (the worker's executors are in the worker's)."""
        for process in reversed(self.processes):
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(process.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    process.wait(timeout=20)
                    break
                except subprocess.TimeoutExpired:
                    continue
        self.processes.clear()


@contextmanager
def standalone_cluster(work: Path) -> Iterator[StandaloneCluster]:
    cluster = StandaloneCluster(work)
    try:
        yield cluster.start()
    finally:
        cluster.stop()


def submit(cluster: StandaloneCluster, archive: Path, venv: Path, job: Path,
           *args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """``spark-submit`` of ``job`` in client mode, as docs/spark.rst gives it.

    The driver runs the packed venv's Python (so it does not import the
    source tree either), from a folder holding only the job.
    """
    env = clean_env(SPARK_HOME=str(cluster.home), SPARK_SCALA_VERSION="2.13",
                    SPARK_LOCAL_IP="127.0.0.1",
                    PYSPARK_DRIVER_PYTHON=str(venv / "bin" / "python"),
                    PYSPARK_PYTHON="./environment/bin/python")
    cmd = [str(cluster.home / "bin" / "spark-submit"), "--master", cluster.url,
           "--deploy-mode", "client",
           "--conf", f"spark.archives={archive}#environment",
           "--conf", "spark.executorEnv.NANSTATS_THREADS=1",
           "--conf", "spark.ui.enabled=false",
           "--conf", "spark.ui.showConsoleProgress=false",
           str(job), *args]
    process = subprocess.Popen(cmd, cwd=job.parent, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return subprocess.CompletedProcess(cmd, process.returncode, out, err)
