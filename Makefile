# The book's commands. Each target creates what it needs; see README.md.
#   make serve    build the site from committed data and serve it on 127.0.0.1:8000
#                 (PORT=8001 for another port)
#   make site     build the static site into site/ (strict); SITE_URL=https://host/path/
#                 when it will be served below the root of its host (its 404 page needs it)
#   make test     lint, then every test: kernels (GPU if present, else the Triton
#                 interpreter), strict build, sources, figure data, links, headless Chromium
#   make test-fast  the same without the browser tests (no Chromium): for the edit loop
#   make lint     ruff check + ruff format --check
#   make check EX=04.1  check your answer to an exercise (exercises/): PASS, or the first
#                 thing wrong and the hint to read; no GPU needed
#   make figures  run the GPU benchmarks -> figures/data/<gpu>/*.json; needs only an
#                 existing torch + triton + numpy (no venv). ONLY="names" runs a subset;
#                 QUICK=1 fewer sizes -> figures/data-quick/<gpu>/ (never drawn by the site);
#                 STALE=1 only the benchmarks whose data for this GPU is stale
#   make stale    list the stale data files (code changed since they were measured)

PYTHON  ?= python3
PORT    ?= 8000
VENV    := .venv
VPY     := $(VENV)/bin/python
PIP     := $(VPY) -m pip install -q --disable-pip-version-check -c constraints.txt
# With a GPU, tests use the system's CUDA torch + triton instead of the CPU wheels.
HAVE_GPU := $(shell nvidia-smi -L >/dev/null 2>&1 && echo 1)
TEST_GROUP := $(if $(HAVE_GPU),site,test)
export NO_MKDOCS_2_WARNING := 1

.PHONY: serve site test test-fast test-site lint check figures stale chromium constraints

$(VENV)/.created:
	@echo "First run: creating $(VENV)/ with the pinned packages (MkDocs, Material, Plotly, ...)."
	@echo "This takes a minute or so and happens once; later runs start at once."
	$(PYTHON) -m venv $(if $(HAVE_GPU),--system-site-packages) $(VENV)
	$(VPY) -m pip install -q --disable-pip-version-check pip==26.3
	touch $@

$(VENV)/.docs: $(VENV)/.created pyproject.toml constraints.txt
	@echo "Installing the site's pinned packages into $(VENV)/ (once, and again only when pyproject.toml or constraints.txt change)..."
	$(PIP) --group docs && touch $@

$(VENV)/.test: $(VENV)/.docs
	$(PIP) --group $(TEST_GROUP) && touch $@

serve: $(VENV)/.docs
	@$(VPY) scripts/book/serve.py $(PORT)

site: $(VENV)/.docs
	$(if $(SITE_URL),BOOK_SITE_URL=$(SITE_URL) )$(VPY) -m mkdocs build --strict -d site

# The stale list is printed, never failed on: a GPU to rerun them is not always at hand.
test: $(VENV)/.test lint chromium
	$(VPY) -m pytest -n 2 --dist loadgroup
	@$(VPY) -m scripts.bench.sources

test-fast: $(VENV)/.test lint
	$(VPY) -m pytest -n 2 --dist loadgroup -m "not browser"
	@$(VPY) -m scripts.bench.sources

test-site: $(VENV)/.test chromium
	$(VPY) -m pytest tests/site

lint: $(VENV)/.test
	$(VPY) -m ruff check .
	$(VPY) -m ruff format --check .

check: $(VENV)/.test
	$(VPY) -m exercises check $(EX)

figures:
	$(PYTHON) scripts/bench/measure.py $(if $(QUICK),--quick) $(if $(STALE),--stale) $(ONLY)

stale:
	@$(PYTHON) -m scripts.bench.sources

# An installed Chromium/Chrome, else Debian's (root) or Playwright's: scripts/book/browser.py.
chromium: $(VENV)/.test
	@$(VPY) scripts/book/browser.py ensure

constraints: $(VENV)/.test
	{ sed -n '1,2p' constraints.txt; $(VPY) -m pip freeze --exclude-editable | sed 's/+cpu$$//'; } > constraints.new
	mv constraints.new constraints.txt
