AMD inputs of issue 28: malformed shapes.  Each exits 2 with one located
error, prints nothing on stdout, and leaves the file as it was (same
SHA-256 and mtime; no journal or -wal file appears beside a database).
`check F CMD...` runs CMD, prints "untouched" when F's hash and mtime are
unchanged, then the folder's listing.

  $ printf 'check() { f=$1; shift; a=$(sha256sum "$f"; stat -c %%Y "$f"); "$@"; r=$?; [ "$a" = "$(sha256sum "$f"; stat -c %%Y "$f")" ] && echo untouched; ls; return $r; }\n' > $CRAMTMP/check.sh

A rocpd database cut short (the first 20,000 of 61,440 bytes):

  $ mkdir $CRAMTMP/a && head -c 20000 tests/fixtures/rocprof/rocpd_small.db > $CRAMTMP/a/cut_results.db && cd $CRAMTMP/a && . ../check.sh && check cut_results.db perflab parse cut_results.db
  perflab: cut_results.db: byte 20000: expected 61440 bytes (15 pages of 4096, from the database header), found 20000: the export is cut short (copy it again, or re-run rocprofv3 or rocprof)
  untouched
  cut_results.db
  [2]

rocprofv3 JSON without its buffer_records, and without its kernel_symbols:

  $ mkdir $CRAMTMP/b && cp tests/fixtures/rocprof/bad/rocprofv3_no_buffer_records.json tests/fixtures/rocprof/bad/rocprofv3_no_kernel_symbols.json $CRAMTMP/b/ && cd $CRAMTMP/b && . ../check.sh && check rocprofv3_no_buffer_records.json perflab run top-kernels rocprofv3_no_buffer_records.json
  perflab: rocprofv3_no_buffer_records.json:123:1: expected a buffer_records section (the traced dispatches, API calls and copies) in the rocprofiler-sdk-tool element ending here, found none: the file is cut or not rocprofv3's JSON
  untouched
  rocprofv3_no_buffer_records.json
  rocprofv3_no_kernel_symbols.json
  [2]

  $ cd $CRAMTMP/b && . ../check.sh && check rocprofv3_no_kernel_symbols.json perflab parse rocprofv3_no_kernel_symbols.json
  perflab: rocprofv3_no_kernel_symbols.json:95:6: expected kernel_symbols naming every dispatched kernel_id, found 3 of 3 dispatches without a symbol: the kernel_symbols section is missing
  untouched
  rocprofv3_no_buffer_records.json
  rocprofv3_no_kernel_symbols.json
  [2]

rocprofv3 JSON cut short:

  $ mkdir $CRAMTMP/c && head -c 3000 tests/fixtures/rocprof/rocprofv3_small.json > $CRAMTMP/c/cut.json && cd $CRAMTMP/c && . ../check.sh && check cut.json perflab parse cut.json
  perflab: cut.json:32:427: expected a JSON value, found end of file
  untouched
  cut.json
  [2]

A CSV with a 1.1 MB header line (100,003 columns) and a row that ends early:
detected on the whole first line, then refused with the row's place (a
3000-column header past the 64 KiB window that reads whole is in
tests/lua/test_rocm_formats.lua):

  $ mkdir $CRAMTMP/d && cd $CRAMTMP/d && { printf 'Dispatch_ID,GPU_ID,Kernel_Name'; seq -f ',SQ_C%06g' 0 99999 | tr -d '\n'; printf '\n0,2,k.kd,1,2,3\n'; } > long_header.csv && wc -c < long_header.csv && . ../check.sh && check long_header.csv perflab parse long_header.csv
  1100046
  perflab: long_header.csv:2:15: expected 100003 fields as in the header (line 1), found 6: the record ends early
  untouched
  long_header.csv
  [2]
