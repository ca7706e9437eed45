--- The bad-input suite's formats: one line per registered format.
--   { ID, SAMPLE, ... , recipe = R }
-- SAMPLE is a glob; "$S/..." is under $PERFLAB_DATA (seeds, corpus),
-- anything else is relative to the repository root.  A SAMPLE that
-- matches no file fails the suite, naming it (the data is in the
-- repository), and so does a registered format without a line (a second
-- line for an ID adds its samples to the first).  Lines for
-- formats this build does not register are ignored.  recipe: the recipe
-- run with --output on some of the cases (default top-kernels).  binary:
-- the samples are binary files, so a CRLF copy is damage, not the same
-- input with other line ends.
return {
  { "kernel-table", "tests/fixtures/kernel-table/small.txt", "examples/kernel-table.txt", "$S/seeds/000_*.txt" },
  { "ncu-text", "$S/corpus/ncu_text/*", "tests/fixtures/ncu/*.txt", "$S/seeds/003_*.txt" },
  { "ncu-csv", "$S/corpus/ncu_csv/*", "tests/fixtures/ncu/*.csv" },
  { "kineto", "$S/corpus/kineto_trace/*", "tests/fixtures/kineto/*" },
  { "tb-profiler", "tests/data/corpus/torch_tb_profiler/*.txt", "$S/seeds/001_*.txt", recipe = "advice" },
  { "nsys-stats", "$S/corpus/nsys_stats/*" },
  { "nvprof", "$S/corpus/nvprof/*" },
  { "rocprof", "$S/corpus/rocprof/*" },
  { "csv", "$S/corpus/rocprof/*.csv", "$S/corpus/nsys_stats/*.csv", "tests/fixtures/ncu/raw_page_units_base.csv" },
  { "paddle-summary", "$S/corpus/paddle_profiler/*", "$S/seeds/004_*.txt",
      "tests/fixtures/seed004_paddle_summary.txt" },
  { "comparison-report", "$S/seeds/002_*.txt", "tests/fixtures/seed002_comparison_report.txt" },
  { "torch-table", "$S/corpus/torch_profiler_table/*", "tests/fixtures/torch_table_memory_synthetic.txt" },
  { "markdown", "tests/fixtures/comparison/*.md", "README.md", "docs/table-api.md" },
  -- issue 22, real-world shapes (a second line for an id adds samples)
  { "torch-table", "tests/fixtures/torch-table/memory_units_2x.txt" },
  { "rocprof", "tests/fixtures/rocprof/*.csv" },
  { "kineto", "tests/fixtures/rocprof/hip_trace_results.json" },
  { "nvprof", "tests/fixtures/nvprof/*.txt" },
  { "paddle-summary", "tests/fixtures/paddle/markdown_fenced.md" },
  { "nsys-stats", "tests/fixtures/nsys/*.txt" },
  { "nsys-sqlite", "$S/corpus/nsys_sqlite/*.sqlite", "tests/fixtures/nsys_sqlite/nvtx_small.sqlite", binary = true },
  -- issue 28: AMD inputs (rocpd / KERN SQLite, rocprofv3 JSON)
  { "rocpd", "tests/fixtures/rocprof/*.db", binary = true, recipe = "idle-time" },
  { "rocprofv3-json", "tests/fixtures/rocprof/rocprofv3_small.json", recipe = "idle-time" },
  { "memory-timeline", "tests/fixtures/memory/raw_timeline_small.json", recipe = "memory" },
}
