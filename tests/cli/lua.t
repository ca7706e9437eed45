perflab as a Lua 5.4 interpreter: -e, -l, -, SCRIPT.lua ARGS, -i, and the
REPL with stdin not a terminal (no prompts; values print; an error prints
and the session goes on; exit 2 when a chunk failed).

  $ perflab -e 'print(1/3)'
  0.33333333333333

  $ perflab -e 'print(perflab.units.ns(1500), perflab.version ~= nil)'
  1.5 µs	true

  $ perflab -e 'x = 1' -e 'print(x + 1)'
  2

  $ perflab -l perflab.units -e 'print(units.ns(2500000))'
  2.5 ms

  $ perflab -l no.such.module 2>&1 | head -1
  perflab: module 'no.such.module' not found:

  $ perflab -l no.such.module 2>/dev/null; echo "exit $?"
  exit 2

  $ perflab -e 'error("boom", 0)'
  perflab: boom
  stack traceback:
  	[C]: in function 'error'
  	(command line):1: in main chunk
  [2]

  $ perflab -e 'perflab.fail("bad input", 3)'
  perflab: bad input
  [3]

  $ perflab -e 'local t ='
  perflab: (command line):1: unexpected symbol near <eof>
  [2]

  $ echo 'print("from stdin", 2^10)' | perflab -
  from stdin	1024.0

  $ echo 'print(...)' | perflab - a b
  a	b

  $ perflab tests/fixtures/scripts/args.lua one "two words" 3
  arg[0]	tests/fixtures/scripts/args.lua
  #arg	3
  1	one
  2	two words
  3	3
  ...	3	one	two words	3
  perflab	table	function

  $ perflab tests/fixtures/scripts/exit3.lua
  returning 3
  [3]

  $ perflab tests/fixtures/scripts/syntax.lua
  perflab: tests/fixtures/scripts/syntax.lua:1: unexpected symbol near '='
  [2]

  $ perflab tests/fixtures/scripts/nope.lua
  perflab: cannot open tests/fixtures/scripts/nope.lua: No such file or directory
  [2]

  $ perflab -- tests/fixtures/scripts/args.lua -e
  arg[0]	tests/fixtures/scripts/args.lua
  #arg	1
  1	-e
  ...	1	-e
  perflab	table	function

  $ echo 'os.exit(5)' | perflab -
  [5]


The REPL, stdin not a terminal.
  $ printf '1+1\n=2*3\nx = 5\nx * 2\n"s", nil, 3\n{1, 2, k = "v"}\n' | perflab repl
  2
  6
  10
  "s"
  nil
  3
  {1, 2, k = "v"}

  $ printf 'for i = 1, 3 do\n  io.write(i, " ")\nend\nprint()\nlocal function f(a,\n b)\n return a + b\nend\n' | perflab repl
  1 2 3 

  $ printf 'x = 1\nperflab.fail("not this")\nx + 1\nnil + 1\nx + 2\n' | perflab repl; echo "exit $?"
  not this
  2
  stdin:1: attempt to perform arithmetic on a nil value
  stack traceback:
  	stdin:1: in main chunk
  3
  exit 2

  $ printf 'print("ok")\n' | perflab repl; echo "exit $?"
  ok
  exit 0

  $ printf 'function f(\n' | perflab repl; echo "exit $?"
  stdin:1: <name> or '...' expected near <eof>
  exit 2

  $ printf 'p1:table("kernels"):nrows()\n#profiles\np1.format\n' | perflab repl tests/fixtures/kernel-table/small.txt
  5
  1
  "kernel-table"

  $ printf 'p1:table("kernels"):select("short_name", "latency_ns"):head(2)\n' | perflab repl tests/fixtures/kernel-table/small.txt
  table 'head(select(kernels))': 2 rows x 2 columns
  short_name                                       latency_ns
  -----------------------------------------------  ----------
  vectorized_elementwise_kernel                          4896
  ampere_fp16_s16816gemm_fp16_128x64_ldg8_relu_f2       19936

  $ printf 'run("top-kernels", p1, {top = 1}).tables.top_kernels:nrows()\n' | perflab repl tests/fixtures/kernel-table/small.txt
  1

  $ printf '1\n' | perflab repl /nonexistent/file.txt
  perflab: /nonexistent/file.txt: cannot open: No such file or directory
  [2]

  $ printf 'x = 41\n' | perflab -i tests/fixtures/scripts/args.lua a | tail -1
  perflab	table	function

  $ printf 'print(1)\n' | perflab -i -e 'x = 41'; echo "exit $?"
  1
  exit 0

  $ printf 'x + 1\n' | perflab -i -e 'x = 41'
  42


Numbers do not follow the locale: LC_NUMERIC stays "C".  de_DE.UTF-8 is
built into $CRAMTMP with localedef when the system does not have it (glibc's
setlocale then leaks 32 bytes under LOCPATH, in __argz_add_sep: the sanitizer
build's leak check is off for these two commands); where neither is possible
the test still runs (in the C locale).
  $ if ! locale -a 2>/dev/null | grep -qi '^de_DE\.utf-\?8$'; then localedef -i de_DE -f UTF-8 "$CRAMTMP/de_DE.UTF-8" 2>/dev/null && export LOCPATH="$CRAMTMP" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"; fi; LC_ALL=de_DE.UTF-8 perflab -e 'print(0.5, 1/4, tonumber("2.5"), string.format("%.1f", 0.5), os.setlocale(nil, "numeric"))'; LC_ALL=de_DE.UTF-8 perflab run top-kernels tests/fixtures/kernel-table/small.txt --format csv --table top_kernels
  0.5	0.25	2.5	0.5	C
  kernel,calls,total_ns,mean_ns,min_ns,max_ns,share_pct,tensor_util,dram_util
  ampere_fp16_s16816gemm_fp16_128x64_ldg8_relu_f2...,2,40864,20432,19936,20928,76.7889356584486,0.28584964761158965,0.11024275646045419
  vectorized_elementwise_kernel,2,9312,4656,4416,4896,17.498496692723993,0,0.48711340206185566
  cudnn::ops::nchwToNhwcKernel,1,3040,3040,3040,3040,5.71256764882742,0,0.5
