"""One local Spark session for the whole test run (local[2], UI off).

At the root so that tests/spark and demo/tests share it.
"""

from __future__ import annotations

import os
import sys

import pytest


@pytest.fixture(scope="session")
def spark():
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from nanstats.spark.session import local_session

    session = local_session("local[2]", "nanstats-tests")
    yield session
    session.stop()
