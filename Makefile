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

# Diff cost vs. reading cost on a ~64 MB synthetic transcript; writes bench/results.md.
bench: build
	@build/bin/msptk_bench --mb 64 --runs 3 --out bench/results.md

clean:
	rm -rf build build-release build-asan
