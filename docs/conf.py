"""Sphinx configuration for the nanstats documentation (``make docs``).

Beyond the usual set-up, every build:

* runs the scripts of ``docs/scripts/`` that generate figures and tables into
  ``docs/_generated/`` (writers table, total-order figure, performance table
  and plot, ``--help`` texts, changelog), so no measurement is typed by hand;
* checks that every public name is in the API reference with a docstring and
  an example (``docs/scripts/api_coverage.py``);
* resolves every cross-reference (``nitpicky``; a name given by its defining
  module reaches the page of the same object re-exported) and, once the HTML is
  written, every internal link and anchor of it (``check_internal_links``).

Problems are Sphinx warnings, and ``make docs`` builds with ``-W``.
``NANSTATS_DOCS_QUICK=1`` times smaller arrays in the performance figures.
"""

from __future__ import annotations

import contextlib
import html.parser
import io
import os
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import nanstats

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "scripts"))

project = "nanstats"
author = "the nanstats developers"
copyright = "2026, the nanstats developers"
release = nanstats.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "numpydoc",
]
autosummary_generate = True
templates_path = ["_templates"]
autodoc_typehints = "description"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
exclude_patterns = ["_build", "generated/*.rst.txt", "_generated/*.rst"]
html_theme = "pydata_sphinx_theme"
html_title = "nanstats"
html_theme_options = {
    "navigation_with_keys": False,
    # Every guide page is a top-level entry of the index, so the theme's
    # default left sidebar (the pages below the current top-level one) would
    # be empty: the sidebar shows the whole table of contents instead, and
    # the page's own sections are on the right.
    "secondary_sidebar_items": ["page-toc"],
    "show_prev_next": True,
    "header_links_before_dropdown": 6,
}
html_sidebars = {"**": ["sidebar-all-pages.html"]}
html_static_path = ["_static"]
# Wide tables and code blocks scroll sideways inside the page column.
html_css_files = ["nanstats.css"]

# Every cross-reference must resolve.  The machine that builds the docs has no
# internet, so there is no intersphinx: names of other projects (in type hints
# and prose) are not checked, ours are.
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(np|npt|numpy|pa|pc|pyarrow|pd|pandas|pl|polars|pyspark|duckdb"
               r"|thriftpy2|argparse|collections|concurrent|typing|os|io|ctypes|_io)\..*"),
    (r"py:.*", r"(Any|IO|Literal|Sequence|Iterator|Callable|Mapping|PathLike|Path"
               r"|DataFrame|Series|Table|Array|ChunkedArray|RecordBatch|SparkSession"
               r"|DataType|StructType|ArgumentParser|Namespace|Counter|ndarray|dtype"
               r"|NDArray|ArrayLike|Expr|NanSemantics|Comparison|Relation|ColumnOrderName|Target"
               r"|Policy|BoundaryOrder|PhysicalType|Mask|KernelInput|Footer|LeafColumn"
               r"|PageStats|StatsTable|ColumnAbstract|Key|Page|Predicate)"),
    # The Thrift structures (pq.FileMetaData, ...) are classes thriftpy2 makes
    # from parquet_metadata.thrift at import; typed by parquet_idl.pyi, not
    # documented here.
    (r"py:.*", r"nanstats_parquet_thrift\..*"),
    # Internal helpers that appear in public signatures.
    (r"py:.*", r"nanstats\.(core\.arrow_c|parquet\.recompute|lake\.fs"
               r"|prune\.(expressions|abstract|constraints|results|source|sources|planner"
               r"|parquet_source|visitor))\..*"),
    (r"py:.*", r"(optional|array-like|array_like|default|callable|bytes-like|path-like)"),
]


def _tightness() -> None:
    sys.path.insert(0, str(DOCS.parent / "benchmarks"))
    import prune_tightness

    out = DOCS / "_generated" / "tightness.rst"
    out.parent.mkdir(exist_ok=True)
    quick = ["--row-groups", "8"] if os.environ.get("NANSTATS_DOCS_QUICK") else []
    with contextlib.redirect_stdout(io.StringIO()):
        prune_tightness.main([*quick, "--rst", str(out)])


def _lake_tightness() -> None:
    sys.path.insert(0, str(DOCS.parent / "benchmarks"))
    import lake_tightness

    out = DOCS / "_generated" / "lake_tightness.rst"
    out.parent.mkdir(exist_ok=True)
    rows = "200000" if os.environ.get("NANSTATS_DOCS_QUICK") else "1000000"
    with contextlib.redirect_stdout(io.StringIO()):
        lake_tightness.main(["--rows", rows, "--rst", str(out)])


