/* The MMA and copy atoms as data: see atom.h and docs/atoms.md.
 *
 * TV layouts map (lane, value) to the column-major index of an element.  With l the lane and
 * v the value (the order of elements in the lane's registers, low half first):
 *   16x16xK, K = 4 per lane group:  A[l%16][4*(l/16)+v]   -> ((16,4),4):((1,64),16)
 *   16x16xK, K = 8 per lane group:  A[l%16][8*(l/16)+v]   -> ((16,4),8):((1,128),16)
 *   32x32xK, 4 / 8 per lane group:  A[l%32][4*(l/32)+v]   -> ((32,2),4):((1,128),32), ...
 *   16x16 accumulator:  C[4*(l/16)+v][l%16]               -> ((16,4),4):((16,4),1)
 *   32x32 accumulator:  C[8*(v/4)+4*(l/32)+v%4][l%32]    -> ((32,2),(4,4)):((32,4),(1,8))
 *   scaled 16x16x128, fp4/fp6: A[l%16][32*(l/16)+v]; fp8: A[l%16][64*(v/16)+16*(l/16)+v%16]
 *   scaled 32x32x64,  fp4/fp6: A[l%32][32*(l/32)+v]; fp8: A[l%32][32*(v/16)+16*(l/32)+v%16]
 *   scales: lane l scales row l%16 (l%32) of K block l/16 (l/32)
 *   gfx12 WMMA 16x16x16 (wave32): A[l%16][8*(v/4)+4*(l/16)+v%4], C[8*(l/16)+v][l%16]
 * B is the same as A with N in place of M (B is stored N x K here). */
#include "config.h"

#include "kernels/atom.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define TV16x4 "((16,4),4):((1,64),16)"
#define TV16x8 "((16,4),8):((1,128),16)"
#define TV32x4 "((32,2),4):((1,128),32)"
#define TV32x8 "((32,2),8):((1,256),32)"
#define C16 "((16,4),4):((16,4),1)"
#define C32 "((32,2),(4,4)):((32,4),(1,8))"
#define SC16x128_F4 "((16,4),32):((1,512),16)"
#define SC16x128_F8 "((16,4),(16,2)):((1,256),(16,1024))"
#define SC32x64_F4 "((32,2),32):((1,1024),32)"
#define SC32x64_F8 "((32,2),(16,2)):((1,512),(32,1024))"
#define WMMA16 "((16,2),(4,2)):((1,64),(16,128))"
#define WMMA_C "((16,2),8):((16,8),1)"

#define SRC_CAL "AMD matrix instruction calculator (CDNA3)"
#define SRC_950 "CDNA4 ISA guide; LLVM/IREE/CK gfx950 layouts"
#define SRC_SC "CDNA4 ISA guide 7.2.1 (scales, fp4 K order); ROCm blog matrix-cores-cdna (fp8 K order)"

