"""Fetch the S3A connector jars that let Spark's own readers use ``s3a://``.

pyspark ships Hadoop's client but not its S3 connector (``hadoop-aws`` and
the AWS SDK it calls).  On a real cluster they come with the platform (EMR,
Dataproc, Databricks) or from ``spark.jars.packages`` (Maven).  This machine
reaches the Python package index but not Maven Central, and one package on
the index carries both jars: the sdist of ``sagemaker-pyspark`` 1.4.5
(hadoop-aws 3.3.1 and aws-java-sdk-bundle 1.11.901).  pip downloads it (pip
checks the index's hashes); this script keeps only those two jars::

    python tools/s3a_jars.py build/s3a-jars     # the folder to fill

The tests' Spark session (``conftest.py``) and ``make demo LAKE=s3://...``
put them on Spark's class path with :func:`spark_conf`.  hadoop-aws 3.3.1 is
older than the Hadoop 3.5 client of pyspark 4.x: it reads a few time-out
settings as bare numbers where Hadoop 3.5's defaults say ``60s``, so
:func:`spark_conf` states them as numbers (a matching hadoop-aws, as on a
real cluster, needs none of that).  Endpoint and credentials are not set
here: they come from the standard AWS variables (see ``demo/object_store.py``).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

PACKAGE = "sagemaker-pyspark==1.4.5"
JARS = ("hadoop-aws-3.3.1.jar", "aws-java-sdk-bundle-1.11.901.jar")
JAR_FOLDER = Path(__file__).resolve().parent.parent / "build" / "s3a-jars"

#: Hadoop 3.5 states these durations with units ("60s"); hadoop-aws 3.3.1
#: parses them as plain numbers (seconds or milliseconds, as named here).
_AS_NUMBERS = {
    "fs.s3a.threads.keepalivetime": "60",
    "fs.s3a.connection.establish.timeout": "5000",
    "fs.s3a.connection.timeout": "200000",
    "fs.s3a.connection.ttl": "300000",
    "fs.s3a.connection.idle.time": "60000",
    "fs.s3a.connection.acquisition.timeout": "60000",
    "fs.s3a.connection.request.timeout": "0",
    "fs.s3a.multipart.purge.age": "86400",
    "fs.s3a.assumed.role.session.duration": "1800",
}


#: Hadoop 3.5's default credential chain names AWS SDK v2 classes; these are
#: the same sources (the fs.s3a keys, the AWS variables) in the SDK v1 that
#: hadoop-aws 3.3.1 calls.
_PROVIDERS = ",".join((
    "org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider",
    "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
    "com.amazonaws.auth.EnvironmentVariableCredentialsProvider",
))


def spark_conf(folder: Path = JAR_FOLDER) -> dict[str, str]:
    """Spark settings that put the fetched connector on the class path."""
    conf = {"spark.jars": ",".join(str(folder / name) for name in JARS),
            "spark.hadoop.fs.s3a.aws.credentials.provider": _PROVIDERS}
    conf.update({f"spark.hadoop.{k}": v for k, v in _AS_NUMBERS.items()})
    return conf


def fetch(folder: Path) -> list[Path]:
    """The two jars in ``folder``, downloaded unless already there."""
    wanted = [folder / name for name in JARS]
    if all(p.is_file() and p.stat().st_size > 0 for p in wanted):
        return wanted
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="s3a-jars-") as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                        "--no-binary", ":all:", "--dest", tmp, PACKAGE], check=True)
        (sdist,) = Path(tmp).glob("*.tar.gz")
        with tarfile.open(sdist) as archive:
            members = {Path(m.name).name: m for m in archive.getmembers()
                       if m.isfile() and m.name.endswith(".jar")}
            for path in wanted:
                member = members.get(path.name)
                if member is None:
                    raise SystemExit(f"{sdist.name} holds no {path.name}")
                source = archive.extractfile(member)
                assert source is not None
                partial = path.with_suffix(".jar.part")
                with source, open(partial, "wb") as out:
                    while block := source.read(1 << 20):
                        out.write(block)
                partial.replace(path)  # a jar appears only complete
    return wanted


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, nargs="?", default=JAR_FOLDER)
    parser.add_argument("--spark-conf", action="store_true",
                        help="print --spark-conf KEY=VALUE arguments for python -m demo")
    args = parser.parse_args()
    paths = fetch(args.folder)
    if args.spark_conf:
        print(" ".join(f"--spark-conf {k}={v}" for k, v in spark_conf(args.folder).items()))
    else:
        print("\n".join(map(str, paths)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
