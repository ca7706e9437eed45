Multi-rank recipes on the command line: --jobs, and the map / merge split.
The figures themselves are checked in tests/lua/test_distributed.lua and
test_stragglers.lua; here the command lines, and that merging the per-rank
summaries written by separate --map processes gives the same JSON report,
byte for byte, as the direct run -- whatever order the folders come in.

Files parsed on several threads give the same report as on one:

  $ F=tests/fixtures/multirank/straggler; perflab run distributed $F/rank-*.json.gz --jobs 1 --format json > $CRAMTMP/j1.json && perflab run distributed $F/rank-*.json.gz --jobs 3 --format json > $CRAMTMP/j3.json && cmp $CRAMTMP/j1.json $CRAMTMP/j3.json && echo same
  same

  $ perflab run top-kernels examples/kernel-table.txt --jobs 0
  perflab: --jobs expects a whole number >= 1, got '0'
  [2]

--timeout still holds while files are parsed on several threads:

  $ perflab --timeout 0.001 run distributed tests/fixtures/multirank/straggler/rank-*.json.gz --jobs 2
  perflab: time limit exceeded (--timeout 0.001 s)
  [2]

The map step: one process per rank, each writes its summary folder:

  $ F=tests/fixtures/multirank/straggler; for r in 0 1 2 3; do perflab run distributed --map $F/rank-$r.json.gz --output $CRAMTMP/map-$r 2>/dev/null || echo fail; done; ls $CRAMTMP/map-2
  collectives.csv
  hta.csv
  manifest.json
  ranges.csv
  steps.csv

  $ perflab run distributed --merge $CRAMTMP/map-3 $CRAMTMP/map-0 $CRAMTMP/map-2 $CRAMTMP/map-1 --format json > $CRAMTMP/merged.json && perflab run distributed tests/fixtures/multirank/straggler/rank-*.json.gz --format json > $CRAMTMP/direct.json && cmp $CRAMTMP/merged.json $CRAMTMP/direct.json && echo same
  same

The same for stragglers, and for the tb-plugin's Gloo-on-CPU pair (no rank
in the files: ranked by the order of the folders, as of the files; notes
travel in the manifest):

  $ F=tests/fixtures/multirank/straggler; for r in 0 1 2 3; do perflab run stragglers --map $F/rank-$r.json.gz --output $CRAMTMP/s-$r 2>/dev/null; done; perflab run stragglers --merge $CRAMTMP/s-0 $CRAMTMP/s-1 $CRAMTMP/s-2 $CRAMTMP/s-3 --format json > $CRAMTMP/sm.json && perflab run stragglers $F/rank-*.json.gz --format json > $CRAMTMP/sd.json && cmp $CRAMTMP/sm.json $CRAMTMP/sd.json && echo same
  same

  $ G=tests/data/corpus/kineto_multirank/tbplugin_distributed_test_inline/gloo_cpu; perflab run distributed --map $G/worker0.json --output $CRAMTMP/g0 2>/dev/null && perflab run distributed --map $G/worker1.json --output $CRAMTMP/g1 2>/dev/null && perflab run distributed --merge $CRAMTMP/g0 $CRAMTMP/g1 --format json > $CRAMTMP/gm.json && perflab run distributed $G/worker0.json $G/worker1.json --format json > $CRAMTMP/gd.json && cmp $CRAMTMP/gm.json $CRAMTMP/gd.json && echo same
  same

Bad input:

  $ perflab run distributed --map tests/fixtures/multirank/straggler/rank-0.json.gz
  perflab: --map FILE needs --output DIR (where the summary goes)
  [2]

  $ perflab run distributed --merge $CRAMTMP/nothing-here 2>&1 | sed "s|$CRAMTMP|TMP|g"; perflab run distributed --merge $CRAMTMP/nothing-here 2>/dev/null; echo "exit $?"
  perflab: --merge: cannot read TMP/nothing-here/manifest.json (TMP/nothing-here/manifest.json: No such file or directory): not a folder written by --map?
  exit 2

  $ perflab run stragglers --merge $CRAMTMP/map-0 2>&1 | sed "s|$CRAMTMP|TMP|g"
  perflab: TMP/map-0/manifest.json: written by the map step of recipe 'distributed', not 'stragglers'

  $ perflab run stragglers --merge $CRAMTMP/s-0 $CRAMTMP/s-1 --set include_last=true 2>&1 | sed "s|$CRAMTMP|TMP|g"
  perflab: TMP/s-0 was mapped with --set include_last=false, and the merge has include_last=true: give the map and the merge the same include_last

  $ perflab run top-kernels --map examples/kernel-table.txt --output $CRAMTMP/tk
  perflab: recipe 'top-kernels' has no map/merge steps (--map, --merge)
  [2]

  $ D=tests/data/corpus/kineto_multirank/hta_trace_diff; perflab run distributed $D/control/control.json.gz $D/test/test.json.gz
  perflab: ranks of different jobs: tests/data/corpus/kineto_multirank/hta_trace_diff/control/control.json.gz says world size 8, tests/data/corpus/kineto_multirank/hta_trace_diff/test/test.json.gz says 2
  [2]
