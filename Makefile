# perflab -- a thin Makefile over CMake.
#   make demo    install what is missing, build, run the bundled recipes on examples/
#   make test    same set-up, then the whole test suite through ctest
#   make bench   the benchmarks in bench/ (not part of the tests)
BUILD   ?= build
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all deps build demo test bench asan clean

all: build

deps:
	@sh tools/deps.sh

$(BUILD)/Makefile: CMakeLists.txt
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: deps $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	./$(BUILD)/perflab demo

test: build
	@sh tools/deps.sh test
	cd $(BUILD) && ctest --no-tests=error --output-on-failure --timeout 600 -j $(JOBS)

asan:
	@sh tools/deps.sh test
	$(MAKE) BUILD=build-asan CMAKE_FLAGS="-DPERFLAB_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug" test

bench: build
	sh bench/run.sh $(BUILD)

clean:
	rm -rf $(BUILD) build-asan