def _engine_pushdown() -> None:
    sys.path.insert(0, str(DOCS.parent / "benchmarks"))
    import engine_pushdown

    out = DOCS / "_generated" / "engine_pushdown.rst"
    out.parent.mkdir(exist_ok=True)
    with contextlib.redirect_stdout(io.StringIO()):
        engine_pushdown.main(["--tables", "20", "--predicates", "15", "--rst", str(out)])


def run_generators(app: Any) -> None:
    """Regenerate docs/_generated/ (figures and tables measured or read now)."""
    import api_coverage
    import changelog
    import cli_help
    import engine_profiles
    import engine_reads
    import order_figure
    import perf_plot
    import writers_table
    from sphinx.util import logging

    log = logging.getLogger("nanstats.docs")
    for name, step in [
        ("writers table", writers_table.main),
        ("total-order figure", order_figure.main),
        ("performance table and plot",
         lambda: perf_plot.main(["--quick"] if os.environ.get("NANSTATS_DOCS_QUICK") else [])),
        ("command-line help", cli_help.main),
        ("engine profiles table", engine_profiles.main),
        ("what engines do with upgraded files", engine_reads.main),
        ("pruning tightness table", _tightness),
        ("tightness per engine profile on the demo lake", _lake_tightness),
        ("engines' own readers before and after upgrade", _engine_pushdown),
        ("changelog", changelog.main),
    ]:
        start = time.perf_counter()
        step()
        log.info(f"[nanstats docs] {name}: {time.perf_counter() - start:.1f} s")
    for problem in api_coverage.problems():
        log.warning(f"[api coverage] {problem}")


def resolve_reexported(app: Any, env: Any, node: Any, contnode: Any) -> Any:
    """Resolve ``nanstats.<module>.<name>`` to where that same object is documented.

    Docstrings name objects by the module that defines them
    (``nanstats.spark.index.index_files``); the reference documents them where
    users import them from (``nanstats.spark.index_files``).  Same object,
    same page.
    """
    target = node.get("reftarget", "")
    if node.get("refdomain") != "py" or not target.startswith("nanstats."):
        return None
    import api_coverage
    from sphinx.util.nodes import make_refnode

    try:
        wanted = api_coverage.resolve(target)
    except (ImportError, AttributeError):
        return None
    for name, entry in env.get_domain("py").objects.items():
        if not name.startswith("nanstats.") or name == target:
            continue
        try:
            found = api_coverage.resolve(name)
        except (ImportError, AttributeError):
            continue
        if found is wanted:
            return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id,
                                contnode, name)
    return None


class _Links(html.parser.HTMLParser):
    """The ids and the href/src targets of one HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.targets: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if key in ("id", "name") and value:
                self.ids.add(value)
            elif key in ("href", "src") and value:
                self.targets.append(value)


def check_internal_links(app: Any, exception: Exception | None) -> None:
    """After an HTML build, every relative link must reach a file, and its #anchor an id.

    External links (with a scheme) are not followed: the build machine has no
    internet.  Theme assets under _static are trusted.
    """
    if exception is not None or app.builder.format != "html":
        return
    from sphinx.util import logging

    log = logging.getLogger("nanstats.docs")
    out = Path(app.outdir)
    pages: dict[Path, _Links] = {}
    for page in out.rglob("*.html"):
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        pages[page.resolve()] = parser
    broken = 0
    for page, links in pages.items():
        for target in links.targets:
            parts = urlsplit(target)
            if parts.scheme or parts.netloc or target.startswith(("mailto:", "javascript:")):
                continue
            dest = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if "_static" in dest.parts or "_sources" in dest.parts:
                continue
            if not dest.exists():
                log.warning(f"broken internal link in {page.relative_to(out)}: {target}")
                broken += 1
            elif parts.fragment and dest.suffix == ".html":
                ids = pages[dest].ids if dest in pages else set()
                if unquote(parts.fragment) not in ids:
                    log.warning(f"broken anchor in {page.relative_to(out)}: {target}")
                    broken += 1
    log.info(f"[nanstats docs] internal links checked in {len(pages)} pages, {broken} broken")


def setup(app: Any) -> dict[str, Any]:
    app.connect("builder-inited", run_generators)
    app.connect("missing-reference", resolve_reexported)
    app.connect("build-finished", check_internal_links)
    return {"parallel_read_safe": True}
