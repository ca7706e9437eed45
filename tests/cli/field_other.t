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

