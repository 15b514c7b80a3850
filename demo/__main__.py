"""``python -m demo``: the main job (see demo/job.py)."""

import sys

from demo.job import main

sys.exit(main())
