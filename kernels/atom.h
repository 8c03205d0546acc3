/* Atoms: the smallest units a schedule is built from, as data.
 *
 * An MMA atom is one matrix instruction (MFMA on CDNA, WMMA on RDNA4) with the layouts that
 * say which lane holds which element: thread-value (TV) layouts from (lane, value) to the
 * column-major index of an element of A (M x K: row + M*k), B (N x K: col + N*k) and the
 * accumulator C (M x N: row + M*col).  They follow AMD's documented matrix-instruction
 * layouts (the AMD matrix instruction calculator for CDNA3 and RDNA4; the CDNA4 ISA guide,
 * LLVM/IREE/CK layout tables for gfx950; docs/atoms.md gives each source).  Cycle counts are
 * not here: they live in the arch file's MFMA table, looked up by the atom's name.
 *
 * A copy atom is one data-movement instruction: global or buffer loads of 4..16 bytes per
 * lane, gfx950's direct global-to-LDS loads (16 bytes per lane; 4 on gfx942), ds_read and
 * ds_write of 32, 64 and 128 bits, gfx950's transposing ds_read_b64_tr_b16 and _tr_b8, and
 * stores. */
#ifndef FSIM_ATOM_H
#define FSIM_ATOM_H

#include "kernels/layout.h"
#include "model/arch.h"
#include "traces/wprog.h"
#include "util/dtype.h"

#define FSIM_ISA_BIT(isa) (1u << (isa))
#define FSIM_CDNA3 FSIM_ISA_BIT(FSIM_ISA_CDNA3)
#define FSIM_CDNA4 FSIM_ISA_BIT(FSIM_ISA_CDNA4)
#define FSIM_RDNA4 FSIM_ISA_BIT(FSIM_ISA_RDNA4)

typedef struct fsim_mma_atom {
  const char *name;      /* as in the arch file's [mfma.NAME] */
  const char *builtin;   /* clang builtin that emits it */
  unsigned isas;         /* FSIM_CDNA3 | FSIM_CDNA4 | FSIM_RDNA4 */
  int m, n, k;
  fsim_dtype a_type, b_type, c_type;
  int wave_size;
  int scaled;            /* E8M0 scales, one per 32 K values, per row of A / column of B */
  const char *a_tv, *b_tv, *c_tv, *scale_tv; /* layouts in the usual notation */
  const char *source;    /* where the layout comes from */
} fsim_mma_atom;

/* The atoms, in table order; n receives the count. */
const fsim_mma_atom *fsim_mma_atoms(int *n);
/* By name, or by a short name "MxNxK_type" ("16x16x32_bf16"); NULL if unknown.  The _on form
 * resolves a short name to an atom of the given ISAs first (FSIM_CDNA4 ...). */
const fsim_mma_atom *fsim_mma_atom_find(const char *name);
const fsim_mma_atom *fsim_mma_atom_find_on(const char *name, unsigned isa_bits);
/* The atom for a shape and operand types on an ISA, preferring full-rate instructions; NULL if none. */
const fsim_mma_atom *fsim_mma_atom_for(unsigned isa_bit, int m, int n, int k, fsim_dtype a, fsim_dtype b);

/* Parsed TV layouts of an atom: which = 'A', 'B', 'C' or 'S' (scales). */
fsim_status fsim_mma_atom_layout(const fsim_mma_atom *atom, char which, fsim_layout *out, fsim_err *e);
/* Values each lane holds of an operand (size of the value mode). */
int fsim_mma_atom_values(const fsim_mma_atom *atom, char which);
/* Consecutive K values lane 0 holds of A ('A') or B ('B'), from value 0: the widest run one
 * LDS read of a K-major tile can deliver. */
int fsim_mma_atom_k_run(const fsim_mma_atom *atom, char which);
/* The (row, column) an operand's (lane, value) holds: A/B give (mn, k), C gives (m, n),
 * S gives (mn, k-block). */
void fsim_mma_atom_coord(const fsim_layout *tv, int rows, int lane, int value, int *row, int *col);

typedef struct fsim_copy_atom {
  const char *name;      /* ISA mnemonic */
  fsim_op op;            /* wave-program class: LOAD, STORE, LOAD_LDS, LDS_READ, LDS_WRITE */
  int bytes;             /* per lane */
  unsigned isas;
  int transpose;         /* the element bits a transposing read (ds_read_b64_tr_b16, _tr_b8) moves
                            across its 16-lane groups; 0 for every other atom */
} fsim_copy_atom;

const fsim_copy_atom *fsim_copy_atoms(int *n);
const fsim_copy_atom *fsim_copy_atom_find(const char *name);

/* The ISA bit of an arch. */
static inline unsigned fsim_isa_bit(const fsim_arch *a) { return FSIM_ISA_BIT(a->device.isa); }

#endif
