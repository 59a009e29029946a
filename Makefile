# Two commands set everything up: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.installed-run
STAMP_DEV := $(VENV)/.installed-dev
NPM_DIR := tests/npm
NPM_STAMP := $(NPM_DIR)/node_modules/.installed

.PHONY: run test lint typecheck pytest bench bundle bundle-test clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_RUN): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(STAMP_DEV): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP_RUN) $@

$(NPM_STAMP): $(NPM_DIR)/package.json $(NPM_DIR)/package-lock.json
	cd $(NPM_DIR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

run: $(STAMP_RUN)
	$(BIN)/mcp-desk

lint: $(STAMP_DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP_DEV)
	$(BIN)/mypy

pytest: $(STAMP_DEV) $(NPM_STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest

test: lint typecheck pytest

bench: $(STAMP_DEV) $(NPM_STAMP)
	for b in bench/*.py; do QT_QPA_PLATFORM=offscreen $(BIN)/python $$b || status=1; done; exit $${status:-0}

clean:
	rm -rf $(VENV) $(NPM_DIR)/node_modules build dist

# The desktop bundle (PyInstaller onedir) and its self-test, run offscreen.
bundle: $(STAMP_DEV)
	QT_QPA_PLATFORM=offscreen $(BIN)/python icons/render.py > /dev/null
	$(BIN)/pyinstaller --noconfirm --clean --log-level WARN --distpath dist --workpath build/pyinstaller packaging/mcp-desk.spec

bundle-test: bundle
	QT_QPA_PLATFORM=offscreen dist/mcp-desk/mcp-desk --self-test
	du -sh dist/mcp-desk
