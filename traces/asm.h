/* Compiled AMDGPU assembly read back into wave programs (traces/wprog.h), so that what the
 * compiler made of an emitted kernel can be counted and timed by the same simulator that
 * timed the schedule.
 *
 * The reader takes the text of `clang -S` (labels such as .LBB0_3) or of `llvm-objdump -d`
 * (addresses, and branch targets as <kernel+0x68>), for gfx9 (gfx942, gfx950) and gfx12
 * (gfx1201) mnemonics, and classifies each instruction into the wave-program classes: SALU,
 * VALU, MFMA/WMMA, LDS read or write (with the access width and the transposing reads),
 * VMEM load, store or direct-to-LDS load, SMEM, branch, s_waitcnt (gfx12's s_wait_loadcnt,
 * s_wait_dscnt, ...), barrier (gfx12's s_barrier_wait), s_setprio and s_nop.  Registers
 * (v, a, s, vcc, exec, m0, ranges such as v[8:11]) become the instructions' dependences.
 *
 * Loops are natural loops: a backward branch closes one when the block that dominates both the
 * branch and its target (the loop's header) lies between them; a jump back from a block the
 * compiler placed out of line into the middle of a loop is not one.  Assembly says nothing about
 * trip counts or about the addresses a memory instruction touches, so both come from
 * elsewhere: the trip counts from the plan (or a template wave program's loops, matched in
 * order), the addresses from a template wave program: the n-th LDS read of a loop in the
 * assembly gets the address pattern of the n-th LDS read of the matching loop of the
 * template, and so on per class.  This is an approximation: it assumes the compiler kept the
 * order of the accesses (the emitted kernels pin it with sched_group_barrier).  A ds_read2 or
 * ds_write2 (two addresses in one instruction) becomes two accesses of half its width, each
 * taking the next pattern and writing its half of the destination; the second reads no
 * registers (the instruction read its address at issue, even when the destination overwrites
 * it), and since the instruction is one lgkm count, an s_waitcnt lgkmcnt(N) becomes a wait for
 * the accesses the last N LDS and SMEM instructions of the wave's path made.
 *
 * Branches are followed per wave, as the hardware would: each wave of the workgroup walks the
 * code from the top with a small evaluator of the scalar state (SGPRs, SCC, VCC, EXEC, M0,
 * and lane 0 of the VGPRs with a flag saying whether every lane holds the same value), which
 * starts from what is known at launch: v0 is the thread's index in the workgroup (lane 0 of
 * wave w holds w * wave size), EXEC has every lane on, the rest (kernel arguments, workgroup
 * ids, loads) is unknown.  A conditional branch whose condition evaluates (the ping-pong
 * kernels' `wave < WAVES / 2` tests, which the compiler turns into s_cmp on the wave's
 * v_readfirstlane of v0) is taken or not as it evaluates; one whose condition is unknown is
 * read as falling through and counted.  An unconditional branch is taken.  Loops are not
 * unrolled: a wave enters a loop at its first instruction, runs its body once as the loop's
 * single iteration (registers written anywhere in the body are unknown at its top) and leaves
 * it at the backward branch that closes it; a branch that would leave a loop from inside, or
 * enter one past its first instruction, is read as falling through.  Waves that take the same
 * path share a wave program; the others get their own (ping-pong: two).  s_endpgm becomes a
 * wait for every outstanding access: a kernel is done when its stores are. */
#ifndef FSIM_ASM_H
#define FSIM_ASM_H

#include <stdint.h>

#include "model/arch.h"
#include "traces/wprog.h"
#include "util/status.h"

#define FSIM_ASM_MAX_LOOPS 16

/* A register operand: file 'v', 'a' or 's' with `count` registers from `first`, or a special
 * register ('c' vcc, 'e' exec, 'm' m0); file 0 means none. */
typedef struct fsim_asm_reg {
  char file;
  int first, count;
} fsim_asm_reg;

/* An operand as the evaluator of branch conditions reads it: kind 's' scalar slots (SGPR n
 * is slot n; vcc, exec and m0 are the FSIM_ASM_SLOT_* slots), 'v' VGPRs, 'i' an integer
 * immediate, 'x' anything else (AGPRs, floats, modifiers), 0 none. */
#define FSIM_ASM_SLOT_VCC 128 /* vcc_lo; vcc_hi is the next */
#define FSIM_ASM_SLOT_EXEC 130 /* exec_lo; exec_hi is the next */
#define FSIM_ASM_SLOT_M0 132
#define FSIM_ASM_SLOT_NULL 133 /* null and scc as an operand: reads unknown, writes are dropped */
#define FSIM_ASM_SLOTS 134
#define FSIM_ASM_MAX_OPNDS 4
typedef struct fsim_asm_opnd {
  char kind;
  int16_t first, count;
  int64_t imm;
} fsim_asm_opnd;

typedef struct fsim_asm_inst {
  char mnemonic[48];
  int line;            /* 1-based line in the text */
  uint8_t op;          /* fsim_op */
  uint8_t width;       /* bytes per lane of a memory access */
  uint8_t flags;       /* FSIM_IF_TRANSPOSE */
  uint8_t pair;        /* ds_read2 / ds_write2 (and gfx12's _2addr): two accesses of width / 2 */
  int vmcnt, lgkmcnt;  /* waitcnt: the counts waited for, -1 = that counter is not waited on */
  int arg;             /* setprio: priority; nop: cycles; scaled MFMA: the A format (cbsz, 0 = fp8) */
  int target;          /* branch: index of the target instruction (n: the final s_endpgm; -1: none found) */
  uint16_t natural;    /* bit l: the instruction lies in loop l's natural loop (its range, for a loop
                          without a header) */
  fsim_asm_reg dst;
  fsim_asm_reg dst2;   /* a VOPD pair's Y destination when it does not widen dst: counted in the
                          kernel's registers, its value not tracked */
  fsim_asm_reg src[FSIM_WP_MAX_SRC]; /* an MFMA's A, B, C and then its scale registers; 3 at most for the others */
  int nsrc;
  fsim_asm_opnd opnd[FSIM_ASM_MAX_OPNDS]; /* the first operands, in order, for the evaluator */
  int nopnd;
} fsim_asm_inst;

