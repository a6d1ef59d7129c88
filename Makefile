# `make demo` and `make test` (on a machine without make: `./msptk-dev demo|test`, which
# installs make first). Both install missing Debian packages, then build into build/
# (binary: build/bin/msptk).

JOBS ?= $(shell nproc 2>/dev/null || echo 2)
MSPTK := build/bin/msptk
SHARED_CORPUS := ../shared/msp-corpus/transcripts

.PHONY: deps configure build test demo bench fuzz package clean

deps:
	@scripts/install-deps

configure: deps
	@cmake --preset dev >/dev/null

build: configure
	@cmake --build build -j $(JOBS) -- --no-print-directory

# A test that fails is run once more before the suite fails (--repeat until-pass:2): the
# end-to-end tests run real processes on shared machines. A second failure is a failure, and
# every test that needed the second run is listed at the end ("passed on retry"), to be fixed.
test: build
	@cd build && ../scripts/ctest-retry-report --output-on-failure -j $(JOBS) --repeat until-pass:2

demo: build
	@scripts/demo

# Every verb timed beside cmp, tee and jq on generated transcripts (quick mode, a few minutes);
# writes bench/RESULTS.md. `bench/compare.sh --full` runs the 1 GiB inputs.
bench: build
	@nice -n 10 bench/compare.sh --quick

# Every libFuzzer target for FUZZ_SECONDS each (clang, ASan + UBSan, build-fuzz/); findings are
# saved under tests/fuzz-regressions/<target>/, which `make test` replays.
FUZZ_SECONDS ?= 60
fuzz:
	@scripts/install-deps --fuzz
	@cmake --preset fuzz >/dev/null
	@cmake --build --preset fuzz -j $(JOBS) -- --no-print-directory
	@FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run-fuzzers

# The Debian packages (CPack, cmake/Package.cmake), built without the tests and benchmarks:
# build-release/msptk_<version>_<arch>.deb (msptk, muse-conformance, man pages, completions, the
# documentation) and msptk-dev_<version>_<arch>.deb (headers, static libraries, CMake package,
# pkg-config file); `apt-get install ./build-release/msptk_*.deb` installs the tool.
package: deps
	@cmake --preset release >/dev/null
	@cmake --build build-release -j $(JOBS) -- --no-print-directory
	@cd build-release && cpack -G DEB

clean:
	rm -rf build build-release build-asan build-fuzz
