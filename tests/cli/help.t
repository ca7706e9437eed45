Help and listings.  Recipes and formats grow as other work lands, so those
listings are checked through a stable slice (CSV header, one known row).

  $ perflab --help
  usage: perflab COMMAND [ARGS]      (perflab help COMMAND for more)
         perflab [OPTIONS] [SCRIPT.lua [ARGS]]
  
  commands:
    report FILE...       every recipe that applies, the summary first (= run all)
    run RECIPE FILE...   run a recipe on profiles and print its report
    parse FILE           show what was read: tables, rows, columns
    recipes | formats | gpus   list what is available
    repl [FILE...]       interactive session, files preloaded (--jsonl: cell protocol)
    jupyter install      install the "perflab (Lua)" Jupyter kernel
    demo                 bundled recipes on bundled example profiles
    serve DIR            a local web workbench over the profiles under DIR
  
  options (as lua5.4, with the perflab API preloaded as `perflab`):
    -e CODE    run CODE          -l MOD    require MOD into global MOD
    -i         REPL after the script          -     script from stdin
    -v, --version   print the version         -h, --help   this text
  
  limits (any command; before SCRIPT in script mode):
    --max-memory SIZE  cap memory, e.g. 2G (default 80% of physical memory)
    --timeout SECONDS  stop a run that takes longer (exit 2)
    --sandbox          no os.execute, io.popen or C modules; writes only under --output
  
  exit status: 0 success; 1 a finding at or above --fail-on; 2 bad usage,
  unknown recipe or format, unreadable or malformed input, or a failed script.

  $ perflab -h | head -1
  usage: perflab COMMAND [ARGS]      (perflab help COMMAND for more)

  $ perflab help
  usage: perflab COMMAND [ARGS]      (perflab help COMMAND, perflab help RECIPE)
  
    report FILE...       every recipe that applies, the summary first (= run all)
    run RECIPE FILE...   run a recipe on profiles and print its report
    parse FILE           show what was read: tables, rows, columns
    export chrome-trace FILE   the timeline as Chrome-trace JSON for ui.perfetto.dev
    recipes              list recipes and where each comes from
    formats              list input formats and their tables
    gpus                 list known GPUs
    repl [FILE...]       interactive session, files preloaded (--jsonl: cell protocol)
    jupyter install      install the "perflab (Lua)" Jupyter kernel
    demo                 bundled recipes on bundled example profiles
    serve DIR            a local web workbench over the profiles under DIR
    perflab SCRIPT.lua [ARGS], perflab -e CODE, -l MOD, -i, -   as lua5.4
  
  exit status: 0 success; 1 a finding at or above --fail-on; 2 bad usage,
  unknown recipe or format, unreadable or malformed input.

  $ perflab help parse
  usage: perflab parse FILE [options]
  
  Shows what was read from FILE: format, metadata, tables (rows, columns) and
  diagnostics.  With --table NAME, prints that table in full.
    --table NAME        print one table
    --format text|markdown|json|csv   how to print it (default text)
    --input-format ID   read the file as format ID instead of detecting it
    --lenient           salvage what parses; list what was skipped
    --raw-text          ncu metrics.raw: keep the printed text of numbers too
                        (by default only of values that are not numbers)
    --max-rows N        print at most N rows (default: all)
    --jobs N            read on N threads (default: the number of cores; a
                        Kineto trace, ncu text or CSV, generic CSV, kernel
                        table or nvprof GPU trace is split among them); the
                        tables do not depend on N

  $ perflab help recipes
  usage: perflab recipes [--format text|markdown|json|csv]
         perflab recipes --source NAME       print a recipe's Lua source
         perflab recipes --copy NAME DIR     copy it to DIR/NAME.lua, to edit
  
  Lists the recipes on the search path and where each came from.  A recipe
  copied into ./recipes (or ~/.config/perflab/recipes) runs instead of the
  bundled one of the same name; give the copy another name to keep both.

