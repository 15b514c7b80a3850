# Two commands do all set-up on a fresh machine: `make test` and `make demo`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

.PHONY: test test-cluster test-pandas2 demo build bench compare compare-targets upgrade-speed docs lint check-install clean prune-soundness tightness engines fuzz

# The environment: a venv with build and test dependencies, the package
# installed editable.  Re-made only when the project's dependencies change.
# The distribution is parquet-nanstats (`nanstats` on PyPI is another project);
# a venv made before the rename has it installed as `nanstats`: removed first.
DIST := parquet-nanstats
$(STAMP): pyproject.toml setup.py
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip uninstall --quiet --yes nanstats 2>/dev/null || true
	$(PY) -m pip install --quiet "setuptools>=70" "Cython>=3.1" "numpy>=2.0,!=2.5.0"
	$(PY) -m pip install --quiet --no-build-isolation -e ".[test]"
	touch $(STAMP)

# Re-compiles the extension only when the .pyx changed.
build: $(STAMP)
	$(PY) setup.py --quiet build_ext --inplace

# Hadoop's S3A connector for Spark's own readers in the object-store tests
# (pyspark does not ship it; tools/s3a_jars.py says where it comes from).
S3A_JARS := build/s3a-jars/hadoop-aws-3.3.1.jar
$(S3A_JARS): tools/s3a_jars.py | $(STAMP)
	$(PY) tools/s3a_jars.py build/s3a-jars >/dev/null
	touch $(S3A_JARS)

test: build $(S3A_JARS)
	$(PY) -m pytest

# nanstats on a Spark standalone cluster on 127.0.0.1 (tests/spark/test_cluster.py;
# make test runs it too): master and worker from pyspark's jars, nanstats shipped
# to the executors as a venv-pack archive cached under build/cluster/.
test-cluster: build
	$(PY) -m pytest -q -p no:cacheprovider -m cluster tests/spark/test_cluster.py

# House style: ruff, mypy --strict on the package, cython-lint on the .pyx.
# The tools come from the `lint` extra, installed here on first use;
# cython-lint runs pycodestyle from PATH.
LINT_STAMP := $(VENV)/.lint-stamp
$(LINT_STAMP): $(STAMP)
	$(PY) -m pip install --quiet --no-build-isolation -e ".[lint]"
	touch $(LINT_STAMP)

lint: $(LINT_STAMP)
	$(PY) -m ruff check nanstats tests benchmarks asv_bench docs demo tools conftest.py
	$(PY) -m mypy
	PATH=$(CURDIR)/$(VENV)/bin:$$PATH cython-lint --max-line-length 100 nanstats/_kernels.pyx nanstats/_pagewalk.pyx

# What a user gets: a wheel built from this tree into a fresh venv (no
# editable install, no test dependencies), then every documented command on
# a file that venv writes, then the spark extra and `import nanstats.spark`.
# Commands run from the venv's folder so that the source tree is not imported.
CHECK_DIR := build/check-install
CHECK_PY  := $(CURDIR)/$(CHECK_DIR)/venv/bin/python
check-install:
	rm -rf $(CHECK_DIR)
	mkdir -p $(CHECK_DIR)
	$(PYTHON) -m venv $(CHECK_DIR)/venv
	$(CHECK_PY) -m pip install --quiet --upgrade pip
	$(CHECK_PY) -m pip install --quiet .
	$(CHECK_PY) -m pip show $(DIST) >/dev/null
	cd $(CHECK_DIR) && ! $(CHECK_PY) -c "import pandas" 2>/dev/null
	cd $(CHECK_DIR) && venv/bin/nanstats --help >/dev/null
	cd $(CHECK_DIR) && $(CHECK_PY) -c "import pyarrow as pa, pyarrow.parquet as pq; \
		pq.write_table(pa.table({'x': [1.0, float('nan'), None, -0.0, 0.0]}), 'sample.parquet')"
	cd $(CHECK_DIR) && venv/bin/nanstats inspect sample.parquet >/dev/null
	# pyarrow writes no nan_count: a warning, so verify passes at its default
	# --fail-on error and fails at --fail-on warning; the upgraded file passes both.
	cd $(CHECK_DIR) && venv/bin/nanstats verify sample.parquet >/dev/null
	cd $(CHECK_DIR) && { venv/bin/nanstats verify sample.parquet --fail-on warning >/dev/null; \
		test $$? -eq 1; }
	cd $(CHECK_DIR) && venv/bin/nanstats upgrade sample.parquet upgraded.parquet >/dev/null
	cd $(CHECK_DIR) && venv/bin/nanstats verify upgraded.parquet --fail-on warning
	cd $(CHECK_DIR) && venv/bin/nanstats prune upgraded.parquet --where "x > 0.5" >/dev/null
	$(CHECK_PY) -m pip install --quiet ".[spark]"
	cd $(CHECK_DIR) && $(CHECK_PY) -c "import nanstats.spark"
	@echo "check-install: a plain install of $(DIST) runs every command; the spark extra imports nanstats.spark"