static const fsim_mma_atom atoms[] = {
    {"v_mfma_f32_16x16x32_bf16", "__builtin_amdgcn_mfma_f32_16x16x32_bf16", FSIM_CDNA4, 16, 16, 32, FSIM_DT_BF16,
     FSIM_DT_BF16, FSIM_DT_F32, 64, 0, TV16x8, TV16x8, C16, NULL, SRC_950},
    {"v_mfma_f32_16x16x32_f16", "__builtin_amdgcn_mfma_f32_16x16x32_f16", FSIM_CDNA4, 16, 16, 32, FSIM_DT_F16,
     FSIM_DT_F16, FSIM_DT_F32, 64, 0, TV16x8, TV16x8, C16, NULL, SRC_950},
    {"v_mfma_f32_32x32x16_bf16", "__builtin_amdgcn_mfma_f32_32x32x16_bf16", FSIM_CDNA4, 32, 32, 16, FSIM_DT_BF16,
     FSIM_DT_BF16, FSIM_DT_F32, 64, 0, TV32x8, TV32x8, C32, NULL, SRC_950},
    {"v_mfma_f32_32x32x16_f16", "__builtin_amdgcn_mfma_f32_32x32x16_f16", FSIM_CDNA4, 32, 32, 16, FSIM_DT_F16,
     FSIM_DT_F16, FSIM_DT_F32, 64, 0, TV32x8, TV32x8, C32, NULL, SRC_950},
    {"v_mfma_f32_16x16x16_bf16", "__builtin_amdgcn_mfma_f32_16x16x16bf16_1k", FSIM_CDNA3 | FSIM_CDNA4, 16, 16, 16,
     FSIM_DT_BF16, FSIM_DT_BF16, FSIM_DT_F32, 64, 0, TV16x4, TV16x4, C16, NULL, SRC_CAL},
    {"v_mfma_f32_16x16x16_f16", "__builtin_amdgcn_mfma_f32_16x16x16f16", FSIM_CDNA3 | FSIM_CDNA4, 16, 16, 16,
     FSIM_DT_F16, FSIM_DT_F16, FSIM_DT_F32, 64, 0, TV16x4, TV16x4, C16, NULL, SRC_CAL},
    {"v_mfma_f32_32x32x8_bf16", "__builtin_amdgcn_mfma_f32_32x32x8bf16_1k", FSIM_CDNA3 | FSIM_CDNA4, 32, 32, 8,
     FSIM_DT_BF16, FSIM_DT_BF16, FSIM_DT_F32, 64, 0, TV32x4, TV32x4, C32, NULL, SRC_CAL},
    {"v_mfma_f32_32x32x8_f16", "__builtin_amdgcn_mfma_f32_32x32x8f16", FSIM_CDNA3 | FSIM_CDNA4, 32, 32, 8,
     FSIM_DT_F16, FSIM_DT_F16, FSIM_DT_F32, 64, 0, TV32x4, TV32x4, C32, NULL, SRC_CAL},
    {"v_mfma_f32_16x16x32_fp8_fp8", "__builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8", FSIM_CDNA3 | FSIM_CDNA4, 16, 16,
     32, FSIM_DT_FP8, FSIM_DT_FP8, FSIM_DT_F32, 64, 0, TV16x8, TV16x8, C16, NULL, SRC_CAL},
    {"v_mfma_f32_32x32x16_fp8_fp8", "__builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8", FSIM_CDNA3 | FSIM_CDNA4, 32, 32,
     16, FSIM_DT_FP8, FSIM_DT_FP8, FSIM_DT_F32, 64, 0, TV32x8, TV32x8, C32, NULL, SRC_CAL},
    {"v_mfma_scale_f32_16x16x128_f8f6f4.fp8", "__builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4", FSIM_CDNA4, 16,
     16, 128, FSIM_DT_FP8, FSIM_DT_FP8, FSIM_DT_F32, 64, 1, SC16x128_F8, SC16x128_F8, C16, "((16,4),1):((1,16),0)", SRC_SC},
    /* A fp8, B fp4 (cbsz 0, blgp 4): each operand in its own format's K order */
    {"v_mfma_scale_f32_16x16x128_f8f6f4.fp8_fp4", "__builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4", FSIM_CDNA4, 16,
     16, 128, FSIM_DT_FP8, FSIM_DT_FP4, FSIM_DT_F32, 64, 1, SC16x128_F8, SC16x128_F4, C16, "((16,4),1):((1,16),0)", SRC_SC},
    {"v_mfma_scale_f32_16x16x128_f8f6f4.fp6", "__builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4", FSIM_CDNA4, 16,
     16, 128, FSIM_DT_FP6, FSIM_DT_FP6, FSIM_DT_F32, 64, 1, SC16x128_F4, SC16x128_F4, C16, "((16,4),1):((1,16),0)", SRC_SC},
    {"v_mfma_scale_f32_16x16x128_f8f6f4.fp4", "__builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4", FSIM_CDNA4, 16,
     16, 128, FSIM_DT_FP4, FSIM_DT_FP4, FSIM_DT_F32, 64, 1, SC16x128_F4, SC16x128_F4, C16, "((16,4),1):((1,16),0)", SRC_SC},
    {"v_mfma_scale_f32_32x32x64_f8f6f4.fp8", "__builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4", FSIM_CDNA4, 32, 32,
     64, FSIM_DT_FP8, FSIM_DT_FP8, FSIM_DT_F32, 64, 1, SC32x64_F8, SC32x64_F8, C32, "((32,2),1):((1,32),0)", SRC_SC},
    {"v_mfma_scale_f32_32x32x64_f8f6f4.fp6", "__builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4", FSIM_CDNA4, 32, 32,
     64, FSIM_DT_FP6, FSIM_DT_FP6, FSIM_DT_F32, 64, 1, SC32x64_F4, SC32x64_F4, C32, "((32,2),1):((1,32),0)", SRC_SC},
    {"v_mfma_scale_f32_32x32x64_f8f6f4.fp4", "__builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4", FSIM_CDNA4, 32, 32,
     64, FSIM_DT_FP4, FSIM_DT_FP4, FSIM_DT_F32, 64, 1, SC32x64_F4, SC32x64_F4, C32, "((32,2),1):((1,32),0)", SRC_SC},
    {"v_wmma_f32_16x16x16_f16", "__builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12", FSIM_RDNA4, 16, 16, 16,
     FSIM_DT_F16, FSIM_DT_F16, FSIM_DT_F32, 32, 0, WMMA16, WMMA16, WMMA_C, NULL,
     "AMD matrix instruction calculator (RDNA4)"},
    {"v_wmma_f32_16x16x16_bf16", "__builtin_amdgcn_wmma_f32_16x16x16_bf16_w32_gfx12", FSIM_RDNA4, 16, 16, 16,
     FSIM_DT_BF16, FSIM_DT_BF16, FSIM_DT_F32, 32, 0, WMMA16, WMMA16, WMMA_C, NULL,
     "AMD matrix instruction calculator (RDNA4)"},
};
#define N_ATOMS ((int)(sizeof atoms / sizeof atoms[0]))

