/* The tuning suites: see suite.h.  N is the layer's output features, K its input features;
 * C[M,N] = X[M,K] W^T, so the layout is TN.  Fused QKV = (heads + 2 KV heads) x head_dim,
 * fused gate_up = 2 x intermediate; the model configurations are cited in docs/gemm.md. */
#include "config.h"

#include "tune/suite.h"

#include <string.h>

static const fsim_suite_entry default_suite[] = {
    /* decode: a handful of tokens against a weight matrix (memory bound) */
    {"llama3-8b.qkv.m1", "Llama-3-8B qkv_proj (32+2x8 heads x 128 = 6144, hidden 4096), one token", 1, 6144, 4096},
    {"deepseek-v3.qkv_a.m8", "DeepSeek-V3 fused q_a + kv_a (1536 + 512 + 64 = 2112, hidden 7168), 8 tokens", 8, 2112,
     7168},
    {"llama3-8b.gate_up.m16", "Llama-3-8B gate_up_proj (2 x 14336, hidden 4096), 16 tokens", 16, 28672, 4096},
    {"llama3-8b.down.m32", "Llama-3-8B down_proj (4096, intermediate 14336), 32 tokens", 32, 4096, 14336},
    {"llama3-70b-tp8.qkv.m64", "Llama-3-70B qkv_proj on 8 GPUs ((64+2x8) x 128 / 8 = 1280, hidden 8192), 64 tokens",
     64, 1280, 8192},
    {"llama3-70b-tp8.down.m64", "Llama-3-70B down_proj on 8 GPUs (8192, 28672 / 8 = 3584), 64 tokens", 64, 8192,
     3584},
    /* prefill: thousands of tokens (compute bound) */
    {"llama3-8b.qkv.m4096", "Llama-3-8B qkv_proj, a 4096-token prefill", 4096, 6144, 4096},
    {"qwen3-32b.gate_up.m2048", "Qwen3-32B gate_up_proj (2 x 25600, hidden 5120), a 2048-token prefill", 2048, 51200,
     5120},
    /* large K */
    {"llama3-8b.down.m8192", "Llama-3-8B down_proj, an 8192-token prefill (K = 14336)", 8192, 4096, 14336},
    {"deepseek-v3.o_proj.m4096", "DeepSeek-V3 o_proj (7168, 128 heads x 128 = 16384), a 4096-token prefill", 4096,
     7168, 16384},
    /* squares: the usual GEMM benchmark points */
    {"square.1024", "square 1024^3 (the usual benchmark sweep)", 1024, 1024, 1024},
    {"square.2048", "square 2048^3", 2048, 2048, 2048},
    {"square.4096", "square 4096^3 (published MI355X results exist: docs/validation.md)", 4096, 4096, 4096},
    {"square.8192", "square 8192^3 (published MI355X results exist: docs/validation.md)", 8192, 8192, 8192},
    {"square.16384", "square 16384^3", 16384, 16384, 16384},
};

const fsim_suite_entry *fsim_suite_find(const char *name, int *n) {
  if (strcmp(name, "default") == 0) {
    *n = (int)(sizeof default_suite / sizeof default_suite[0]);
    return default_suite;
  }
  *n = 0;
  return NULL;
}

void fsim_suite_problem(const fsim_suite_entry *s, fsim_gemm_problem *pr) {
  memset(pr, 0, sizeof *pr);
  pr->op = FSIM_KOP_GEMM;
  pr->m = s->m, pr->n = s->n, pr->k = s->k;
  pr->groups = 1;
  pr->a = pr->b = pr->c = FSIM_DT_BF16;
  pr->layout = FSIM_LAYOUT_TN;
}
