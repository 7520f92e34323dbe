	.type	cuvil_conv_nchw16c_f32.avx512.spec,@function
cuvil_conv_nchw16c_f32.avx512.spec:
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
	callq	memcpy@PLT
	vmovaps	48(%rsp), %xmm31                # 16-byte Reload
	vmovaps	64(%rsp), %xmm30                # 16-byte Reload
	vaddps	%zmm31, %zmm1, %zmm1
	vmovaps	80(%rsp), %xmm29                # 16-byte Reload
	jne	.LBB1_2
# %bb.3:                                #   in Loop: Header=BB1_9 Depth=1
	vaddps	64(%rsp), %zmm1, %zmm1          # 64-byte Folded Reload
	retq
	.type	"cuvil_conv_nchw8c_f32.x86-64-v3.spec",@function
"cuvil_conv_nchw8c_f32.x86-64-v3.spec": # @cuvil_conv_nchw8c_f32.x86-64-v3.spec
.LBB2_3:                                # =>This Inner Loop Header: Depth=1
	vfmadd231ps	(%rax), %ymm1, %ymm2
	vmovups	%ymm4, 32(%rsp)                 # 32-byte Spill
	jne	.LBB2_3
	retq
