The HTML report, `run all` and the Chrome-trace export from the command
line (values: tests/lua/test_figures.lua; the page in a browser:
tests/html/browser.py).

  $ perflab run top-kernels examples/kernel-table.txt --format html | head -3
  <!DOCTYPE html>
  <html lang="en"><head><meta charset="utf-8">
  <meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-gRqTMXtwpqGhTdMOYPkSPGbL6QtI3TaKi0I4T2JD1zU='; style-src 'sha256-/ub4NL0QBvT4Abx3qlYSlAdIY0LAHzFDAb/XYktm5og='; img-src data:; base-uri 'none'; form-action 'none'">

  $ perflab run top-kernels examples/kernel-table.txt --format html | grep -c 'https\?://'
  0
  [1]

  $ perflab run all examples/ncu-details.txt --format html --output $CRAMTMP/all 2>&1 >/dev/null | sed 's|[^ ]*/all|DIR|'
  perflab: not run: critical-path (needs a table events or runtime); diff (diff needs two profiles (perflab run diff FILE_A FILE_B) or one holding two runs (a run column)); distributed (needs a table kernels with start_ns or cpu_ops with start_ns); graphs (needs a table kernels with start_ns); idle-time (needs a table kernels with start_ns); launch-latency (needs a table kernels with start_ns); memory (needs a table memory_events); nvprof-rules (needs a table metrics with invocations); nvtx (needs a table nvtx); ops (needs a table cpu_ops); step-breakdown (needs a table events or steps or step_breakdown or runtime); stragglers (needs a table kernels with start_ns); suspicion (suspicion needs baseline and target inputs: perflab run suspicion --baseline FILE... --target FILE...); timeline (needs a table kernels with start_ns)
  perflab: wrote 38 files to DIR

  $ ls $CRAMTMP/all | head -3; ls $CRAMTMP/all/occupancy | grep svg
  advice
  launch
  ncu-rules
  occupancy_block_size.svg
  occupancy_registers.svg
  occupancy_smem_bytes.svg

  $ perflab run all examples/kernel-table.txt --format csv
  perflab: run all: --format csv prints one report's tables; use --output DIR or another format
  [2]

  $ perflab export chrome-trace tests/fixtures/hostile/plain_trace.json --window 0us:100us
  {"schemaVersion":1,"displayTimeUnit":"ns","baseTimeNanoseconds":1000000,"traceName":"tests/fixtures/hostile/plain_trace.json",
  "traceEvents":[
  {"ph":"M","name":"process_name","pid":10,"tid":0,"args":{"name":"CPU process 10"}},
  {"ph":"M","name":"process_sort_index","pid":10,"tid":0,"args":{"sort_index":10}},
  {"ph":"M","name":"thread_name","pid":10,"tid":11,"args":{"name":"thread 11"}},
  {"ph":"M","name":"process_name","pid":0,"tid":0,"args":{"name":"GPU 0"}},
  {"ph":"M","name":"process_sort_index","pid":0,"tid":0,"args":{"sort_index":5000000}},
  {"ph":"M","name":"thread_name","pid":0,"tid":7,"args":{"name":"stream 7"}},
  {"ph":"X","cat":"cpu_op","name":"aten::custom_a","pid":10,"tid":11,"ts":0.000,"dur":40.000,"args":{}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":10,"tid":11,"ts":5.000,"dur":10.000,"args":{"correlation":1}},
  {"ph":"X","cat":"cpu_op","name":"aten::custom_b","pid":10,"tid":11,"ts":100.000,"dur":40.000,"args":{}},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":10,"tid":11,"ts":0.000,"dur":520.000,"args":{}},
  {"ph":"X","cat":"kernel","name":"gemm_kernel","pid":0,"tid":7,"ts":20.000,"dur":40.000,"args":{"device":0,"stream":7,"correlation":1}},
  {"ph":"s","id":1,"pid":10,"tid":11,"ts":5.000,"cat":"ac2g","name":"ac2g"},
  {"ph":"f","id":1,"pid":0,"tid":7,"ts":20.000,"cat":"ac2g","name":"ac2g","bp":"e"}
  ]}

  $ perflab export chrome-trace tests/fixtures/hostile/plain_trace.json -o $CRAMTMP/t.json && perflab parse $CRAMTMP/t.json | grep -E '^  (kernels|runtime|cpu_ops) '
    kernels                        8 rows  name:string short_name:string start_ns:integer duration_ns:integer device:integer stream:integer context:integer correlation:integer external_id:integer grid_x:integer grid_y:integer grid_z:integer block_x:integer block_y:integer block_z:integer registers:integer smem_bytes:integer smem_static_bytes:integer smem_dynamic_bytes:integer warps_per_sm:number blocks_per_sm:number est_achieved_occupancy_pct:number cat:string
    cpu_ops                        8 rows  name:string start_ns:integer duration_ns:integer pid:string tid:string external_id:integer seq:integer fwd_tid:integer input_dims:string input_types:string input_strides:string concrete_inputs:string flops:number
    runtime                        8 rows  name:string start_ns:integer duration_ns:integer pid:string tid:string correlation:integer external_id:integer cbid:integer cat:string

  $ perflab export chrome-trace tests/fixtures/hostile/plain_trace.json --window 5ms
  perflab: --window: expected START:END (e.g. 2ms:5ms), found '5ms'
  [2]

  $ perflab export chrome-trace tests/fixtures/hostile/plain_trace.json --window 2x:3ms
  perflab: --window: expected a time like 2ms or 1500us for START, found '2x'
  [2]

  $ perflab export chrome-trace tests/fixtures/hostile/plain_trace.json --window 3ms:1ms
  perflab: --window: END (1ms) is before START (3ms)
  [2]

  $ perflab export chrome-trace examples/kernel-table.txt
  perflab: examples/kernel-table.txt (kernel-table) has no timed device or host events to export (it needs kernels with start_ns: a Kineto, nvprof GPU-trace, rocprof or nsys trace)
  [2]

Under --sandbox, `run all --output DIR` writes the page into DIR too:

  $ perflab run all examples/ncu-details.txt --sandbox --output $CRAMTMP/sbx >/dev/null 2>&1; ls $CRAMTMP/sbx | grep -c html
  1

`--set` goes to the recipes that have the option; one that none has is an error:

  $ perflab run all examples/ncu-details.txt --set nosuch=1
  perflab: run all: no recipe has the option nosuch
  [2]

  $ perflab run all examples/ncu-details.txt --set top=2 --format json 2>/dev/null | grep -c '"top": 2'
  1
