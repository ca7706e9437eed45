The same input gives a byte-identical report in every process: Lua 5.4
seeds its string hash per process, so anything emitted in `pairs` order
(notes, ties of an unstable sort, sums over a hash table) can change from
run to run.  The Kineto fixture has a GEMM op placed by input shapes and a
convolution with the trace's flops argument, so roofline writes two "FLOPs
and bytes from" notes (before the fix 2 of 8 runs gave the other order).
Each recipe runs 8 times; one distinct checksum each.

  $ for i in 1 2 3 4 5 6 7 8; do perflab run roofline tests/fixtures/kineto/overlapping_ops.json --format json | md5sum; done | sort -u | wc -l
  1
  $ perflab run roofline tests/fixtures/kineto/overlapping_ops.json | grep "FLOPs and bytes from"
  FLOPs and bytes from Kineto input shapes (GEMM 2*M*N*K)
  FLOPs and bytes from Kineto operator shapes and dtypes (perflab.ops)
  FLOPs and bytes from Kineto the trace's flops argument
  $ for r in occupancy launch ncu-rules advice; do for i in 1 2 3 4 5 6; do perflab run $r tests/data/corpus/ncu_text/gpumode_lecture001_ncu_logs_cc80.txt --format json | md5sum; done | sort -u | wc -l; done
  1
  1
  1
  1
  $ for r in step-breakdown idle-time launch-latency roofline occupancy advice; do for i in 1 2 3 4 5 6; do perflab run $r tests/data/corpus/kineto_trace/hta_a100_alexnet_trace.json.gz --format json | md5sum; done | sort -u | wc -l; done
  1
  1
  1
  1
  1
  1
  $ for i in 1 2 3 4 5 6; do perflab run suspicion --baseline tests/fixtures/suspicion/normal_1.pt.trace.json.gz --target tests/fixtures/suspicion/abnormal_1.pt.trace.json.gz --format json | md5sum; done | sort -u | wc -l
  1
