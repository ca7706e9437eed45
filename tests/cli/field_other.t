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

nsys stats 2021 with two processes (class 11): blocks named by their heading;
--table NAME gives the table the listing names.
  $ perflab parse tests/fixtures/nsys/nsys_2021_two_processes.txt --table osrt_sum_2 --format csv
  share_pct,total_ns,calls,mean_ns,min_ns,max_ns,name,line
  100,50000000,5,10000000,9000000,11000000,pthread_cond_wait,52

  $ perflab -e "print(perflab.load('tests/fixtures/nsys/nsys_2021_two_processes.txt'):table('osrt_sum_2'):row(1).name)"
  pthread_cond_wait

  $ perflab parse tests/fixtures/nsys/nsys_2021_two_processes.txt --table cuda_gpu_mem_size_sum --format csv
  total_bytes,count,mean_bytes,min_bytes,max_bytes,name,size_unit,line
  33554432,2,16777216,16777216,16777216,[CUDA memcpy HtoD],KiB,36

PyTorch >= 2.1 memory units (class 6).
  $ perflab parse tests/fixtures/torch-table/memory_units_2x.txt --table operators --format csv
  name,self_cpu_pct,self_cpu_ns,cpu_total_pct,cpu_total_ns,cpu_time_avg_ns,self_cuda_ns,self_cuda_pct,cuda_total_ns,cuda_time_avg_ns,cpu_mem_bytes,self_cpu_mem_bytes,cuda_mem_bytes,self_cuda_mem_bytes,calls,truncated,table_index,line
  aten::linear,20,2000000,80,8000000,4000000,3000000,60,3000000,1500000,0,0,1536,-4194304,2,false,1,4
  aten::empty,10,1000000,10,1000000,100000,0,0,0,0,512,512,2147483648,2147483648,10,false,1,5
  aten::add_,70,7000000,70,7000000,7000000,2000000,40,2000000,2000000,-1310720,-16,-3584,0,1,false,1,6

ROCm 4 stats, unquoted commas in names (class 7).
  $ perflab run top-kernels tests/fixtures/rocprof/rocm4_stats_unquoted_commas.csv --format csv --table top_kernels
  kernel,calls,total_ns,mean_ns,share_pct
  "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>) [clone .kd]",12,48000,4000,48
  Cijk_Ailk_Bljk_SB_MT64x64x16_SN_1LDSB0_APM1_AF0EM1_GRVW4_ISA90a_MIAV0_TT4_4_WG16_16_1_WGM8,5,40000,8000,40
  void foo<1>(float*),3,12000,4000,12

A shell prompt after an nvprof metrics block (class 8).
  $ perflab parse tests/fixtures/nvprof/metrics_then_shell_prompt.txt --table diagnostics --format csv
  line,message
  2,skipped: Some kernel(s) will be replayed on device 0 in order to collect all events/metrics.
  3,skipped: Profiling application: ./shared-descent.o 1 0.01
  14,the metrics block ends before this line (not a metrics row): user@gpu-node:~/thrust$ ls

A Paddle summary pasted into Markdown (class 9).
  $ perflab parse tests/fixtures/paddle/markdown_fenced.md
  tests/fixtures/paddle/markdown_fenced.md: paddle-summary
  meta:
    summaries        2
    time_unit        ms
    tool             paddle.profiler
  tables:
    devices                        2 rows  name:string utilization_pct:number kind:string id:integer line:integer
    kernel_summary                 2 rows  name:string short_name:string calls:integer total_ns:number mean_ns:number max_ns:number min_ns:number share_pct:number gpu_raw:string truncated:boolean line:integer
  diagnostics (4):
    line 1: skipped 3 line(s) of other output
    line 12: the Device Summary table ends at a Markdown code fence, without its closing '----' line
    line 14: skipped 2 line(s) of other output
    line 25: skipped 1 line(s) of other output

Two nvprof runs in one log (class 10): diff FILE, top-kernels per run.
  $ perflab run diff tests/fixtures/nvprof/two_runs_summary.txt --format csv --table diff
  kernel,calls_a,calls_b,total_ns_a,total_ns_b,delta_ns,regression_share_pct,p_welch,p_mwu,test,status
  matmul_kernel,10,10,4620000,1100000000,1095380000,100,,,no test: A has no per-launch durations or standard deviation; B has no per-launch durations or standard deviation,slower

  $ perflab run top-kernels tests/fixtures/nvprof/two_runs_summary.txt --format csv --table top_kernels
  run,kernel,calls,total_ns,mean_ns,min_ns,max_ns,share_pct
  2,"matmul_kernel(float const *, float const *, float*, int)",10,1100000000,110000000,109500000,110800000,100
  1,"matmul_kernel(float const *, float const *, float*, int)",10,4620000,462000,455100,470300,100

