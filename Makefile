# perflab -- a thin Makefile over CMake.
#   make demo    install what is missing, build, run the bundled recipes on examples/
#   make test    same set-up, then the test suite through ctest (all but valgrind)
#   make valgrind  the valgrind memcheck of the CLI over the corpus (CI runs it)
#   make bench   the benchmarks in bench/ (not part of the tests)
#   make golden-update  rewrite tests/golden/MANIFEST after a meant change in output
#   make docs-columns   rewrite docs/format-columns.md (columns by format, from the parsers and schema.c)
#   make style   check the C and Lua layout (.clang-format, tools/style-check.sh)
#   make format  rewrite them to it
BUILD   ?= build
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all deps build demo test valgrind bench asan tsan clean golden-update docs-columns style format

all: build

deps:
	@sh tools/deps.sh

$(BUILD)/Makefile: CMakeLists.txt
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: deps $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	./$(BUILD)/perflab demo

# make test leaves out the valgrind memcheck (minutes on 2 cores): .ci/run
# runs it (make valgrind) beside the sanitizers
test: build
	@sh tools/deps.sh test
	cd $(BUILD) && ctest --no-tests=error --output-on-failure --timeout 600 -j $(JOBS) -LE valgrind

valgrind: build
	cd $(BUILD) && ctest --no-tests=error --output-on-failure --timeout 900 -L valgrind

asan:
	@sh tools/deps.sh test
	$(MAKE) BUILD=build-asan CMAKE_FLAGS="-DPERFLAB_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DPERFLAB_TEST_TIMEOUT=900" test

# the hashes of every report on the repository's inputs (ctest golden.N checks
# them): rewrite after a change in output that is meant, and name it in the commit
golden-update: build
	mkdir -p $(BUILD)/golden-home
	HOME=$(CURDIR)/$(BUILD)/golden-home XDG_CONFIG_HOME=$(CURDIR)/$(BUILD)/golden-home ./$(BUILD)/perflab tests/golden/golden.lua update

# docs/format-columns.md from the readers and src/core/schema.c
# (tests/lua/test_format_columns.lua checks it is current)
docs-columns: build
	./$(BUILD)/perflab tools/format_columns.lua print > docs/format-columns.md

style:
	sh tools/style-check.sh

format:
	sh tools/style-check.sh --fix

# ThreadSanitizer over the tests that parse on several threads (one file
# split among threads, files side by side), the critical path's graph
# build, large column gathers (two threads) and the cache of big blocks
TSAN_TESTS ?= c.test_kineto_par|c.test_line_par|c.test_gzstream|lua.test_load_many|c.test_critpath|c.test_table_take_par|c.test_bigmem|c.test_kineto_sparse|c.test_mem_fill
tsan:
	@sh tools/deps.sh test
	cmake -S . -B build-tsan -DPERFLAB_TSAN=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPERFLAB_TEST_TIMEOUT=1800
	cmake --build build-tsan -j $(JOBS) --target perflab test_kineto_par test_line_par test_gzstream test_critpath test_table_take_par test_bigmem test_kineto_sparse test_mem_fill
	cd build-tsan && PERFLAB_TEST_LIGHT=1 TSAN_OPTIONS=halt_on_error=1 ctest --no-tests=error --output-on-failure --timeout 1800 -R '$(TSAN_TESTS)'

bench: build
	sh bench/run.sh $(BUILD)

clean:
	rm -rf $(BUILD) build-asan build-tsan
