The comparison recipes on the command line: suspicion with --baseline and
--target (planted-cause traces from tools/gen_planted_traces.py) and diff
of two files and of the two runs in one file.  Values (p-values, Z) are
checked against SciPy in tests/lua/test_suspicion.lua and
tests/lua/test_diff.lua; here the command lines, table names and columns.

  $ perflab run suspicion --baseline tests/fixtures/suspicion/normal_1.pt.trace.json.gz tests/fixtures/suspicion/normal_2.pt.trace.json.gz --target tests/fixtures/suspicion/abnormal_1.pt.trace.json.gz tests/fixtures/suspicion/abnormal_2.pt.trace.json.gz --set rows=3 --format csv --table details | cut -d, -f1-3,5-7
  function,metric,device,beta_normal_pct,beta_abnormal_pct,delta_beta_pct
  ampere_sgemm_128x64_nn,gpu_sm_frequency,GPU 0,41.53307402615764,51.93056444704863,10.397490420890989
  ampere_sgemm_128x64_nn,gpu_utilization,GPU 0,41.53307402615764,51.93056444704863,10.397490420890989
  volta_fp16_s884gemm_fp16_64x64_ldg8_f2f_nn,gpu_sm_frequency,GPU 0,20.62760738076202,17.001566725752824,-3.626040655009195

  $ perflab run suspicion --baseline tests/fixtures/suspicion/normal_1.pt.trace.json.gz tests/fixtures/suspicion/normal_2.pt.trace.json.gz --target tests/fixtures/suspicion/abnormal_1.pt.trace.json.gz tests/fixtures/suspicion/abnormal_2.pt.trace.json.gz --format csv --table summary
  metric,normal,abnormal,delta,change_pct
  Total Cycles,20,20,0,
  Avg Cycle Time (ns),3016276.55,3656313.5,640036.9500000002,21.21943858231435

  $ perflab run suspicion --baseline tests/fixtures/suspicion/normal_1.pt.trace.json.gz --target tests/fixtures/suspicion/normal_2.pt.trace.json.gz --format csv --table findings
  severity,rule,subject,message,speedup_pct,evidence,name
  info,suspicion.none,,No function's share of cycle time changed significantly (7 functions; Welch and Mann-Whitney p < 0.01 and |Δβ| >= 0.1 ppt required); average cycle time 2.998 ms -> 3.035 ms (+1.24%).,,alpha=0.01  cycles_abnormal=10  cycles_normal=10  functions=7,

  $ perflab run suspicion tests/fixtures/suspicion/normal_1.pt.trace.json.gz tests/fixtures/suspicion/normal_2.pt.trace.json.gz tests/fixtures/suspicion/abnormal_1.pt.trace.json.gz
  perflab: suspicion needs baseline and target inputs: perflab run suspicion --baseline FILE... --target FILE...
  [2]

  $ perflab run suspicion --baseline --target tests/fixtures/suspicion/normal_2.pt.trace.json.gz
  perflab: option --baseline needs at least one file
  [2]

  $ perflab run diff tests/fixtures/suspicion/normal_1.pt.trace.json.gz tests/fixtures/suspicion/abnormal_1.pt.trace.json.gz --format csv --table diff | cut -d, -f1-7,10
  kernel,calls_a,calls_b,total_ns_a,total_ns_b,delta_ns,regression_share_pct,status
  ampere_sgemm_128x64_nn,30,30,12422110,19061220,6639110,99.06262850771986,slower
  volta_fp16_s884gemm_fp16_64x64_ldg8_f2f_nn,20,20,6183297,6211535,28238,0.42134118937643655,same
  cunn_SoftMaxForward,20,20,1581188,1604507,23319,0.34794444348286435,same
  elementwise_kernel,50,50,1992585,2003850,11265,0.16808585942083568,same
  reduce_kernel,30,30,1802180,1798901,-3279,-0.0489261902388744,same
  layer_norm_fwd_kernel,20,20,1106775,1085852,-20923,-0.31219355851417174,same
  vectorized_elementwise_kernel,40,40,3819147,3759952,-59195,-0.8832527694998994,same

A tb-profiler summary has means but no standard deviations: no test, and
the test column says why.

  $ perflab run diff examples/tb-profiler.json --set top=3 --format csv --table diff
  kernel,calls_a,calls_b,total_ns_a,total_ns_b,delta_ns,regression_share_pct,p_welch,p_mwu,test,status
  d2d_tnc,0,69,0,3522000,3522000,66.98364397109167,,,,added
  MLUUnionXKernelBatchNormBackward,106,106,96916000,97476000,560000,10.650437428680107,,,no test: A has no per-launch durations or standard deviation; B has no per-launch durations or standard deviation,same
  MLUBlockKernel3StagePipelineV2ThresholdBackwardFast,98,98,63142000,63418000,276000,5.2491441612780525,,,no test: A has no per-launch durations or standard deviation; B has no per-launch durations or standard deviation,same

A tb-profiler export has step times but no timeline to place them on (it
stopped with "attempt to compare two nil values"): a clear error instead.

  $ perflab run suspicion --baseline tests/data/corpus/torch_tb_profiler/kineto_tb_plugin_test_result_check_file.txt --target tests/data/corpus/torch_tb_profiler/kineto_tb_plugin_test_result_check_file.txt
  perflab: tests/data/corpus/torch_tb_profiler/kineto_tb_plugin_test_result_check_file.txt (tb-profiler): suspicion needs cycles with start times (a Kineto trace's ProfilerStep spans or events) or function/metric CSVs; this has tables steps, step_breakdown, operators, kernel_summary, recommendations, environment, device_metrics
  [2]
