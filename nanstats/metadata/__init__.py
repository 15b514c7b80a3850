"""Parquet metadata: the Thrift structures, read and checked.

The bottom of the files layer: the footer, the page index and the page
headers, decoded through one Thrift codec and converted to nanstats' own
types in one place.  Reads metadata only, never values.
"""
