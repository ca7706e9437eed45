--lenient: salvage what parses, list what was skipped (with line numbers)
instead of exit 2.  Each format: the error without it, then what is kept
and the diagnostics with it.

kernel-table: a latency that is not a number.
  $ perflab parse tests/fixtures/kernel-table/non-number.txt
  perflab: tests/fixtures/kernel-table/non-number.txt:3:59: expected the latency in ns (a number >= 0), found "n/a"
  [2]

  $ perflab parse tests/fixtures/kernel-table/non-number.txt --lenient --table kernels --format csv
  name,short_name,latency_ns,duration_ns,tensor_util,dram_util,truncated,line
  vectorized_elementwise_kernel,vectorized_elementwise_kernel,4896,4896,0,0,false,2

  $ perflab parse tests/fixtures/kernel-table/non-number.txt --lenient --table diagnostics --format csv
  line,message
  3,"skipped: expected the latency in ns (a number >= 0), found ""n/a"" (column 59)"

  $ perflab run top-kernels tests/fixtures/kernel-table/truncated.txt --lenient --format csv
  # table: top_kernels
  kernel,calls,total_ns,mean_ns,min_ns,max_ns,share_pct,tensor_util,dram_util
  vectorized_elementwise_kernel,1,4896,4896,4896,4896,100,0,0
  
  # table: findings
  severity,rule,subject,message,speedup_pct,evidence,name
  info,top-kernels.dominant,vectorized_elementwise_kernel,vectorized_elementwise_kernel takes 100.0 % of kernel time (4.896 µs over 1 calls),,calls=1  kernel_time_ns=4896  share_pct=100  source=tests/fixtures/kernel-table/truncated.txt  total_ns=4896,vectorized_elementwise_kernel


ncu-text: a metric value that is not a number (Registers Per Thread), and a file cut inside a section table.
  $ sed 's/^    Registers Per Thread             register\/thread              38$/    Registers Per Thread             register\/thread              3x8/' tests/data/corpus/ncu_text/gpumode_lecture001_triton_profile_cc89.txt > $CRAMTMP/ncu.txt; grep -c 3x8 $CRAMTMP/ncu.txt
  1

  $ cd $CRAMTMP && perflab parse ncu.txt
  perflab: ncu.txt:35:67: expected a number for 'Registers Per Thread' (unit 'register/thread'), found "3x8"
  [2]

  $ cd $CRAMTMP && perflab parse ncu.txt --lenient --table diagnostics --format csv | grep -v 'shell prompt'
  line,message
  35,"skipped: expected a number for 'Registers Per Thread' (unit 'register/thread'), found ""3x8"" (column 67)"

  $ cd $CRAMTMP && perflab -e 'local k = perflab.load("ncu.txt", {lenient = true}):table("kernels") for i = 1, k:nrows() do print(k:get(i, "short_name"), k:get(i, "registers")) end'
  distribution_elementwise_grid_stride_kernel	nil
  square_kernel_0d1d234	20.0

  $ head -c 3590 tests/data/corpus/ncu_text/gpumode_lecture001_triton_profile_cc89.txt > $CRAMTMP/cut.txt; tail -c 40 $CRAMTMP/cut.txt; echo; cd $CRAMTMP && perflab parse cut.txt --lenient --table diagnostics --format csv | grep -v 'shell prompt'
  
      Registers Per Thread             re
  line,message
  35,"skipped: expected a metric row or the closing '-----' rule of section 'Launch Statistics', found ""Registers Per Thread             re"" (column 5)"
  35,"skipped: expected a metric row or the closing '-----' rule of section 'Launch Statistics', found end of file"


ncu-csv: a metric value that is not a number.
  $ sed '20s/"[0-9.]*",$/"zz",/' tests/data/corpus/ncu_csv/superbench_b200_cc100_cublaslt_ncu_details.csv > $CRAMTMP/ncu.csv; cd $CRAMTMP && perflab parse ncu.csv
  perflab: ncu.csv:20:244: expected a number for 'Grid Size', found "zz"
  [2]

  $ cd $CRAMTMP && perflab parse ncu.csv --lenient --table diagnostics --format csv | grep skipped
  20,"skipped: expected a number for 'Grid Size', found ""zz"" (column 244)"


