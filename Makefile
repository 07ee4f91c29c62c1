# Everything a fresh machine needs goes through here: `make test`, `make demo`, `make bench`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-dev
# Training (ultralytics, torch) lives in its own venv: the runtime and the test venv never get torch.
# torch comes from the wheels on this machine's disk (the pins match them); torchvision is what
# ultralytics needs beside it.
TRAIN_VENV  := .venv-train
TRAIN_STAMP := $(TRAIN_VENV)/.installed-train

.PHONY: test demo bench bench-live lint install train-env detector-onnx clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

$(TRAIN_STAMP): pyproject.toml
	test -x $(TRAIN_VENV)/bin/python || $(PYTHON) -m venv $(TRAIN_VENV)
	$(TRAIN_VENV)/bin/python -m pip install -q --upgrade pip
	$(TRAIN_VENV)/bin/python -m pip install -q torch==2.14.1 torchvision==0.29.1
	$(TRAIN_VENV)/bin/python -m pip install -q -e '.[train]'
	touch $(TRAIN_STAMP)

train-env: $(TRAIN_STAMP)

test: $(STAMP) $(TRAIN_STAMP)
	.ci/apt-packages.sh chromium chromium-driver postgresql redis-server \
		fonts-arphic-ukai fonts-arphic-uming fonts-wqy-zenhei fonts-wqy-microhei \
		fonts-cwtex-heib fonts-cwtex-yen fonts-cwtex-kai fonts-cwtex-ming fonts-cwtex-fs fonts-dejavu-core fonts-dejavu-extra fonts-liberation
	$(BIN)/ruff check .
	BANCO_TEST_REQUIRE_SERVICES=1 BANCO_TRAIN_PYTHON="$(abspath $(TRAIN_VENV))/bin/python" \
		BANCO_TEST_POSTGRES_URL="$$(.ci/postgres.sh)" $(BIN)/python -m pytest -q -n 2 --dist loadfile

demo: $(STAMP)
	$(BIN)/banco demo

# The untrained full-frame YOLO that benchmarks/vision.py times as its peer: made once, into the cache.
detector-onnx: $(TRAIN_STAMP)
	$(TRAIN_VENV)/bin/python -m models.peer_detector

bench: $(STAMP) detector-onnx
	$(BIN)/python benchmarks/rules.py
	$(BIN)/python benchmarks/hardware_link.py
	$(BIN)/python benchmarks/vision.py
	$(BIN)/python benchmarks/grid.py --renders 10
	$(BIN)/python benchmarks/follow.py
	$(BIN)/python benchmarks/snap.py --renders 10

bench-live: $(STAMP)
	$(BIN)/python benchmarks/live.py

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) $(TRAIN_VENV) .pytest_cache .ruff_cache .hypothesis
