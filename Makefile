# Everything a fresh machine needs goes through here: `make test`, `make demo`, `make bench`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-dev

.PHONY: test demo bench bench-live lint install clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

test: $(STAMP)
	.ci/apt-packages.sh chromium chromium-driver postgresql redis-server \
		fonts-arphic-ukai fonts-arphic-uming fonts-wqy-zenhei fonts-dejavu-core fonts-dejavu-extra fonts-liberation
	$(BIN)/ruff check .
	BANCO_TEST_REQUIRE_SERVICES=1 BANCO_TEST_POSTGRES_URL="$$(.ci/postgres.sh)" $(BIN)/python -m pytest -q -n 2 --dist loadfile

demo: $(STAMP)
	$(BIN)/banco demo

bench: $(STAMP)
	$(BIN)/python benchmarks/rules.py
	$(BIN)/python benchmarks/hardware_link.py

bench-live: $(STAMP)
	$(BIN)/python benchmarks/live.py

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
