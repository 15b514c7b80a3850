"""The demo on an object-store lake: ``python -m demo --lake s3://bucket/prefix``.

nanstats reaches the store through pyarrow with the standard AWS variables
(``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_SESSION_TOKEN``,
``AWS_REGION``, ``AWS_ENDPOINT_URL``, profiles, instance roles).  Spark's own
readers and writers go through Hadoop's S3A connector, which needs the
``hadoop-aws`` jar on Spark's class path (on a cluster it is usually there;
locally ``spark.jars.packages=org.apache.hadoop:hadoop-aws:<Hadoop version>``
or ``make demo LAKE=...``, which passes the jars ``tools/s3a_jars.py``
fetches).  S3A reads the credentials from the same variables, but not
``AWS_ENDPOINT_URL``: :func:`connect` hands the endpoint (and the
credentials, for a JVM started before they were set) to the session's
Hadoop settings (Spark copies the key variables there itself when they are
set before it starts), and the variables to the Python workers, unless the
session already says otherwise.

>>> spark_uri("s3://bucket/lake"), spark_uri("/tmp/lake")
('s3a://bucket/lake', '/tmp/lake')
"""

from __future__ import annotations

import os
from typing import Any

from nanstats.errors import MissingDependencyError, NanstatsError

#: The AWS variables Spark's Python workers need to read through pyarrow.
AWS_VARIABLES = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                 "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_PROFILE",
                 "AWS_EC2_METADATA_DISABLED", "AWS_ALLOW_HTTP")


def spark_uri(lake: str) -> str:
    """The lake's URI as Spark's Hadoop connectors name it (``s3://`` is ``s3a://``).

    nanstats reads ``s3``, ``s3a`` and ``s3n`` alike, so one spelling serves both.
    """
    for scheme in ("s3://", "s3n://"):
        if lake.startswith(scheme):
            return "s3a://" + lake[len(scheme):]
    return lake


def _is_s3a(uri: str) -> bool:
    return uri.startswith("s3a://")


def connect(spark: Any, lake: str) -> None:
    """Let ``spark`` (driver and Python workers) reach ``lake``; a clear error if it cannot."""
    if "://" not in lake or lake.startswith("file://"):
        return
    env = spark.sparkContext.environment
    for name in AWS_VARIABLES:
        if name in os.environ:
            env.setdefault(name, os.environ[name])
    hadoop = spark.sparkContext._jsc.hadoopConfiguration()
    if _is_s3a(lake):
        endpoint = os.environ.get("AWS_ENDPOINT_URL")
        if endpoint and hadoop.get("fs.s3a.endpoint") in (None, ""):
            hadoop.set("fs.s3a.endpoint", endpoint)
            hadoop.set("fs.s3a.path.style.access", "true")  # custom endpoints: no bucket DNS
            hadoop.set("fs.s3a.connection.ssl.enabled", str(endpoint.startswith("https")).lower())
        if "AWS_ACCESS_KEY_ID" in os.environ and hadoop.get("fs.s3a.access.key") is None:
            hadoop.set("fs.s3a.access.key", os.environ["AWS_ACCESS_KEY_ID"])
            hadoop.set("fs.s3a.secret.key", os.environ.get("AWS_SECRET_ACCESS_KEY", ""))
            if os.environ.get("AWS_SESSION_TOKEN"):
                hadoop.set("fs.s3a.session.token", os.environ["AWS_SESSION_TOKEN"])
    jvm = spark.sparkContext._jvm
    try:
        jvm.org.apache.hadoop.fs.Path(lake).getFileSystem(hadoop)
    except Exception as exc:  # py4j wraps the JVM's exception
        text = str(exc)
        scheme = lake.split("://", 1)[0]
        if "No FileSystem for scheme" in text or "ClassNotFound" in text:
            raise MissingDependencyError(
                f"Spark has no file system for {scheme}:// (add Hadoop's connector, e.g. "
                "spark.jars.packages=org.apache.hadoop:hadoop-aws:<Hadoop version>; "
                "make demo LAKE=... passes the jars tools/s3a_jars.py fetches)") from None
        raise NanstatsError(f"Spark cannot open {lake}: {text.splitlines()[0][:300]}") from None
