# llmops.sglang developer entry points. `make test` is what CI runs (.ci/run).
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

PYENV_PYTHON ?= 3.12.1
VENV := $(CURDIR)/.venv
PY := $(VENV)/bin/python
COLLECTIONS := $(CURDIR)/.build/collections
COLLECTION_DIR := $(COLLECTIONS)/ansible_collections/llmops/sglang

export PATH := $(VENV)/bin:$(PATH)
export ANSIBLE_COLLECTIONS_PATH := $(COLLECTIONS)
export ANSIBLE_INJECT_FACT_VARS := false
export ANSIBLE_NOCOLOR := true
export ANSIBLE_FORCE_COLOR := false
export PY_COLORS := 0

# Molecule scenarios run by `make test`: every scenario under extensions/molecule except `default`
# (the end-to-end deploy, run by `make e2e` and `make test-full`) and those named in OPT_IN.
MOLECULE_OPT_IN := $(shell cat extensions/molecule/OPT_IN 2>/dev/null)
MOLECULE_SCENARIOS := $(filter-out default $(MOLECULE_OPT_IN),$(notdir $(patsubst %/molecule.yml,%,$(wildcard extensions/molecule/*/molecule.yml))))

.PHONY: help bootstrap apt venv link image test test-steps test-full e2e ruff units integration lint sanity core-matrix build artifact importer docs docs-venv docs-lint docsite molecule \
        smg scale-out demo catalogs templates template-patterns release bench oracle calibration-report changelog clean

help:
	@echo "make bootstrap  install apt packages, the venv, the podman systemd image"
	@echo "make test       ruff, unit tests, ansible-lint, ansible-test sanity, build, the installed artifact, galaxy-importer, ansible-doc, the docs lint, then integration and molecule with the ansible-core matrix beside them"
	@echo "make test-full  make test plus the deploys CI has no time for: the AWX-way rerun, the README quickstart's deploy, molecule default and scale_out"
	@echo "make demo       the main job: preflight of the incident on declared GPUs, then deploy"
	@echo "make catalogs   regenerate the SGLang flag, architecture and metric catalogs and pins of every registry release from the real wheels"
	@echo "make templates  regenerate the index of SGLang's failure and warning messages (plugins/plugin_utils/data/sglang-messages.json) from every release's wheel"
	@echo "make template-patterns  after a change of diagnosis/message_map.py: the diagnoser's pattern table from the committed index"
	@echo "make release V=0.5.24 [ORACLE=1]  add an SGLang release: catalog, pins, a draft registry entry (CONTRIBUTING.md)"
	@echo "make bench      accuracy and speed figures (bench/)"
	@echo "make calibration-report STORE=DIR  residuals of a calibration store, per release, GPU and component"
	@echo "make docsite    the collection's HTML docs (antsibull-docs, Sphinx) in .build/docsite/build/html"
	@echo "make oracle     regenerate differential fixtures from SGLang's own sizing code (heavy, opt-in)"

bootstrap: apt venv docs-venv smg link image

apt:
	@if [ "$$(id -u)" = 0 ]; then \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -q && apt-get install -y -q --no-install-recommends $$(grep -v '^#' requirements/apt.txt | tr '\n' ' '); \
	else echo "not root: skipping apt (needs: $$(grep -v '^#' requirements/apt.txt | tr '\n' ' '))"; fi

$(VENV)/.stamp: requirements/dev.in requirements/constraints.txt
	PYENV_VERSION=$(PYENV_PYTHON) python3.12 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements/dev.in -c requirements/constraints.txt
	bash scripts/install-ansible-test-pip-shim.sh $(PY)
	touch $@

venv: $(VENV)/.stamp

# antsibull-docs and Sphinx live in their own venv: Sphinx needs an older docutils than the main venv pins
# (requirements/docs.in says which).
DOCS_VENV := $(CURDIR)/.build/docs-venv
$(DOCS_VENV)/.stamp: requirements/docs.in requirements/docs-constraints.txt
	PYENV_VERSION=$(PYENV_PYTHON) python3.12 -m venv $(DOCS_VENV)
	$(DOCS_VENV)/bin/python -m pip install -q --upgrade pip
	$(DOCS_VENV)/bin/python -m pip install -q -r requirements/docs.in -c requirements/docs-constraints.txt
	touch $@

docs-venv: $(DOCS_VENV)/.stamp

# The real model gateway (PyPI smg) for the scale-out tests: in its own venv, so its grpcio and protobuf stay out of
# the main one, and as wheels for the containers' Python 3.11 (Debian bookworm), which reach no package index.
SMG_VERSION := 1.13.0
SMG_VENV := $(CURDIR)/.build/smg-venv
SMG_WHEELS := $(CURDIR)/.build/smg-wheels
$(SMG_VENV)/.stamp:
	PYENV_VERSION=$(PYENV_PYTHON) python3.12 -m venv $(SMG_VENV)
	$(SMG_VENV)/bin/python -m pip install -q smg==$(SMG_VERSION)
	$(SMG_VENV)/bin/python -m pip download -q --dest $(SMG_WHEELS) --only-binary=:all: --implementation cp --python-version 3.11 \
	  --platform manylinux2014_x86_64 smg==$(SMG_VERSION)
	touch $@

smg: $(SMG_VENV)/.stamp

link:
	@mkdir -p $(dir $(COLLECTION_DIR))
	@[ -L $(COLLECTION_DIR) ] || ln -s $(CURDIR) $(COLLECTION_DIR)

image:
	bash scripts/build-systemd-image.sh bookworm

# Both cores (pytest-xdist): the 15,000 cases are independent, and the suite is the longest CPU-bound step of make test.
units: venv link
	$(PY) -m pytest -q -n auto tests/unit

# The Python formatter and linter (ruff.toml): every tracked and untracked-but-not-ignored .py file.
ruff: venv
	ruff format --check --diff .
	ruff check .

# Includes deploy.yml end to end the AWX way (ansible_runner, marker e2e, about 6 minutes); skip it locally
# with: pytest -m "not e2e" tests/integration
integration: venv link
	$(PY) -m pytest -q -p no:cacheprovider tests/integration

# molecule's default scenario: deploy.yml end to end once more, as molecule runs it (about 8 minutes). Kept out
# of `make test` so that CI stays within its time budget (integration already runs deploy.yml end to end the AWX
# way, at -vvvv, with the same secrets scan). Like `make molecule`: at -vvvv, then the secrets scan.
e2e: venv link
	bash scripts/molecule-test.sh default
	$(PY) scripts/secret_scan.py --canaries tests/fixtures/secret-canaries.yml --canaries .build/secret-canaries \
	  .build/molecule-logs/default.log

# molecule's scale_out scenario (issue 16: two replicas, one over two nodes, behind the real smg; a rolling update
# under load, a stopped replica, a rank that dies at start), about 12 minutes: opt-in (extensions/molecule/OPT_IN),
# run by make test-full. make test keeps its fast subset, tests/integration/test_scale_out_loopback.py.
scale-out: venv link smg
	bash scripts/molecule-test.sh scale_out
	$(PY) scripts/secret_scan.py --canaries tests/fixtures/secret-canaries.yml --canaries .build/secret-canaries \
	  .build/molecule-logs/scale_out.log .build/secret-scan

lint: venv link
	ansible-lint --offline --profile production

# ansible-test needs the physical path to end in ansible_collections/<ns>/<name>, so sanity runs on a
# fresh copy of the files git tracks or would track (ignored files such as .venv stay out).
SANITY_DIR := $(CURDIR)/.build/sanity/ansible_collections/llmops/sglang
sanity: venv link
	rm -rf $(SANITY_DIR) && mkdir -p $(SANITY_DIR)
	@# Modules that reuse community.proxmox's connection code need that collection beside ours.
	ln -sfn $(VENV)/lib/python3.12/site-packages/ansible_collections/community $(dir $(SANITY_DIR))../community
	git ls-files -z --cached --others --exclude-standard | xargs -0 -I{} sh -c 'test -e "{}" && echo "{}"' \
	  | tar -cf - -T - | tar -xf - -C $(SANITY_DIR)
	cd $(SANITY_DIR) && git init -q && git add -A && ansible-test sanity --local --python 3.12 --color no

# The ansible-core version matrix (noxfile.py, antsibull-nox): sanity and the core-dependent unit tests under every
# supported ansible-core that meta/runtime.yml admits, besides the main venv's 2.21 (make sanity, make units). One
# venv per core (its pins: requirements/core-matrix/2.N.txt) under .build/core-matrix; alone, the cores run side by
# side (-j2), each one's output printed when it ends; inside make test one at a time (see test). Each gets its own HOME, so that two ansible-tests never build the
# same sanity venv (~/.ansible/test/venv) at once; they share the pip cache. The collections galaxy.yml depends on
# come from the main venv's ansible bundle.
CORE_MATRIX := $(basename $(notdir $(wildcard requirements/core-matrix/*.txt)))
CORE_MATRIX_JOBS ?= 2
core-matrix: venv link
	$(MAKE) --no-print-directory -j$(CORE_MATRIX_JOBS) -O $(addprefix core-matrix-,$(CORE_MATRIX))

core-matrix-%: venv link
	mkdir -p .build/core-matrix/home-$*
	HOME=$(CURDIR)/.build/core-matrix/home-$* PIP_CACHE_DIR=$${PIP_CACHE_DIR:-$(HOME)/.cache/pip} \
	  ANSIBLE_COLLECTIONS_PATH=$(COLLECTIONS):$(VENV)/lib/python3.12/site-packages \
	  nox --no-color --envdir .build/core-matrix -s core-$*

build: venv link
	@mkdir -p .build/dist
	ansible-galaxy collection build --force --output-path .build/dist .
	@ls -l .build/dist/llmops-sglang-*.tar.gz

VERSION := $(shell sed -n 's/^version: *//p' galaxy.yml)
TARBALL := .build/dist/llmops-sglang-$(VERSION).tar.gz

# The tarball installed offline into an empty collections path, then the plays (by FQCN), a filter, a role's doc
# and an action group run from there only: scripts/artifact_check.sh.
artifact: build
	bash scripts/artifact_check.sh $(TARBALL)

# galaxy-importer (Galaxy's upload checks: ansible-doc, ansible-lint, metadata) on the tarball, in its own venv;
# any ERROR line fails (scripts/galaxy_importer_check.sh).
IMPORTER_VENV := $(CURDIR)/.build/importer-venv
$(IMPORTER_VENV)/.stamp: requirements/importer.txt
	rm -rf $(IMPORTER_VENV)
	PYENV_VERSION=$(PYENV_PYTHON) python3.12 -m venv $(IMPORTER_VENV)
	$(IMPORTER_VENV)/bin/python -m pip install -q -r requirements/importer.txt
	touch $@

importer: build $(IMPORTER_VENV)/.stamp
	bash scripts/galaxy_importer_check.sh $(IMPORTER_VENV) $(TARBALL)

docs: venv link
	@set -e; for f in plugins/modules/*.py; do n=$$(basename $$f .py); \
	  ansible-doc -t module llmops.sglang.$$n > /dev/null && echo "ansible-doc module llmops.sglang.$$n: ok"; done
	@set -e; for t in lookup test connection inventory callback; do \
	  for f in $$(ls plugins/$$t/*.py 2>/dev/null | grep -v __init__); do n=$$(basename $$f .py); \
	    ansible-doc -t $$t llmops.sglang.$$n > /dev/null && echo "ansible-doc $$t llmops.sglang.$$n: ok"; done; done
	@for f in plugins/filter/*.py; do [ -e "$$f" ] || continue; grep -q "def filters" $$f || continue; \
	  for n in $$($(PY) -c "import ast,sys;t=ast.parse(open('$$f').read());print(' '.join(k.value for n in ast.walk(t) if isinstance(n,ast.Dict) for k in n.keys if isinstance(k,ast.Constant)))"); do \
	    ansible-doc -t filter llmops.sglang.$$n > /dev/null && echo "ansible-doc filter llmops.sglang.$$n: ok"; done; done

# antsibull-docs runs from the collection's directory under ansible_collections/ and copies the collection (the files
# git tracks or would track) and its galaxy.yml dependencies into a temporary tree. The dependencies come from the
# main venv's ansible bundle, inside this work tree but git-ignored: GIT_CEILING_DIRECTORIES keeps git from taking
# them for part of this repository (which would copy none of their files).
ANTSIBULL_DOCS := cd $(COLLECTION_DIR) && GIT_CEILING_DIRECTORIES=$(CURDIR) $(DOCS_VENV)/bin/antsibull-docs

# Plugin and role docs (schema, markup such as O() and RV() and M() references), docs/docsite/*.yml and the
# extra docs' RST (rstcheck, code blocks included).
docs-lint: venv link docs-venv
	$(ANTSIBULL_DOCS) lint-collection-docs --plugin-docs --validate-collection-refs dependent --check-extra-docs-refs .

# The collection's docsite: every module, filter and role entry point and the guides of docs/docsite, as HTML in
# .build/docsite/build/html (opt-in, not part of make test). With chromium installed it also renders
# docs/docsite-sglang_memory_budget.png, a screenshot of one module page, to check the result by eye.
DOCSITE := $(CURDIR)/.build/docsite
DOCSITE_SHOT := docs/docsite-sglang_memory_budget.png
# Appended to the generated conf.py. Without docs.ansible.com (CI, an air-gapped machine) intersphinx has no
# inventories: references to ansible-core's pages and other collections then stay plain text instead of failing
# the build (-W); an unresolved reference within llmops.sglang still fails it.
define DOCSITE_OFFLINE_CONF

# make docsite: offline builds.
import socket
try:
    socket.create_connection(('docs.ansible.com', 443), timeout=5).close()
except OSError:
    print('docs.ansible.com is unreachable: references outside llmops.sglang stay plain text')
    intersphinx_mapping = {}
    nitpick_ignore_regex = [('std:ref', r'(?!ansible_collections\.llmops\.sglang\.).*')]
endef
export DOCSITE_OFFLINE_CONF
docsite: venv link docs-venv
	rm -rf $(DOCSITE) && mkdir -p -m 0700 $(DOCSITE)
	$(ANTSIBULL_DOCS) sphinx-init --use-current --fail-on-error --dest-dir $(DOCSITE) \
	  --project llmops.sglang --title "llmops.sglang" --html-short-title "llmops.sglang" llmops.sglang
	printf '%s\n' "$$DOCSITE_OFFLINE_CONF" >> $(DOCSITE)/conf.py
	PATH=$(DOCS_VENV)/bin:$$PATH GIT_CEILING_DIRECTORIES=$(CURDIR) bash $(DOCSITE)/build.sh
	@echo "docsite: $(DOCSITE)/build/html/index.html"
	@if command -v chromium > /dev/null; then \
	  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,2000 \
	    --screenshot=$(CURDIR)/$(DOCSITE_SHOT) \
	    file://$(DOCSITE)/build/html/collections/llmops/sglang/sglang_memory_budget_module.html 2> /dev/null; \
	  echo "screenshot: $(DOCSITE_SHOT)"; \
	else echo "chromium is not installed: $(DOCSITE_SHOT) not regenerated (apt-get install chromium)"; fi

# Every scenario runs at -vvvv (its full output goes to .build/molecule-logs/; its recaps and the count of its
# testinfra state checks are printed), and then the secrets scan looks
# for every test secret (tests/fixtures/secret-canaries.yml, and those a scenario generated in
# .build/secret-canaries/) in those logs and in the unit files the scenarios collected (.build/secret-scan/).
molecule: venv link
	rm -rf .build/molecule-logs .build/secret-canaries .build/secret-scan
	bash scripts/molecule-test.sh $(MOLECULE_SCENARIOS)
	$(PY) scripts/secret_scan.py --canaries tests/fixtures/secret-canaries.yml --canaries .build/secret-canaries \
	  .build/molecule-logs .build/secret-scan

# make test: the checks in order, except core-matrix, which runs beside integration and molecule. Those two wait on
# containers most of the time (about half the CPU stays idle), the matrix is CPU-bound: side by side they save
# its 4 minutes of CI's 45-minute budget. Its output goes to .build/core-matrix.log, printed when both are done;
# make test fails if either does.
TEST_CHECKS := ruff units lint sanity build artifact importer docs docs-lint
CONTAINER_CHECKS := integration molecule
test: $(TEST_CHECKS)
	@mkdir -p .build
	@echo "core-matrix: beside $(CONTAINER_CHECKS), output in .build/core-matrix.log"
	@$(MAKE) --no-print-directory core-matrix CORE_MATRIX_JOBS=1 > .build/core-matrix.log 2>&1 & matrix=$$!; \
	  status=0; $(MAKE) --no-print-directory $(CONTAINER_CHECKS) || status=$$?; \
	  matrix_status=0; wait $$matrix || matrix_status=$$?; \
	  echo "== core-matrix (exit $$matrix_status):"; cat .build/core-matrix.log; \
	  [ $$status = 0 ] && [ $$matrix_status = 0 ]
	@echo "make test: all checks passed"

# What make test runs, for .ci/run's summary.
test-steps:
	@echo $(TEST_CHECKS) core-matrix $(CONTAINER_CHECKS)

# make test, with the deploys that do not fit CI's budget: the AWX-way deploy's second run (idempotence) and the
# README quickstart's deploy line (tests/integration), and molecule's default scenario (make e2e).
test-full: export LLMOPS_E2E_FULL = 1
test-full: test e2e scale-out

demo: bootstrap
	$(PY) scripts/demo.py

# The flag catalog and install pins of every release in the registry (releases.SUPPORTED_VERSIONS).
catalogs: venv link
	@versions="$$(PYTHONPATH=$(COLLECTIONS) $(PY) -c 'from ansible_collections.llmops.sglang.plugins.plugin_utils.releases import SUPPORTED_VERSIONS; print(*SUPPORTED_VERSIONS)')"; \
	  echo "registry releases: $$versions"; \
	  $(PY) scripts/gen_flag_catalog.py $$versions; \
	  $(PY) scripts/gen_arch_catalog.py $$versions; \
	  $(PY) scripts/gen_metric_catalog.py $$versions; \
	  $(PY) scripts/gen_release_pins.py $$versions

# The message templates of every release from 0.4.0 to 0.5.23 (about 90 wheels, 0.5 GB in .cache/wheels; the
# download and the parse take a while, hence nice). The diagnoser matches them (diagnosis/templates.py).
templates: venv link
	nice $(PY) scripts/gen_message_templates.py --first 0.4.0 --last 0.5.23

# After a change of diagnosis/message_map.py: the pattern table alone, from the committed index.
template-patterns: venv link
	$(PY) scripts/gen_message_templates.py --patterns-only

# make release V=0.5.24 [ORACLE=1]: the new release's flag catalog and pins (merged into sglang-releases.json), and
# .cache/release-draft/V.md: the sizing-relevant source changes since the registry's newest release, a draft
# registry entry and the checklist (CONTRIBUTING.md). ORACLE=1 also runs SGLang's own sizing code for V.
release: venv link
	@if [ -z "$(V)" ]; then echo "make release: name the new SGLang release, e.g. make release V=0.5.24 [ORACLE=1]" >&2; exit 2; fi
	$(PY) scripts/draft_release.py --check "$(V)"
	$(PY) scripts/gen_flag_catalog.py "$(V)"
	$(PY) scripts/gen_arch_catalog.py "$(V)"
	$(PY) scripts/gen_release_pins.py "$(V)"
	$(PY) scripts/draft_release.py "$(V)"
ifeq ($(ORACLE),1)
	ORACLE_VERSIONS="$(V)" bash bench/oracle/run.sh
endif

bench: venv link
	@set -e; for b in bench/bench_*.py; do echo "== $$b"; $(PY) $$b; done

oracle:
	bash bench/oracle/run.sh

calibration-report: venv link
	@[ -n "$(STORE)" ] || { echo "make calibration-report STORE=DIR: give the calibration store (sglang_service_calibration_store)"; exit 2; }
	$(PY) scripts/calibration_report.py "$(STORE)"

changelog: venv
	antsibull-changelog lint

clean:
	rm -rf .build tests/output