kineto: an event whose "ts" is a string is dropped.
  $ sed '9s/"ts": [0-9]*/"ts": "soon"/' tests/data/corpus/kineto_trace/hta_call_stack_backward_thread.json > $CRAMTMP/k.json; cd $CRAMTMP && perflab parse k.json
  perflab: k.json:9:19: expected the timestamp "ts" as a number of microseconds, found ""soon","
  [2]

  $ cd $CRAMTMP && perflab parse k.json --lenient --table diagnostics --format csv
  line,message
  9,"skipped: expected the timestamp ""ts"" as a number of microseconds, found """"soon"","" (column 19)"

  $ cd $CRAMTMP && perflab parse k.json --lenient | grep -E '^  (events|cpu_ops|kernels) '| cut -c1-50
    events           6
    events                         6 rows  name:stri
    kernels                        1 rows  name:stri
    cpu_ops                        3 rows  name:stri

  $ perflab parse tests/data/corpus/kineto_trace/hta_call_stack_backward_thread.json | grep -E '^  (events|cpu_ops|kernels) ' | cut -c1-50
    events           7
    events                         7 rows  name:stri
    kernels                        1 rows  name:stri
    cpu_ops                        3 rows  name:stri


tb-profiler: a line that is not a JSON document is skipped.
  $ sed '2s/^{/{"x": [,/' tests/data/corpus/torch_tb_profiler/kineto_tb_plugin_test_result_check_file.txt > $CRAMTMP/tb.txt; cd $CRAMTMP && perflab parse tb.txt
  perflab: tb.txt:2:8: expected a JSON value, found ","device_total_time": {"title": "Device ..."
  [2]

  $ cd $CRAMTMP && perflab parse tb.txt --lenient --table diagnostics --format csv | grep skipped
  2,"skipped: expected a JSON value, found "",""device_total_time"": {""title"": ""Device ..."" (column 8)"
  5,kernel pie view (total time by kernel) skipped: the kernel table holds the same figures
  7,operator pie view (device/host total/self time by operator) skipped: the operator table holds the same figures
  10,kernel pie view (total time by kernel) skipped: the kernel table holds the same figures


nsys-stats, nvprof, rocprof, csv: one bad row among good ones (tests/fixtures/lenient/).
  $ perflab parse tests/fixtures/lenient/nsys_kern_sum.csv
  perflab: tests/fixtures/lenient/nsys_kern_sum.csv:3:1: expected a number in column 'Time (%)', found "oops"
  [2]

  $ perflab parse tests/fixtures/lenient/nsys_kern_sum.csv --lenient --table cuda_gpu_kern_sum --format csv
  share_pct,total_ns,calls,mean_ns,med_ns,min_ns,max_ns,stddev_ns,name,line
  60,600,2,300,300,200,400,141.4,kernel_a,2
  40,400,1,400,400,400,400,0,kernel_c,4

  $ perflab parse tests/fixtures/lenient/nsys_kern_sum.csv --lenient --table diagnostics --format csv
  line,message
  3,"skipped: expected a number in column 'Time (%)', found ""oops"""

  $ perflab parse tests/fixtures/lenient/nvprof_summary.txt
  perflab: tests/fixtures/lenient/nvprof_summary.txt:6:43: expected the number of calls, found "one  100.00us  100.00us  100.00us  kerne..."
  [2]

  $ perflab parse tests/fixtures/lenient/nvprof_summary.txt --lenient --table summary --format csv
  type,name,calls,total_ns,mean_ns,min_ns,max_ns,share_pct,line
  GPU activities,kernel_a,2,600000,300000,200000,400000,60,5
  GPU activities,kernel_c,1,300000,300000,300000,300000,30,7

  $ perflab parse tests/fixtures/lenient/nvprof_summary.txt --lenient --table diagnostics --format csv
  line,message
  2,skipped: Profiling application: ./app
  6,"skipped: expected the number of calls, found ""one  100.00us  100.00us  100.00us  kerne..."" (column 43)"

  $ perflab parse tests/fixtures/lenient/rocprof_stats.csv
  perflab: tests/fixtures/lenient/rocprof_stats.csv:3:17: expected 5 fields as in the header (line 1), found 3: the record ends early
  [2]

  $ perflab parse tests/fixtures/lenient/rocprof_stats.csv --lenient --table kernel_summary --format csv
  name,calls,total_ns,mean_ns,share_pct,short_name
  kernel_a,2,600,300,60,kernel_a
  kernel_c,1,400,400,40,kernel_c

  $ perflab parse tests/fixtures/lenient/rocprof_stats.csv --lenient --table diagnostics --format csv
  line,message
  3,"skipped: expected 5 fields as in the header (line 1), found 3 (column 17)"

  $ perflab parse tests/fixtures/lenient/rocprof_stats.csv --input-format csv --lenient --table csv --format csv
  Name,Calls,TotalDurationNs,AverageNs,Percentage
  kernel_a,2,600,300,60
  kernel_c,1,400,400,40

  $ perflab run top-kernels tests/fixtures/lenient/rocprof_stats.csv --lenient --format csv
  # table: top_kernels
  kernel,calls,total_ns,mean_ns,share_pct
  kernel_a,2,600,300,60
  kernel_c,1,400,400,40
  
  # table: findings
  severity,rule,subject,message,speedup_pct,evidence,name
  info,top-kernels.dominant,kernel_a,kernel_a takes 60.0 % of kernel time (600 ns over 2 calls),,calls=2  kernel_time_ns=1000  share_pct=60  source=tests/fixtures/lenient/rocprof_stats.csv  total_ns=600,kernel_a


