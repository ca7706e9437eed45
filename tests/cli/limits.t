Limits for recipes and scripts: each gives a clear error and exit 2.

A time budget cannot be swallowed by pcall:

  $ perflab --timeout 0.5 -e 'while true do pcall(function() while true do end end) end' 2>&1 | head -1
  perflab: time limit exceeded (--timeout 0.5 s)

  $ perflab --timeout 0.5 -e 'while true do end' >/dev/null 2>&1
  [2]

Stopped by --timeout or by Ctrl-C, a command says so in one line (not a
traceback of where in perflab's own code it was) and exits 2:

  $ printf 'return { name = "loop", summary = "runs until stopped", needs = { "kernels" },\n  run = function() while true do end end }\n' > $CRAMTMP/loop.lua; perflab --timeout 0.5 run $CRAMTMP/loop.lua examples/kernel-table.txt
  perflab: time limit exceeded (--timeout 0.5 s)
  [2]

  $ perflab run $CRAMTMP/loop.lua examples/kernel-table.txt & sleep 2; kill -INT $!; wait $!
  perflab: interrupted
  [2]

  $ perflab demo --timeout 0.001
  perflab: time limit exceeded (--timeout 0.001 s)
  [2]

A memory cap stops a runaway script:

  $ perflab --max-memory 32M -e 'local t = {} for i = 1, 1e8 do t[i] = i end'
  perflab: not enough memory
  [2]

A cap too small for perflab itself is the same error, not an abort (it
was "unprotected error in Lua: not enough memory" and SIGABRT):

  $ perflab parse examples/kernel-table.txt --max-memory 1K
  perflab: not enough memory
  [2]

  $ perflab --max-memory lots -e 'print(1)'
  perflab: --max-memory expects a size like 512M or 4G, got 'lots'
  [2]

The sandbox: no processes, no writes outside --output, text chunks only.

  $ perflab --sandbox -e 'os.execute("true")' 2>&1 | head -1
  perflab: (command line):1: os.execute is disabled by --sandbox

  $ perflab --sandbox -e 'print(io.open("x.txt", "w"))'
  nil	x.txt: writing is disabled by --sandbox outside the --output directory

  $ perflab --sandbox -e 'print(load(string.dump(function() end)))'
  nil	attempt to load a binary chunk (mode is 't')

  $ perflab --sandbox -e 'print(debug)'
  nil

  $ perflab run top-kernels examples/kernel-table.txt --sandbox --set top=1 --output $CRAMTMP/out >/dev/null 2>&1 && ls $CRAMTMP/out
  report.html
  report.json
  report.md
  report.txt
  top_kernels.csv
  top_kernels.svg
