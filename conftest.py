"""One local Spark session for the whole test run (local[2], UI off), and one
S3-compatible server; at the root so that tests/spark and demo/tests share them.

The session carries the S3A connector (``tools/s3a_jars.py``, fetched by
``make test``), so Spark's own readers and writers reach the S3 server too.
"""

from __future__ import annotations

import os
import sys

import pytest


@pytest.fixture(scope="session")
def spark():
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from nanstats.spark.session import local_session
    from tools.s3a_jars import JAR_FOLDER, fetch, spark_conf

    fetch(JAR_FOLDER)  # nothing to do once make test has fetched them
    session = local_session("local[2]", "nanstats-tests",
                            **{k.replace(".", "_"): v for k, v in spark_conf(JAR_FOLDER).items()})
    yield session
    session.stop()


# ---------------------------------------------------------------------------
# Object stores: one S3-compatible server (moto_server) on 127.0.0.1 per run,
# started on first use.  `s3` sets only the standard AWS_* variables (so
# pyarrow, fsspec, deltalake and pyiceberg find it the way they find AWS) for
# the test that asks for it, and gives it a fresh bucket.
@pytest.fixture(scope="session")
def s3_server():  # type: ignore[no-untyped-def]
    from tests.s3server import running_s3_server
    with running_s3_server() as server:
        yield server


@pytest.fixture
def s3(s3_server, monkeypatch):  # type: ignore[no-untyped-def]
    for name, value in s3_server.env.items():
        monkeypatch.setenv(name, value)
    s3_server.bucket = s3_server.new_bucket()
    return s3_server
