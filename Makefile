# Two commands do everything on a fresh machine (Python 3.11+ with venv):
#   make play   set up, then play Jin Li against the AI in the terminal
#   make test   set up, then run the whole suite (ruff, mypy, pytest)
VENV ?= .venv
PYTHON ?= python3
BIN = $(VENV)/bin

.PHONY: setup play test lint typecheck clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[play,fast,test]'
	touch $@

play: setup
	$(BIN)/boardlab play jinli

lint: setup
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

typecheck: setup
	$(BIN)/mypy

test: lint typecheck
	$(BIN)/python -m pytest -n auto

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
