Field inputs of issue 28: each input is a small hand-made file in
tests/data/field3 (its README says what each imitates).

Binary reports are named by their first bytes, not their extension, with
the command that exports what perflab reads (point 3):

  $ perflab parse tests/data/field3/ncu_report_noext
  perflab: tests/data/field3/ncu_report_noext: byte 0: expected a profile perflab reads, found an Nsight Compute report (.ncu-rep, its own binary format, magic NVR\0): run `ncu --import FILE --page details --csv > FILE.csv` (or `--page raw --csv`, or without --csv for the text page) and pass what it writes
  [2]

  $ perflab run top-kernels tests/data/field3/nsys_report_noext
  perflab: tests/data/field3/nsys_report_noext: byte 0: expected a profile perflab reads, found an Nsight Systems report (.nsys-rep/.qdrep, its own binary format): run `nsys export --type sqlite FILE` (or `nsys stats FILE`) and pass what it writes
  [2]

  $ perflab parse tests/data/field3/xspace_noext
  perflab: tests/data/field3/xspace_noext: byte 0: expected a profile perflab reads, found an XPlane protobuf (*.xplane.pb, the TensorFlow/JAX profiler's XSpace), which perflab does not read: open it with TensorBoard's profile plugin or XProf (`xprof --logdir DIR`), whose trace viewer shows its timeline
  [2]

Named with --input-format, the file is read as that format (and fails as it would):

  $ perflab parse tests/data/field3/ncu_report_noext --input-format csv >/dev/null 2>&1
  [2]

Messages (point 13): ncu-rules on a lone generic CSV says what it needs (it
said "... and timeline FILE (csv) has: csv"), and every "needs" message
names the export that gives the missing table:

  $ perflab run ncu-rules tests/fixtures/csv/no_kernels.csv
  perflab: recipe 'ncu-rules' needs an Nsight Compute report (per-launch kernels with their metrics: `ncu --import R.ncu-rep --page details --csv`, or ncu's text log), and none of the inputs is one: tests/fixtures/csv/no_kernels.csv (csv) has: csv
  [2]

  $ perflab run idle-time examples/kernel-table.txt 2>&1 | grep -o 'kernels with start times come from a timeline: `nsys export --type sqlite R.nsys-rep`'
  kernels with start times come from a timeline: `nsys export --type sqlite R.nsys-rep`

A Chrome trace of unknown origin (point 8: an eBPF CUDA monitor writes no
"cat" and no "schemaVersion") is named so, not "PyTorch Profiler (Kineto)",
and its cu*/cuda*/hip* API calls are runtime calls (5 of 7 events;
main_loop and cuda_helper are not API names):

  $ perflab parse tests/data/field3/ebpf_cuda_driver_chrome.json | grep -E 'tool|runtime  |read as'
    tool             Chrome-trace JSON (origin unknown)
    runtime                        5 rows  name:string start_ns:integer duration_ns:integer pid:string tid:string correlation:integer external_id:integer cbid:integer cat:string
    line 0: 5 events without a runtime category read as runtime calls by their API name (cu*, cuda*, hip*)

  $ perflab -e 'for _, r in perflab.load("tests/data/field3/ebpf_cuda_driver_chrome.json"):table("runtime"):rows() do print(r.name, r.start_ns, r.duration_ns) end'
  cuMemAlloc_v2	1000500	210250
  cuMemAlloc_v2	1300000	190000
  cuMemcpyHtoD_v2	1600000	55500
  cuLaunchKernel	1700000	8000
  hipDeviceSynchronize	1720000	4000

Device work under another vendor's categories (point 7: MTIA writes
mtia_ccp_events and mtia_runtime) is read as kernels, the device being the
process that holds them (pid 17), and step-breakdown counts it as Kernel:
step 1000-2000 us, device events 1100-1600 and 1650-1850 us = 700 us;
runtime 30 + 20 + 50 + 130 = 230 us outside them; aten::linear 10 + 20 us;
the other 40 us:

  $ perflab -e 'for _, r in perflab.load("tests/data/field3/mtia_vendor_categories.json"):table("kernels"):rows() do print(r.name, r.device, r.start_ns, r.duration_ns) end'
  pe_exe	17	1100000	500000
  pe_exe	17	1650000	200000

  $ perflab run step-breakdown tests/data/field3/mtia_vendor_categories.json | sed -n '6p;10p'
     0     700000          0          0                 0      230000              0        30000     40000   1000000
     0   1000000

Mixed GPUs in one host (point 9): the devices table lists an A40 (id 0)
first and an A100 (id 1).  Roofline takes the model from the kernels'
device: A100 when every kernel ran on device 1 (it said A40), and no
single roofline when they span both models:

  $ perflab run roofline tests/data/field3/mixed_gpus_one_used.json | grep -o 'GPU: .*'
  GPU: NVIDIA A100 PCIe 40GB

  $ perflab run roofline tests/data/field3/mixed_gpus_both_used.json | grep -E 'GPU: |GPU models'
    utilisation columns); GPU: unknown (pass --gpu for peaks)
  the kernels ran on 2 GPU models (NVIDIA A100-PCIE-40GB, NVIDIA A40): one roofline cannot hold their peaks, so none is

