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

