	.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
	.amdhsa_code_object_version 6
	.text
	.protected	fsim_gemm_gfx950_128x128x64_w2x2_s2 ; -- Begin function fsim_gemm_gfx950_128x128x64_w2x2_s2
	.globl	fsim_gemm_gfx950_128x128x64_w2x2_s2
	.p2align	8
	.type	fsim_gemm_gfx950_128x128x64_w2x2_s2,@function
fsim_gemm_gfx950_128x128x64_w2x2_s2:    ; @fsim_gemm_gfx950_128x128x64_w2x2_s2
; %bb.0:
	s_load_dwordx4 s[4:7], s[0:1], 0x0
	s_load_dwordx2 s[8:9], s[0:1], 0x10
	s_ashr_i32 s0, s2, 31
	s_lshr_b32 s0, s0, 30
	s_add_i32 s1, s2, s0
	s_ashr_i32 s0, s1, 2
	s_and_b32 s1, s1, 0xfffc
	s_sub_i32 s1, s2, s1
	s_bfe_u32 s2, s1, 0x10007
	s_add_i32 s3, s1, s2
	s_bfe_i32 s2, s3, 0x80000
	s_and_b32 s3, s3, 0xfe
	v_readfirstlane_b32 s17, v0
	s_sub_i32 s14, s1, s3
	s_ashr_i32 s1, s0, 31
	s_lshr_b32 s16, s17, 6
	s_lshr_b32 s2, s2, 1
	s_lshl_b64 s[10:11], s[0:1], 17
	s_waitcnt lgkmcnt(0)
	s_add_u32 s0, s4, s10
	s_addc_u32 s1, s5, s11
	s_bfe_i64 s[12:13], s[2:3], 0x80000
	s_lshl_b64 s[2:3], s[12:13], 16
	s_add_u32 s0, s0, s2
	s_addc_u32 s1, s1, s3
	s_sub_i32 s2, 0x20000, s2
	s_and_b32 s1, s1, 0xffff
	s_add_u32 s6, s6, s10
	s_addc_u32 s7, s7, s11
	s_bfe_i64 s[4:5], s[14:15], 0x80000
	s_lshl_b64 s[14:15], s[4:5], 16
	s_add_u32 s4, s6, s14
	s_addc_u32 s5, s7, s15
	s_lshl_b32 s18, s17, 7
	v_lshlrev_b32_e32 v2, 4, v0
	v_lshlrev_b32_e32 v3, 6, v0
	v_lshlrev_b32_e32 v4, 1, v0
	s_and_b32 s19, s18, 0x2000
	s_movk_i32 s18, 0x70
	v_and_b32_e32 v3, 0x3e00, v3
	v_xor_b32_e32 v4, v2, v4
	v_and_or_b32 v66, v4, s18, v3
	s_lshl_b32 s18, s16, 10
	s_mov_b32 s3, 0x20000
	s_mov_b32 m0, s18
	s_movk_i32 s20, 0x4000
	buffer_load_dwordx4 v66, s[0:3], 0 offen lds
	s_add_i32 m0, s18, 0x1000
	s_mov_b32 s23, 0x8000
	buffer_load_dwordx4 v66, s[0:3], s20 offen lds
	s_add_i32 m0, s18, 0x2000
	s_mov_b32 s24, 0xc000
	buffer_load_dwordx4 v66, s[0:3], s23 offen lds
	s_add_i32 m0, s18, 0x3000
	s_sub_i32 s6, 0x20000, s14
	s_and_b32 s5, s5, 0xffff
	s_mov_b32 s7, s3
	buffer_load_dwordx4 v66, s[0:3], s24 offen lds
	s_add_i32 m0, s18, 0x4000
	s_mov_b32 s21, s6
	buffer_load_dwordx4 v66, s[4:7], 0 offen lds
	s_add_i32 m0, s18, 0x5000
	v_and_b32_e32 v1, 48, v0
	buffer_load_dwordx4 v66, s[4:7], s20 offen lds
	s_add_i32 m0, s18, 0x6000
	v_lshlrev_b32_e32 v3, 7, v0
	buffer_load_dwordx4 v66, s[4:7], s23 offen lds
	s_add_i32 m0, s18, 0x7000
	s_lshr_b32 s17, s17, 7
	buffer_load_dwordx4 v66, s[4:7], s24 offen lds
	s_movk_i32 s6, 0x780
	v_and_or_b32 v1, v3, s6, v1
	v_and_b32_e32 v2, 0x70, v2
	v_or_b32_e32 v3, 64, v1
	s_lshl_b32 s6, s17, 13
	v_bitop3_b32 v68, v1, v2, s19 bitop3:0x36
	v_bitop3_b32 v67, v3, v2, s19 bitop3:0x36
	v_bitop3_b32 v69, v1, v2, s6 bitop3:0x36
	v_bitop3_b32 v1, v3, v2, s6 bitop3:0x36
	s_mov_b32 s20, 0
	s_mov_b32 s19, 0x8080
	v_mov_b32_e32 v2, 0
	v_mov_b32_e32 v3, 0
	v_mov_b32_e32 v4, 0
	v_mov_b32_e32 v5, 0
	v_mov_b32_e32 v14, 0
	v_mov_b32_e32 v15, 0
	v_mov_b32_e32 v16, 0
	v_mov_b32_e32 v17, 0
	v_mov_b32_e32 v10, 0
	v_mov_b32_e32 v11, 0
	v_mov_b32_e32 v12, 0
	v_mov_b32_e32 v13, 0
	v_mov_b32_e32 v30, 0
	v_mov_b32_e32 v31, 0
	v_mov_b32_e32 v32, 0
	v_mov_b32_e32 v33, 0
	v_mov_b32_e32 v6, 0
	v_mov_b32_e32 v7, 0
	v_mov_b32_e32 v8, 0
	v_mov_b32_e32 v9, 0
	v_mov_b32_e32 v22, 0
	v_mov_b32_e32 v23, 0
	v_mov_b32_e32 v24, 0
	v_mov_b32_e32 v25, 0
	v_mov_b32_e32 v18, 0
	v_mov_b32_e32 v19, 0
	v_mov_b32_e32 v20, 0
	v_mov_b32_e32 v21, 0
	v_mov_b32_e32 v38, 0
	v_mov_b32_e32 v39, 0
	v_mov_b32_e32 v40, 0
	v_mov_b32_e32 v41, 0
	v_mov_b32_e32 v26, 0
	v_mov_b32_e32 v27, 0
	v_mov_b32_e32 v28, 0
	v_mov_b32_e32 v29, 0
	v_mov_b32_e32 v46, 0
	v_mov_b32_e32 v47, 0
	v_mov_b32_e32 v48, 0
	v_mov_b32_e32 v49, 0
	v_mov_b32_e32 v34, 0
	v_mov_b32_e32 v35, 0
	v_mov_b32_e32 v36, 0
	v_mov_b32_e32 v37, 0
	v_mov_b32_e32 v50, 0
	v_mov_b32_e32 v51, 0
	v_mov_b32_e32 v52, 0
	v_mov_b32_e32 v53, 0
	v_mov_b32_e32 v42, 0
	v_mov_b32_e32 v43, 0
	v_mov_b32_e32 v44, 0
	v_mov_b32_e32 v45, 0
	v_mov_b32_e32 v58, 0
	v_mov_b32_e32 v59, 0
	v_mov_b32_e32 v60, 0
	v_mov_b32_e32 v61, 0
	v_mov_b32_e32 v54, 0
	v_mov_b32_e32 v55, 0
	v_mov_b32_e32 v56, 0
	v_mov_b32_e32 v57, 0
	v_mov_b32_e32 v62, 0
	v_mov_b32_e32 v63, 0
	v_mov_b32_e32 v64, 0
	v_mov_b32_e32 v65, 0
	s_mov_b32 s6, s21
