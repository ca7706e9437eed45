Held-out classes, round five: each input is a small hand-made file in
tests/data/field5 (its README says what each imitates).

Long kernel names.  A finding whose message opens with a 229-character
kernel name shows the name as the summary and tables do (names.display: at
most 80 characters, cut with …); --full-names keeps it.  top-kernels says
its kernel by the same display name, so the summary does not print the
name twice.  The occupancy figures: 256 threads x 128 registers = 32768
registers per block, 2 blocks per SM, 16 of 64 warps = 25 %:

  $ perflab report tests/data/field5/kineto_60_launches_long_name.json 2>/dev/null | sed -n '/^  1\./,/^  2\./p' | grep -v '^  2\.'
    1. 3.6 ms per step (59 % of the step) [warn]
       Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB1_APM1_ABV0_ACED0_AF0EM1…: theoretical occupancy 25 % (16 of
       64 warps per SM) is limited by registers; at <= 80 registers per thread, 3 blocks fit per SM: 37.5 % (see
       occupancy, top-kernels)
       estimate: kernel time x est. speedup / 100 (the largest estimate of its findings: they overlap, not added)
       - occupancy.limiter (3.6 ms): Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB1_APM1_ABV0_ACED0_AF0EM1…:
         theoretical occupancy 25 % (16 of 64 warps per SM) is limited by registers;…
       - top-kernels.dominant: Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB1_APM1_ABV0_ACED0_AF0EM1… takes
         100.0 % of kernel time (4.8 ms over 60 calls)

  $ perflab report tests/data/field5/kineto_60_launches_long_name.json --full-names 2>/dev/null | sed -n '/^  1\./,/^  2\./p' | grep -c 'LBSPP128_LPA0_LPB8:$'
  1

Per-launch tables in perflab report show 50 rows each, then say how many
more there are and where every one is (60 launches: 10 more); --max-rows
sets the count (0: all), and a single recipe's run shows every row:

  $ perflab report tests/data/field5/kineto_60_launches_long_name.json 2>/dev/null | grep 'more rows'
  … 10 more rows (60 in all: --max-rows 0 prints every one; --output DIR and --format json have them)
  … 10 more rows (60 in all: --max-rows 0 prints every one; --output DIR and --format json have them)

  $ perflab report tests/data/field5/kineto_60_launches_long_name.json --max-rows 55 2>/dev/null | grep 'more rows'
  … 5 more rows (60 in all: --max-rows 0 prints every one; --output DIR and --format json have them)
  … 5 more rows (60 in all: --max-rows 0 prints every one; --output DIR and --format json have them)

  $ perflab report tests/data/field5/kineto_60_launches_long_name.json --max-rows 0 2>/dev/null | grep -c 'more rows'
  0
  [1]

  $ perflab run launch tests/data/field5/kineto_60_launches_long_name.json | grep -c 'more rows'
  0
  [1]

  $ perflab report tests/data/field5/kineto_60_launches_long_name.json --max-rows -1
  perflab: --max-rows needs a whole number >= 0 (0: every row), found -1
  [2]

Copies in the distributed accounting.  Each rank's step is 1000 us; the
copies and sets that neither computation nor communication overlaps are
the memcpy part of "other": rank 0: 600 + (100 - 50) = 650 us of its
other 1000 - 200 = 800 us (idle 150 us); rank 1: 400 us of 600 us (idle
200 us).  The summary's bar said all of it was idle:

  $ perflab run distributed tests/data/field5/kineto_rank0_copies.json tests/data/field5/kineto_rank1_copies.json --format csv --table ranks | cut -d, -f1,5,8,9
  rank,computation_ns,other_ns,memcpy_ns
  0,200000,800000,650000
  1,400000,600000,400000

Streams of one device that wait at the same time.  Streams 7 and 8 are
both idle 1100-1900 us, waiting on the host; the GPU was idle those 800
us once, so the savings add up to 800 us, not 1600 us (154 % of the 1040
us step).  The stream with the larger saving (7; a tie goes to the first)
counts it; stream 8 says its wait is the same idle time:

  $ perflab run idle-time tests/data/field5/kineto_two_streams_idle_together.json --format json | grep -E '"(saved_ns|shared_with_stream)"'
        "saved_ns": 800000,
          "shared_with_stream": 7,

  $ perflab run idle-time tests/data/field5/kineto_two_streams_idle_together.json | grep -A1 'already counted'
      loading); 800 µs of the saving is device idle time already counted under stream 7 (the device was idle once for
      both)

