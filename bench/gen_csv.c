/*
** gen_csv.c -- writes an ncu "--page raw --csv"-like file for the CSV
** benchmark: every field quoted, a header of identification columns plus
** metric columns (ints, decimals, a few text columns), one row per kernel
** launch, kernel names with commas inside quotes.  Deterministic: a fixed
** xorshift seed, so the same size gives the same bytes.
**
**   gen_csv OUT.csv [MEGABYTES=200] [--units]
** --units adds ncu's units row under the header (then the generic csv
** reader types every metric column as text, as it should).
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t st = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) {
  st ^= st << 13;
  st ^= st >> 7;
  st ^= st << 17;
  return st;
}

#define NMET 96

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: gen_csv OUT.csv [MEGABYTES=200] [--units]\n");
    return 2;
  }
  double mb = argc > 2 && argv[2][0] != '-' ? atof(argv[2]) : 200;
  int units = 0;
  for (int i = 2; i < argc; i++)
    if (strcmp(argv[i], "--units") == 0) units = 1;
  FILE *f = fopen(argv[1], "wb");
  if (!f) {
    perror(argv[1]);
    return 2;
  }
  static char buf[1 << 20];
  setvbuf(f, buf, _IOFBF, sizeof buf);
  static const char *kn[] = {
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char *, "
    "3>>(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char *, 3>)",
    "ampere_sgemm_128x64_tn",
    "void "
    "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4>(cutlass_80_tensorop_s1688gemm_128x128_16x4_"
    "nn_align4::Params)",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, "
    "float>, unsigned int, float, 4>>(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, "
    "unsigned int, float, 4>)",
    "flash_fwd_kernel",
  };
  static const char *mu[] = { "byte", "ns", "cycle", "%", "inst", "sector", "byte/second", "hz" };
  fputs("\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block "
        "Size\",\"Grid Size\",\"Device\",\"CC\"",
        f);
  for (int m = 0; m < NMET; m++)
    fprintf(f, ",\"metric_%02d__%s.sum\"", m, m % 3 == 0 ? "dram" : m % 3 == 1 ? "lts" : "sm");
  fputc('\n', f);
  if (units) {
    fputs("\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\"", f);
    for (int m = 0; m < NMET; m++) fprintf(f, ",\"%s\"", mu[m % 8]);
    fputc('\n', f);
  }
  long long target = (long long)(mb * 1e6);
  for (long long id = 0; ftell(f) < target; id++) {
    uint64_t r = rnd();
    int b = 32 << (r % 6), g = 1 + (int)(rnd() % 100000);
    fprintf(f,
            "\"%lld\",\"%d\",\"python3\",\"127.0.0.1\",\"%s\",\"1\",\"%d\",\"(%d, 1, 1)\",\"(%d, 1, 1)\",\"0\",\"8.0\"",
            id, 4242, kn[r % 5], 7 + (int)(r >> 60), b, g);
    for (int m = 0; m < NMET; m++) {
      uint64_t v = rnd();
      switch (m % 4) {
        case 0: fprintf(f, ",\"%llu\"", (unsigned long long)(v % 100000000)); break;
        case 1: fprintf(f, ",\"%.2f\"", (double)(v % 10000) / 100.0); break;
        case 2: fprintf(f, ",\"%.6g\"", (double)(v % 1000000007) * 1.37e-3); break;
        default: fprintf(f, ",\"%llu\"", (unsigned long long)(v % 1000)); break;
      }
    }
    fputc('\n', f);
  }
  fclose(f);
  return 0;
}
