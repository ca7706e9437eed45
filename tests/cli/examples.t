The examples in examples/, run as a user would.  Expected numbers were
computed independently with awk and Python over the same files (kernel
totals: sum of the latency column per name; quantiles: linear interpolation).

A recipe that extends the bundled top-kernels: its own table of kernels whose
slowest launch is >= 10x their mean (4 such kernels), and one warning each.

  $ perflab run examples/recipes/spiky-kernels.lua examples/kernel-table.txt --set top=3 --table spiky --format csv
  kernel,calls,mean_ns,max_ns,max_over_mean,total_ns
  vectorized_elementwise_kernel,4002,8424.875562218906,147680,17.529042287848903,33716352
  elementwise_kernel,3185,17600.71334379905,255488,14.515775298960346,56058272
  Kernel,944,48983.288135593226,594752,12.141937028678752,46240224
  cutlass_cudnn_infer::Kernel,97,180922.06185567012,1868160,10.325772218372778,17549440

  $ perflab run examples/recipes/spiky-kernels.lua examples/kernel-table.txt --format json | grep -c '"rule": "spiky-kernels.spike"'
  4

An analysis script: totals, launch-time quantiles, the kernels that make 80 %.

  $ perflab examples/analyze.lua examples/kernel-table.txt
  examples/kernel-table.txt: 13065 launches, 306.6 ms of kernel time
  launch time: p50 9.696 µs  p90 43.04 µs  p99 289.9 µs  max 6.734 ms
  12 of 85 kernels make 81.2 % of the time (>= 80 %):
  name                                      calls  total_ns   p99_ns  share_pct
  ----------------------------------------  -----  --------  -------  ---------
  elementwise_kernel                         3185  56058272   100399    18.2854
  Kernel                                      944  46240224   520889    15.0829
  vectorized_elementwise_kernel              4002  33716352  63775.7    10.9978
  reduce_kernel                              1135  24208224  66997.1    7.89638
  cutlass_cudnn_infer::Kernel                  97  17549440  1061545    5.72438
  RowwiseMomentsCUDAKernel                    120  14217632   409285    4.63759
  cutlass_cudnn_train::Kernel                 140  11416256   457006    3.72382
  cudnn::ops::nchwToNhwcKernel                474  11149728   169818    3.63688
  sm80_xmma_wgrad_implicit_gemm_indexed_t…     59  10384960   642048    3.38743
  sm80_xmma_fprop_implicit_gemm_indexed_t…     42  10253536   521060    3.34456
  sm80_xmma_dgrad_implicit_gemm_indexed_t…     28   7041952   458621    2.29698
  cudnn::cnn::wgrad2d_grouped_direct_kern…      1   6734080  6734080    2.19656

The CI gate: total kernel time 286200 -> 355050 ns (+24.06 %) fails a 5 % threshold
(exit 1), passes a 30 % one, and a run against itself passes.

  $ perflab examples/ci-gate.lua examples/ci/baseline.txt examples/ci/current.txt
  ci-gate: kernel time regressed by more than 5 %
  kernel-regression · examples/ci/baseline.txt (kernel-table), examples/ci/current.txt (kernel-table)
  
  Findings (2)
    [error] total kernel time 286.2 µs -> 355.1 µs (+24.06 %), above the 5 % threshold
            rule kernel-regression.total: baseline_ns=286200  change_pct=24.06  current_ns=355050  formula=100 * (current - baseline) / baseline  threshold_pct=5
    [warn]  ampere_sgemm_128x64_nn grew 72 µs (+30.25 %)
            rule kernel-regression.kernel: baseline_ns=238000  change_pct=30.25  current_ns=310000  threshold_pct=5
  
  kernels — largest growth first; baseline examples/ci/baseline.txt, current examples/ci/current.txt
  kernel                         baseline_ns  current_ns  delta_ns  change_pct
  -----------------------------  -----------  ----------  --------  ----------
  ampere_sgemm_128x64_nn              238000      310000     72000     30.2521
  fused_dropout_kernel                     -        3000      3000           -
  softmax_warp_forward                 18200       18300       100    0.549451
  vectorized_elementwise_kernel         8900        8950        50    0.561798
  layer_norm_kernel                    15000       14800      -200    -1.33333
  
  new kernel fused_dropout_kernel: 3 µs
  
  kernel reduce_kernel is gone (was 6.1 µs)
  [1]

  $ perflab examples/ci-gate.lua examples/ci/baseline.txt examples/ci/current.txt 30 > /dev/null

  $ perflab examples/ci-gate.lua examples/kernel-table.txt examples/kernel-table.txt | head -4
  kernel-regression · examples/kernel-table.txt (kernel-table), examples/kernel-table.txt (kernel-table)
  
  Findings (1)
    [info]  total kernel time 306.6 ms -> 306.6 ms (+0.00 %), within the 5 % threshold

Bad usage: exit 2.

  $ perflab examples/ci-gate.lua examples/ci/baseline.txt
  usage: perflab ci-gate.lua BASELINE CURRENT [THRESHOLD_PCT]
  [2]

  $ perflab run examples/recipes/kernel-regression.lua examples/ci/current.txt
  perflab: kernel-regression needs two inputs: BASELINE CURRENT
  [2]


The operators allocating more than 10 MB per step (one step in this trace):
self allocation sizes as the TensorBoard plugin computed them on the same
file (tests/data/reference/memory/falconsai_h100_tbplugin_memory.json).

  $ perflab examples/memory-per-step.lua tests/data/reference/memory/falconsai_h100.json.gz 10
  tests/data/reference/memory/falconsai_h100.json.gz: 1 steps; operators allocating more than 10 MB per step: 5
  device  name                 self_alloc_bytes  self_alloc_count  calls  mb_per_step
  ------  -------------------  ----------------  ----------------  -----  -----------
  GPU0    aten::addmm                 133609472                73     73        133.6
  GPU0    aten::empty                 110322688               160    196        110.3
  GPU0    aten::gelu                   58097664                12     12         58.1
  GPU0    aten::add                    36026368                25     25        36.03
  GPU0    aten::empty_strided          14524416                12     12        14.52