.LBB0_1:                                ; =>This Inner Loop Header: Depth=1
	; sched_barrier mask(0x00000000)
	s_add_i32 s21, s20, 0x8000
	s_and_b32 s25, s21, 0x8000
	s_add_i32 s25, s18, s25
	;;#ASMSTART
	s_waitcnt vmcnt(0)
	s_barrier
	;;#ASMEND
	s_add_i32 s22, s19, 0xffff8000
	s_mov_b32 m0, s25
	s_add_i32 s23, s19, 0xffffc000
	buffer_load_dwordx4 v66, s[0:3], s22 offen lds
	s_add_i32 m0, s25, 0x1000
	s_add_i32 s24, s19, 0x4000
	buffer_load_dwordx4 v66, s[0:3], s23 offen lds
	s_add_i32 m0, s25, 0x2000
	s_and_b32 s20, s20, 0x8000
	buffer_load_dwordx4 v66, s[0:3], s19 offen lds
	s_add_i32 m0, s25, 0x3000
	v_or_b32_e32 v70, s20, v68
	buffer_load_dwordx4 v66, s[0:3], s24 offen lds
	s_add_i32 m0, s25, 0x4000
	v_add_u32_e32 v71, s20, v69
	buffer_load_dwordx4 v66, s[4:7], s22 offen lds
	s_add_i32 m0, s25, 0x5000
	s_nop 0
	buffer_load_dwordx4 v66, s[4:7], s23 offen lds
	s_add_i32 m0, s25, 0x6000
	s_nop 0
	buffer_load_dwordx4 v66, s[4:7], s19 offen lds
	s_add_i32 m0, s25, 0x7000
	s_addk_i32 s19, 0x80
	buffer_load_dwordx4 v66, s[4:7], s24 offen lds
	ds_read_b128 v[72:75], v70
	ds_read_b128 v[76:79], v70 offset:2048
	ds_read_b128 v[80:83], v70 offset:4096
	ds_read_b128 v[84:87], v71 offset:16384
	ds_read_b128 v[88:91], v70 offset:6144
	ds_read_b128 v[92:95], v71 offset:18432
	ds_read_b128 v[96:99], v71 offset:20480
	ds_read_b128 v[100:103], v71 offset:22528
	v_or_b32_e32 v70, s20, v67
	s_waitcnt lgkmcnt(4)
	v_mfma_f32_16x16x32_bf16 v[2:5], v[72:75], v[84:87], v[2:5]
	s_cmpk_eq_u32 s19, 0x8200
	; sched_group_barrier mask(0x00000020) size(8) SyncID(0)
	; sched_group_barrier mask(0x00000100) size(8) SyncID(0)
	s_waitcnt lgkmcnt(2)
	v_mfma_f32_16x16x32_bf16 v[14:17], v[72:75], v[92:95], v[14:17]
	ds_read_b128 v[104:107], v70
	; sched_group_barrier mask(0x00000008) size(2) SyncID(0)
	; sched_group_barrier mask(0x00000100) size(1) SyncID(0)
	s_waitcnt lgkmcnt(2)
	v_mfma_f32_16x16x32_bf16 v[10:13], v[72:75], v[96:99], v[10:13]
	s_waitcnt lgkmcnt(1)
	v_mfma_f32_16x16x32_bf16 v[30:33], v[72:75], v[100:103], v[30:33]
	ds_read_b128 v[72:75], v70 offset:2048
	; sched_group_barrier mask(0x00000008) size(2) SyncID(0)
	; sched_group_barrier mask(0x00000100) size(1) SyncID(0)
	v_mfma_f32_16x16x32_bf16 v[6:9], v[76:79], v[84:87], v[6:9]
	v_mfma_f32_16x16x32_bf16 v[22:25], v[76:79], v[92:95], v[22:25]
	ds_read_b128 v[108:111], v70 offset:4096
	; sched_group_barrier mask(0x00000008) size(2) SyncID(0)
	; sched_group_barrier mask(0x00000100) size(1) SyncID(0)
	v_mfma_f32_16x16x32_bf16 v[18:21], v[76:79], v[96:99], v[18:21]
	v_mfma_f32_16x16x32_bf16 v[38:41], v[76:79], v[100:103], v[38:41]
	ds_read_b128 v[76:79], v70 offset:6144
	v_add_u32_e32 v70, s20, v1
	s_mov_b32 s20, s21
	v_mfma_f32_16x16x32_bf16 v[26:29], v[80:83], v[84:87], v[26:29]
	; sched_group_barrier mask(0x00000008) size(2) SyncID(0)
	; sched_group_barrier mask(0x00000100) size(1) SyncID(0)
	v_mfma_f32_16x16x32_bf16 v[46:49], v[80:83], v[92:95], v[46:49]
	ds_read_b128 v[112:115], v70 offset:16384
	; sched_group_barrier mask(0x00000008) size(2) SyncID(0)
	; sched_group_barrier mask(0x00000100) size(1) SyncID(0)
	v_mfma_f32_16x16x32_bf16 v[34:37], v[80:83], v[96:99], v[34:37]
	v_mfma_f32_16x16x32_bf16 v[50:53], v[80:83], v[100:103], v[50:53]
	ds_read_b128 v[80:83], v70 offset:18432
	; sched_group_barrier mask(0x00000008) size(2) SyncID(0)
	; sched_group_barrier mask(0x00000100) size(1) SyncID(0)
	v_mfma_f32_16x16x32_bf16 v[42:45], v[88:91], v[84:87], v[42:45]
	v_mfma_f32_16x16x32_bf16 v[58:61], v[88:91], v[92:95], v[58:61]
	ds_read_b128 v[84:87], v70 offset:20480
	; sched_group_barrier mask(0x00000008) size(2) SyncID(0)
	; sched_group_barrier mask(0x00000100) size(1) SyncID(0)
	v_mfma_f32_16x16x32_bf16 v[54:57], v[88:91], v[96:99], v[54:57]
	v_mfma_f32_16x16x32_bf16 v[62:65], v[88:91], v[100:103], v[62:65]
	ds_read_b128 v[88:91], v70 offset:22528
	; sched_group_barrier mask(0x00000008) size(2) SyncID(0)
	; sched_group_barrier mask(0x00000100) size(1) SyncID(0)
	s_waitcnt lgkmcnt(3)
	v_mfma_f32_16x16x32_bf16 v[2:5], v[104:107], v[112:115], v[2:5]
	s_waitcnt lgkmcnt(2)
	v_mfma_f32_16x16x32_bf16 v[14:17], v[104:107], v[80:83], v[14:17]
	s_waitcnt lgkmcnt(1)
	v_mfma_f32_16x16x32_bf16 v[10:13], v[104:107], v[84:87], v[10:13]
	s_waitcnt lgkmcnt(0)
	v_mfma_f32_16x16x32_bf16 v[30:33], v[104:107], v[88:91], v[30:33]
	v_mfma_f32_16x16x32_bf16 v[6:9], v[72:75], v[112:115], v[6:9]
	v_mfma_f32_16x16x32_bf16 v[22:25], v[72:75], v[80:83], v[22:25]
	v_mfma_f32_16x16x32_bf16 v[18:21], v[72:75], v[84:87], v[18:21]
	v_mfma_f32_16x16x32_bf16 v[38:41], v[72:75], v[88:91], v[38:41]
	v_mfma_f32_16x16x32_bf16 v[26:29], v[108:111], v[112:115], v[26:29]
	v_mfma_f32_16x16x32_bf16 v[46:49], v[108:111], v[80:83], v[46:49]
	v_mfma_f32_16x16x32_bf16 v[34:37], v[108:111], v[84:87], v[34:37]
	v_mfma_f32_16x16x32_bf16 v[50:53], v[108:111], v[88:91], v[50:53]
	v_mfma_f32_16x16x32_bf16 v[42:45], v[76:79], v[112:115], v[42:45]
	v_mfma_f32_16x16x32_bf16 v[58:61], v[76:79], v[80:83], v[58:61]
	v_mfma_f32_16x16x32_bf16 v[54:57], v[76:79], v[84:87], v[54:57]
	v_mfma_f32_16x16x32_bf16 v[62:65], v[76:79], v[88:91], v[62:65]
	; sched_group_barrier mask(0x00000008) size(16) SyncID(0)
	s_cbranch_scc0 .LBB0_1
