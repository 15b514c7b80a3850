"""An S3-compatible server on 127.0.0.1 for the tests: moto's server mode.

``moto_server`` (from ``moto[server]``) speaks the S3 HTTP API, so the same
client code that talks to AWS (pyarrow's S3FileSystem, s3fs, deltalake,
pyiceberg) talks to it.  One server per test run; every test gets buckets
of its own.  The server is started in a process group of its own and
stopped (with its children) when the run ends.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


#: The standard variables every AWS client reads; nothing of nanstats' own.
def aws_environment(endpoint: str) -> dict[str, str]:
    return {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_EC2_METADATA_DISABLED": "true",
        # pyarrow's S3 must not try the instance metadata service either
        "AWS_ALLOW_HTTP": "true",
    }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class S3Server:
    endpoint: str
    env: dict[str, str]

    def client(self):  # type: ignore[no-untyped-def]
        import boto3
        return boto3.client("s3", endpoint_url=self.endpoint, region_name="us-east-1",
                            aws_access_key_id="testing", aws_secret_access_key="testing")

    def new_bucket(self, prefix: str = "lake") -> str:
        """A fresh empty bucket's name."""
        name = f"{prefix}-{uuid.uuid4().hex[:12]}"
        self.client().create_bucket(Bucket=name)
        return name

    def keys(self, bucket: str, prefix: str = "") -> list[str]:
        pages = self.client().get_paginator("list_objects_v2").paginate(Bucket=bucket,
                                                                         Prefix=prefix)
        return sorted(o["Key"] for page in pages for o in page.get("Contents", []))


def _moto_server() -> list[str]:
    exe = shutil.which("moto_server", path=os.path.dirname(sys.executable))
    return [exe] if exe else [sys.executable, "-m", "moto.server"]


@contextmanager
def running_s3_server() -> Iterator[S3Server]:
    """Start moto_server on a free port of 127.0.0.1; stop it (and its children) after."""
    port = _free_port()
    endpoint = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen([*_moto_server(), "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"moto_server exited with {proc.returncode} before it listened")
            try:
                urllib.request.urlopen(endpoint + "/moto-api/", timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("moto_server did not answer within 60 s") from None
                time.sleep(0.1)
        yield S3Server(endpoint, aws_environment(endpoint))
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
