# The two commands a newcomer needs: `make run` and `make test`.
# Both install whatever is missing first (scripts/setup.sh).

JOBS      ?= 2
BUILD     ?= build
ASAN      ?= build-asan
REPO      ?= python/examples/example_model_repository
CMAKE_ARGS = -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
             -DCMAKE_C_COMPILER_LAUNCHER=ccache

.PHONY: all setup build run test asan bench clean

all: build

setup:
	@bash scripts/setup.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_ARGS)

build: setup $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS)

run: build
	$(BUILD)/bin/conch-demo $(REPO)

test: build
	cd $(BUILD) && ctest -j$(JOBS) --output-on-failure --timeout 300

$(ASAN)/CMakeCache.txt:
	cmake -S . -B $(ASAN) $(CMAKE_ARGS) -DCMAKE_BUILD_TYPE=Debug -DCONCH_SANITIZE=ON

asan: setup $(ASAN)/CMakeCache.txt
	cmake --build $(ASAN) -j$(JOBS)
	cd $(ASAN) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=$(CURDIR)/cmake/ubsan.supp \
	  ctest -j$(JOBS) --output-on-failure --timeout 600

bench: build
	$(BUILD)/bin/conch-bench-inprocess

clean:
	rm -rf $(BUILD) $(ASAN)
