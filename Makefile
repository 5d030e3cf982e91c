# `make demo` and `make test` are the two commands of the quick start.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
COMPILED := $(VENV)/.compiled
# pip byte-compiles what it installs one file at a time; compileall does it on every core afterwards, for
# anonset's own sources too (installed editable), since where PYTHONDONTWRITEBYTECODE is set no process writes
# what it compiled and every `anonset` process would compile its modules again
PIP := $(BIN)/pip install --quiet --disable-pip-version-check --no-compile
# pytest rewrites the test modules' asserts (for their failure messages) and keeps what it rewrote in
# __pycache__ unless PYTHONDONTWRITEBYTECODE is set, as it is on some machines: then each worker would rewrite
# every module again on every run (4-5 s of a core each), so pytest runs with it unset
TEST_ENV := PYTHONDONTWRITEBYTECODE=
# the slowest tests listed after every run; one worker per core, the tests that share a Spark session on one
PYTEST := $(TEST_ENV) $(BIN)/python -m pytest -n 2 --dist loadgroup -q --durations=15

.PHONY: demo test compile bench lint clean

# installing compiles the kernels of the demo's method (optimal) only; the first make test (or make compile)
# compiles every method's, once (numba's cache keeps them for every later run)
$(STAMP): requirements.lock pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(PIP) -r requirements.lock
	$(PIP) --no-deps -e .
	$(BIN)/python -m compileall -qq -j 0 $(VENV)/lib src || true
	$(BIN)/anonset compile --quiet --methods optimal
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/anonset demo --report demo-report.html

# the compile's two processes do not end together: pytest, at the lowest priority, collects the suite meanwhile,
# so the test modules are rewritten once, for both workers, on a core that would otherwise wait
$(COMPILED): $(STAMP)
	$(TEST_ENV) nice -n 19 $(BIN)/python -m pytest --collect-only -q -p no:cacheprovider >/dev/null 2>&1 & \
	$(BIN)/anonset compile --quiet --jobs 2; status=$$?; wait; exit $$status
	touch $(COMPILED)

test: $(COMPILED)
	$(PYTEST)

compile: $(COMPILED)

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python benchmarks/full_domain.py

clean:
	rm -rf $(VENV) build src/*.egg-info
