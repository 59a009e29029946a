# Two commands set everything up: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.installed-run
STAMP_DEV := $(VENV)/.installed-dev
NPM_DIR := tests/npm
NPM_STAMP := $(NPM_DIR)/node_modules/.installed
# The packages' bytecode is compiled at install, on every core (about 10 s for the whole venv on two):
# left to the first import, each process that got there first compiled again what it imported, four test
# workers at once and the app's first start (LiteLLM: 7 s instead of 4), about 50 s of a fresh `make test`.
UV_INSTALL := $(BIN)/uv pip install --compile-bytecode --python $(BIN)/python
PIP_QUIET := --quiet --disable-pip-version-check
# The app's own modules are still compiled on first import and kept, unless told not to write them:
# then every start (and every test's server process) compiles them again. The venv is ours.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run test test-quick lint typecheck typecheck-beside pytest bench conformance bundle bundle-test clean

# First run: a venv with uv in it (uv installs the app ~10x faster than pip). The venv gets no pip of
# its own (setting one up is often the slowest step): the system's pip puts uv into it, and only a
# Python whose pip cannot (no pip, or one older than 22.3) gets pip in the venv for that.
$(BIN)/uv:
	@echo "==> First run: creating $(VENV) and installing the uv installer into it"
	$(PYTHON) -m venv --without-pip $(VENV)
	$(PYTHON) -m pip --python $(BIN)/python install $(PIP_QUIET) uv 2>/dev/null \
		|| { $(PYTHON) -m venv $(VENV) && $(BIN)/python -m pip install $(PIP_QUIET) uv; }

$(STAMP_RUN): pyproject.toml | $(BIN)/uv
	@echo "==> Installing MCP Desk and its dependencies into $(VENV)"
	$(UV_INSTALL) -e .
	@touch $@

$(STAMP_DEV): pyproject.toml | $(BIN)/uv
	@echo "==> Installing MCP Desk with its development tools into $(VENV)"
	$(UV_INSTALL) -e '.[dev]'
	@touch $(STAMP_RUN) $@

$(NPM_STAMP): $(NPM_DIR)/package.json $(NPM_DIR)/package-lock.json
	@echo "==> Installing the npm test servers into $(NPM_DIR)/node_modules"
	cd $(NPM_DIR) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

run: $(STAMP_RUN)
	@echo "==> Starting MCP Desk"
	@$(BIN)/mcp-desk

lint: $(STAMP_DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP_DEV)
	$(BIN)/mypy

# Two workers per core: a test spends much of its time waiting (on a server, a scripted model, a timer),
# and on two cores four workers finish the suite in about a quarter less time than two.
# The npm test servers were just installed: a test that cannot find one fails instead of skipping.
WORKERS ?= $(shell echo $$(( $$(nproc) * 2 )))
pytest: $(STAMP_DEV) $(NPM_STAMP)
	MCP_DESK_REQUIRE_TEST_SERVERS=1 QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -n $(WORKERS) --dist worksteal

# The types are checked beside the suite: mypy from a fresh clone takes about 30 s of one core, which the
# tests' waits leave free. Its report is printed in one piece when it ends.
test: lint
	@$(MAKE) --no-print-directory -j2 typecheck-beside pytest

typecheck-beside: $(STAMP_DEV)
	@report=$$($(BIN)/mypy 2>&1); status=$$?; echo "$$report"; exit $$status

# The edit loop: lint and the tests that open no window and start no process, QtWebEngine or npm peer
# (markers set by tests/conftest.py); under a minute on two cores. `make test` runs everything.
test-quick: $(STAMP_DEV)
	$(BIN)/ruff check .
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -n $(WORKERS) --dist worksteal -q -m "not process and not webengine and not npm and not window"

# Every client scenario the MCP conformance suite lists, against MCP Desk's own client (make test runs the
# sign-in scenarios); prints one line per scenario and the passed/total of each requirement set.
conformance: $(STAMP_DEV) $(NPM_STAMP)
	$(BIN)/python -m tests.conformance.runner

# Each bench prints its figures against the goals of issue-level targets and exits 1 when one is missed.
BENCHES := bench/ui.py bench/session.py bench/cold_send.py bench/filtering.py bench/connect.py bench/catalogs.py bench/context.py bench/browser.py bench/apps.py bench/no_pause.py bench/long_session.py bench/histories.py bench/sandbox.py bench/bundle.py
bench: $(STAMP_DEV) $(NPM_STAMP)
	for b in $(BENCHES); do QT_QPA_PLATFORM=offscreen $(BIN)/python $$b || status=1; done; exit $${status:-0}

clean:
	rm -rf $(VENV) $(NPM_DIR)/node_modules build dist

# The desktop bundle (PyInstaller onedir, dist/mcp-desk/) and the release archive a Linux user downloads
# (dist/mcp-desk-VERSION-linux-ARCH.tar.xz: the bundle, menu entry, icons and a one-line install.sh).
bundle: $(STAMP_DEV)
	QT_QPA_PLATFORM=offscreen $(BIN)/python icons/render.py > /dev/null
	$(BIN)/pyinstaller --noconfirm --clean --log-level WARN --distpath dist --workpath build/pyinstaller packaging/mcp-desk.spec
	packaging/release-archive.sh

# The archive unpacked, installed into a fresh home and self-tested there, then uninstalled; the budgets
# catch what creeps in (installed: 544 MiB, of it QtWebEngine 234).
INSTALLED_BUDGET_MIB := 560
DOWNLOAD_BUDGET_MB := 250

bundle-test: bundle
	packaging/bundle-test.sh $(INSTALLED_BUDGET_MIB) $(DOWNLOAD_BUDGET_MB)
