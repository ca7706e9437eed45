perflab parse: what was read, and one table in every output format.
tests/fixtures/kernel-table/small.txt has five launches (one blank line is
skipped); two names were cut by the tool ("..."), one has a namespace.

  $ perflab parse examples/kernel-table.txt
  examples/kernel-table.txt: kernel-table
  meta:
    time_unit        ns
    tool             kernel latency table
  tables:
    kernels                    13065 rows  name:string short_name:string latency_ns:number duration_ns:number tensor_util:number dram_util:number truncated:boolean line:integer

  $ perflab parse tests/fixtures/kernel-table/small.txt --format markdown
  ## `tests/fixtures/kernel-table/small.txt` (kernel-table)
  
  **meta**
  
  - time_unit: ns
  - tool: kernel latency table
  
  **tables**
  
  - `kernels`: 5 rows; name:string, short_name:string, latency_ns:number, duration_ns:number, tensor_util:number, dram_util:number, truncated:boolean, line:integer

  $ perflab parse tests/fixtures/kernel-table/small.txt --format json
  {
    "diagnostics": [],
    "format": "kernel-table",
    "meta": {
      "time_unit": "ns",
      "tool": "kernel latency table"
    },
    "source": "tests/fixtures/kernel-table/small.txt",
    "tables": [
      {
        "columns": [
          {
            "doc": "kernel name as the tool printed it (may end in '...' where it was cut)",
            "name": "name",
            "type": "string"
          },
          {
            "doc": "short name: no namespaces, template arguments, parameters or '...'",
            "name": "short_name",
            "type": "string"
          },
          {
            "doc": "kernel latency as the tool printed it, nanoseconds",
            "name": "latency_ns",
            "type": "number"
          },
          {
            "doc": "same as latency_ns: the standard duration column",
            "name": "duration_ns",
            "type": "number"
          },
          {
            "doc": "tensor-core utilisation, a fraction 0..1 as given (not percent)",
            "name": "tensor_util",
            "type": "number"
          },
          {
            "doc": "DRAM bandwidth utilisation, a fraction 0..1 as given (not percent)",
            "name": "dram_util",
            "type": "number"
          },
          {
            "doc": "true where the tool cut the name with '...'",
            "name": "truncated",
            "type": "boolean"
          },
          {
            "doc": "input line of the launch",
            "name": "line",
            "type": "integer"
          }
        ],
        "name": "kernels",
        "rows": 5
      }
    ]
  }

  $ perflab parse tests/fixtures/kernel-table/small.txt --table kernels
  name                                                short_name                                       latency_ns  duration_ns  tensor_util  dram_util  truncated  line
  --------------------------------------------------  -----------------------------------------------  ----------  -----------  -----------  ---------  ---------  ----
  vectorized_elementwise_kernel                       vectorized_elementwise_kernel                          4896         4896            0       0.25      false     2
  ampere_fp16_s16816gemm_fp16_128x64_ldg8_relu_f2...  ampere_fp16_s16816gemm_fp16_128x64_ldg8_relu_f2       19936        19936         0.25        0.1       true     3
  cudnn::ops::nchwToNhwcKernel                        nchwToNhwcKernel                                       3040         3040            0        0.5      false     4
  vectorized_elementwise_kernel                       vectorized_elementwise_kernel                          4416         4416            0       0.75      false     6
  ampere_fp16_s16816gemm_fp16_128x64_ldg8_relu_f2...  ampere_fp16_s16816gemm_fp16_128x64_ldg8_relu_f2       20928        20928         0.32       0.12       true     7

  $ perflab parse tests/fixtures/kernel-table/small.txt --table kernels --max-rows 3
  name                                                short_name                                       latency_ns  duration_ns  tensor_util  dram_util  truncated  line
  --------------------------------------------------  -----------------------------------------------  ----------  -----------  -----------  ---------  ---------  ----
  vectorized_elementwise_kernel                       vectorized_elementwise_kernel                          4896         4896            0       0.25      false     2
  ampere_fp16_s16816gemm_fp16_128x64_ldg8_relu_f2...  ampere_fp16_s16816gemm_fp16_128x64_ldg8_relu_f2       19936        19936         0.25        0.1       true     3
  cudnn::ops::nchwToNhwcKernel                        nchwToNhwcKernel                                       3040         3040            0        0.5      false     4

  $ perflab parse tests/fixtures/kernel-table/small.txt --table kernels --max-rows 3 --format csv
  name,short_name,latency_ns,duration_ns,tensor_util,dram_util,truncated,line
  vectorized_elementwise_kernel,vectorized_elementwise_kernel,4896,4896,0,0.25,false,2
  ampere_fp16_s16816gemm_fp16_128x64_ldg8_relu_f2...,ampere_fp16_s16816gemm_fp16_128x64_ldg8_relu_f2,19936,19936,0.25,0.1,true,3
  cudnn::ops::nchwToNhwcKernel,nchwToNhwcKernel,3040,3040,0,0.5,false,4

  $ perflab parse tests/fixtures/kernel-table/small.txt --table kernels --max-rows 3 --format json
  [
   {"name":"vectorized_elementwise_kernel", "short_name":"vectorized_elementwise_kernel", "latency_ns":4896, "duration_ns":4896, "tensor_util":0, "dram_util":0.25, "truncated":false, "line":2},
   {"name":"ampere_fp16_s16816gemm_fp16_128x64_ldg8_relu_f2...", "short_name":"ampere_fp16_s16816gemm_fp16_128x64_ldg8_relu_f2", "latency_ns":19936, "duration_ns":19936, "tensor_util":0.25, "dram_util":0.1, "truncated":true, "line":3},
   {"name":"cudnn::ops::nchwToNhwcKernel", "short_name":"nchwToNhwcKernel", "latency_ns":3040, "duration_ns":3040, "tensor_util":0, "dram_util":0.5, "truncated":false, "line":4}
  ]

  $ perflab parse tests/fixtures/kernel-table/small.txt --table kernels --max-rows 3 --format markdown
  | name                                               | short_name                                      | latency_ns | duration_ns | tensor_util | dram_util | truncated | line |
  | -------------------------------------------------- | ----------------------------------------------- | ---------: | ----------: | ----------: | --------: | --------: | ---: |
  | vectorized_elementwise_kernel                      | vectorized_elementwise_kernel                   |       4896 |        4896 |           0 |      0.25 |     false |    2 |
  | ampere_fp16_s16816gemm_fp16_128x64_ldg8_relu_f2... | ampere_fp16_s16816gemm_fp16_128x64_ldg8_relu_f2 |      19936 |       19936 |        0.25 |       0.1 |      true |    3 |
  | cudnn::ops::nchwToNhwcKernel                       | nchwToNhwcKernel                                |       3040 |        3040 |           0 |       0.5 |     false |    4 |

  $ perflab parse tests/fixtures/kernel-table/small.txt --table kernels --format=csv --max-rows=1
  name,short_name,latency_ns,duration_ns,tensor_util,dram_util,truncated,line
  vectorized_elementwise_kernel,vectorized_elementwise_kernel,4896,4896,0,0.25,false,2

  $ perflab parse tests/fixtures/kernel-table/small.txt --table launches
  perflab: tests/fixtures/kernel-table/small.txt (kernel-table) has no table 'launches' (it has: kernels)
  [2]

  $ perflab parse tests/fixtures/kernel-table/small.txt --table diagnostics
  line  message
  ----  -------

  $ perflab parse tests/fixtures/kernel-table/small.txt --input-format kernel-table --table kernels --format csv --max-rows 1
  name,short_name,latency_ns,duration_ns,tensor_util,dram_util,truncated,line
  vectorized_elementwise_kernel,vectorized_elementwise_kernel,4896,4896,0,0.25,false,2

  $ perflab parse tests/fixtures/kernel-table/small.txt --input-format nope
  perflab: tests/fixtures/kernel-table/small.txt: unknown format 'nope' (see: perflab formats)
  [2]

  $ perflab parse examples/kernel-table.txt --table kernels --format csv | tail -n +2 | wc -l
  13065

ncu metrics: raw keeps the text of a value that is not a number (the cache
configuration); a number's printed text (7.05 cycle/nsecond, in value as
7.05e9 Hz) only with --raw-text.

  $ perflab parse examples/ncu-details.txt --table metrics --format csv | sed -n '1,2p;/Function Cache/{p;q}'
  kernel_id,section,metric,unit,base_unit,value,raw
  0,GPU Speed Of Light Throughput,DRAM Frequency,cycle/nsecond,Hz,7050000000,
  0,Launch Statistics,Function Cache Configuration,,,,cudaFuncCachePreferNone
  $ perflab parse examples/ncu-details.txt --table metrics --format csv --raw-text | sed -n '1,2p;/Function Cache/{p;q}'
  kernel_id,section,metric,unit,base_unit,value,raw
  0,GPU Speed Of Light Throughput,DRAM Frequency,cycle/nsecond,Hz,7050000000,7.05
  0,Launch Statistics,Function Cache Configuration,,,,cudaFuncCachePreferNone
