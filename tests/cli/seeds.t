top-kernels and advice run on every seed format (the seeds are bundled:
000 examples/kernel-table.txt, 001 examples/tb-profiler.json, 002
tests/fixtures/seed002_comparison_report.txt, 003 examples/ncu-details.txt,
004 tests/fixtures/seed004_paddle_summary.txt).

  $ perflab run top-kernels examples/kernel-table.txt --set top=2 --format csv --table top_kernels
  kernel,calls,total_ns,mean_ns,min_ns,max_ns,share_pct,tensor_util,dram_util
  elementwise_kernel,3185,56058272,17600.71334379905,5120,255488,18.28540526299803,0.02388781159718944,0.2267787804804258
  Kernel,944,46240224,48983.288135593226,7200,594752,15.082898653954366,0.19981652684035442,0.14788085455641392

Two runs of the TensorBoard plugin: shares are per run.

  $ perflab run top-kernels examples/tb-profiler.json --set top=2 --set group=short_name --format csv --table top_kernels
  run,kernel,calls,total_ns,mean_ns,min_ns,max_ns,share_pct
  2,MLUUnionXKernelBatchNormBackward,106,97476000,919584.9056603773,103000,4019000,16.704310601880255
  1,MLUUnionXKernelBatchNormBackward,106,96916000,914301.8867924528,103000,4001000,16.755269950434027

A comparison report knows shares of cycle time, not calls.

  $ perflab run top-kernels tests/fixtures/seed002_comparison_report.txt --set top=2 --format csv --table top_kernels
  run,kernel,total_ns,mean_ns,share_pct
  1,oncpu,14407342824.036,,79.68042212155905
  2,oncpu,12388113405.800001,,74.61818525698614

  $ perflab run top-kernels examples/ncu-details.txt --format csv --table top_kernels | cut -c1-40
  kernel,calls,total_ns,mean_ns,min_ns,max
  "void cutlass::Kernel<cutlass::conv::ker

  $ perflab run top-kernels tests/fixtures/seed004_paddle_summary.txt --format csv --table top_kernels
  kernel,calls,total_ns,mean_ns,min_ns,max_ns,share_pct
  "void flash_fwd_kernel<Flash_fwd_kernel_traits<32, 128, 128, 4, false, false, cutlass::h...",100,61130000,611300,610000,620000,78.56316668808637
  void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<Eigen::TensorAssignOp<Eige...,300,16680000,55600,50000,60000,21.436833311913635

advice: ncu rules grouped across the 21 launches; the plugin's
recommendation; a comparison report has nothing to advise; Paddle's GPU
utilisation above 100 % is explained.

  $ perflab run advice examples/ncu-details.txt --format csv --table advice | cut -d, -f1-5 | head -4
  severity,section,launches,kernel_ids,best_speedup_pct
  warn,GPU Speed Of Light Throughput,21,0-20,
  warn,Instruction Statistics,21,0-20,
  warn,Source Counters,21,0-20,

  $ perflab run advice examples/tb-profiler.json --format csv --table findings | cut -d, -f1-3
  severity,rule,subject
  opt,tb-profiler.recommendation,

  $ perflab run advice tests/fixtures/seed002_comparison_report.txt
  advice · tests/fixtures/seed002_comparison_report.txt (comparison-report)
  
  No advice: the inputs carry no profiler rules or recommendations, and nothing odd was found.

  $ perflab run advice tests/fixtures/seed004_paddle_summary.txt --format csv --table findings | cut -d, -f1-3
  severity,rule,subject
  warn,data.utilisation_above_100,GPU0 utilization_pct
  info,data.utilisation_above_100,CPU(Process) utilization_pct
