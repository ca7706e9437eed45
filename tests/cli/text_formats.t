Text-table formats (paddle-summary, comparison-report, torch-table): detection
by content, and the documented errors with exit status 2.

  $ perflab parse tests/fixtures/seed004_paddle_summary.txt --table kernel_summary
  name                                                                                        short_name        calls  total_ns  mean_ns  max_ns  min_ns  share_pct  gpu_raw                             truncated  line
  ------------------------------------------------------------------------------------------  ----------------  -----  --------  -------  ------  ------  ---------  ----------------------------------  ---------  ----
  void flash_fwd_kernel<Flash_fwd_kernel_traits<32, 128, 128, 4, false, false, cutlass::h...  flash_fwd_kernel    100  61130000   610000  620000  610000      78.57  61.13 / 0.61 / 0.62 / 0.61 / 78.57       true    74
  void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<Eigen::TensorAssignOp<Eige...  EigenMetaKernel     300  16680000    60000   60000   50000      21.43  16.68 / 0.06 / 0.06 / 0.05 / 21.43       true    75

  $ perflab parse tests/fixtures/paddle/missing-header.txt
  perflab: tests/fixtures/paddle/missing-header.txt:72:1: expected the column header line 'Name  Calls  GPU Total / Avg / Max / Min / Ratio(%)', found "----------------------------------------..."
  [2]

  $ perflab parse tests/fixtures/paddle/cut-mid-table.txt
  perflab: tests/fixtures/paddle/cut-mid-table.txt:61:1: expected a row or the closing '----' line of the Operator Summary table, found end of file
  [2]

  $ perflab parse tests/fixtures/torch-table/cut-mid-table.txt
  perflab: tests/fixtures/torch-table/cut-mid-table.txt:7:1: expected a row or the closing '----' line of the key_averages table, found end of file
  [2]

  $ perflab parse tests/fixtures/comparison/details-non-number.md
  perflab: tests/fixtures/comparison/details-non-number.md:7:1010: expected a number in column 'Suspicion Score', found "n.a."
  [2]
