# The two commands a newcomer needs: `make run` and `make test`.
# Both install whatever is missing first (scripts/setup.sh).

JOBS      ?= 2
BUILD     ?= build
ASAN      ?= build-asan
TSAN      ?= build-tsan
TSAN_CAF  ?= build-tsan-caf
FUZZ      ?= build-fuzz
REPO      ?= python/examples/example_model_repository
HTTP_PORT ?= 8000
CMAKE_ARGS = -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
             -DCMAKE_C_COMPILER_LAUNCHER=ccache

# The Python package: `conch` with its `_conch` extension, installed into
# .venv. pip drives CMake (scikit-build-core) in $(BUILD) itself, with the
# same settings as `make build`, so the extension links the libraries that
# build made instead of compiling them all again; only _conch is built.
PIP_ENV    = CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache \
             CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) CCACHE_NOHASHDIR=1 CMAKE_GENERATOR="Unix Makefiles"
PIP_BUILD  = --config-settings=build-dir=$(BUILD) \
             --config-settings=cmake.build-type=RelWithDebInfo \
             --config-settings=cmake.args="-DCONCH_BUILD_PYTHON=ON;-DCONCH_BUILD_TESTS=ON"

# The example repository's ONNX models are generated (python/examples/
# make_identity_onnx.py and make_simple_sequence_onnx.py, with the onnx
# package), not committed.
IDENTITY_ONNX = python/examples/example_model_repository/identity/1/model.onnx
SEQUENCE_ONNX = python/examples/example_model_repository/simple_sequence/1/model.onnx

.PHONY: all setup build install python wheel device-bundle examples run test check-headers asan tsan fuzz soak attack bench bench-peers image rollout clean

all: build

setup:
	@bash scripts/setup.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_ARGS) -DCONCH_BUILD_PYTHON=ON

build: setup $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS)

# The C++ package (headers, static libraries, ConchConfig.cmake, conch.pc).
PREFIX ?= /usr/local
install: build
	cmake --install $(BUILD) --prefix $(PREFIX) --component devel

# conch, then the compatibility packages (tritonserver, triton_python_backend_utils).
python: setup examples $(BUILD)/CMakeCache.txt
	$(PIP_ENV) .venv/bin/python -m pip install -q --disable-pip-version-check \
	  --no-build-isolation --no-deps $(PIP_BUILD) .
	.venv/bin/python -m pip install -q --disable-pip-version-check \
	  --no-build-isolation --no-deps ./python/compat

# Self-contained wheels of conch and the compatibility packages, in
# build/wheelhouse (scripts/build-wheel.sh).
wheel: setup
	JOBS=$(JOBS) bash scripts/build-wheel.sh build/wheelhouse

# What a GPU machine needs to run Conch's GPU checks (scripts/device-check.sh)
# with nothing installed there, in build/device-bundle: a wheel for Python
# 3.12, the C++ CUDA tests and their libraries; checked here against a bare
# root (docs/embedding.md, "GPUs").
device-bundle: build
	JOBS=$(JOBS) bash scripts/device-bundle.sh build/device-bundle

examples: $(IDENTITY_ONNX) $(SEQUENCE_ONNX)

$(IDENTITY_ONNX): python/examples/make_identity_onnx.py | setup
	.venv/bin/python python/examples/make_identity_onnx.py $@

$(SEQUENCE_ONNX): python/examples/make_simple_sequence_onnx.py | setup
	.venv/bin/python python/examples/make_simple_sequence_onnx.py $@

# Three `conch serve` replicas behind nginx (deploy/nginx/nginx.conf) under
# HTTP and gRPC load, restarted one at a time with SIGTERM: no request may
# fail (python/tests/test_rolling_restart.py). nginx comes with --bench.
rollout: python
	@bash scripts/setup.sh --bench
	.venv/bin/python -m pytest -q -m rollout python/tests/test_rolling_restart.py

# The container image (Containerfile) as localhost/conch:latest, with podman
# or buildah (Debian packages; installed when neither is there). Needs the
# base image from a registry, or BASE=<a local image>.
IMAGE ?= localhost/conch:latest
image:
	@command -v podman >/dev/null || command -v buildah >/dev/null \
	  || (sudo -n true 2>/dev/null && sudo apt-get install -y -qq podman) \
	  || apt-get install -y -qq podman
	@if command -v podman >/dev/null; then \
	  podman build -f Containerfile -t $(IMAGE) $(if $(BASE),--build-arg BASE=$(BASE)) . ; \
	else \
	  buildah bud -f Containerfile -t $(IMAGE) $(if $(BASE),--build-arg BASE=$(BASE)) . ; \
	fi

# Serves the example repository over KServe HTTP until Ctrl-C.
run: python
	@echo "make run: serving $(REPO) on port $(HTTP_PORT); in another shell try"
	@echo "  curl -s localhost:$(HTTP_PORT)/v2/models/identity_fp32/infer -d '{\"inputs\":[{\"name\":\"INPUT0\",\"datatype\":\"FP32\",\"shape\":[1,16],\"data\":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]}]}'"
	.venv/bin/conch serve --model-repository $(REPO) --http-port $(HTTP_PORT)