; %bb.2:
	; sched_barrier mask(0x00000000)
	;;#ASMSTART
	s_waitcnt vmcnt(0) lgkmcnt(0)
	s_barrier
	;;#ASMEND
	ds_read_b128 v[70:73], v68 offset:32768
	ds_read_b128 v[74:77], v68 offset:34816
	ds_read_b128 v[78:81], v68 offset:36864
	ds_read_b128 v[82:85], v68 offset:38912
	ds_read_b128 v[86:89], v69 offset:49152
	ds_read_b128 v[90:93], v69 offset:51200
	ds_read_b128 v[94:97], v69 offset:53248
	ds_read_b128 v[98:101], v69 offset:55296
	s_mul_i32 s0, s17, 0x7f00
	s_waitcnt lgkmcnt(3)
	v_mfma_f32_16x16x32_bf16 v[2:5], v[70:73], v[86:89], v[2:5]
	s_lshl_b32 s1, s16, 7
	s_movk_i32 s2, 0x1e18
	s_add_i32 s0, s0, s1
	s_waitcnt lgkmcnt(2)
	v_mfma_f32_16x16x32_bf16 v[14:17], v[70:73], v[90:93], v[14:17]
	ds_read_b128 v[102:105], v67 offset:32768
	; sched_group_barrier mask(0x00000100) size(8) SyncID(0)
	; sched_group_barrier mask(0x00000008) size(2) SyncID(0)
	; sched_group_barrier mask(0x00000100) size(1) SyncID(0)
	s_waitcnt lgkmcnt(2)
	v_mfma_f32_16x16x32_bf16 v[10:13], v[70:73], v[94:97], v[10:13]
	s_waitcnt lgkmcnt(1)
	v_mfma_f32_16x16x32_bf16 v[30:33], v[70:73], v[98:101], v[30:33]
	ds_read_b128 v[68:71], v67 offset:34816
	; sched_group_barrier mask(0x00000008) size(2) SyncID(0)
	; sched_group_barrier mask(0x00000100) size(1) SyncID(0)
	v_mfma_f32_16x16x32_bf16 v[6:9], v[74:77], v[86:89], v[6:9]
	v_mfma_f32_16x16x32_bf16 v[22:25], v[74:77], v[90:93], v[22:25]
	ds_read_b128 v[106:109], v67 offset:36864
	; sched_group_barrier mask(0x00000008) size(2) SyncID(0)
	; sched_group_barrier mask(0x00000100) size(1) SyncID(0)
	v_mfma_f32_16x16x32_bf16 v[18:21], v[74:77], v[94:97], v[18:21]
	v_mfma_f32_16x16x32_bf16 v[38:41], v[74:77], v[98:101], v[38:41]
	ds_read_b128 v[72:75], v67 offset:38912
	; sched_group_barrier mask(0x00000008) size(2) SyncID(0)
	; sched_group_barrier mask(0x00000100) size(1) SyncID(0)
	v_mfma_f32_16x16x32_bf16 v[26:29], v[78:81], v[86:89], v[26:29]
	v_mfma_f32_16x16x32_bf16 v[46:49], v[78:81], v[90:93], v[46:49]
	ds_read_b128 v[110:113], v1 offset:49152
	; sched_group_barrier mask(0x00000008) size(2) SyncID(0)
	; sched_group_barrier mask(0x00000100) size(1) SyncID(0)
	v_mfma_f32_16x16x32_bf16 v[34:37], v[78:81], v[94:97], v[34:37]
	v_mfma_f32_16x16x32_bf16 v[50:53], v[78:81], v[98:101], v[50:53]
	ds_read_b128 v[76:79], v1 offset:51200
	; sched_group_barrier mask(0x00000008) size(2) SyncID(0)
	; sched_group_barrier mask(0x00000100) size(1) SyncID(0)
	v_mfma_f32_16x16x32_bf16 v[42:45], v[82:85], v[86:89], v[42:45]
	v_mfma_f32_16x16x32_bf16 v[58:61], v[82:85], v[90:93], v[58:61]
	ds_read_b128 v[86:89], v1 offset:53248
	; sched_group_barrier mask(0x00000008) size(2) SyncID(0)
	; sched_group_barrier mask(0x00000100) size(1) SyncID(0)
	v_mfma_f32_16x16x32_bf16 v[54:57], v[82:85], v[94:97], v[54:57]
	v_mfma_f32_16x16x32_bf16 v[62:65], v[82:85], v[98:101], v[62:65]
	ds_read_b128 v[80:83], v1 offset:55296
	v_lshlrev_b32_e32 v1, 9, v0
	v_lshrrev_b32_e32 v0, 1, v0
	v_bitop3_b32 v0, v0, s2, v1 bitop3:0xc8
	s_add_u32 s2, s8, s10
	v_add_u32_e32 v66, s0, v0
	s_addc_u32 s3, s9, s11
	s_lshl_b64 s[0:1], s[12:13], 8
	s_add_u32 s4, s14, s0
	s_addc_u32 s1, s15, s1
	s_add_u32 s0, s2, s4
	s_addc_u32 s1, s3, s1
	; sched_group_barrier mask(0x00000008) size(2) SyncID(0)
	; sched_group_barrier mask(0x00000100) size(1) SyncID(0)
	s_waitcnt lgkmcnt(3)
	v_mfma_f32_16x16x32_bf16 v[2:5], v[102:105], v[110:113], v[2:5]
	s_mov_b32 s3, 0x20000
	s_sub_i32 s2, 0x20000, s4
	s_and_b32 s1, s1, 0xffff
	s_waitcnt lgkmcnt(2)
	v_mfma_f32_16x16x32_bf16 v[14:17], v[102:105], v[76:79], v[14:17]
	s_waitcnt lgkmcnt(1)
	v_mfma_f32_16x16x32_bf16 v[10:13], v[102:105], v[86:89], v[10:13]
	s_waitcnt lgkmcnt(0)
	v_mfma_f32_16x16x32_bf16 v[30:33], v[102:105], v[80:83], v[30:33]
	v_mfma_f32_16x16x32_bf16 v[6:9], v[68:71], v[110:113], v[6:9]
	v_mfma_f32_16x16x32_bf16 v[22:25], v[68:71], v[76:79], v[22:25]
	v_mfma_f32_16x16x32_bf16 v[18:21], v[68:71], v[86:89], v[18:21]
	v_mfma_f32_16x16x32_bf16 v[38:41], v[68:71], v[80:83], v[38:41]
	v_mfma_f32_16x16x32_bf16 v[26:29], v[106:109], v[110:113], v[26:29]
	v_mfma_f32_16x16x32_bf16 v[46:49], v[106:109], v[76:79], v[46:49]
	v_mfma_f32_16x16x32_bf16 v[34:37], v[106:109], v[86:89], v[34:37]
	v_mfma_f32_16x16x32_bf16 v[50:53], v[106:109], v[80:83], v[50:53]
	v_mfma_f32_16x16x32_bf16 v[42:45], v[72:75], v[110:113], v[42:45]
	v_mfma_f32_16x16x32_bf16 v[58:61], v[72:75], v[76:79], v[58:61]
	v_mfma_f32_16x16x32_bf16 v[54:57], v[72:75], v[86:89], v[54:57]
	v_mfma_f32_16x16x32_bf16 v[62:65], v[72:75], v[80:83], v[62:65]
	; sched_group_barrier mask(0x00000008) size(16) SyncID(0)
	; sched_barrier mask(0x00000000)
	;;#ASMSTART
	s_waitcnt vmcnt(0)
	;;#ASMEND
	v_cvt_pk_bf16_f32 v0, v2, v3
	v_cvt_pk_bf16_f32 v1, v4, v5
	v_cvt_pk_bf16_f32 v2, v14, v15
	v_cvt_pk_bf16_f32 v3, v16, v17
	buffer_store_dwordx2 v[0:1], v66, s[0:3], 0 offen
	v_add_u32_e32 v0, 0x2000, v66
	v_cvt_pk_bf16_f32 v4, v10, v11
	v_cvt_pk_bf16_f32 v5, v12, v13
	v_cvt_pk_bf16_f32 v10, v30, v31
	v_cvt_pk_bf16_f32 v11, v32, v33
	v_cvt_pk_bf16_f32 v6, v6, v7
	v_cvt_pk_bf16_f32 v7, v8, v9
	v_cvt_pk_bf16_f32 v8, v22, v23
	v_cvt_pk_bf16_f32 v9, v24, v25
	v_cvt_pk_bf16_f32 v12, v18, v19
	v_cvt_pk_bf16_f32 v13, v20, v21
	v_cvt_pk_bf16_f32 v14, v38, v39
	v_cvt_pk_bf16_f32 v15, v40, v41
	v_cvt_pk_bf16_f32 v16, v26, v27
	v_cvt_pk_bf16_f32 v17, v28, v29
	v_cvt_pk_bf16_f32 v18, v46, v47
	v_cvt_pk_bf16_f32 v19, v48, v49
	v_cvt_pk_bf16_f32 v20, v34, v35
	v_cvt_pk_bf16_f32 v21, v36, v37
	v_cvt_pk_bf16_f32 v22, v50, v51
	v_cvt_pk_bf16_f32 v23, v52, v53
	v_cvt_pk_bf16_f32 v24, v42, v43
	v_cvt_pk_bf16_f32 v25, v44, v45
	v_cvt_pk_bf16_f32 v26, v58, v59
	v_cvt_pk_bf16_f32 v27, v60, v61
	v_cvt_pk_bf16_f32 v28, v54, v55
	v_cvt_pk_bf16_f32 v29, v56, v57
	v_cvt_pk_bf16_f32 v30, v62, v63
	v_cvt_pk_bf16_f32 v31, v64, v65
	buffer_store_dwordx2 v[2:3], v0, s[0:3], 0 offen
	v_add_u32_e32 v1, 0x4000, v66
	v_add_u32_e32 v2, 0x6000, v66
	buffer_store_dwordx2 v[4:5], v1, s[0:3], 0 offen
	buffer_store_dwordx2 v[10:11], v2, s[0:3], 0 offen
	buffer_store_dwordx2 v[6:7], v66, s[0:3], 0 offen offset:32
	buffer_store_dwordx2 v[8:9], v0, s[0:3], 0 offen offset:32
	buffer_store_dwordx2 v[12:13], v1, s[0:3], 0 offen offset:32
	buffer_store_dwordx2 v[14:15], v2, s[0:3], 0 offen offset:32
	buffer_store_dwordx2 v[16:17], v66, s[0:3], 0 offen offset:64
	buffer_store_dwordx2 v[18:19], v0, s[0:3], 0 offen offset:64
	buffer_store_dwordx2 v[20:21], v1, s[0:3], 0 offen offset:64
	buffer_store_dwordx2 v[22:23], v2, s[0:3], 0 offen offset:64
	buffer_store_dwordx2 v[24:25], v66, s[0:3], 0 offen offset:96
	buffer_store_dwordx2 v[26:27], v0, s[0:3], 0 offen offset:96
	buffer_store_dwordx2 v[28:29], v1, s[0:3], 0 offen offset:96
	buffer_store_dwordx2 v[30:31], v2, s[0:3], 0 offen offset:96
	s_endpgm
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel fsim_gemm_gfx950_128x128x64_w2x2_s2
		.amdhsa_group_segment_fixed_size 65536
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 24
		.amdhsa_user_sgpr_count 2
		.amdhsa_user_sgpr_dispatch_ptr 0
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_kernarg_preload_length 0
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_enable_private_segment 0
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 0
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 169
		.amdhsa_next_free_sgpr 96
		.amdhsa_accum_offset 116
		.amdhsa_reserve_vcc 0
		.amdhsa_float_round_mode_32 0
		.amdhsa_float_round_mode_16_64 0
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_float_denorm_mode_16_64 3
		.amdhsa_dx10_clamp 1
		.amdhsa_ieee_mode 1
		.amdhsa_fp16_overflow 0
		.amdhsa_tg_split 0
		.amdhsa_exception_fp_ieee_invalid_op 0
		.amdhsa_exception_fp_denorm_src 0
		.amdhsa_exception_fp_ieee_div_zero 0
		.amdhsa_exception_fp_ieee_overflow 0
		.amdhsa_exception_fp_ieee_underflow 0
		.amdhsa_exception_fp_ieee_inexact 0
		.amdhsa_exception_int_div_zero 0
	.end_amdhsa_kernel
	.text
