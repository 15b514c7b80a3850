# Two commands do all set-up on a fresh machine: `make test` and `make demo`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

.PHONY: test demo build bench compare docs lint clean

# The environment: a venv with build and test dependencies, the package
# installed editable.  Re-made only when the project's dependencies change.
$(STAMP): pyproject.toml setup.py
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet "setuptools>=70" "Cython>=3.1" "numpy>=2.0,!=2.5.0"
	$(PY) -m pip install --quiet --no-build-isolation -e ".[test]"
	touch $(STAMP)

# Re-compiles the extension only when the .pyx changed.
build: $(STAMP)
	$(PY) setup.py --quiet build_ext --inplace

test: build
	$(PY) -m pytest

demo: build
	$(PY) -m nanstats.demo

compare: build
	$(PY) benchmarks/compare.py

bench: build
	$(PY) -m pip install --quiet ".[bench]"
	cd asv_bench && ../$(PY) -m asv run --python=same --quick --show-stderr

docs: build
	$(PY) -m pip install --quiet --no-build-isolation -e ".[docs]"
	$(PY) -m sphinx -W --keep-going -b html docs docs/_build/html

clean:
	rm -rf build $(VENV) nanstats/*.so nanstats/_kernels.c docs/_build
