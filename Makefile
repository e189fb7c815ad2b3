# The two commands of the README:
#   make demo   - install missing packages, build, run the main job
#   make test   - install missing packages, build and run every test twice:
#                 a normal build and an ASan+UBSan build
# Also: make bench, make install PREFIX=DIR, make fuzz, make tsan, make clean.

BUILD      ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
PREFIX     ?= /usr/local
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=

.PHONY: all deps build demo test test-normal test-asan tsan bench install fuzz clean

all: build

deps:
	@scripts/setup-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTL_WERROR=ON $(CMAKE_ARGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@scripts/demo.sh $(BUILD)/bin/tlc

test: deps
	@$(MAKE) --no-print-directory test-normal test-asan
	@echo "== make test: both builds passed =="

test-normal: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)
	@echo "== ctest: normal build ($(BUILD)) =="
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

$(ASAN_BUILD)/CMakeCache.txt:
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DTL_WERROR=ON -DTL_SANITIZE=ON -DTL_BUILD_BENCH=OFF $(CMAKE_ARGS)

test-asan: $(ASAN_BUILD)/CMakeCache.txt
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	@echo "== ctest: ASan+UBSan build ($(ASAN_BUILD)) =="
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS) -LE nosan

$(TSAN_BUILD)/CMakeCache.txt:
	cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DTL_WERROR=ON -DTL_TSAN=ON -DTL_BUILD_BENCH=OFF -DTL_BUILD_FUZZ=OFF $(CMAKE_ARGS)

# The concurrency tests under ThreadSanitizer.
tsan: deps $(TSAN_BUILD)/CMakeCache.txt
	cmake --build $(TSAN_BUILD) -j $(JOBS)
	cd $(TSAN_BUILD) && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -L threads

bench: build
	@scripts/bench.sh $(BUILD)

# Every libFuzzer target (tests/fuzz, built by the normal build with clang) for
# FUZZ_TIME seconds each; ctest runs them only briefly.
FUZZ_TIME ?= 60
fuzz: build
	@set -e; for f in tests/fuzz/fuzz_*.c; do \
	  name=$$(basename $$f .c | sed 's/^fuzz_//'); \
	  [ -x $(BUILD)/bin/fuzz_$$name ] || { echo "fuzz: $(BUILD)/bin/fuzz_$$name not built (clang?)"; exit 1; }; \
	  echo "== fuzz_$$name for $(FUZZ_TIME)s =="; \
	  tests/fuzz/run.sh $(BUILD)/bin/fuzz_$$name tests/fuzz $$name $(BUILD)/fuzz-corpus/$$name -max_total_time=$(FUZZ_TIME); \
	done

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD)