.Lfunc_end0:
	.size	fsim_gemm_gfx950_128x128x64_w2x2_s2, .Lfunc_end0-fsim_gemm_gfx950_128x128x64_w2x2_s2
                                        ; -- End function
	.set fsim_gemm_gfx950_128x128x64_w2x2_s2.num_vgpr, 116
	.set fsim_gemm_gfx950_128x128x64_w2x2_s2.num_agpr, 0
	.set fsim_gemm_gfx950_128x128x64_w2x2_s2.numbered_sgpr, 26
	.set fsim_gemm_gfx950_128x128x64_w2x2_s2.num_named_barrier, 0
	.set fsim_gemm_gfx950_128x128x64_w2x2_s2.private_seg_size, 0
	.set fsim_gemm_gfx950_128x128x64_w2x2_s2.uses_vcc, 0
	.set fsim_gemm_gfx950_128x128x64_w2x2_s2.uses_flat_scratch, 0
	.set fsim_gemm_gfx950_128x128x64_w2x2_s2.has_dyn_sized_stack, 0
	.set fsim_gemm_gfx950_128x128x64_w2x2_s2.has_recursion, 0
	.set fsim_gemm_gfx950_128x128x64_w2x2_s2.has_indirect_call, 0
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 2376
; TotalNumSgprs: 32
; NumVgprs: 116
; NumAgprs: 0
; TotalNumVgprs: 116
; ScratchSize: 0
; MemoryBound: 0
; FloatMode: 240
; IeeeMode: 1
; LDSByteSize: 65536 bytes/workgroup (compile time only)
; SGPRBlocks: 12
; VGPRBlocks: 21
; NumSGPRsForWavesPerEU: 102
; NumVGPRsForWavesPerEU: 169
; AccumOffset: 116
; Occupancy: 2
; WaveLimiterHint : 0
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 0
; COMPUTE_PGM_RSRC2:USER_SGPR: 2
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 0
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 0
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 0
; COMPUTE_PGM_RSRC3_GFX90A:ACCUM_OFFSET: 28
; COMPUTE_PGM_RSRC3_GFX90A:TG_SPLIT: 0
	.text
	.p2alignl 6, 3212836864
	.fill 256, 4, 3212836864
	.section	.AMDGPU.gpr_maximums,"",@progbits
	.set amdgpu.max_num_vgpr, 0
	.set amdgpu.max_num_agpr, 0
	.set amdgpu.max_num_sgpr, 0
	.set amdgpu.max_num_named_barrier, 0
	.text
	.type	__hip_cuid_25f5e322851f9477,@object ; @__hip_cuid_25f5e322851f9477
	.section	.bss,"aw",@nobits
	.globl	__hip_cuid_25f5e322851f9477
__hip_cuid_25f5e322851f9477:
	.byte	0                               ; 0x0
	.size	__hip_cuid_25f5e322851f9477, 1

	.ident	"Debian clang version 22.1.8 (1~deb12u1)"
	.section	".note.GNU-stack","",@progbits
	.addrsig
	.addrsig_sym __hip_cuid_25f5e322851f9477
	.amdgpu_metadata
---
amdhsa.kernels:
  - .agpr_count:     0
    .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         8
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         16
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 65536
    .kernarg_segment_align: 8
    .kernarg_segment_size: 24
    .max_flat_workgroup_size: 256
    .name:           fsim_gemm_gfx950_128x128x64_w2x2_s2
    .private_segment_fixed_size: 0
    .sgpr_count:     32
    .sgpr_spill_count: 0
    .symbol:         fsim_gemm_gfx950_128x128x64_w2x2_s2.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: false
    .vgpr_count:     116
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx950
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
