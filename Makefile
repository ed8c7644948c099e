# Two commands do everything on a fresh machine (Python 3.11+ with venv):
#   make play   set up, then play Jin Li against the AI in the terminal
#   make test   set up, then run the whole suite (ruff, mypy, pytest)
VENV ?= .venv
PYTHON ?= python3
BIN = $(VENV)/bin

.PHONY: setup play test bench lint typecheck clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[play,fast,test]'
	touch $@

play: setup
	$(BIN)/boardlab play jinli

# Every speed figure in one run on this machine: the engine, the compiled kernels and the
# C baseline side by side, then OpenSpiel 2.0.2 beside boardlab (tables and JSON in
# benchmarks/results/).
bench: setup
	$(BIN)/python benchmarks/speed.py
	$(BIN)/python benchmarks/openspiel_speed.py

lint: setup
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

typecheck: setup
	$(BIN)/mypy

test: lint typecheck
	$(BIN)/python -m pytest -n auto

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
