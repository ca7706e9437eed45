perflab run top-kernels on the seed profile (examples/kernel-table.txt):
85 kernels, 13065 launches, 306573856 ns.  The figures are checked against
an independent computation in tests/lua/test_top_kernels.lua; here the
exact text of each output format.

  $ perflab run top-kernels examples/kernel-table.txt --set top=3
  top-kernels · examples/kernel-table.txt (kernel-table)
  
  Findings (1)
    [info]  elementwise_kernel takes 18.3 % of kernel time (56.06 ms over 3185 calls)
            rule top-kernels.dominant: calls=3185 kernel_time_ns=306573856 share_pct=18.29
              source=examples/kernel-table.txt total_ns=56058272
  
  top_kernels — 85 kernels, 13065 launches, 306.6 ms of kernel time (top 3 shown)
  kernel                         calls  total_ns  mean_ns  min_ns  max_ns  share_pct  tensor_util  dram_util
  -----------------------------  -----  --------  -------  ------  ------  ---------  -----------  ---------
  elementwise_kernel              3185  56058272  17600.7    5120  255488    18.2854    0.0238878   0.226779
  Kernel                           944  46240224  48983.3    7200  594752    15.0829     0.199817   0.147881
  vectorized_elementwise_kernel   4002  33716352  8424.88    3488  147680    10.9978   0.00475988   0.288134
  
  tensor_util and dram_util are fractions 0-1 as the input gives them, weighted by kernel time.
  
  figure top_kernels.svg: time share per kernel (top_kernels) (2278 bytes of SVG; --output DIR writes it)

  $ perflab run top-kernels examples/kernel-table.txt --set top=3 --format markdown
  ## top-kernels
  
  Inputs: `examples/kernel-table.txt` (kernel-table)
  
  ### Findings
  
  - **info** `elementwise_kernel` takes 18.3 % of kernel time (56.06 ms over 3185 calls) — rule `top-kernels.dominant`: calls=3185  kernel_time_ns=306573856  share_pct=18.29  source=examples/kernel-table.txt  total_ns=56058272
  
  ### top_kernels — 85 kernels, 13065 launches, 306.6 ms of kernel time (top 3 shown)
  
  | kernel                          | calls | total_ns | mean_ns | min_ns | max_ns | share_pct | tensor_util | dram_util |
  | ------------------------------- | ----: | -------: | ------: | -----: | -----: | --------: | ----------: | --------: |
  | `elementwise_kernel`            |  3185 | 56058272 | 17600.7 |   5120 | 255488 |   18.2854 |   0.0238878 |  0.226779 |
  | `Kernel`                        |   944 | 46240224 | 48983.3 |   7200 | 594752 |   15.0829 |    0.199817 |  0.147881 |
  | `vectorized_elementwise_kernel` |  4002 | 33716352 | 8424.88 |   3488 | 147680 |   10.9978 |  0.00475988 |  0.288134 |
  
  tensor_util and dram_util are fractions 0-1 as the input gives them, weighted by kernel time.

  $ perflab run top-kernels examples/kernel-table.txt --set top=3 --format md | head -1
  ## top-kernels

  $ perflab run top-kernels examples/kernel-table.txt --set top=3 --format json
  {
    "figures": {
      "top_kernels.svg": {
        "bytes": 2278,
        "title": "time share per kernel (top_kernels)"
      }
    },
    "findings": [
      {
        "evidence": {
          "calls": 3185,
          "kernel_time_ns": 306573856,
          "share_pct": 18.28540526299803,
          "source": "examples/kernel-table.txt",
          "total_ns": 56058272
        },
        "message": "elementwise_kernel takes 18.3 % of kernel time (56.06 ms over 3185 calls)",
        "name": "elementwise_kernel",
        "rule": "top-kernels.dominant",
        "severity": "info",
        "subject": "elementwise_kernel"
      }
    ],
    "inputs": [
      {
        "format": "kernel-table",
        "source": "examples/kernel-table.txt"
      }
    ],
    "notes": [],
    "options": {
      "group": "name",
      "top": 3
    },
    "recipe": "top-kernels",
    "schema": 1,
    "tables": {
      "top_kernels": [
        {"kernel":"elementwise_kernel", "calls":3185, "total_ns":56058272, "mean_ns":17600.71334379905, "min_ns":5120, "max_ns":255488, "share_pct":18.28540526299803, "tensor_util":0.02388781159718944, "dram_util":0.2267787804804258},
        {"kernel":"Kernel", "calls":944, "total_ns":46240224, "mean_ns":48983.288135593226, "min_ns":7200, "max_ns":594752, "share_pct":15.082898653954366, "tensor_util":0.19981652684035442, "dram_util":0.14788085455641392},
        {"kernel":"vectorized_elementwise_kernel", "calls":4002, "total_ns":33716352, "mean_ns":8424.875562218906, "min_ns":3488, "max_ns":147680, "share_pct":10.997791018422653, "tensor_util":0.004759879123340509, "dram_util":0.28813421333363703}
      ]
    }
  }

  $ perflab run top-kernels examples/kernel-table.txt --set top=3 --format csv
  # table: top_kernels
  kernel,calls,total_ns,mean_ns,min_ns,max_ns,share_pct,tensor_util,dram_util
  elementwise_kernel,3185,56058272,17600.71334379905,5120,255488,18.28540526299803,0.02388781159718944,0.2267787804804258
  Kernel,944,46240224,48983.288135593226,7200,594752,15.082898653954366,0.19981652684035442,0.14788085455641392
  vectorized_elementwise_kernel,4002,33716352,8424.875562218906,3488,147680,10.997791018422653,0.004759879123340509,0.28813421333363703
  
  # table: findings
  severity,rule,subject,message,speedup_pct,evidence,name
  info,top-kernels.dominant,elementwise_kernel,elementwise_kernel takes 18.3 % of kernel time (56.06 ms over 3185 calls),,calls=3185  kernel_time_ns=306573856  share_pct=18.29  source=examples/kernel-table.txt  total_ns=56058272,elementwise_kernel

  $ perflab run top-kernels examples/kernel-table.txt --set top=3 --format csv --table top_kernels
  kernel,calls,total_ns,mean_ns,min_ns,max_ns,share_pct,tensor_util,dram_util
  elementwise_kernel,3185,56058272,17600.71334379905,5120,255488,18.28540526299803,0.02388781159718944,0.2267787804804258
  Kernel,944,46240224,48983.288135593226,7200,594752,15.082898653954366,0.19981652684035442,0.14788085455641392
  vectorized_elementwise_kernel,4002,33716352,8424.875562218906,3488,147680,10.997791018422653,0.004759879123340509,0.28813421333363703

  $ perflab run top-kernels examples/kernel-table.txt --set top=2 --set group=short_name --format csv --table top_kernels
  kernel,calls,total_ns,mean_ns,min_ns,max_ns,share_pct,tensor_util,dram_util
  Kernel,1181,75205920,63679.864521591946,7008,1868160,24.531093740752635,0.3452188827688033,0.11411463352884986
  elementwise_kernel,3185,56058272,17600.71334379905,5120,255488,18.28540526299803,0.02388781159718944,0.2267787804804258

  $ perflab run top-kernels examples/kernel-table.txt --set top=0 --format csv --table top_kernels | tail -n +2 | wc -l
  85