A structural error is still an error under --lenient: no header at all.
  $ printf 'kernel_a | 1 2 3\n' > $CRAMTMP/nohdr.txt; cd $CRAMTMP && perflab parse nohdr.txt --input-format kernel-table --lenient
  perflab: nohdr.txt:1:1: expected the header 'Kernel  Latency Tensor DRAM', found "kernel_a | 1 2 3"
  [2]


torch-table: a table cut before its closing line keeps its rows.
  $ perflab parse tests/fixtures/torch-table/cut-mid-table.txt
  perflab: tests/fixtures/torch-table/cut-mid-table.txt:7:1: expected a row or the closing '----' line of the key_averages table, found end of file
  [2]

  $ perflab parse tests/fixtures/torch-table/cut-mid-table.txt --lenient --table diagnostics --format csv
  line,message
  1,"program output: STAGE 1 done, loss 0.125"
  7,"skipped: expected a row or the closing '----' line of the key_averages table, found end of file"
  0,no 'Self CPU time total:' footer

  $ perflab parse tests/fixtures/torch-table/cut-mid-table.txt --lenient --table operators --format csv | cut -d, -f1-3
  name,self_cpu_pct,self_cpu_ns
  aten::conv2d,10,1000000
  aten::empty,5,500000


paddle-summary: a row with a bad call count is dropped and listed.

  $ perflab parse tests/fixtures/lenient/paddle_bad_calls.txt
  perflab: tests/fixtures/lenient/paddle_bad_calls.txt:59:55: expected the number of calls (an integer or '-'), found "1x0"
  [2]

  $ perflab parse tests/fixtures/lenient/paddle_bad_calls.txt --lenient --table diagnostics --format csv
  line,message
  59,"skipped: expected the number of calls (an integer or '-'), found ""1x0"" (column 55)"
  80,skipped 2 line(s) of other output

  $ perflab parse tests/fixtures/lenient/paddle_bad_calls.txt --lenient --table operators --format csv | cut -d, -f1-2
  name,calls
  flash_attn dygraph,100
  flash_attn compute,100
  void flash_fwd_kernel<Flash_fwd_kernel_traits...,100
  void Eigen::internal::EigenMetaKernel<Eigen::Te...,300
  transpose dygraph,100
  transpose infer_meta,100
  transpose compute,100

comparison-report (and any Markdown table): a row with a non-number in a
numeric column is dropped and listed.

  $ perflab parse tests/fixtures/comparison/details-non-number.md
  perflab: tests/fixtures/comparison/details-non-number.md:7:1010: expected a number in column 'Suspicion Score', found "n.a."
  [2]

  $ perflab parse tests/fixtures/comparison/details-non-number.md --lenient --table diagnostics --format csv
  line,message
  7,"skipped: expected a number in column 'Suspicion Score', found ""n.a."" (column 1010)"
