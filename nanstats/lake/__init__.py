"""Where Parquet files live: finding them under the paths users give.

The bottom of the files layer; every command and job lists files here.
"""