# The Parquet readers against many corrupt footers and page indexes (random;
# the suite runs a small fixed set).  NANSTATS_FUZZ_EXAMPLES=N per test.
NANSTATS_FUZZ_EXAMPLES ?= 20000
fuzz: build
	NANSTATS_FUZZ_EXAMPLES=$(NANSTATS_FUZZ_EXAMPLES) $(PY) -m pytest -q -p no:cacheprovider \
		tests/parquet/test_fuzz.py

# The pandas faces against pandas 2.2 (the main environment has pandas 3).
PANDAS2_VENV := .venv-pandas2
test-pandas2: build
	test -x $(PANDAS2_VENV)/bin/python || $(PYTHON) -m venv $(PANDAS2_VENV)
	$(PANDAS2_VENV)/bin/python -m pip install --quiet "setuptools>=70" "Cython>=3.1" "numpy>=2.0,!=2.5.0"
	$(PANDAS2_VENV)/bin/python -m pip install --quiet --no-build-isolation -e ".[test]" "pandas>=2.2,<2.3"
	$(PANDAS2_VENV)/bin/python -c "import pandas; assert pandas.__version__.startswith('2.2'), pandas.__version__"
	$(PANDAS2_VENV)/bin/python -m pytest -q -p no:cacheprovider tests/test_pandas.py nanstats/pandas.py
	# the pandas profile, measured against pandas 2.2 itself
	$(PANDAS2_VENV)/bin/python -m pytest -q -p no:cacheprovider tests/prune/test_engines.py \
		-k "engine_rows_equal and pandas"

# The main job: a sample lake through nanstats on local Spark (demo/job.py;
# python -m demo --help for its options).  Not part of the package.
# LAKE=s3://bucket/prefix runs the same job on an object-store lake (the
# standard AWS_* variables say where and who; Spark gets the S3A connector).
LAKE ?=
demo: build $(if $(LAKE),$(S3A_JARS))
	$(PY) -m demo $(if $(LAKE),--lake $(LAKE) $$($(PY) tools/s3a_jars.py --spark-conf))

# A million pruning soundness cases (CI runs 300,000 inside make test).
prune-soundness: build
	NANSTATS_PRUNE_CASES=1000000 $(PY) -m pytest -q -p no:cacheprovider tests/prune/test_soundness.py -k volume

# Share of pages each kind of statistics lets a reader skip (12 queries x 4 semantics),
# then per engine profile on the demo lake, legacy vs nanstats statistics.
tightness: build
	$(PY) benchmarks/prune_tightness.py
	$(PY) benchmarks/lake_tightness.py

# Differential runs against the engines themselves (randomized tables and
# predicates; nanstats with each engine's profile must return its rows).
engines: build
	$(PY) -W ignore benchmarks/engine_runs.py --tables 300 --predicates 25 --spark-tables 8
	$(PY) -W ignore benchmarks/engine_pushdown.py --tables 100 --predicates 20 --spark-tables 6

compare: build
	$(PY) benchmarks/compare.py

compare-targets: build
	$(PY) benchmarks/compare.py --targets

# upgrade of a 1 GB, 8-float-column file against pyarrow.parquet.read_table.
upgrade-speed: build
	$(PY) benchmarks/upgrade_speed.py --mb 1000 --repeat 5

bench: build
	$(PY) -m pip install --quiet "asv>=0.6"
	cd asv_bench && ../$(PY) -m asv machine --yes >/dev/null && \
		../$(PY) -m asv run --python=same --quick --show-stderr