--fail-on: the report has one info finding.
  $ perflab run top-kernels examples/kernel-table.txt --fail-on info > /dev/null
  [1]

  $ perflab run top-kernels examples/kernel-table.txt --fail-on warn > /dev/null


--output DIR writes every rendering and every table; stderr says so.
  $ cd $CRAMTMP && perflab run top-kernels "$OLDPWD/examples/kernel-table.txt" --set top=3 --output out > /dev/null
  perflab: wrote 6 files to out

  $ ls $CRAMTMP/out
  report.html
  report.json
  report.md
  report.txt
  top_kernels.csv
  top_kernels.svg

  $ cat $CRAMTMP/out/top_kernels.csv
  kernel,calls,total_ns,mean_ns,min_ns,max_ns,share_pct,tensor_util,dram_util
  elementwise_kernel,3185,56058272,17600.71334379905,5120,255488,18.28540526299803,0.02388781159718944,0.2267787804804258
  Kernel,944,46240224,48983.288135593226,7200,594752,15.082898653954366,0.19981652684035442,0.14788085455641392
  vectorized_elementwise_kernel,4002,33716352,8424.875562218906,3488,147680,10.997791018422653,0.004759879123340509,0.28813421333363703

  $ cd $CRAMTMP && perflab run top-kernels "$OLDPWD/examples/kernel-table.txt" --set top=3 --format json | cmp - out/report.json && echo same
  same

  $ cd $CRAMTMP && perflab run top-kernels "$OLDPWD/examples/kernel-table.txt" --set top=3 --format markdown | cmp - out/report.md && echo same
  same

  $ cd $CRAMTMP && perflab run top-kernels "$OLDPWD/examples/kernel-table.txt" --set top=3 | cmp - out/report.txt && echo same
  same

  $ cd $CRAMTMP && touch file && perflab run top-kernels "$OLDPWD/examples/kernel-table.txt" --output file > /dev/null
  perflab: --output: file: Not a directory
  [2]

  $ cd $CRAMTMP && perflab run top-kernels "$OLDPWD/examples/kernel-table.txt" --output a/b/c > /dev/null && ls a/b/c | wc -l
  perflab: wrote 6 files to a/b/c
  6


