# The two commands: `make run` (install, build, measure) and `make test` (install, test).
# Everything installs into .venv: Python packages and MPI (PyPI's mpich wheel, the `mpi` extra),
# at the exact versions of constraints.txt (pyproject.toml declares ranges).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
ARGS   ?=

.PHONY: run test install install-test install-data test-fast test-slow clean

$(BIN)/python:
	@$(PYTHON) -m venv $(VENV) || { echo "error: '$(PYTHON) -m venv' failed; install the venv module (Debian: apt-get install python3-venv)"; exit 1; }

PIP := $(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt

$(VENV)/.installed: pyproject.toml constraints.txt | $(BIN)/python
	$(PIP) -e '.[mpi]'
	@touch $@

$(VENV)/.installed-test: $(VENV)/.installed pyproject.toml constraints.txt
	$(PIP) -e '.[mpi,test,data]'
	@touch $@

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

# pandas and pyarrow (the `data` extra: Parquet export, DataFrames), left out of `make run`'s
# install: they add about a minute and 250 MB to it.
install-data: $(VENV)/.installed
	$(PIP) -e '.[mpi,data]'

# Measure a ping-pong between two ranks, 0 B to 64 MiB, print the table and the run file. The
# kernels are compiled first (once; cached after): `msgperf run` counts a build in its 10 s
# --total-time, and a fresh clone's first build (6 s here) left no time for the answer's launches
# nor the refinement.
run: $(VENV)/.installed
	@$(BIN)/msgperf build > /dev/null
	$(BIN)/msgperf run $(ARGS)

# Debian packages for the slow tiers (root only; they skip with a reason otherwise), kernel unit
# tests (plain C), then the Python suite: fast tiers, real MPI runs, and the slow tiers
# (emulated cluster, SLURM, Open MPI, browser; marker "slow", deselect with ARGS='-m "not slow"').
test: $(VENV)/.installed-test
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then tools/install-test-deps; tools/install-browser; fi
	$(MAKE) -s -C kernels check
	$(BIN)/python -m pytest $(ARGS)

clean:
	$(MAKE) -s -C kernels clean
	rm -rf $(VENV) build *.egg-info src/*.egg-info