Names nsys cut with … (class 12).
  $ perflab run top-kernels tests/fixtures/nsys/nsys_truncated_names.txt --format markdown
  ## top-kernels
  
  Inputs: `tests/fixtures/nsys/nsys_truncated_names.txt` (nsys-stats)
  
  ### Findings
  
  - **info** `ampere_sgemm_128x64_tn` takes 40.0 % of kernel time (4 ms over 100 calls) — rule `top-kernels.dominant`: calls=100  kernel_time_ns=10000000  share_pct=40  source=tests/fixtures/nsys/nsys_truncated_names.txt  total_ns=4000000
  
  ### top_kernels — 5 kernels, 1460 launches, 10 ms of kernel time
  
  | kernel                                                                                                | calls | total_ns | mean_ns | min_ns | max_ns | share_pct |
  | ----------------------------------------------------------------------------------------------------- | ----: | -------: | ------: | -----: | -----: | --------: |
  | `ampere_sgemm_128x64_tn`                                                                              |   100 |  4000000 |   40000 |  30000 |  50000 |        40 |
  | `void at::native::elementwise_kernel<(int)128, (int)2, void at::native::gpu_kernel_impl_nocast<at::…` |   300 |  3000000 |   10000 |   9000 |  11000 |        30 |
  | `void at::native::elementwise_kernel<(int)128, (int)2, void at::native::gpu_kernel_impl_nocast<at::…` |  1000 |  1500000 |    1500 |   1000 |   2000 |        15 |
  | `void at::native::elementwise_kernel<(int)128, (int)2, void at::native::gpu_kernel_impl_nocast<at::…` |    10 |  1000000 |  100000 |  90000 | 110000 |        10 |
  | `void at::native::reduce_kernel<(int)512, (int)1>(at::native::ReduceOp<float>)`                       |    50 |   500000 |   10000 |   8000 |  12000 |         5 |
  
  tests/fixtures/nsys/nsys_truncated_names.txt: 3 kernel names were cut by the tool (ending in "…" or "..."): each of those rows is kept as its own kernel, not merged with rows of the same printed name (they may be different kernels).

AMD (class 13): occupancy on rocprof dispatches; rocprof's Chrome trace.
  $ perflab run occupancy tests/fixtures/rocprof/mi300x_dispatches_results.csv --gpu mi300x --format csv --table amd_occupancy
  kernel,arch,workgroup_size,waves_per_workgroup,arch_vgpr,accum_vgpr,vgprs_allocated,sgpr,lds_bytes,limit_vgpr,limit_sgpr,limit_lds,waves_per_simd,max_waves_per_simd,occupancy_pct,limiter
  vector_add,gfx942,256,4,8,0,8,16,0,8,8,8,8,8,100,
  gemm_tile,gfx942,256,4,128,128,256,96,32768,2,8,2,2,8,25,"VGPRs, LDS"
  block_reduce,gfx942,1024,16,40,0,40,112,16384,8,7,8,7,8,87.5,SGPRs

  $ perflab run top-kernels tests/fixtures/rocprof/hip_trace_results.json --format csv --table top_kernels
  kernel,calls,total_ns,mean_ns,min_ns,max_ns,share_pct
  "vector_add(float*, float*, float*, int)",2,100000,50000,44445,55555,100

FP8 tensor-core kernels on a B200 (class 14): no FP16 AMP advice.
  $ perflab run step-breakdown tests/fixtures/kineto/tc_b200_fp8.json --format markdown | grep -i "tensor"
  | Kernel Time using Tensor Cores          | GPU 0  |       0 | pct  |     |
  | Kernel Time of Tensor-Core-Eligible Ops |        | 85.7143 | pct  |     |
  tests/fixtures/kineto/tc_b200_fp8.json: step-breakdown.tensor_cores not advised: 85.7 % of kernel time is in tensor/matrix-core kernels the plugin's name list does not know (cuBLAS nvjet (Hopper/Blackwell tensor cores), FP8 (E4M3)), FP8 among them.

Devices differ (class 18).
  $ perflab run diff tests/fixtures/nvprof/two_runs_gpu_trace.txt --format csv --table findings
  severity,rule,subject,message,speedup_pct,evidence,name
  warn,diff.devices,devices,"devices differ (A: Tesla V100-SXM2, B: Tesla T4): time differences below include the change of device",,device_a=Tesla V100-SXM2  device_b=Tesla T4,devices
  warn,diff.regression,saxpy,"saxpy: 6 µs -> 120 µs (+114 µs, 100.0% of the regression; calls 2 -> 3)",,delta_ns=114000  regression_share_pct=100  status=slower,saxpy
  info,diff.config_drift,saxpy,"saxpy changed launch configuration: grid (4,1,1) block (256,1,1) regs 16 smem 0 -> grid (4096,1,1) block (256,1,1) regs 16 smem 0",,,saxpy