# The documentation.  Every build regenerates docs/_generated (the writers
# table, figures and performance measured now) and re-reads every page (-E),
# so that any warning -- a broken reference or internal link, a public name
# without an example -- fails it.  The examples run in make test (pytest
# --doctest-glob=*.rst).  NANSTATS_DOCS_QUICK=1 times smaller arrays.
DOCS_STAMP := $(VENV)/.docs-stamp
$(DOCS_STAMP): $(STAMP)
	$(PY) -m pip install --quiet --no-build-isolation -e ".[docs]"
	touch $(DOCS_STAMP)

docs: build $(DOCS_STAMP)
	rm -rf docs/generated
	$(PY) -m sphinx -E -W --keep-going -b html docs docs/_build/html

clean:
	rm -rf build $(VENV) $(PANDAS2_VENV) nanstats/*.so nanstats/_kernels.c docs/_build docs/generated

# The kernel under other builds (CI runs both): clang, and NANSTATS_PORTABLE=1
# (the typed-Cython level alone, as MSVC builds get).  Each copies the sources
# to build/kernel-builds/<name>, builds there (the in-place build is left
# alone) and runs the kernel exactness tests at every level that build has;
# the tests list the levels they ran and fail on a level this CPU runs but no
# test did.
KERNEL_BUILDS := build/kernel-builds
KERNEL_TESTS  := tests/test_kernels.py tests/test_build_probe.py tests/test_threads.py \
                 tests/metadata/test_page_walk.py
define kernel_build_and_test
	rm -rf $(KERNEL_BUILDS)/$(1) && mkdir -p $(KERNEL_BUILDS)/$(1)
	git ls-files -co --exclude-standard | grep -v '^build/' | tar cf - -T - | tar xf - -C $(KERNEL_BUILDS)/$(1)
	cd $(KERNEL_BUILDS)/$(1) && $(2) $(abspath $(PY)) setup.py --quiet build_ext --inplace
	cd $(KERNEL_BUILDS)/$(1) && PYTHONPATH=. $(abspath $(PY)) -m pytest -q -p no:cacheprovider $(KERNEL_TESTS)
endef

.PHONY: test-clang test-portable
test-clang: $(STAMP)
	@command -v clang >/dev/null || { \
		if [ "$$CI" = true ]; then $$(command -v sudo) apt-get install -y clang; \
		else echo "clang is not installed (CI=true installs it with apt-get)"; exit 1; fi; }
	$(call kernel_build_and_test,clang,CC=clang LDSHARED="clang -shared")

test-portable: $(STAMP)
	$(call kernel_build_and_test,portable,NANSTATS_PORTABLE=1)

# The C kernel levels for aarch64 (NEON through GCC vector extensions):
# tools/cross_kernels.py probes gcc-aarch64-linux-gnu as setup.py would,
# compiles the C sources of the levels it decides to object files, and runs
# tests/c/scan_exactness.c (every level against a scalar reference on random
# bit patterns) under qemu-user, which must give this machine's digests.
# CI=true installs the cross compiler and qemu-user with apt-get when missing;
# elsewhere a missing qemu-user means compiled only.
AARCH64_CC := aarch64-linux-gnu-gcc
.PHONY: test-aarch64
test-aarch64: $(STAMP)
	@command -v $(AARCH64_CC) >/dev/null && command -v qemu-aarch64 >/dev/null || { \
		if [ "$$CI" = true ]; then $$(command -v sudo) apt-get install -y gcc-aarch64-linux-gnu qemu-user; \
		elif ! command -v $(AARCH64_CC) >/dev/null; then \
			echo "$(AARCH64_CC) is not installed (CI=true installs it with apt-get)"; exit 1; fi; }
	$(PY) tools/cross_kernels.py --cc $(AARCH64_CC) --out $(KERNEL_BUILDS)/aarch64 \
		$$(command -v qemu-aarch64 >/dev/null && echo --run qemu-aarch64)

# Every upgrade test with the portable system calls forced (NANSTATS_PORTABLE_IO=1:
# what macOS and Windows run); each upgrade is also repeated with the native
# calls and must write the same bytes (tests/parquet/conftest.py).
.PHONY: test-portable-io
test-portable-io: build
	NANSTATS_PORTABLE_IO=1 $(PY) -m pytest -q -p no:cacheprovider tests/parquet tests/test_cli.py