const fsim_mma_atom *fsim_mma_atoms(int *n) {
  *n = N_ATOMS;
  return atoms;
}

/* "MxNxK_type" (with an optional ".variant"), the tail of an atom's name after its prefix */
static int is_short_name(const char *name) {
  int m, n, k, used = 0;
  return sscanf(name, "%dx%dx%d_%n", &m, &n, &k, &used) == 3 && used > 0 && name[used] != '\0';
}

const fsim_mma_atom *fsim_mma_atom_find_on(const char *name, unsigned isa_bits) {
  for (int i = 0; i < N_ATOMS; i++)
    if (strcmp(atoms[i].name, name) == 0) return &atoms[i];
  if (!is_short_name(name)) return NULL;
  /* "16x16x32_bf16" is the tail of "v_mfma_f32_16x16x32_bf16"; prefer an atom of the ISA */
  const fsim_mma_atom *any = NULL;
  for (int i = 0; i < N_ATOMS; i++) {
    const char *tail = strstr(atoms[i].name, name);
    if (tail == NULL || tail == atoms[i].name || tail[-1] != '_' || tail[strlen(name)] != '\0') continue;
    if (atoms[i].isas & isa_bits) return &atoms[i];
    if (any == NULL) any = &atoms[i];
  }
  return any;
}

const fsim_mma_atom *fsim_mma_atom_find(const char *name) { return fsim_mma_atom_find_on(name, ~0u); }

const fsim_mma_atom *fsim_mma_atom_for(unsigned isa_bit, int m, int n, int k, fsim_dtype a, fsim_dtype b) {
  for (int i = 0; i < N_ATOMS; i++) {
    const fsim_mma_atom *t = &atoms[i];
    if ((t->isas & isa_bit) && t->m == m && t->n == n && t->k == k && t->a_type == a && t->b_type == b) return t;
  }
  return NULL;
}

