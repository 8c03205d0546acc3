/* The host side of an emitted HIP file (see emit.h): a launcher for the HIP runtime and a
 * test program that runs the kernel on random operands, checks sampled outputs against a
 * double-precision reference and times launches with HIP events; and the reading of an
 * emitted file's header.  The test program is written for hipcc and the ROCm runtime; it is
 * compiled only with -DFSIM_HIP_RUNTIME -DFSIM_HOST_MAIN, never by the device-only compile.
 *
 * The reference check uses the bound of kernels/gemm_func.c: the output's rounding (times the
 * K slices that are added) plus one f32 unit per K term of the absolute-value product. */
#include "config.h"

#include "kernels/emit.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct hout {
  FILE *f;
  int lines;
} hout;

static void out(hout *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(hout *m, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfprintf(m->f, fmt, ap);
  va_end(ap);
  fputc('\n', m->f);
  m->lines++;
}

/* ---- the host side: launcher and test program (HIP runtime) ----------------------------------- */

int fsim__emit_host(FILE *f, const fsim_gemm_plan *p, const char *kname) {
  hout m_ = {f, 0}, *m = &m_;
  const fsim_schedule *s = &p->s;
  int fnuz = p->a->device.isa == FSIM_ISA_CDNA3; /* gfx942's fp8 is E4M3FNUZ, gfx950's OCP E4M3FN */
  out(m, "#if defined(FSIM_HIP_RUNTIME) && !defined(__HIP_DEVICE_COMPILE__)");
  out(m, "// ---- host launcher: A, B and C are device pointers laid out as the header says ----");
  out(m, "extern \"C\" hipError_t %s_launch(const void *A, const void *B, void *C, hipStream_t stream) {", kname);
  if (s->split_k > 1) {
    out(m, "  // split-K: the %d K slices add their partial sums into a zeroed C", s->split_k);
    out(m, "  hipError_t err = hipMemsetAsync(C, 0, (size_t)(GROUPS * C_BYTES), stream);");
    out(m, "  if (err != hipSuccess) return err;");
  }
  out(m, "  hipLaunchKernelGGL(%s, dim3((unsigned)WORKGROUPS), dim3(THREADS), 0, stream, A, B, C);", kname);
  out(m, "  return hipGetLastError();");
  out(m, "}");
  out(m, "#if defined(FSIM_HOST_MAIN)");
  out(m, "#include <math.h>");
  out(m, "#include <stdio.h>");
  out(m, "#include <stdlib.h>");
  out(m, "#include <string.h>");
  out(m, "// Random operands (a fixed LCG), one launch checked against a double-precision reference on");
  out(m, "// up to 4096 sampled outputs, then %s timed launches (median).  Prints one line starting", "20");
  out(m, "// \"flysim-run:\"; exit 0 ok, 1 wrong results, 3 no suitable GPU.");
  out(m, "static unsigned long long fsim_seed = 0x5eedULL;");
  out(m, "static unsigned fsim_rand(void) { fsim_seed = fsim_seed * 6364136223846793005ULL + 1442695040888963407ULL; return (unsigned)(fsim_seed >> 33); }");
  out(m, "static float fsim_bf16_to_f(unsigned short h) { unsigned u = (unsigned)h << 16; float f; memcpy(&f, &u, 4); return f; }");
  out(m, "static unsigned short fsim_f_to_bf16(float f) { unsigned u; memcpy(&u, &f, 4); u += 0x7fff + ((u >> 16) & 1); return (unsigned short)(u >> 16); }");
  out(m, "static float fsim_fp8_to_f(unsigned char b) { // %s", fnuz ? "E4M3FNUZ (gfx942)" : "E4M3FN (OCP, gfx950)");
  out(m, "  int s = b >> 7, e = (b >> 3) & 15, mt = b & 7; float v = e ? ldexpf(1.0f + mt / 8.0f, e - %d) : ldexpf(mt / 8.0f, 1 - %d);",
      fnuz ? 8 : 7, fnuz ? 8 : 7);
  out(m, "  return s ? -v : v;");
  out(m, "}");
  const char *at = fsim_dtype_name(s->a_type);
  out(m, "static float fsim_in(const unsigned char *p, long long i) { // operand element i (%s)", at);
  if (s->a_type == FSIM_DT_FP8) out(m, "  return fsim_fp8_to_f(p[i]);");
  else if (s->a_type == FSIM_DT_F16) out(m, "  _Float16 h; memcpy(&h, p + 2 * i, 2); return (float)h;");
  else out(m, "  unsigned short h; memcpy(&h, p + 2 * i, 2); return fsim_bf16_to_f(h);");
  out(m, "}");
  out(m, "static void fsim_fill(unsigned char *p, long long n) {");
  if (s->a_type == FSIM_DT_FP8)
    out(m, "  for (long long i = 0; i < n; i++) p[i] = (unsigned char)((fsim_rand() & 0x80) | ((4 + fsim_rand() %% 6) << 3) | (fsim_rand() & 7));");
  else if (s->a_type == FSIM_DT_F16)
    out(m, "  for (long long i = 0; i < n; i++) { _Float16 h = (_Float16)((fsim_rand() %% 2001) / 1000.0f - 1.0f); memcpy(p + 2 * i, &h, 2); }");
  else
    out(m, "  for (long long i = 0; i < n; i++) { unsigned short h = fsim_f_to_bf16((fsim_rand() %% 2001) / 1000.0f - 1.0f); memcpy(p + 2 * i, &h, 2); }");
  out(m, "}");
  out(m, "static float fsim_out(const unsigned char *p, long long i) { // C element i (%s)", fsim_dtype_name(s->c_type));
  if (p->c_bits == 32) out(m, "  float f; memcpy(&f, p + 4 * i, 4); return f;");
  else if (s->c_type == FSIM_DT_F16) out(m, "  _Float16 h; memcpy(&h, p + 2 * i, 2); return (float)h;");
  else out(m, "  unsigned short h; memcpy(&h, p + 2 * i, 2); return fsim_bf16_to_f(h);");
  out(m, "}");
  out(m, "#define FSIM_CHECK(x) do { hipError_t e_ = (x); if (e_ != hipSuccess) { printf(\"flysim-run: error %%s at %%s\\n\", hipGetErrorString(e_), #x); return 2; } } while (0)");
  out(m, "int main(void) {");
  out(m, "  int ndev = 0;");
  out(m, "  if (hipGetDeviceCount(&ndev) != hipSuccess || ndev == 0) { printf(\"flysim-run: no-gpu\\n\"); return 3; }");
  out(m, "  hipDeviceProp_t prop;");
  out(m, "  FSIM_CHECK(hipGetDeviceProperties(&prop, 0));");
  out(m, "  if (strncmp(prop.gcnArchName, \"%s\", %d) != 0 || (prop.gcnArchName[%d] != 0 && prop.gcnArchName[%d] != ':')) {",
      p->a->device.gfx, (int)strlen(p->a->device.gfx), (int)strlen(p->a->device.gfx), (int)strlen(p->a->device.gfx));
  out(m, "    printf(\"flysim-run: wrong-gpu %%s (the kernel is for %s)\\n\", prop.gcnArchName);", p->a->device.gfx);
  out(m, "    return 3;");
  out(m, "  }");
  int ea = p->op[0].elem_bits / 8, ebb = p->op[1].elem_bits / 8;
  out(m, "  const long long na = (long long)GROUPS * M * K, nb = (long long)GROUPS * N * K, nc = (long long)GROUPS * M * N;");
  out(m, "  unsigned char *ha = (unsigned char *)malloc(na * %d), *hb = (unsigned char *)malloc(nb * %d), *hc = (unsigned char *)malloc(nc * CB);",
      ea, ebb);
  out(m, "  if (!ha || !hb || !hc) { printf(\"flysim-run: error out of host memory\\n\"); return 2; }");
  out(m, "  fsim_fill(ha, na);");
  out(m, "  fsim_fill(hb, nb);");
  out(m, "  void *da, *db, *dc;");
  out(m, "  // READ_SLACK: the last copy of an M/N-contiguous operand may read up to 3 bytes past it");
  out(m, "  FSIM_CHECK(hipMalloc(&da, na * %d + 4));", ea);
  out(m, "  FSIM_CHECK(hipMalloc(&db, nb * %d + 4));", ebb);
  out(m, "  FSIM_CHECK(hipMemset(da, 0, na * %d + 4));", ea);
  out(m, "  FSIM_CHECK(hipMemset(db, 0, nb * %d + 4));", ebb);
  out(m, "  FSIM_CHECK(hipMalloc(&dc, nc * CB));");
  out(m, "  FSIM_CHECK(hipMemcpy(da, ha, na * %d, hipMemcpyHostToDevice));", ea);
  out(m, "  FSIM_CHECK(hipMemcpy(db, hb, nb * %d, hipMemcpyHostToDevice));", ebb);
  out(m, "  FSIM_CHECK(hipMemset(dc, 0xff, nc * CB)); // garbage: every element must be written");
  out(m, "  FSIM_CHECK(%s_launch(da, db, dc, 0));", kname);
  out(m, "  FSIM_CHECK(hipDeviceSynchronize());");
  out(m, "  FSIM_CHECK(hipMemcpy(hc, dc, nc * CB, hipMemcpyDeviceToHost));");
  out(m, "  // element (g, row, col): A %s, B %s, C column-major", p->op[0].k_contig ? "row-major [M][K]" : "column-major [K][M]",
      p->op[1].k_contig ? "[N][K]" : "[K][N]");
  out(m, "  long long checked = 0, bad = 0; double max_rel = 0;");
  out(m, "  const long long samples = nc < 4096 ? nc : 4096;");
  out(m, "  const double u_out = %.17g * SPLIT_K, u_acc = %.17g * (K + 8);", ldexp(1.0, -(p->c_bits == 32 ? 24 : s->c_type == FSIM_DT_F16 ? 11 : 8)),
      ldexp(1.0, -24));
  out(m, "  for (long long sidx = 0; sidx < samples; sidx++) {");
  out(m, "    const long long e = samples == nc ? sidx : (long long)(((unsigned long long)fsim_rand() << 16 ^ fsim_rand()) %% (unsigned long long)nc);");
  out(m, "    const long long g = e / ((long long)M * N), col = e %% ((long long)M * N) / M, row = e %% M;");
  out(m, "    double ref = 0, mag = 0, part = 0, parts = 0; // parts: the sum of |partial sum| over K slices");
  out(m, "    for (long long k = 0; k < K; k++) {");
  out(m, "      const double a = fsim_in(ha, g * M * K + %s), b = fsim_in(hb, g * N * K + %s);",
      p->op[0].k_contig ? "row * K + k" : "k * M + row", p->op[1].k_contig ? "col * K + k" : "k * N + col");
  out(m, "      ref += a * b;");
  out(m, "      mag += fabs(a * b);");
  out(m, "      part += a * b;");
  out(m, "      if ((k + 1) %% ((long long)K_TILES * BK) == 0) { parts += fabs(part); part = 0; }");
  out(m, "    }");
  out(m, "    parts += fabs(part);");
  out(m, "    // each slice's atomic add rounds the running sum, which is at most the sum of |partial sum|");
  out(m, "    const double got = fsim_out(hc, e), err = fabs(got - ref);");
  out(m, "    const double tol = u_out * parts * 1.01 + u_acc * mag + 1e-30;");
  out(m, "    if (!(err <= tol)) { if (bad == 0) printf(\"flysim-run: first mismatch at (%%lld, %%lld, %%lld): got %%g, want %%g\\n\", g, row, col, got, ref); bad++; }");
  out(m, "    if (err / (mag + 1e-30) > max_rel) max_rel = err / (mag + 1e-30);");
  out(m, "    checked++;");
  out(m, "  }");
  out(m, "  hipEvent_t t0, t1;");
  out(m, "  FSIM_CHECK(hipEventCreate(&t0));");
  out(m, "  FSIM_CHECK(hipEventCreate(&t1));");
  out(m, "  for (int i = 0; i < 3; i++) FSIM_CHECK(%s_launch(da, db, dc, 0)); // warm-up", kname);
  out(m, "  float ms[20];");
  out(m, "  for (int i = 0; i < 20; i++) {");
  out(m, "    FSIM_CHECK(hipEventRecord(t0, 0));");
  out(m, "    FSIM_CHECK(%s_launch(da, db, dc, 0));", kname);
  out(m, "    FSIM_CHECK(hipEventRecord(t1, 0));");
  out(m, "    FSIM_CHECK(hipEventSynchronize(t1));");
  out(m, "    FSIM_CHECK(hipEventElapsedTime(&ms[i], t0, t1));");
  out(m, "  }");
  out(m, "  for (int i = 1; i < 20; i++) for (int j = i; j > 0 && ms[j - 1] > ms[j]; j--) { float t = ms[j]; ms[j] = ms[j - 1]; ms[j - 1] = t; }");
  out(m, "  const double us = 0.5 * (ms[9] + ms[10]) * 1000.0;");
  out(m, "  printf(\"flysim-run: ok=%%d checked=%%lld mismatches=%%lld max_rel_err=%%.3g time_us=%%.3f tflops=%%.2f device=%%s\\n\",");
  out(m, "         bad == 0, checked, bad, max_rel, us, 2.0 * GROUPS * (double)M * N * K / (us * 1e-6) / 1e12, prop.gcnArchName);");
  out(m, "  hipFree(da);");
  out(m, "  hipFree(db);");
  out(m, "  hipFree(dc);");
  out(m, "  free(ha);");
  out(m, "  free(hb);");
  out(m, "  free(hc);");
  out(m, "  return bad == 0 ? 0 : 1;");
  out(m, "}");
  out(m, "#endif // FSIM_HOST_MAIN");
  out(m, "#endif // FSIM_HIP_RUNTIME");
  return m->lines;
}

/* ---- reading back ---------------------------------------------------------------------------- */

fsim_status fsim_emit_read_header(const char *text, const char *path, fsim_emit_header *h, fsim_err *e) {
  memset(h, 0, sizeof *h);
  const char *plan = strstr(text, "// flysim-plan: ");
  if (plan == NULL)
    return FSIM_ERR(e, FSIM_EINVAL, "%s:1: no '// flysim-plan:' line: not a file written by flysim emit", path);
  int line = 1;
  for (const char *q = text; q < plan; q++) line += *q == '\n';
  char buf[1024];
  const char *nl = strchr(plan, '\n');
  snprintf(buf, sizeof buf, "%.*s", (int)(nl ? nl - plan : (long)strlen(plan)), plan);
  char *save = NULL;
  for (char *t = strtok_r(buf + 16, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
    char *eq = strchr(t, '=');
    if (eq == NULL) continue;
    *eq = '\0';
    const char *v = eq + 1;
    if (strcmp(t, "gfx") == 0) snprintf(h->gfx, sizeof h->gfx, "%s", v);
    else if (strcmp(t, "part") == 0) {
      if (strlen(v) >= sizeof h->part)
        return FSIM_ERR(e, FSIM_EINVAL, "%s:%d: part= is longer than %zu characters", path, line, sizeof h->part - 1);
      snprintf(h->part, sizeof h->part, "%s", v);
    }
    else if (strcmp(t, "kernel") == 0) snprintf(h->kernel, sizeof h->kernel, "%s", v);
    else if (strcmp(t, "version") == 0) snprintf(h->version, sizeof h->version, "%s", v);
    else if (strcmp(t, "swizzle_a") == 0) snprintf(h->swizzle[0], sizeof h->swizzle[0], "%s", v);
    else if (strcmp(t, "swizzle_b") == 0) snprintf(h->swizzle[1], sizeof h->swizzle[1], "%s", v);
  }
  if (!h->gfx[0] || !h->kernel[0])
    return FSIM_ERR(e, FSIM_EINVAL, "%s:%d: the flysim-plan line lacks gfx= or kernel=", path, line);
  const char *ov = strstr(text, "// flysim-overrides: ");
  if (ov) {
    const char *ovl = strchr(ov, '\n');
    snprintf(h->overrides, sizeof h->overrides, "%.*s", (int)((ovl ? ovl : ov + strlen(ov)) - (ov + 21)), ov + 21);
    if (strcmp(h->overrides, "none") == 0) h->overrides[0] = '\0';
  }
  const char *b = strstr(text, "// flysim-schedule-begin\n"), *en = strstr(text, "// flysim-schedule-end");
  if (b == NULL || en == NULL || en < b)
    return FSIM_ERR(e, FSIM_EINVAL, "%s: no '// flysim-schedule-begin' ... '// flysim-schedule-end' block", path);
  int sline = 1;
  for (const char *q = text; q < b; q++) sline += *q == '\n';
  /* strip the comment marks; keep the line count so that errors point into the file */
  size_t cap = (size_t)(en - b) + (size_t)sline + 16;
  char *ini = malloc(cap);
  if (ini == NULL) return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  size_t u = 0;
  for (int i = 0; i < sline; i++) ini[u++] = '\n';
  for (const char *q = strchr(b, '\n') + 1; q < en;) {
    const char *le = strchr(q, '\n');
    if (le == NULL || le > en) le = en;
    /* the marks are stripped within the line: where the end marker starts inside one
     * ("/// flysim-schedule-end"), the line is shorter than its mark (found by tools/fuzz.sh) */
    const char *s = q;
    if (le - q >= 3 && strncmp(s, "// ", 3) == 0) s += 3;
    else if (le - q >= 2 && strncmp(s, "//", 2) == 0) s += 2;
    memcpy(ini + u, s, (size_t)(le - s));
    u += (size_t)(le - s);
    ini[u++] = '\n';
    q = le < en ? le + 1 : en;
  }
  ini[u] = '\0';
  fsim_status st = fsim_schedule_load_string(&h->schedule, ini, path, e);
  free(ini);
  return st;
}