# The build tree has the Python extension, and with it the ctest entry
# conch_python_tests; pytest runs once, after ctest, against the installed
# package instead.
test: build python examples
	cd $(BUILD) && ctest -j$(JOBS) --output-on-failure --timeout 300 -E '^conch_python_tests$$'
	.venv/bin/python -m pytest -q --durations=15 python/tests

# Every installed header compiles on its own, warning-free
# (tests/package/CMakeLists.txt); also built by `make asan`.
check-headers: build
	cmake --build $(BUILD) -j$(JOBS) --target conch_header_check

$(ASAN)/CMakeCache.txt:
	cmake -S . -B $(ASAN) $(CMAKE_ARGS) -DCMAKE_BUILD_TYPE=Debug -DCONCH_SANITIZE=ON

asan: setup $(ASAN)/CMakeCache.txt
	cmake --build $(ASAN) -j$(JOBS)
	cmake --build $(ASAN) -j$(JOBS) --target conch_header_check
	cd $(ASAN) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=$(CURDIR)/cmake/ubsan.supp \
	  ctest -j$(JOBS) --output-on-failure --timeout 600

# ThreadSanitizer over the C++ suite, against a CAF built with it
# (scripts/build-tsan-caf.sh; Debian's is not instrumented). Suppressions,
# each justified, are in cmake/tsan.supp.
$(TSAN)/CMakeCache.txt:
	JOBS=$(JOBS) bash scripts/build-tsan-caf.sh $(TSAN_CAF)
	cmake -S . -B $(TSAN) $(CMAKE_ARGS) -DCONCH_TSAN=ON -DCONCH_CAF_ROOT=$(CURDIR)/$(TSAN_CAF)

tsan: setup $(TSAN)/CMakeCache.txt
	cmake --build $(TSAN) -j$(JOBS)
	cd $(TSAN) && TSAN_OPTIONS="suppressions=$(CURDIR)/cmake/tsan.supp ignore_noninstrumented_modules=1 second_deadlock_stack=1 history_size=4" \
	  ctest -j$(JOBS) --output-on-failure --timeout 900

# libFuzzer over the decoders of fuzz/ (docs/fuzzing.md): each target runs
# FUZZ_RUNS inputs (at most FUZZ_SECONDS) from its corpus and regression
# inputs; any crash, leak or sanitizer report fails the run.
FUZZ_TARGETS = http_request_parser kserve_infer_request content_coding generate_request \
               json_bodies model_config grpc_infer_request header_matchers \
               openai_requests
FUZZ_RUNS    ?= 500000
FUZZ_SECONDS ?= 30
$(FUZZ)/CMakeCache.txt:
	CC=clang-14 CXX=clang++-14 cmake -S . -B $(FUZZ) $(CMAKE_ARGS) -DCONCH_FUZZ=ON \
	  -DCONCH_BUILD_TESTS=OFF

fuzz:
	@bash scripts/setup.sh --fuzz
	$(MAKE) $(FUZZ)/CMakeCache.txt
	cmake --build $(FUZZ) -j$(JOBS) --target $(addprefix fuzz_,$(FUZZ_TARGETS))
	bash scripts/run-fuzz.sh $(FUZZ) $(FUZZ_RUNS) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Ten minutes of mixed, misbehaving HTTP and gRPC load with model loads and
# unloads against `conch serve`; fails on memory growth or a wrong status
# (bench/soak/soak.py, docs/benchmarks.md). SOAK_SECONDS shortens it.
SOAK_SECONDS ?= 600
soak: python examples
	.venv/bin/python bench/soak/soak.py --seconds $(SOAK_SECONDS)

# Attacks modelled on the classes of NVIDIA's Triton security bulletins,
# sent to `conch serve`, each followed by a check that it is alive and
# serving; fails on any (bench/attack/attack.py, docs/attack.md).
attack: python examples
	.venv/bin/python bench/attack/attack.py

# The in-process benchmarks, then KServe HTTP against nginx and KServe gRPC
# against a reference gRPC server (docs/benchmarks.md).
# wrk, nginx and perf_analyzer are installed here only, not for `make test`.
bench: build python
	@bash scripts/setup.sh --bench
	$(BUILD)/bin/conch-bench-inprocess
	.venv/bin/python bench/python/inprocess_bench.py
	.venv/bin/python bench/python/metrics_scrape_bench.py
	.venv/bin/python bench/python/memory_at_rest.py
	.venv/bin/python bench/python/http_bench.py
	.venv/bin/python bench/python/http_models_bench.py
	.venv/bin/python bench/python/bls_bench.py
	.venv/bin/python bench/python/grpc_bench.py --build-dir $(BUILD)
	.venv/bin/python bench/python/cpu_per_request.py --build-dir $(BUILD)
	.venv/bin/python bench/python/openai_stream_bench.py
	.venv/bin/python bench/python/idle_cpu.py

# Conch beside Triton (the nvidia-pytriton wheel's tritonserver, with
# upstream's C++ identity backend from ../shared/peers), KServe, MLServer and
# the no-op gRPC server (the library's floor), each installed into a venv of
# its own under $(BUILD)/peers, one server at a time; throughput and server
# CPU per request into docs/benchmarks.md.
bench-peers: build python
	@bash scripts/setup.sh --bench
	.venv/bin/python bench/peers/peers_bench.py --build-dir $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN) $(TSAN) $(TSAN_CAF) $(FUZZ)
