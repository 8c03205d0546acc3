	.text
	.globl k
k:
	v_mov_b32 v0, 0
	ds_read_b128 v[4:7], v0
	s_waitcnt lgkmcnt(0)
	v_mfma_f32_16x16x32_bf16 a[0:3], v[4:7], v[4:7], a[0:3]
	global_load_dwordx4 v[8:11], v[0:1], off
	s_waitcnt vmcnt(0)
	s_barrier
	s_cbranch_scc1 .LBB0_1
.LBB0_1:
	s_endpgm
