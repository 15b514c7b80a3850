"""The main job on local Spark with sample data (``make demo``); not part of the wheel."""
