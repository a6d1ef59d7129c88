# `make demo` and `make test` (on a machine without make: `./msptk-dev demo|test`, which
# installs make first). Both install missing Debian packages, then build into build/
# (binary: build/bin/msptk).

JOBS ?= $(shell nproc 2>/dev/null || echo 2)
MSPTK := build/bin/msptk
SHARED_CORPUS := ../shared/msp-corpus/transcripts

.PHONY: deps configure build test demo bench clean

deps:
	@scripts/install-deps

configure: deps
	@cmake --preset dev >/dev/null

build: configure
	@cmake --build build -j $(JOBS) -- --no-print-directory

test: build
	@cd build && ctest --output-on-failure -j $(JOBS)

demo: build
	@scripts/demo

# Every verb timed beside cmp, tee and jq on generated transcripts (quick mode, a few minutes);
# writes bench/RESULTS.md. `bench/compare.sh --full` runs the 1 GiB inputs.
bench: build
	@nice -n 10 bench/compare.sh --quick

clean:
	rm -rf build build-release build-asan
