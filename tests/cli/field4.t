Held-out classes, round four: each input is a small hand-made file in
tests/data/field4 (its README says what each imitates).

Communication kernels get no occupancy findings: NCCL sizes its blocks per
channel, and a collective's time is set by its peers and the link.  The
trace's sgemm (256 threads x 128 registers = 32768 registers per block: 2
blocks, 16 of 64 warps, 25 %) is flagged; the all-reduce (544 threads x 96
registers, 1 block, 17 warps, 26.56 %) stays in the table without a finding:

  $ perflab run occupancy tests/data/field4/kineto_nccl_low_occupancy.json --format csv | grep -E '^(warn|ncclDev)' | cut -d, -f1-3,13,14
  ncclDevKernel_AllReduce_Sum_f32_RING_LL,8.0,544,17,26.56
  warn,occupancy.limiter,sgemm_128x64_nn

  $ perflab run occupancy tests/data/field4/kineto_nccl_low_occupancy.json | grep -E 'communication launch'
  1 communication launch (perflab.comm: nccl, rccl, ...) has no occupancy findings: a collective's time is set by its

Copies that take most of the GPU time are said first.  A timeline: the
step of 1000 us holds a 600 us host-to-device copy that no kernel overlaps
and a 200 us kernel, so Memcpy is 60 % of the step (step-breakdown's Memcpy
role holds copy time outside kernels):

  $ perflab run step-breakdown tests/data/field4/kineto_memcpy_bound_step.json | grep -E 'memory copies|rule step-breakdown.memcpy'
    [warn] 60.0 % of the step time is in memory copies that no kernel overlaps: keep data on the device between steps,
            rule step-breakdown.memcpy: avg_memcpy_ns=600000 avg_step_ns=1000000 formula=avg Memcpy (copies outside

A summary (nvprof's GPU activities: copies 6 + 2 ms, kernels 2 ms) cannot
say how copies and kernels overlap; its copies are 8 / (8 + 2) = 80 % of
the GPU time it records:

  $ perflab run top-kernels tests/data/field4/nvprof_summary_memcpy_bound.txt | grep -A1 'memory operations'
    [warn] memory operations take 80.0 % of the GPU time the summary records (8 ms of 10 ms: [CUDA memcpy HtoD] 6 ms over
      40 calls, [CUDA memcpy DtoH] 2 ms over 20 calls; kernels 2 ms): keep data on the device between kernels, batch small

`ncu --metrics a,b,...` prints the metrics asked for under "Command line
profiler metrics", by their raw names; they fill the kernel columns as on
the raw page (gpu__time_duration.sum 12.35 usecond = 12350 ns, 1.50
msecond = 1500000 ns; sm__warps_active.avg.pct_of_peak_sustained_active is
achieved occupancy), in the text log and in the details CSV:

  $ perflab -e 'for _, f in ipairs{"tests/data/field4/ncu_text_metrics_list.txt", "tests/data/field4/ncu_csv_metrics_list.csv"} do for _, r in perflab.load(f):table("kernels"):rows() do print(r.grid_size, r.duration_ns, r.achieved_occupancy_pct, r.registers) end end'
  32.0	12350.0	14.38	40.0
  4096.0	1500000.0	85.47	40.0
  32.0	12350.0	14.38	40.0
  4096.0	1500000.0	85.47	40.0

A PyTorch execution trace (ExecutionTraceObserver, the input of Chakra)
holds operators and their dependencies but no GPU timings: it is named,
with the file to pass instead, at its "nodes" key:

  $ perflab parse tests/data/field4/pytorch_execution_trace.json
  perflab: tests/data/field4/pytorch_execution_trace.json:3:3: expected a profile perflab reads, found a PyTorch execution trace (ExecutionTraceObserver / Chakra JSON: "schema" and "nodes", the operators and their dependencies, no GPU timings), which perflab does not read: pass the Kineto trace that torch.profiler records beside it (export_chrome_trace or tensorboard_trace_handler)
  [2]

A stream idle while other streams keep its device busy is no GPU idle
time.  Stream 7 runs 100 us, waits 800 us for the host, runs 100 us; stream
8 runs a 600 us kernel meanwhile, so the device is idle 200 us of stream
7's span: the saving is capped there (200 of the 1020 us step = 19.6 %),
and the finding is info, not warn (others ran 600 of the 800 us):

  $ perflab report tests/data/field4/kineto_two_streams_one_busy.json 2>/dev/null | grep -A1 -E '^  1\. '
    1. 200 µs per step (19.6 % of the step) [info] device 0 stream 7 is idle 80.0 % of its span (800 µs of 1 ms) (other
       streams of the device ran during 75 % of it); 100 % of that is host wait: the stream waited for the host to enqueue

rocprof v1/v2's SQLite output (table KERN) keeps each KernelName as its CSV
wrote it, between double quotes (one quote where the field was cut); the
quotes are not part of the name, so kernels match the same run's CSV (vadd:
2 calls, 10000 + 12000 ns):

  $ perflab -e 'local p = perflab.load("tests/data/field4/rocprof_kern_quoted_names.db"); for _, r in p:table("kernel_summary"):rows() do print(r.short_name, r.calls, r.total_ns) end'
  gemm_tile_kernel	1	30000.0
  vadd	2	22000.0
  __amd_rocclr_fillBufferAligned	1	4000.0

A key_averages table sorted by CPU time and cut by row_limit lists part
of the device time its footer records (Self CUDA time total 100 ms; its two
kernel rows hold 6 + 4 ms): shares are of the footer's total (6 / 100 = 6
%, the table's own Self CUDA %), and the finding says the list is partial:

  $ perflab run top-kernels tests/data/field4/torch_table_cut_by_row_limit.txt | grep -A2 -E '^  \[info\]|^top_kernels'
    [info] at::native::vectorized_elementwise_kernel<…> takes 6.0 % of the 100 ms of device time the input records (6 ms
      over 100 calls); the input lists only 10 ms of kernel time (10.0 %): its table is an excerpt, cut (row_limit) or
      sorted by another column, so a larger kernel may be missing
  --
  top_kernels — 2 kernels, 150 launches, 10 ms of kernel time listed, of 100 ms of device time recorded
  kernel                                        calls  total_ns  mean_ns  share_pct
  --------------------------------------------  -----  --------  -------  ---------

The same for a paddle Kernel Summary excerpt whose Overview Summary records
100 ms of kernel time while the two listed kernels hold 30 + 10 ms:

  $ perflab run top-kernels tests/data/field4/paddle_kernel_summary_excerpt.txt | grep -E 'takes|^top_kernels'
    [info] volta_sgemm_128x64_nn takes 30.0 % of the 100 ms of kernel time the input records (30 ms over 200 calls); the
  top_kernels — 2 kernels, 300 launches, 40 ms of kernel time listed, of 100 ms of kernel time recorded

An input that records no GPU work at all (nsys stats of a capture without
the CUDA trace: only the OS runtime summary) gets every GPU recipe skipped;
advice says so, with what the input holds and its own reasons:

  $ perflab run advice tests/data/field4/nsys_stats_no_cuda_trace.txt | grep -A2 '\[warn\]'
    [warn] tests/data/field4/nsys_stats_no_cuda_trace.txt records no GPU work (no kernels, copies or kernel summary); it
      holds osrt_sum (2 rows); the input says: SKIPPED: run1.sqlite does not contain CUDA trace data; SKIPPED: run1.sqlite
      does not contain CUDA kernel data: profile with the GPU trace on (nsys -t cuda / nsys stats with the cuda_gpu_*

Launches whose timestamps the reader could not trust (rocprof-compute's
timestamps rewritten in scientific notation: durations left missing, no
duration column) and no summary: top-kernels lists them by name and count
instead of failing ("has no table 'kernel_summary'", exit 2):

  $ perflab run top-kernels tests/fixtures/rocprof/compute_timestamps_sci.csv | grep -E '^top_kernels|^vecCopy'
  top_kernels — 1 kernels, 2 launches, kernel time unknown
  vecCopy(…)      2         -        -       -       -          -