A bundled recipe's source, and a copy of it to start one's own:

  $ perflab recipes --source top-kernels | head -1
  --- top-kernels: where the GPU time goes, kernel by kernel.
  $ perflab recipes --copy top-kernels $CRAMTMP/mine | sed 's|[^ ]*/mine|DIR|'
  copied recipe 'top-kernels' to DIR/top-kernels.lua
  $ cmp $CRAMTMP/mine/top-kernels.lua recipes/top-kernels.lua && echo same
  same
  $ perflab recipes --copy top-kernels $CRAMTMP/mine 2>&1 | sed 's|[^ ]*/mine|DIR|'
  perflab: DIR/top-kernels.lua exists: not overwritten
  $ perflab recipes --copy top-kernels $CRAMTMP/mine 2>/dev/null
  [2]
  $ perflab recipes --source nosuch 2>&1 | cut -c1-40
  perflab: unknown recipe 'nosuch' (availa

  $ perflab run --help | head -3
  usage: perflab run RECIPE FILE... [options]
         perflab run all FILE... [options]   every recipe whose needs the inputs meet
  

  $ perflab run
  usage: perflab run RECIPE FILE... [options]
         perflab run all FILE... [options]   every recipe whose needs the inputs meet
  
  Runs a recipe on one or more profiles and prints its report.
    --format text|markdown|json|csv|html   report format (default text); html is
                        one self-contained page with the figures inline
    --output DIR        also write report.txt/.md/.json/.html, every table as CSV and
                        every figure as SVG into DIR (each file written atomically;
                        with 'all', each recipe's files in DIR/RECIPE/)
    --fail-on SEV       exit 1 when a finding has severity SEV or higher
                        (info < opt < warn < error)
    --set KEY=VALUE     set a recipe option (perflab run RECIPE --help lists them)
    --table NAME        with --format csv: print only that table
    --max-rows N        text and markdown: at most N rows of each table (0: all;
                        default all, and 50 with 'all' / perflab report); CSV,
                        JSON and --output have every row
    --full-names        text: print kernel names in full (by default templates
                        and parameter lists are elided and tables fit the
                        terminal, or 120 columns)
    --input-format ID   read the inputs as format ID instead of detecting it
    --lenient           salvage what parses; list what was skipped
    --gpu NAME          GPU model when the input does not name it (same as --set gpu=NAME)
    --baseline FILE...  inputs in the role "baseline" (the normal runs) for
                        comparison recipes (suspicion); files up to the next option
    --target FILE...    inputs in the role "target" (the slow or new runs)
    --jobs N            parse the input files on N threads (default: the number
                        of cores), a big Kineto trace split among them; the
                        reports do not depend on N
    --map FILE          (multi-rank recipes: distributed, stragglers) write the
                        per-rank summary of FILE into --output DIR (CSV tables,
                        manifest.json); no report
    --merge DIR...      the report from folders written by --map, the same as
                        the direct run on their files
  [2]

  $ perflab parse
  usage: perflab parse FILE [options]
  
  Shows what was read from FILE: format, metadata, tables (rows, columns) and
  diagnostics.  With --table NAME, prints that table in full.
    --table NAME        print one table
    --format text|markdown|json|csv   how to print it (default text)
    --input-format ID   read the file as format ID instead of detecting it
    --lenient           salvage what parses; list what was skipped
    --raw-text          ncu metrics.raw: keep the printed text of numbers too
                        (by default only of values that are not numbers)
    --max-rows N        print at most N rows (default: all)
    --jobs N            read on N threads (default: the number of cores; a
                        Kineto trace, ncu text or CSV, generic CSV, kernel
                        table or nvprof GPU trace is split among them); the
                        tables do not depend on N
  [2]

  $ perflab --version | grep -c '^perflab [0-9][0-9.]* (Lua 5\.4\.[0-9]*)$'
  1

  $ perflab recipes --format csv | head -1
  name,summary,origin

  $ perflab recipes --format csv | grep '^top-kernels,'
  top-kernels,"kernels ranked by total GPU time: calls, total, mean, min, max, share, utilisation",project (./recipes)

  $ perflab recipes | head -1 | cut -c1-4
  name

  $ perflab formats --format csv | head -1
  id,tables,summary

  $ perflab formats --format csv | grep '^kernel-table,'
  kernel-table,kernels,per-kernel latency tables: 'NAME | LATENCY TENSOR DRAM' rows under a header

  $ perflab formats | head -1 | cut -c1-2
  id

  $ perflab help top-kernels
  perflab run top-kernels FILE... [--set KEY=VALUE]...
  
  kernels ranked by total GPU time: calls, total, mean, min, max, share, utilisation
  
  needs: kernels or kernel_summary
  reads (the only tables loaded): kernels, kernel_summary, pseudo_kernels, memcpy_summary, cuda_gpu_mem_time_sum
  
  options (--set KEY=VALUE):
    group            group launches by the full kernel name or the short name [name|short_name] (default: name)
    top              how many kernels to list (0 = all) (default: 20)
  
  from: project (./recipes) (./recipes/top-kernels.lua)

  $ perflab run top-kernels --help
  perflab run top-kernels FILE... [--set KEY=VALUE]...
  
  kernels ranked by total GPU time: calls, total, mean, min, max, share, utilisation
  
  needs: kernels or kernel_summary
  reads (the only tables loaded): kernels, kernel_summary, pseudo_kernels, memcpy_summary, cuda_gpu_mem_time_sum
  
  options (--set KEY=VALUE):
    group            group launches by the full kernel name or the short name [name|short_name] (default: name)
    top              how many kernels to list (0 = all) (default: 20)
  
  from: project (./recipes) (./recipes/top-kernels.lua)
