Field inputs of issue 22 (tests/fixtures/README.md says what each imitates).

A launch that failed: its "(!) nan" / "(!) n/a" values are missing, the
launch, its rule and ncu's error message stay, exit 0 without --lenient.
  $ perflab -e 'for _, r in perflab.load("tests/fixtures/ncu/launch_failed_nan.txt"):table("kernels"):rows() do print(r.id, r.short_name, r.duration_ns, r.missing_values, r.launch_error) end'
  0	scale_kernel	3440.0	0	nil
  1	persistent_kernel	nil	6	LaunchFailed; An error occurred while trying to profile.
  $ perflab run advice tests/fixtures/ncu/launch_failed_nan.txt --format csv --table advice
  severity,section,launches,kernel_ids,best_speedup_pct,best_local_speedup_pct,variants,rule,message,source
  warn,launch,1,1,,,,ncu.launch_failed,"launch 1 (persistent_kernel) failed under the profiler: ncu says ""LaunchFailed; An error occurred while trying to profile.""; 6 of its values were not collected (printed as (!) nan / (!) n/a, read as missing), so its figures and rules are incomplete",tests/fixtures/ncu/launch_failed_nan.txt
  warn,GPU Speed Of Light Throughput,1,1,,,1,,The kernel could not be profiled: its values are missing.,tests/fixtures/ncu/launch_failed_nan.txt

UTF-16 (both byte orders, with and without a BOM, CRLF) and a UTF-8 BOM are
transcoded before detection, for every format, and with --input-format.
  $ perflab parse tests/fixtures/encoding/ncu_utf16le_bom_crlf.txt | head -4
  tests/fixtures/encoding/ncu_utf16le_bom_crlf.txt: ncu-text
  meta:
    cc               8.6
    encoding         UTF-16LE
  $ perflab parse tests/fixtures/encoding/ncu_utf16le_nobom.txt --input-format ncu-text --table kernels --format csv --max-rows 1 | cut -c1-60
  id,name,short_name,grid_x,grid_y,grid_z,block_x,block_y,bloc
  0,"scale_kernel(float *, int)",scale_kernel,128,1,1,256,1,1,
  $ perflab parse tests/fixtures/encoding/kernel_table_utf16be_bom.txt | head -4
  tests/fixtures/encoding/kernel_table_utf16be_bom.txt: kernel-table
  meta:
    encoding         UTF-16BE
    time_unit        ns
  $ perflab run top-kernels tests/fixtures/encoding/kernel_table_utf8_bom.txt --format csv
  # table: top_kernels
  kernel,calls,total_ns,mean_ns,min_ns,max_ns,share_pct,tensor_util,dram_util
  ampere_fp16_s16816gemm_fp16_128x64_ldg8_relu_f2...,2,40864,20432,19936,20928,76.7889356584486,0.28584964761158965,0.11024275646045419
  vectorized_elementwise_kernel,2,9312,4656,4416,4896,17.498496692723993,0,0.48711340206185566
  cudnn::ops::nchwToNhwcKernel,1,3040,3040,3040,3040,5.71256764882742,0,0.5
  
  # table: findings
  severity,rule,subject,message,speedup_pct,evidence,name
  info,top-kernels.dominant,ampere_fp16_s16816gemm_fp16_128x64_ldg8_relu_f2...,ampere_fp16_s16816gemm_fp16_128x64_ldg8_relu_f2... takes 76.8 % of kernel time (40.86 µs over 2 calls),,calls=2  kernel_time_ns=53216  share_pct=76.79  source=tests/fixtures/encoding/kernel_table_utf8_bom.txt  total_ns=40864,ampere_fp16_s16816gemm_fp16_128x64_ldg8_relu_f2...

