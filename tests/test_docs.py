"""Checks on the documentation that need no Sphinx build.

The examples of docs/*.rst run as doctests (pytest's ``--doctest-glob``);
``make docs`` runs the same API check and, on the built HTML, the link check.
"""

from __future__ import annotations

import doctest
import importlib.util
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str, path: Path):  # docs/scripts is not a package
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_every_public_name_is_documented_with_an_example():
    coverage = _load("api_coverage", ROOT / "docs" / "scripts" / "api_coverage.py")
    assert coverage.problems() == []


def test_api_check_sees_a_missing_name(tmp_path):
    coverage = _load("api_coverage", ROOT / "docs" / "scripts" / "api_coverage.py")
    api = (ROOT / "docs" / "api.rst").read_text()
    trimmed = tmp_path / "api.rst"
    trimmed.write_text(api.replace("   page_stats\n", "", 1))
    assert "nanstats.page_stats is public but not in the API reference (api.rst)" in \
        coverage.problems(trimmed)


def _examples(text: str) -> list[tuple[str, str]]:
    """(source, expected output) of every doctest example; Markdown fences dropped."""
    out = []
    for ex in doctest.DocTestParser().get_examples(text):
        want = "".join(ln for ln in ex.want.splitlines(keepends=True)
                       if not ln.startswith("```"))
        out.append((ex.source, want))
    return out


def test_readme_shows_the_getting_started_tour():
    guide = (ROOT / "docs" / "getting_started.rst").read_text()
    tour = guide[guide.index("A two-minute tour\n"):guide.index("\nNext: ")]
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## A two-minute tour\n"):]
    section = section[:section.index("\n## ", 1)]
    assert _examples(tour), "the tour has no examples"
    assert _examples(section) == _examples(tour)


def test_readme_examples_run_in_order():
    """Every ``pycon`` block of the README, top to bottom, as one doctest."""
    readme = (ROOT / "README.md").read_text()
    text = "\n".join("" if ln.startswith("```") else ln for ln in readme.splitlines())
    test = doctest.DocTestParser().get_doctest(text, {}, "README.md", "README.md", 0)
    assert len(test.examples) > 30
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    out: list[str] = []
    runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)


def test_readme_links_exist():
    readme = (ROOT / "README.md").read_text()
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme)
    assert targets
    for target in targets:
        if "://" in target or target.startswith("docs/_build/"):
            continue  # external, or made by make docs
        assert (ROOT / target).exists(), target


PACKAGE = ROOT / "nanstats"
#: Sub-packages whose modules docs/architecture.rst names without the
#: ``nanstats.`` prefix (``core.rules``, ``upgrading.plan``).
_SHORT_PREFIXES = {"core": "nanstats.core", "lake": "nanstats.lake",
                   "metadata": "nanstats.metadata", "prune": "nanstats.prune",
                   "parquet": "nanstats.parquet", "upgrading": "nanstats.parquet.upgrading",
                   "spark": "nanstats.spark", "testing": "nanstats.testing"}


def _module_path(dotted: str) -> Path | None:
    """The file or package of a dotted module name of nanstats, or None."""
    base = ROOT.joinpath(*dotted.split("."))
    for candidate in (base / "__init__.py", *(base.with_suffix(s) for s in (".py", ".pyi", ".pyx"))):
        if candidate.is_file():
            return candidate
    return base if base.is_dir() else None  # a folder of C sources (nanstats/_simd/)


