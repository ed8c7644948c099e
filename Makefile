# Two commands do everything on a fresh machine (Python 3.11+ with venv):
#   make serve  set up, then start the web app (SQLite in your data directory)
#   make test   set up, then run the whole suite (ruff, mypy, pytest, the browser tests)
# and one more plays in the terminal:
#   make play   set up, then play Jin Li against the AI in the terminal
VENV ?= .venv
PYTHON ?= python3
BIN = $(VENV)/bin

.PHONY: setup serve play test bench lint typecheck browser postgres screenshots messages clean

# Serving and playing need the web app's libraries and numba (the AI's compiled search):
# a few hundred MB. Everything else (PyTorch, Ray, OpenSpiel, the test tools) is for
# research and tests, some 2 GB more, installed by ``setup``.
SERVING = web,fast

setup: $(VENV)/.installed

$(VENV)/.serving: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[$(SERVING)]'
	touch $@

$(VENV)/.installed: $(VENV)/.serving pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[play,fast,web,rl,train,study,ray,test]'
	touch $@

# The AI's searches compiled before the server starts (a minute once, then a second or
# two), so that no first move waits for them.
serve: $(VENV)/.serving
	$(BIN)/boardlab prepare
	$(BIN)/boardlab serve

play: $(VENV)/.serving
	$(BIN)/boardlab play jinli

# The browser tests drive Debian's Chromium (Playwright cannot download its own here).
# Installed when missing and this is root with apt (CI); elsewhere they are skipped with
# a note, except under CI=true, where a missing Chromium fails them.
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  { if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	    else echo "note: no Chromium; the browser tests are skipped (apt-get install chromium)"; fi; }

# The web tests run on SQLite and on a throwaway PostgreSQL server they start from the
# machine's binaries (/usr/lib/postgresql). Installed when missing and this is root with
# apt (CI); elsewhere the PostgreSQL cases are skipped, except under CI=true.
postgres:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || \
	  { if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; \
	    else echo "note: no PostgreSQL; its web tests are skipped (apt-get install postgresql)"; fi; }

# The pictures in docs/images, taken by the browser tests.
screenshots: setup browser
	BOARDLAB_SCREENSHOTS=docs/images $(BIN)/python -m pytest -q tests/test_web_browser.py

# Every speed figure in one run on this machine: the engine, the compiled kernels and the
# C baseline side by side, then OpenSpiel 2.0.2 beside boardlab (tables and JSON in
# benchmarks/results/).
bench: setup
	$(BIN)/python benchmarks/speed.py
	$(BIN)/python benchmarks/openspiel_speed.py

# The message catalogue: gather every marked message from the code, templates and page
# scripts, merge them into the German catalogue (new ones untranslated, gone ones dropped)
# and compile it. tests/test_i18n.py fails while a message lacks its German.
messages: setup
	$(BIN)/python -m boardlab.messages update

lint: setup
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/lint-imports

typecheck: setup
	$(BIN)/mypy

test: lint typecheck browser postgres
	$(BIN)/python -m pytest -n auto

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