nsys expert-rule output (point 4): prose sections and tables preceded by
text no longer fail the file; rule tables are tables (numbers read), prose
paragraphs are rows of rule_findings, and a file cut short inside its last
rule section gets a diagnostic, not exit 2:

  $ perflab parse tests/data/field3/nsys_analyze_rules_cut.txt | grep -E 'rows|line 2' | cut -c1-60
    cuda_memcpy_sync               2 rows  duration_ns:number 
    rule_findings                  3 rows  rule:string title:s
    line 22: SKIPPED: report2.sqlite could not be analyzed bec
    line 24: the input ends in the rule section that begins he

  $ perflab -e 'for _, r in perflab.load("tests/data/field3/nsys_analyze_rules_cut.txt"):table("rule_findings"):rows() do print(r.rule, r.line, r.text) end'
  cuda_memcpy_async	5	There were no problems detected related to memcpy operations using pageable memory.
  cuda_memcpy_sync	12	The following are synchronous memory transfers that block the host.
  cuda_memcpy_sync	14	Suggestion: Use cudaMemcpy*Async() APIs instead.

  $ perflab -e 'for _, r in perflab.load("tests/data/field3/nsys_analyze_rules_cut.txt"):table("cuda_memcpy_sync"):rows() do print(r.duration_ns, r.start_ns, r.bytes_mb, r.api_name) end'
  1500000.0	2000000.0	12.5	cudaMemcpy_v3020
  750000.0	9000000.0	12.5	cudaMemcpy_v3020

advice shows the rules' prose as findings ("no problems" as info):

  $ perflab run advice tests/data/field3/nsys_analyze_rules_cut.txt | grep -E '^  \['
    [opt]   cuda_memcpy_sync: The following are synchronous memory transfers that block the host.
    [opt]   cuda_memcpy_sync: Suggestion: Use cudaMemcpy*Async() APIs instead.
    [info]  cuda_memcpy_async: There were no problems detected related to memcpy operations using pageable memory.


Device work under a category perflab has no reader for (point 7, second
half): a vendor "NPU 0" process holding npu_exec_events (600 + 150 us) and
npu_dma (40 us).  parse names each category with its count and time; the
device-side recipes refuse the input instead of calling the step host-bound;
where some device work was read (npu_kernel), they note what they leave out:

  $ perflab parse tests/data/field3/npu_unread_device_work.json | grep -E '^  unread|device work' | cut -c1-98
    unread_device_categories npu_exec_events (2 events), npu_dma (1 event)
    unread_device_events 3
    line 0: device work not read: 2 events (0.750 ms) of category "npu_exec_events" on device proces
    line 0: device work not read: 1 event (0.040 ms) of category "npu_dma" on device process 0: perf

  $ perflab run step-breakdown tests/data/field3/npu_unread_device_work.json
  perflab: recipe 'step-breakdown' reads device work, and tests/data/field3/npu_unread_device_work.json (kineto) has none that perflab reads: its 3 device events are of categories it has no reader for (npu_exec_events (2 events), npu_dma (1 event)), so a verdict would rest on the host side alone (perflab parse tests/data/field3/npu_unread_device_work.json lists them)
  [2]

  $ perflab run idle-time tests/data/field3/npu_unread_device_work.json 2>&1 | cut -c1-60
  perflab: recipe 'idle-time' reads device work, and tests/dat

  $ perflab run top-kernels tests/data/field3/npu_partly_read.json | grep -E -A1 'perflab does not read|^gemm'
  gemm        1    300000   300000  300000  300000        100
  
  tests/data/field3/npu_partly_read.json (kineto): 2 device events of categories perflab does not read (npu_dma (2
    events)) are left out of the device time here

Process and thread names are read into processes and threads:

  $ perflab -e 'local p = perflab.load("tests/data/field3/npu_unread_device_work.json"); for _, r in p:table("processes"):rows() do print(r.pid, r.name) end; for _, r in p:table("threads"):rows() do print(r.pid, r.tid, r.name) end'
  0	NPU 0
  900	python3
  0	7	Queue 7