/* A loop: instructions [begin, end], which hold the blocks of its natural loop where that
 * swallows no other loop (else its backward branches and the loops inside it), `head` being
 * the first instruction of its header (`begin` where clang placed no block above it). */
typedef struct fsim_asm_loop {
  int begin, end, head;
} fsim_asm_loop;

typedef struct fsim_asm_kernel {
  char *name;                              /* the kernel's symbol, whole (a C++ mangled name runs to
                                              hundreds of characters); fsim_asm_free frees it */
  int n, cap;
  fsim_asm_inst *inst;
  int nloops;
  fsim_asm_loop loops[FSIM_ASM_MAX_LOOPS]; /* sorted by begin; properly nested */
  int max_vgpr, max_agpr, max_sgpr;        /* highest register index used, plus one */
  int64_t lds_bytes;                       /* the LDS its descriptor allocates (.amdhsa_group_segment_fixed_size),
                                              -1 when the text has no descriptor (llvm-objdump -d) */
  int unknown;                             /* mnemonics not recognised (counted as VALU) */
} fsim_asm_kernel;

/* Parses the kernel `kernel` (NULL: the first one) out of assembly text; source names the
 * text in messages. */
fsim_status fsim_asm_parse(fsim_asm_kernel *k, const char *text, const char *source, const char *kernel, fsim_err *e);
void fsim_asm_free(fsim_asm_kernel *k);

/* The instruction mix of a stretch of code, as a static count (loops not expanded). */
typedef struct fsim_asm_mix {
  int64_t mfma, lds_read, lds_write, lds_read_bytes, lds_write_bytes; /* bytes per lane */
  int64_t vmem_load, load_lds, vmem_store;                            /* vmem_load excludes load_lds */
  int64_t waitcnt, barrier, setprio, valu, salu, smem, branch, nop, total;
} fsim_asm_mix;

/* Instructions [from, to) of the assembly. */
void fsim_asm_mix_range(const fsim_asm_kernel *k, int from, int to, fsim_asm_mix *m);
/* Instructions [from, to) of a wave program (LOOP and END markers are not counted). */
void fsim_wp_mix_range(const fsim_wp_program *p, int from, int to, fsim_asm_mix *m);

/* The top-level loops of a wave program whose trip count is above one (a loop that runs once
 * is straight-line code to a compiler): LOOP index, END index and trip count.  Returns how
 * many, at most max. */
int fsim_wp_top_loops(const fsim_wp_program *p, int *begin, int *end, int64_t *trip, int max);

typedef struct fsim_asm_wprog_opts {
  const fsim_wprog *tmpl;  /* grid, waves, remap and address patterns come from here; NULL:
                              one workgroup of one wave and synthetic linear addresses */
  const int64_t *trips;    /* trip counts of the assembly's loops in order (NULL: those of the
                              template's top-level loops when the counts agree, else 1) */
  int ntrips;
  int vgprs, agprs, sgprs, lds_bytes; /* the code object's resources (-1: the template's) */
  int drop_setprio_for_second_half;   /* ping-pong fallback: when every wave takes the same path
                                         (the group test could not be evaluated) but the template
                                         has two programs, the waves of its program 1 run that path
                                         without its s_setprio */
} fsim_asm_wprog_opts;

typedef struct fsim_asm_wprog_info {
  int matched_by_loop;     /* 1: addresses matched loop by loop; 0: over the whole program */
  int loops_without_trip;  /* loops that ran once for want of a trip count */
  int loops_not_walked;    /* loops on no wave's path (behind a branch read the other way: an
                              if's other arm, a loop guard read as skipping the loop): their
                              trip counts change nothing */
  int synthetic;           /* memory instructions given a synthetic address */
  int paths;               /* distinct paths the waves of a workgroup take (wave programs made) */
  int branches_decided;    /* conditional branches met on the waves' paths whose condition
                              evaluated (each branch counted once) */
  int branches_undecided;  /* conditional branches read as falling through: condition unknown
                              (loop exit tests not included) */
  int loop_exits;          /* conditional branches out of a loop whose condition is unknown (its
                              counter), read as falling through, as all but the last trip do */
  int branches_kept_straight; /* taken branches out of a loop other than to its end, read as
                                 falling through */
  int loops_entered_midway;   /* branches into the middle of a loop (rotated loops), read as
                                 falling through to the loop's top */
  int loop_guards;         /* branches whose condition is unknown that guard a loop laid out past
                              the zero-trip path (a loop over a kernel argument), read as taken:
                              the loop runs its --trips */
  int wave_path_differs;   /* waves whose path puts them with other waves than the template's
                              wave-to-program map does (0 when they agree) */
  int setprio_fallback;    /* 1: drop_setprio_for_second_half was applied */
} fsim_asm_wprog_info;

/* Builds a wave program from parsed assembly (see the file comment).  The program is named
 * after the kernel, shortened to its first characters and "..." where the symbol does not fit
 * a wave program's name (FSIM_WP_NAME). */
fsim_status fsim_asm_to_wprog(const fsim_asm_kernel *k, const fsim_arch *a, const fsim_asm_wprog_opts *o,
                              fsim_wprog *wp, fsim_asm_wprog_info *info, fsim_err *e);

#endif
