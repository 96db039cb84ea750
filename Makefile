# webagent: `make run` starts the embedded service, `make test` runs the suite.
SHELL := /bin/bash
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
CHROMIUM ?= /usr/bin/chromium
STAMP := $(VENV)/.installed

.PHONY: setup run test lint bench chaos migrate chromium clean openapi lock client-models ts-client docs docs-pages realapps realapps-serve

# the service with its dev tools, and the Python SDK (clients/python) editable beside it
$(STAMP): pyproject.toml constraints.txt clients/python/pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -c constraints.txt -e '.[dev]' -e clients/python  # versions from the lock file
	touch $(STAMP)

# the TypeScript SDK's compiler and generator, when Node.js is there (its tests skip without it)
TS := clients/typescript
$(TS)/node_modules/.installed: $(TS)/package.json $(TS)/package-lock.json
	cd $(TS) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

ts-client:
	@if command -v node >/dev/null && command -v npm >/dev/null; then \
	  $(MAKE) --no-print-directory $(TS)/node_modules/.installed; \
	else echo "node not found: the TypeScript client is not set up (its tests skip)"; fi

# Chromium, a colour emoji font (without it emoji draw as empty boxes in screenshots) and
# Liberation, Chromium's default sans-serif: without it the default is DejaVu Sans, whose own
# black-and-white emoji glyphs win over the colour font
EMOJI_FONT := /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf
SANS_FONT := /usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf
chromium:
	@if [ ! -x "$(CHROMIUM)" ] || [ ! -f "$(EMOJI_FONT)" ] || [ ! -f "$(SANS_FONT)" ]; then \
	  echo "installing Chromium and its fonts from Debian"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq --no-install-recommends chromium fonts-liberation fonts-noto-color-emoji; \
	fi

setup: $(STAMP) chromium ts-client

migrate: setup
	$(BIN)/webagent migrate

run: migrate
	$(BIN)/webagent serve

lint: setup
	$(BIN)/ruff check app workers migrations tests bench clients/python
	$(BIN)/ruff format --check app workers migrations tests bench clients/python
	$(BIN)/mypy
	$(BIN)/lint-imports

# three pytest processes: most of a test's time is waiting on pages, servers and timers, so
# three share two cores well; tests on the one Redis test DB run in one of them (conftest.py)
TEST_PROCS ?= 3

test: setup lint
	$(BIN)/python -m pytest -q -ra -n $(TEST_PROCS) --dist loadgroup --durations=25

chaos: setup
	$(BIN)/python -m pytest -q -ra -m chaos

bench: setup
	$(BIN)/pip install -q -e '.[dev,bench]'
	$(BIN)/pip install -q --no-deps 'browser-use==0.13.14'
	$(BIN)/python bench/backbone.py
	$(BIN)/python bench/perception/run.py
	$(BIN)/python bench/miniwob_smoke.py
	$(BIN)/python bench/overhead.py
	$(BIN)/python bench/overhead.py --latency 0
	$(BIN)/python bench/observe_python.py
	$(BIN)/python -m pytest -q -ra -m bench

# the real applications of bench/realapps (issue 33) under .realapps/, each in its own venv
# with its seed (idempotent; not part of setup or test); their check test: pytest -m realapps
realapps: setup
	$(BIN)/python -m workers.bench.realapps_catalog install

# serve every installed app on its 127.0.0.1 port, reset to its seed; Ctrl-C stops them
realapps-serve: realapps
	$(BIN)/python -m workers.bench.realapps_catalog serve

# re-resolve constraints.txt from pyproject.toml (keeps current pins unless they must move)
lock: setup
	$(BIN)/pip install -q pip-tools
	$(BIN)/pip-compile -q --extra dev --extra docs --strip-extras --no-emit-index-url --no-emit-find-links \
	  -o constraints.txt pyproject.toml

# the documentation site from docs/ (mkdocs.yml) into site/, offline: no fonts or plugins that
# fetch anything; --strict turns every warning (a broken link, a page missing from nav) into a failure
docs: setup
	$(BIN)/pip install -q -c constraints.txt -e '.[docs]'
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

# rewrite docs/configuration.md from Settings and docs/http-api.md from docs/openapi.json (tests/unit/test_docs_site.py fails while it is stale)
docs-pages: setup
	$(BIN)/python -m app.settings_doc > docs/configuration.md
	$(BIN)/python -m app.api_reference_doc > docs/http-api.md

# rewrite the committed API document (tests/unit/api/test_openapi.py fails while it is stale)
openapi: setup
	$(BIN)/python -m app.openapi_doc > docs/openapi.json
	$(BIN)/python -m app.api_reference_doc > docs/http-api.md
	$(MAKE) --no-print-directory client-models

# the SDKs' models and types from docs/openapi.json (tests/unit/clients and
# tests/e2e/test_sdk_typescript_e2e.py fail while they are stale)
client-models: setup
	cd clients/python && PATH="$(abspath $(BIN)):$$PATH" datamodel-codegen
	cd $(TS) && npm run -s generate

clean:
	rm -rf $(VENV) .webagent .pytest_cache .mypy_cache .ruff_cache
