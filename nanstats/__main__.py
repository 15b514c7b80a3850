"""``python -m nanstats``: the command line."""

import sys

from nanstats.cli import main

if __name__ == "__main__":
    sys.exit(main())