def _top_level_names(path: Path) -> set[str]:
    """What a module defines or imports at its top level (read with ast, not imported)."""
    import ast

    names: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def _stale(dotted: str) -> str | None:
    """Why ``dotted`` (a nanstats module, optionally followed by a name in it) is wrong."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        module = _module_path(".".join(parts[:i]))
        if module is None:
            continue
        if i == len(parts):
            return None
        if module.suffix == ".pyx" or (module.is_file() and parts[i] in _top_level_names(module)):
            return None
        return f"{'.'.join(parts[:i])} has no {parts[i]}"
    return "no such module"


def _architecture_names(text: str) -> list[str]:
    """Every module (or module.name) the page names, as a dotted name in nanstats."""
    names = [n.rstrip(".") for n in re.findall(r"\bnanstats(?:\.\w+)+", text)]
    names += [p.rstrip("/").removesuffix(".py").removesuffix(".pyi").replace("/", ".")
              for p in re.findall(r"\bnanstats/[\w./]+", text)]
    for literal in re.findall(r"``([a-z_]+(?:\.\w+)+)``", text):
        head, _, rest = literal.partition(".")
        if head in _SHORT_PREFIXES:
            names.append(f"{_SHORT_PREFIXES[head]}.{rest}")
    # The table of layers: "``core/``: ``floats``, ``kernel_input``, ..." and
    # "``upgrading/`` (``report``, ...)" name modules of that folder.
    for cell in re.findall(r"``(\w+)/``:((?:[\s,]*``[\w./]+``(?: \((?:[\s,]*``\w+``)+\))?)+)",
                           text):
        folder, listed = cell
        for name, sub in re.findall(r"``([\w.]+)/?``(?: \(((?:[\s,]*``\w+``)+)\))?", listed):
            stem = name.removesuffix(".pyi")
            names.append(f"nanstats.{folder}.{stem}")
            names += [f"nanstats.{folder}.{stem}.{s}" for s in re.findall(r"``(\w+)``", sub)]
    return names


def _missing_files(text: str) -> list[str]:
    """The file and folder literals of a page (``cli.py``, ``_simd/``,
    ``tests/test_layers.py``) found neither from the repository root, nor in
    the package, nor as a file name anywhere in it."""
    missing = []
    for literal in set(re.findall(r"``([\w./-]+(?:/|\.pyx?|\.pyi|\.thrift))``", text)):
        here = [ROOT / literal, PACKAGE / literal]
        if not any(p.exists() for p in here) and not any(PACKAGE.rglob(Path(literal).name)):
            missing.append(literal)
    return sorted(missing)


def test_architecture_page_names_only_modules_that_exist():
    text = (ROOT / "docs" / "architecture.rst").read_text()
    names = _architecture_names(text)
    # The parse must see the page's lists, or this test checks nothing.
    assert {"nanstats.core.floats", "nanstats.metadata.parquet_idl",
            "nanstats.parquet.upgrading.plan", "nanstats.prune.visitor",
            "nanstats.core.table.merge_rows"} <= set(names)
    stale = {name: why for name in names if (why := _stale(name))}
    assert stale == {}
    assert _missing_files(text) == []


def test_architecture_check_sees_a_stale_module():
    assert _stale("nanstats.core.rules.boundary_order") is None
    assert _stale("nanstats.order_rules") == "nanstats has no order_rules"
    assert _stale("numpy.core") == "no such module"
    assert _stale("nanstats.core.rules.no_such_rule") == "nanstats.core.rules has no no_such_rule"
    assert "nanstats.prune.scopes" in _architecture_names(
        "``prune/``: ``parser``, ``scopes``\nsee ``core.floats``")
    assert _missing_files("``cli.py``, ``_simd/``, ``demo.py``, ``spark/demo/``") == \
        ["demo.py", "spark/demo/"]


def test_engines_page_claims_hold_for_the_installed_engines(tmp_path):
    """docs/engines.rst says: DuckDB loses rows on the pyarrow-written file and
    is right after either upgrade; pyarrow ignores IEEE_754_TOTAL_ORDER
    statistics (no skipping) and keeps using TYPE_ORDER ones."""
    reads = _load("engine_reads", ROOT / "docs" / "scripts" / "engine_reads.py")
    paths = reads.write_files(str(tmp_path))
    duck_rows, duck_uses = reads.measure(reads._duckdb(), paths, str(tmp_path))
    wrong = {label for row in duck_rows for label in paths if "wrong" in row[label]}
    assert wrong == {"pyarrow-written"}
    assert all(duck_uses[label] == "skips row groups" for label in paths)
    arrow_rows, arrow_uses = reads.measure(reads._pyarrow(), paths, str(tmp_path))
    assert not any("wrong" in row[label] for row in arrow_rows for label in paths)
    assert arrow_uses["upgraded, ieee754"] == "reads every row group"
    assert arrow_uses["pyarrow-written"] == arrow_uses["upgraded, type_order"] == \
        "skips row groups"
