Malformed, empty and truncated inputs: exact error text (FILE:LINE:COLUMN:
expected ..., found ...), exit status 2, nothing on stdout.

  $ perflab parse tests/fixtures/kernel-table/missing-field.txt
  perflab: tests/fixtures/kernel-table/missing-field.txt:2:13: expected the DRAM utilisation (a number), found end of line
  [2]

  $ perflab parse tests/fixtures/kernel-table/empty.txt
  perflab: tests/fixtures/kernel-table/empty.txt:1:1: expected a profile, found an empty file
  [2]

  $ perflab parse tests/fixtures/kernel-table/blank-lines.txt
  perflab: tests/fixtures/kernel-table/blank-lines.txt:1:1: expected a profile, found only blank lines
  [2]

  $ perflab parse tests/fixtures/kernel-table/no-bar.txt
  perflab: tests/fixtures/kernel-table/no-bar.txt:3:1: expected a row 'NAME | LATENCY TENSOR DRAM', found "vectorized_elementwise_kernel           ..."
  [2]

  $ perflab parse tests/fixtures/kernel-table/truncated.txt
  perflab: tests/fixtures/kernel-table/truncated.txt:3:61: expected the tensor utilisation (a number), found end of file
  [2]

  $ perflab parse tests/fixtures/kernel-table/non-number.txt
  perflab: tests/fixtures/kernel-table/non-number.txt:3:59: expected the latency in ns (a number >= 0), found "n/a"
  [2]

  $ perflab parse tests/fixtures/kernel-table/non-number-dram.txt
  perflab: tests/fixtures/kernel-table/non-number-dram.txt:2:73: expected the DRAM utilisation (a number), found "zero"
  [2]

  $ perflab run top-kernels tests/fixtures/kernel-table/truncated.txt
  perflab: tests/fixtures/kernel-table/truncated.txt:3:61: expected the tensor utilisation (a number), found end of file
  [2]

  $ perflab parse tests/fixtures/kernel-table/truncated.txt 2>/dev/null | wc -c
  0


A header and no rows is a valid, empty profile: an empty kernels table, a
report that says there were no launches, exit 0.
  $ perflab parse tests/fixtures/kernel-table/header-only.txt
  tests/fixtures/kernel-table/header-only.txt: kernel-table
  meta:
    time_unit        ns
    tool             kernel latency table
  tables:
    kernels                        0 rows  name:string short_name:string latency_ns:number duration_ns:number tensor_util:number dram_util:number truncated:boolean line:integer

  $ perflab run top-kernels tests/fixtures/kernel-table/header-only.txt
  top-kernels · tests/fixtures/kernel-table/header-only.txt (kernel-table)
  
  top_kernels — 0 kernels, 0 launches, 0 ns of kernel time
  kernel  calls  total_ns  mean_ns  min_ns  max_ns  share_pct  tensor_util  dram_util
  ------  -----  --------  -------  ------  ------  ---------  -----------  ---------
  
  tests/fixtures/kernel-table/header-only.txt has no kernel launches.

  $ perflab run top-kernels tests/fixtures/kernel-table/header-only.txt --format csv
  kernel,calls,total_ns,mean_ns,min_ns,max_ns,share_pct,tensor_util,dram_util

  $ perflab run top-kernels tests/fixtures/kernel-table/header-only.txt --fail-on info
  top-kernels · tests/fixtures/kernel-table/header-only.txt (kernel-table)
  
  top_kernels — 0 kernels, 0 launches, 0 ns of kernel time
  kernel  calls  total_ns  mean_ns  min_ns  max_ns  share_pct  tensor_util  dram_util
  ------  -----  --------  -------  ------  ------  ---------  -----------  ---------
  
  tests/fixtures/kernel-table/header-only.txt has no kernel launches.


Unreadable input.
  $ perflab parse /nonexistent/file.txt
  perflab: /nonexistent/file.txt: cannot open: No such file or directory
  [2]

  $ perflab parse examples
  perflab: examples: is a directory, expected a profile file
  [2]

A folder given to run or report stands for the files in it (the ranks of a
job); one of them that is no profile is named in the error:

  $ perflab run top-kernels examples
  perflab: examples/analyze.lua:1:1: cannot tell which profiler wrote this file; name the format with --input-format (see: perflab formats)
  [2]

  $ perflab run top-kernels examples/kernel-table.txt /nonexistent/file.txt
  perflab: /nonexistent/file.txt: cannot open: No such file or directory
  [2]


Bad usage.
  $ perflab run no-such-recipe examples/kernel-table.txt 2>&1 | cut -c1-45
  perflab: unknown recipe 'no-such-recipe' (ava

  $ perflab run top-kernels examples/kernel-table.txt --set bogus=1
  perflab: recipe 'top-kernels' has no option 'bogus' (options: group, top)
  [2]

  $ perflab run top-kernels examples/kernel-table.txt --set top=many
  perflab: option 'top' of recipe 'top-kernels' must be a number, got 'many'
  [2]

  $ perflab run top-kernels examples/kernel-table.txt --set group=family
  perflab: option 'group' of recipe 'top-kernels' must be one of: name, short_name
  [2]

  $ perflab run top-kernels examples/kernel-table.txt --format xml
  perflab: unknown format 'xml' (output: text, markdown, json, csv, html; input formats: perflab formats)
  [2]

  $ perflab parse examples/kernel-table.txt --format yaml
  perflab: unknown format 'yaml' (output: text, markdown, json, csv, html; input formats: perflab formats)
  [2]

  $ perflab run top-kernels examples/kernel-table.txt --fail-on sometimes
  perflab: unknown severity 'sometimes' (info, opt, warn, error)
  [2]

  $ perflab run top-kernels examples/kernel-table.txt --frobnicate
  perflab: unknown option '--frobnicate' (see perflab help run)
  [2]

  $ perflab run top-kernels examples/kernel-table.txt --format
  perflab: option --format needs a value
  [2]

  $ perflab run top-kernels
  perflab: recipe 'top-kernels' needs input files: perflab run top-kernels FILE...
  [2]

A recipe that lists the tables it reads loads only those; a file without
them says so and points at perflab parse for what the file has:

  $ perflab run top-kernels tests/fixtures/csv/no_kernels.csv
  perflab: recipe 'top-kernels' needs a table kernels or kernel_summary, and tests/fixtures/csv/no_kernels.csv (csv) has none of them (perflab parse tests/fixtures/csv/no_kernels.csv lists its tables); kernels come from an Nsight Compute report (`ncu --import R.ncu-rep --page details --csv`, or its text log), an Nsight Systems export (`nsys export --type sqlite`), a PyTorch profiler/Kineto trace (`prof.export_chrome_trace`), `nvprof --print-gpu-trace` or a rocprof kernel trace; a kernel summary comes from `nsys stats --report cuda_gpu_kern_sum`, `rocprof --stats` or nvprof's summary
  [2]

  $ perflab parse examples/kernel-table.txt --table
  perflab: option --table needs a value
  [2]

  $ perflab frobnicate
  perflab: cannot open frobnicate: No such file or directory
  [2]

  $ perflab --frobnicate
  perflab: unknown option '--frobnicate' (see perflab --help)
  [2]

  $ perflab -e
  perflab: '-e' needs an argument
  [2]
