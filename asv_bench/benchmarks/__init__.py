"""The asv suite (``make bench``; asv runs it with ``--python=same``).

The timing helpers and the compositions it times against live in
``benchmarks/bench_support``, outside the package: put that folder on the path.
"""

import os
import sys

_SUPPORT = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks")
if os.path.abspath(_SUPPORT) not in sys.path:
    sys.path.insert(0, os.path.abspath(_SUPPORT))
