	.type	cuvil_conv_nchwc_f32.avx512.spec,@function
cuvil_conv_nchwc_f32.avx512.spec:
	vmovups	%zmm3, 64(%rsp)                 # 64-byte Spill
.LBB0_4:                                # =>This Inner Loop Header: Depth=1
	vfmadd231ps	(%rax), %zmm1, %zmm2
	vmovups	64(%rsp), %zmm3                 # 64-byte Reload
	jne	.LBB0_4
# %bb.5:
	vmovups	%zmm5, 128(%rsp)                # 64-byte Spill
	retq
	.type	cuvil_gemm_f32.avx512.spec,@function
cuvil_gemm_f32.avx512.spec:
.LBB1_2:                                # =>This Inner Loop Header: Depth=1
	vfmadd231ps	(%rax), %zmm1, %zmm2
	jne	.LBB1_2
# %bb.3:                                #   in Loop: Header=BB1_9 Depth=1
	vaddps	64(%rsp), %zmm1, %zmm1          # 64-byte Folded Reload
	retq
