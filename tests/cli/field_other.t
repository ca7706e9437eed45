Real-world input shapes of issue 22 (classes 6-14, 18): each input is a small
file in tests/fixtures (see its README for what it imitates).

--lenient never changes a column's type (class 7): a skipped row with text
in Calls and one field too many left `calls` as text and top-kernels ended
in a Lua traceback.
  $ perflab run top-kernels tests/fixtures/lenient/rocprof_stats_wide_row.csv --lenient --format csv --table top_kernels
  kernel,calls,total_ns,mean_ns,share_pct
  kernel_a,2,600,300,60
  kernel_c,1,400,400,40

  $ perflab parse tests/fixtures/lenient/rocprof_stats_wide_row.csv --lenient --table diagnostics --format csv
  line,message
  3,"skipped: expected 5 fields as in the header (line 1), found 6 (column 24)"