Two inputs: one table per input.
  $ perflab run top-kernels examples/kernel-table.txt tests/fixtures/kernel-table/small.txt --set top=1 --format csv
  # table: top_kernels_1
  kernel,calls,total_ns,mean_ns,min_ns,max_ns,share_pct,tensor_util,dram_util
  elementwise_kernel,3185,56058272,17600.71334379905,5120,255488,18.28540526299803,0.02388781159718944,0.2267787804804258
  
  # table: top_kernels_2
  kernel,calls,total_ns,mean_ns,min_ns,max_ns,share_pct,tensor_util,dram_util
  ampere_fp16_s16816gemm_fp16_128x64_ldg8_relu_f2...,2,40864,20432,19936,20928,76.7889356584486,0.28584964761158965,0.11024275646045419
  
  # table: findings
  severity,rule,subject,message,speedup_pct,evidence,name
  info,top-kernels.dominant,elementwise_kernel,elementwise_kernel takes 18.3 % of kernel time (56.06 ms over 3185 calls),,calls=3185  kernel_time_ns=306573856  share_pct=18.29  source=examples/kernel-table.txt  total_ns=56058272,elementwise_kernel
  info,top-kernels.dominant,ampere_fp16_s16816gemm_fp16_128x64_ldg8_relu_f2...,ampere_fp16_s16816gemm_fp16_128x64_ldg8_relu_f2... takes 76.8 % of kernel time (40.86 µs over 2 calls),,calls=2  kernel_time_ns=53216  share_pct=76.79  source=tests/fixtures/kernel-table/small.txt  total_ns=40864,ampere_fp16_s16816gemm_fp16_128x64_ldg8_relu_f2...

Kernel names are shortened in text tables (templates and parameter lists
elided); --full-names prints them in full, and the findings' CSV carries
the full subject in its name column:
  $ perflab run top-kernels tests/fixtures/ncu/print_summary_per_kernel.txt | grep '^transposeNaive'
  transposeNaive(…)       3     97740    32580   32060   33100    88.7255
  $ perflab run top-kernels tests/fixtures/ncu/print_summary_per_kernel.txt --full-names | grep '^transposeNaive'
  transposeNaive(const float *, float *, int)       3     97740    32580   32060   33100    88.7255
  $ perflab run top-kernels tests/fixtures/ncu/print_summary_per_kernel.txt --format csv --table findings > $CRAMTMP/f.csv; head -1 $CRAMTMP/f.csv; tail -1 $CRAMTMP/f.csv | cut -d, -f3; grep -c ',"transposeNaive(const float \*, float \*, int)"$' $CRAMTMP/f.csv
  severity,rule,subject,message,speedup_pct,evidence,name
  transposeNaive(…)
  1