The advice says who waited.  Where other streams ran during most of a
stream's idle time (field4's trace: stream 8 ran 600 of stream 7's 800 us),
it was the stream that waited, not the GPU, and the GPU was idle 200 us:

  $ perflab run idle-time tests/data/field4/kineto_two_streams_one_busy.json | grep -A3 '^  \[info\]'
    [info] device 0 stream 7 is idle 80.0 % of its span (800 µs of 1 ms) (other streams of the device ran during 75 % of
      it); 100 % of that is host wait: the stream waited for the host to enqueue work, but the device ran other streams
      during most of that time and was idle only 200 µs of it: feeding this stream sooner gains at most that; reduce host
      overhead per launch (CUDA graphs, torch.compile, fewer small ops, faster data loading)

Several speedups on one kernel with no timeline to size them (an Nsight
Compute report alone: its durations are of replayed launches).  The
summary said "est. speedup N % of its kernel, but no timeline ..." once per
finding, and "the finding carries no speedup estimate" beside them; now one
line with the range.  The four findings of this ncu log on stencil_kernel:
theoretical occupancy 50 % (speedup 100 - 50 = 50 %, twice: ncu's rule and
occupancy's) and achieved 33.1 % of theoretical 50 % (16.9 / 50 = 33.8 %,
twice):

  $ perflab report tests/fixtures/ncu/occupancy_merged_paragraph_2022.txt 2>/dev/null | grep -A1 'no estimate: est'
       no estimate: est. speedup 33.8-50 % of its kernel (4 findings), but no timeline among the inputs says how long the
       kernel runs

A folder given as input stands for the files in it: the ranks of a job
handed over as their folder (it was "is a directory, expected a profile
file", exit 2).  The two ranks above, copied into a folder:

  $ mkdir "$CRAMTMP/ranks" && cp tests/data/field5/kineto_rank0_copies.json tests/data/field5/kineto_rank1_copies.json "$CRAMTMP/ranks/" && perflab run distributed "$CRAMTMP/ranks" --format csv --table ranks | cut -d, -f1,5,9
  rank,computation_ns,memcpy_ns
  0,200000,650000
  1,400000,400000

  $ mkdir "$CRAMTMP/empty" && (perflab report "$CRAMTMP/empty"; echo "exit $?") 2>&1 | sed "s|$CRAMTMP|TMP|"
  perflab: TMP/empty: a folder with no files in it (a folder given as input stands for the files in it, not its subfolders)
  exit 2

The basis of a summary that lists part of what the input records.  The
key_averages table cut by row_limit (field4) lists 6 + 4 = 10 ms of
kernel time; its footer records 100 ms of self CUDA time.  The ranking's
basis line said "% of the run's kernel time (10 ms)" while the finding
said 6 % of 100 ms; it now names the recorded total and the listed part:

  $ perflab report tests/data/field4/torch_table_cut_by_row_limit.txt 2>/dev/null | grep -A1 '^  ranked by'
    ranked by estimated time saved per run; no steps recorded: savings are per run, % of the 100 ms of device time the
    input records (its tables list 10 ms of kernel time: an excerpt, so a saving's share is of the whole, not of the list)

A summary that lists all it records keeps the listed kernel time (nvprof,
6 + 2 ms of copies and 2 ms of kernels: the basis is the 2 ms):

  $ perflab report tests/data/field4/nvprof_summary_memcpy_bound.txt 2>/dev/null | grep '^  ranked by'
    ranked by estimated time saved per run; no steps recorded: savings are per run, % of the run's kernel time (2 ms)

A stream whose ops were launched in time but started late while other
streams ran the whole gap: the device was busy, not idle (stream 7 idle
800 us, stream 8 running through all of it), so the advice says it queued
behind their work and claims no saving:

  $ perflab run idle-time tests/data/field5/kineto_stream_queued_behind_other.json | grep -A3 '^  \[info\]'
    [info] device 0 stream 7 is idle 80.0 % of its span (800 µs of 1 ms) (other streams of the device ran during 100 % of
      it); 100 % of that is other: ops were launched in time but waited while other streams of the device ran: the device
      was busy, not idle; the stream queued behind their work (a dependency on another stream, or no room on the GPU
      beside them)

