-- luarocks make --lua-version 5.4 : builds perflab.so (the Lua C module:
-- `require "perflab"` in a stock lua5.4) with CMake and installs only it.
-- Needs the Debian packages in tools/deps.sh (liblua5.4-dev, lua-cjson-dev,
-- libcsv-dev, zlib1g-dev, libsqlite3-dev, libmicrohttpd-dev, cmake, pkg-config).
rockspec_format = "3.0"
package = "perflab"
version = "dev-1"
source = {
  url = "git+file://.",
}
description = {
  summary = "Lua-scriptable profiling workbench: GPU/ML profiler outputs as columnar tables, recipes in Lua",
  detailed = [[
perflab reads the outputs of GPU and ML profilers (Nsight Compute, Nsight
Systems, PyTorch/Kineto, plain kernel tables, ...) into columnar tables held
in C and runs analyses written in Lua.  This rock installs the Lua C module:
local perflab = require "perflab"; perflab.load(path), perflab.run(recipe, p).
]],
  homepage = "https://example.invalid/perflab",
}
dependencies = {
  "lua >= 5.4, < 5.5",
}
build = {
  type = "cmake",
  variables = {
    CMAKE_BUILD_TYPE = "Release",
    CMAKE_INSTALL_PREFIX = "$(PREFIX)",
    PERFLAB_LUAROCKS = "ON",
    PERFLAB_LUA_CMOD_DIR = "$(LIBDIR)",
  },
}
