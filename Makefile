# Two commands do all the set-up on a fresh machine: `make run` and `make test`.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test check venv lint bench soak soak-hosts clean

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check --upgrade pip
	$(PY) -m pip install -q --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

run: venv
	scripts/run.sh

test: venv
	scripts/test.sh

# The fast check while working (45 s warm on an idle 2-CPU host, 2026-12-04; docs/benchmarks.md): ruff, mypy,
# the vectors, the tests needing no worker, browser, simulator run, exact RTP solver, hostile-input or persona
# walk (`slow`). `make test` is still what CI runs.
check: venv
	scripts/check.sh

lint: venv
	$(VENV)/bin/ruff check .

# Every benchmark beside its reference, into docs/benchmarks.md (about 15 minutes once the settlement rounds are
# kept; BENCH_ARGS="--backoffice --settle-100k" adds the two long ones).
bench: venv
	scripts/bench.sh $(BENCH_ARGS)

# The soak test in full (its short form runs at the end of `make test`); report in docs/soak.md.
soak: venv
	scripts/soak.sh --write

# The short soak with its workers on 1, then 2 test hosts (network namespaces; root), compared in docs/soak.md.
# Not part of `make test`: two soaks take too long. SOAK_HOSTS_ARGS="--relay-rtt-ms 1 5" adds a 2-host run per
# round trip added between host 2 and the database host (bench/soak_relay.py: this kernel has no netem).
soak-hosts: venv
	scripts/soak.sh --hosts-compare --write $(SOAK_HOSTS_ARGS)

clean:
	rm -rf var/broker var/celery-results var/cache