fsim_status fsim_mma_atom_layout(const fsim_mma_atom *atom, char which, fsim_layout *out, fsim_err *e) {
  const char *text = which == 'A' ? atom->a_tv : which == 'B' ? atom->b_tv : which == 'C' ? atom->c_tv
                   : which == 'S' ? atom->scale_tv : NULL;
  if (text == NULL) return FSIM_ERR(e, FSIM_EINVAL, "%s has no '%c' operand", atom->name, which);
  return fsim_layout_parse(out, text, e);
}

int fsim_mma_atom_values(const fsim_mma_atom *atom, char which) {
  switch (which) {
  case 'A': return atom->m * atom->k / atom->wave_size;
  case 'B': return atom->n * atom->k / atom->wave_size;
  case 'C': return atom->m * atom->n / atom->wave_size;
  default: return atom->scaled ? 1 : 0;
  }
}

int fsim_mma_atom_k_run(const fsim_mma_atom *atom, char which) {
  /* computed once per atom and operand (and thread: tune simulates on several) */
  static _Thread_local int cache[64][2];
  int n;
  const fsim_mma_atom *all = fsim_mma_atoms(&n);
  int idx = (int)(atom - all), o = which == 'B';
  if (idx >= 0 && idx < 64 && cache[idx][o] > 0) return cache[idx][o];
  fsim_layout tv;
  fsim_err e;
  if (fsim_mma_atom_layout(atom, which, &tv, &e) != FSIM_OK) return 1;
  int rows = which == 'B' ? atom->n : atom->m, vals = fsim_mma_atom_values(atom, which);
  int r0, k0, run = 1;
  fsim_mma_atom_coord(&tv, rows, 0, 0, &r0, &k0);
  for (int v = 1; v < vals; v++) {
    int r, k;
    fsim_mma_atom_coord(&tv, rows, 0, v, &r, &k);
    if (r != r0 || k != k0 + v) break;
    run++;
  }
  if (idx >= 0 && idx < 64) cache[idx][o] = run;
  return run;
}

void fsim_mma_atom_coord(const fsim_layout *tv, int rows, int lane, int value, int *row, int *col) {
  int64_t crd[2] = {lane, value};
  int64_t idx = fsim_layout_eval_modes(tv, crd);
  *row = (int)(idx % rows);
  *col = (int)(idx / rows);
}

