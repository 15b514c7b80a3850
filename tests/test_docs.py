"""Checks on the documentation that need no Sphinx build.

The examples of docs/*.rst run as doctests (pytest's ``--doctest-glob``);
``make docs`` runs the same API check and, on the built HTML, the link check.
"""

from __future__ import annotations

import doctest
import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str, path: Path):  # docs/scripts is not a package
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
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


def test_readme_links_exist():
    readme = (ROOT / "README.md").read_text()
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme)
    assert targets
    for target in targets:
        if "://" in target or target.startswith("docs/_build/"):
            continue  # external, or made by make docs
        assert (ROOT / target).exists(), target
