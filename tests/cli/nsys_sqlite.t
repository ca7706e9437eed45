nsys-sqlite: bad inputs.  Each exits 2 with one clear error, prints nothing
on stdout, and leaves the file as it was (same SHA-256 and mtime; no journal,
lock or -wal file appears beside it: perflab opens exports read-only and
immutable).  `check F CMD...` (in $CRAMTMP/check.sh) runs CMD in a folder of
its own, prints "untouched" when F's hash and mtime are unchanged, then the
folder's listing.

  $ printf 'check() { f=$1; shift; a=$(sha256sum "$f"; stat -c %%Y "$f"); "$@"; r=$?; [ "$a" = "$(sha256sum "$f"; stat -c %%Y "$f")" ] && echo untouched; ls; return $r; }\n' > $CRAMTMP/check.sh

Another program's SQLite database:

  $ mkdir $CRAMTMP/a && cp tests/fixtures/nsys_sqlite/other_program.sqlite $CRAMTMP/a/places.sqlite && cd $CRAMTMP/a && . ../check.sh && check places.sqlite perflab parse places.sqlite
  perflab: places.sqlite: byte 0: expected an Nsight Systems export (tables StringIds, CUPTI_ACTIVITY_KIND_*, NVTX_EVENTS, TARGET_INFO_GPU), found a SQLite database of another program (tables: moz_bookmarks, moz_places)
  untouched
  places.sqlite
  [2]

An export cut short (the first 100,000 of 266,240 bytes):

  $ mkdir $CRAMTMP/b && head -c 100000 ${PERFLAB_DATA:-tests/data}/corpus/nsys_sqlite/extrap_gtx1060_nsys2022.1.1_con_kernel.sqlite > $CRAMTMP/b/cut.sqlite && cd $CRAMTMP/b && . ../check.sh && check cut.sqlite perflab parse cut.sqlite
  perflab: cut.sqlite: byte 100000: expected 266240 bytes (65 pages of 4096, from the database header), found 100000: the export is cut short (copy it again, or re-run `nsys export --type sqlite`)
  untouched
  cut.sqlite
  [2]

An export whose page 48 (the root page of CUPTI_ACTIVITY_KIND_KERNEL) was
overwritten:

  $ mkdir $CRAMTMP/c && cp ${PERFLAB_DATA:-tests/data}/corpus/nsys_sqlite/extrap_gtx1060_nsys2022.1.1_con_kernel.sqlite $CRAMTMP/c/damaged.sqlite && chmod u+w $CRAMTMP/c/damaged.sqlite && printf 'GARBAGE%.0s' $(seq 1 585) | dd of=$CRAMTMP/c/damaged.sqlite bs=4096 seek=47 conv=notrunc 2>/dev/null && cd $CRAMTMP/c && . ../check.sh && check damaged.sqlite perflab run top-kernels damaged.sqlite
  perflab: damaged.sqlite: byte 192512: expected an intact SQLite database, found a damaged or cut one (SQLite: database disk image is malformed, reading CUPTI_ACTIVITY_KIND_KERNEL); export the report again with `nsys export --type sqlite`
  untouched
  damaged.sqlite
  [2]

A .nsys-rep report (nsys' own format; the message names the export command):

  $ mkdir $CRAMTMP/d && printf 'QDSTRMv1\000\001\002\003 nsys report' > $CRAMTMP/d/run.nsys-rep && cd $CRAMTMP/d && . ../check.sh && check run.nsys-rep perflab parse run.nsys-rep
  perflab: run.nsys-rep: byte 0: expected an Nsight Systems SQLite export, found an .nsys-rep report (its own binary format): run `nsys export --type sqlite FILE.nsys-rep` and pass the .sqlite it writes
  untouched
  run.nsys-rep
  [2]

An export with a write-ahead log beside it (another program has it open):

  $ mkdir $CRAMTMP/e && cp ${PERFLAB_DATA:-tests/data}/corpus/nsys_sqlite/extrap_gtx1060_nsys2022.1.1_con_kernel.sqlite $CRAMTMP/e/open.sqlite && : > $CRAMTMP/e/open.sqlite-wal && cd $CRAMTMP/e && . ../check.sh && check open.sqlite perflab parse open.sqlite
  perflab: open.sqlite: byte 0: expected a closed SQLite database, found open.sqlite-wal beside it: another program has it open or did not close it, so the file alone may lack changes; close that program (the last one to close the database writes the log into it) and try again
  untouched
  open.sqlite
  open.sqlite-wal
  [2]

A good export read the same way leaves nothing beside it either:

  $ mkdir $CRAMTMP/f && cp ${PERFLAB_DATA:-tests/data}/corpus/nsys_sqlite/extrap_gtx1060_nsys2022.1.1_con_kernel.sqlite $CRAMTMP/f/good.sqlite && cd $CRAMTMP/f && . ../check.sh && check good.sqlite perflab parse good.sqlite --table kernels --format csv --max-rows 1 | cut -d, -f1-6
  name,short_name,mangled_name,start_ns,end_ns,duration_ns
  "test0(double *, unsigned long long, unsigned long long)",test0,_Z5test0Pdyy,529596644
  untouched
  good.sqlite

An export without CUDA data loads (nsys' own warnings listed), and a recipe
that needs kernels says which table is missing:

  $ perflab parse ${PERFLAB_DATA:-tests/data}/corpus/nsys_sqlite/jacc_a100pcie_nsys2026.1.1_report1_no_cuda_events.sqlite --table diagnostics --format csv
  line,message
  0,nsys warning: Not all NVTX events might have been collected.
  0,nsys warning: No NVTX events collected. Does the process use NVTX?
  0,nsys warning: CUDA profiling might have not been started correctly.
  0,nsys warning: No CUDA events collected. Does the process use CUDA?
  0,"no CUPTI_ACTIVITY_KIND_KERNEL table: the capture holds no CUDA kernels (CUDA trace off, or no kernel ran): no kernels table"
  0,no CUPTI_ACTIVITY_KIND_RUNTIME table: no CUDA API calls traced: no runtime table
  0,no NVTX_EVENTS table: the program has no NVTX annotations (or NVTX trace was off): no nvtx table

  $ perflab run launch tests/data/corpus/nsys_sqlite/jacc_a100pcie_nsys2026.1.1_report1_no_cuda_events.sqlite
  perflab: recipe 'launch' needs a table kernels, and tests/data/corpus/nsys_sqlite/jacc_a100pcie_nsys2026.1.1_report1_no_cuda_events.sqlite (nsys-sqlite) has none of them (perflab parse tests/data/corpus/nsys_sqlite/jacc_a100pcie_nsys2026.1.1_report1_no_cuda_events.sqlite lists its tables); kernels come from an Nsight Compute report (`ncu --import R.ncu-rep --page details --csv`, or its text log), an Nsight Systems export (`nsys export --type sqlite`), a PyTorch profiler/Kineto trace (`prof.export_chrome_trace`), `nvprof --print-gpu-trace` or a rocprof kernel trace
  [2]