static const fsim_copy_atom copies[] = {
    {"global_load_dword", FSIM_OP_LOAD, 4, FSIM_CDNA3 | FSIM_CDNA4 | FSIM_RDNA4, 0},
    {"global_load_dwordx2", FSIM_OP_LOAD, 8, FSIM_CDNA3 | FSIM_CDNA4 | FSIM_RDNA4, 0},
    {"global_load_dwordx3", FSIM_OP_LOAD, 12, FSIM_CDNA3 | FSIM_CDNA4 | FSIM_RDNA4, 0},
    {"global_load_dwordx4", FSIM_OP_LOAD, 16, FSIM_CDNA3 | FSIM_CDNA4 | FSIM_RDNA4, 0},
    {"buffer_load_dword", FSIM_OP_LOAD, 4, FSIM_CDNA3 | FSIM_CDNA4 | FSIM_RDNA4, 0},
    {"buffer_load_dwordx2", FSIM_OP_LOAD, 8, FSIM_CDNA3 | FSIM_CDNA4 | FSIM_RDNA4, 0},
    {"buffer_load_dwordx3", FSIM_OP_LOAD, 12, FSIM_CDNA3 | FSIM_CDNA4 | FSIM_RDNA4, 0},
    {"buffer_load_dwordx4", FSIM_OP_LOAD, 16, FSIM_CDNA3 | FSIM_CDNA4 | FSIM_RDNA4, 0},
    {"global_load_lds_dword", FSIM_OP_LOAD_LDS, 4, FSIM_CDNA3 | FSIM_CDNA4, 0},
    {"global_load_lds_dwordx3", FSIM_OP_LOAD_LDS, 12, FSIM_CDNA4, 0},
    {"global_load_lds_dwordx4", FSIM_OP_LOAD_LDS, 16, FSIM_CDNA4, 0},
    {"buffer_load_lds_dword", FSIM_OP_LOAD_LDS, 4, FSIM_CDNA3 | FSIM_CDNA4, 0},
    {"buffer_load_lds_dwordx4", FSIM_OP_LOAD_LDS, 16, FSIM_CDNA4, 0},
    {"ds_read_u16", FSIM_OP_LDS_READ, 2, FSIM_CDNA3 | FSIM_CDNA4 | FSIM_RDNA4, 0},
    {"ds_read_b32", FSIM_OP_LDS_READ, 4, FSIM_CDNA3 | FSIM_CDNA4 | FSIM_RDNA4, 0},
    {"ds_read_b64", FSIM_OP_LDS_READ, 8, FSIM_CDNA3 | FSIM_CDNA4 | FSIM_RDNA4, 0},
    {"ds_read_b128", FSIM_OP_LDS_READ, 16, FSIM_CDNA3 | FSIM_CDNA4 | FSIM_RDNA4, 0},
    {"ds_read_b64_tr_b8", FSIM_OP_LDS_READ, 8, FSIM_CDNA4, 8},
    {"ds_read_b64_tr_b16", FSIM_OP_LDS_READ, 8, FSIM_CDNA4, 16},
    {"ds_write_b16", FSIM_OP_LDS_WRITE, 2, FSIM_CDNA3 | FSIM_CDNA4 | FSIM_RDNA4, 0},
    {"ds_write_b32", FSIM_OP_LDS_WRITE, 4, FSIM_CDNA3 | FSIM_CDNA4 | FSIM_RDNA4, 0},
    {"ds_write_b64", FSIM_OP_LDS_WRITE, 8, FSIM_CDNA3 | FSIM_CDNA4 | FSIM_RDNA4, 0},
    {"ds_write_b128", FSIM_OP_LDS_WRITE, 16, FSIM_CDNA3 | FSIM_CDNA4 | FSIM_RDNA4, 0},
    {"global_store_dword", FSIM_OP_STORE, 4, FSIM_CDNA3 | FSIM_CDNA4 | FSIM_RDNA4, 0},
    {"global_store_dwordx2", FSIM_OP_STORE, 8, FSIM_CDNA3 | FSIM_CDNA4 | FSIM_RDNA4, 0},
    {"global_store_dwordx4", FSIM_OP_STORE, 16, FSIM_CDNA3 | FSIM_CDNA4 | FSIM_RDNA4, 0},
    {"buffer_store_dword", FSIM_OP_STORE, 4, FSIM_CDNA3 | FSIM_CDNA4 | FSIM_RDNA4, 0},
    {"buffer_store_dwordx2", FSIM_OP_STORE, 8, FSIM_CDNA3 | FSIM_CDNA4 | FSIM_RDNA4, 0},
    {"buffer_store_dwordx4", FSIM_OP_STORE, 16, FSIM_CDNA3 | FSIM_CDNA4 | FSIM_RDNA4, 0},
};
#define N_COPIES ((int)(sizeof copies / sizeof copies[0]))

const fsim_copy_atom *fsim_copy_atoms(int *n) {
  *n = N_COPIES;
  return copies;
}

/* The copy atoms in name order, for a binary search (plans look their atoms up by name, and
 * tuning makes a hundred thousand plans): built once. */
static const fsim_copy_atom *by_name[N_COPIES];
static pthread_once_t by_name_once = PTHREAD_ONCE_INIT;

static int cmp_copy_name(const void *x, const void *y) {
  return strcmp((*(const fsim_copy_atom *const *)x)->name, (*(const fsim_copy_atom *const *)y)->name);
}

static void sort_by_name(void) {
  for (int i = 0; i < N_COPIES; i++) by_name[i] = &copies[i];
  qsort(by_name, N_COPIES, sizeof by_name[0], cmp_copy_name);
}

const fsim_copy_atom *fsim_copy_atom_find(const char *name) {
  pthread_once(&by_name_once, sort_by_name);
  int lo = 0, hi = N_COPIES - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2, c = strcmp(by_name[mid]->name, name);
    if (c == 0) return by_name[mid];
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return NULL;
}