A long ncu run: thousands of ==PROF== lines before the first result.
  $ (echo '==PROF== Connected to process 7 (/bin/app)'; for i in $(seq 0 2999); do echo "==PROF== Profiling \"scale_kernel\" - $i: 0%....50%....100% - 9 passes"; done; sed -n '8,$p' tests/fixtures/ncu/launch_failed_nan.txt) > $CRAMTMP/long.txt
  $ perflab parse $CRAMTMP/long.txt | head -1 | sed "s#$CRAMTMP#TMP#"
  TMP/long.txt: ncu-text
  $ (echo '==PROF== Connected to process 7 (/bin/app)'; for i in $(seq 0 2999); do echo "==PROF== Profiling \"scale_kernel\" - $i: 0%....50%....100% - 9 passes"; done) > $CRAMTMP/progress.txt
  $ perflab parse $CRAMTMP/progress.txt 2>&1 | sed "s#$CRAMTMP#TMP#"
  perflab: TMP/progress.txt:1:1: expected an Nsight Compute details page (a kernel line and 'Section:' tables), found no kernel launch

A log whose results went to a .ncu-rep: refused with what to run instead,
exit 2, nothing on stdout.
  $ perflab parse tests/fixtures/ncu/report_only_log.txt
  perflab: tests/fixtures/ncu/report_only_log.txt:7:1: expected an Nsight Compute details page, found only ncu's log: the results went to the report '/home/user/attn/profiles/attn_fwd.ncu-rep'; export them with 'ncu --import /home/user/attn/profiles/attn_fwd.ncu-rep --page details' (or --csv) and read that
  [2]
  $ perflab parse tests/fixtures/ncu/report_only_log.txt 2>/dev/null | wc -c
  0

The --print-summary per-kernel layout is read: kernels with their
invocation counts (kernel_summary) and min/max/avg per metric.
  $ perflab parse tests/fixtures/ncu/print_summary_per_kernel.txt --table kernel_summary
  name                                          short_name       calls  total_ns  mean_ns  min_ns  max_ns  share_pct  grid_x  grid_y  grid_z  block_x  block_y  block_z  grid_size  block_size  device  cc   process      pid  line
  --------------------------------------------  ---------------  -----  --------  -------  ------  ------  ---------  ------  ------  ------  -------  -------  -------  ---------  ----------  ------  ---  ---------  -----  ----
  transposeNaive(const float *, float *, int)   transposeNaive       3     97740    32580   32060   33100    88.7255      32      32       1       32       32        1       1024        1024       0  8.6  transpose  69642     9
  transposeShared(const float *, float *, int)  transposeShared      1     12420    12420   12420   12420    11.2745      32      32       1       32        8        1       1024         256       0  8.6  transpose  69642    27
  $ perflab parse tests/fixtures/ncu/print_summary_per_kernel_old.txt --input-format ncu-text --table metrics --format csv
  kernel_id,section,metric,unit,base_unit,min,max,value
  0,GPU Speed Of Light Throughput,dram__cycles_elapsed.avg.per_second,cycle/nsecond,Hz,6701347000,6701347000,6701347000
  0,GPU Speed Of Light Throughput,gpc__cycles_elapsed.max,cycle,cycle,13479154,13479154,13479154
  0,GPU Speed Of Light Throughput,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,%,pct,44.233118,44.233118,44.233118
  0,GPU Speed Of Light Throughput,gpu__time_duration.sum,msecond,ns,9998720,9998720,9998720
  $ perflab run top-kernels tests/fixtures/ncu/print_summary_per_kernel.txt
  top-kernels · tests/fixtures/ncu/print_summary_per_kernel.txt (ncu-text)
  
  Findings (1)
    [info]  transposeNaive(…) takes 88.7 % of kernel time (97.74 µs over 3 calls)
            rule top-kernels.dominant: calls=3 kernel_time_ns=110160 share_pct=88.73
              source=tests/fixtures/ncu/print_summary_per_kernel.txt total_ns=97740
  
  top_kernels — 2 kernels, 4 launches, 110.2 µs of kernel time
  kernel              calls  total_ns  mean_ns  min_ns  max_ns  share_pct
  ------------------  -----  --------  -------  ------  ------  ---------
  transposeNaive(…)       3     97740    32580   32060   33100    88.7255
  transposeShared(…)      1     12420    12420   12420   12420    11.2745
  
  figure top_kernels.svg: time share per kernel (top_kernels) (2108 bytes of SVG; --output DIR writes it)

Exact decimals: 3.44 usecond is 3440 ns, 9.26 cycle/nsecond 9260000000 Hz.
  $ perflab -e 'local k = perflab.load("tests/fixtures/ncu/launch_failed_nan.txt"):table("kernels"); print(string.format("%.17g %.17g", k:get(1, "duration_ns"), k:get(1, "dram_frequency_hz")))'
  3440 9260000000

