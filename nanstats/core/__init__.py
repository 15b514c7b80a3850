"""The core: what one pass over float data knows, and the rules of the format.

Pure Python over the kernels' output.  Imports no face (pandas accessor,
Arrow functions, CLI, Spark) and no optional dependency at import time:

- :mod:`~nanstats.core.floats`: every fact of the three float formats;
- :mod:`~nanstats.core.inputs`: numpy, Arrow (C Data Interface) and pandas
  data turned into kernel buffers;
- :mod:`~nanstats.core.table`, :mod:`~nanstats.core.stats`,
  :mod:`~nanstats.core.column_index`: the statistics of scopes and pages;
- :mod:`~nanstats.core.rules`: what a writer must write and what a reader
  may conclude, under both column orders.
"""
