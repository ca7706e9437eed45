diff of captures of different length (issue 28, point 11).  The nsys
"mfu" pair (kernel summaries in tests/data/diffnorm, real figures): the
capture before holds 34 iterations, the one after 30 (ncclGroupStart
ranges per process).  Raw kernel time 535,200,650 -> 488,835,406 ns is
-8.66 %; per iteration 535200650/34 = 15,741,196 -> 488835406/30 =
16,294,514 ns is +3.52 %.  diff finds the ratio 30/34 = 15/17 from the
calls that move together (flash_fwd 68 -> 60, layer norm 102 -> 90, two
GEMMs 34 -> 30 and 68 -> 60: 56.0 % of the time), says so first and gives
both figures:

  $ perflab run diff tests/data/diffnorm/mfu_2gpu_before_cuda_gpu_kern_sum.csv tests/data/diffnorm/mfu_2gpu_after_cuda_gpu_kern_sum.csv | sed -n 4,7p
    [warn] the captures differ in length (the calls of 4 kernels holding 56.0% of A's kernel time moved together by 15/17,
      B/A = 0.8824): per iteration, kernel time changed +3.52%; the raw totals (535.2 ms -> 488.8 ms, -8.66%) compare
      captures of different length. Deltas below are per iteration: B scaled to A's iteration count (total_ns_b_norm =
      total_ns_b x 17/15)

Each kernel's B total at A's iteration count: flash_fwd 240,755,667 x
17/15 = 272,856,422.6 ns against 272,317,378 (+539,044.6):

  $ perflab run diff tests/data/diffnorm/mfu_2gpu_before_cuda_gpu_kern_sum.csv tests/data/diffnorm/mfu_2gpu_after_cuda_gpu_kern_sum.csv --format csv | grep -E '^(table,)?(kernel|flash_fwd_kernel),' | head -2 | cut -d, -f1-8
  kernel,calls_a,calls_b,total_ns_a,total_ns_b,total_ns_b_norm,delta_ns,delta_norm_ns
  flash_fwd_kernel,68,60,272317378,240755667,272856422.6,-31561711,539044.6000000238

Steps of different number (Kineto, 2 steps against 3): per step 300/2 =
150 us -> 480/3 = 160 us, +6.67 %; relu 50 -> 60 us a launch is the one
that moved (120 us at A's 2 steps against 100):

  $ perflab run diff tests/data/diffnorm/steps2_before.json tests/data/diffnorm/steps3_after.json | grep -E -A2 '^  \[|^diff —' | grep -v '^ *rule\|^ *total_ns\|^--' | cut -c1-150
    [warn] the captures differ in length (B has 3 steps, A 2, B/A = 1.5000): per step, kernel time changed +6.67%; the raw
      totals (300 µs -> 480 µs, +60.00%) compare captures of different length. Deltas below are per step: B scaled to
      A's step count (total_ns_b_norm = total_ns_b x 2/3)
    [warn] relu: 100 µs -> 120 µs (+20 µs at A's step count; as captured 180 µs, 100.0% of the regression; calls 2 ->
      3)
  diff — captures differ in length (B has 3 steps, A 2): per step, kernel time 150 µs -> 160 µs, +6.67%; as captured,
    A = tests/data/diffnorm/steps2_before.json, B = tests/data/diffnorm/steps3_after.json: kernel time 300 µs -> 480 µs
    (+60.00%); 2 kernels: 1 slower, 0 faster, 1 same, 0 added, 0 removed

Same length: no normalisation, the table has no *_norm columns:

  $ perflab run diff tests/data/diffnorm/steps2_before.json tests/data/diffnorm/steps2_before.json | grep -c 'b_norm'
  0
  [1]