No durations: times are missing, not 0 ns, with a note.
  $ perflab run top-kernels tests/fixtures/ncu/metrics_only_no_duration.txt
  top-kernels · tests/fixtures/ncu/metrics_only_no_duration.txt (ncu-text)
  
  top_kernels — 2 kernels, 3 launches, kernel time unknown
  kernel          calls  total_ns  mean_ns  min_ns  max_ns  share_pct
  --------------  -----  --------  -------  ------  ------  ---------
  bsum_kernel(…)      2         -        -       -       -          -
  scan_kernel(…)      1         -        -       -       -          -
  
  tests/fixtures/ncu/metrics_only_no_duration.txt has no kernel durations (a metrics-only profile): times and shares are
    missing, kernels are listed by name with their launch counts.

ncu 2022's merged occupancy paragraph counts as both rules.
  $ perflab run ncu-rules tests/fixtures/ncu/occupancy_merged_paragraph_2022.txt --format csv --table ncu_compare
  rule,ncu_launches,implemented,perflab_same_launch,metrics_absent
  ncu.achieved_occupancy,1,yes,1,0
  ncu.theoretical_occupancy,1,yes,1,0

Help and runtime say the same needs.
  $ perflab run occupancy --help | sed -n '5,6p'
  needs: kernels (each Nsight Compute report; every input when none is one)
         a timeline of the same program beside a report (or --set timeline=FILE): kernels or kernel_summary
  $ perflab run occupancy tests/data/corpus/nsys_stats/alcf_polaris_a100_babelstream_nsys_stats.txt
  perflab: recipe 'occupancy' needs a table kernels, and tests/data/corpus/nsys_stats/alcf_polaris_a100_babelstream_nsys_stats.txt (nsys-stats) has none of them (perflab parse tests/data/corpus/nsys_stats/alcf_polaris_a100_babelstream_nsys_stats.txt lists its tables); kernels come from an Nsight Compute report (`ncu --import R.ncu-rep --page details --csv`, or its text log), an Nsight Systems export (`nsys export --type sqlite`), a PyTorch profiler/Kineto trace (`prof.export_chrome_trace`), `nvprof --print-gpu-trace` or a rocprof kernel trace
  [2]
  $ perflab run launch --help | sed -n '5,6p'
  needs: kernels (each Nsight Compute report; every input when none is one)
         a timeline of the same program beside a report (or --set timeline=FILE): kernels or kernel_summary
  $ perflab run ncu-rules --help | sed -n '5,6p'
  needs: kernels (each Nsight Compute report)
         a timeline of the same program beside a report (or --set timeline=FILE): kernels or kernel_summary
  $ perflab run ncu-rules tests/fixtures/ncu/print_summary_per_kernel.txt
  perflab: recipe 'ncu-rules' needs a table kernels, and tests/fixtures/ncu/print_summary_per_kernel.txt (ncu-text) has: kernel_summary, metrics, program_output; kernels come from an Nsight Compute report (`ncu --import R.ncu-rep --page details --csv`, or its text log), an Nsight Systems export (`nsys export --type sqlite`), a PyTorch profiler/Kineto trace (`prof.export_chrome_trace`), `nvprof --print-gpu-trace` or a rocprof kernel trace
  [2]

roofline skips Kineto GEMM ops whose Input Dims lack the shapes, with a note.
  $ perflab run roofline tests/fixtures/kineto/roofline_short_input_dims.json --format markdown | tail -6
  
  FLOPs and bytes from Kineto input shapes (GEMM 2*M*N*K)
  
  3 GEMM operators (aten::mm, addmm, bmm, baddbmm) skipped: Input Dims holds fewer or empty shapes than the FLOPs need, and the trace gives no flops for them
  
  3 kernels: precision read from the kernel name (a last resort: no dtype or metric records it)

A full output device fails loudly (more in tests/lua/test_stdout_errors.lua).
  $ perflab parse tests/fixtures/ncu/launch_failed_nan.txt > /dev/full
  perflab: error writing standard output: No space left on device
  [2]
