	.type	cuvil_qconv_u8_i8_u8.sve.spec,@function
cuvil_qconv_u8_i8_u8.sve.spec:          // @cuvil_qconv_u8_i8_u8.sve.spec
// %bb.0:
	str	q8, [sp, #16]                   // 16-byte Folded Spill
.LBB0_2:                                // =>This Inner Loop Header: Depth=1
	bl	memset
	add	x8, sp, #480
	ptrue	p1.s
	ldr	z15, [x8, #1, mul vl]           // 16-byte Folded Reload
	add	x8, sp, #480
	ldr	z14, [x8, #2, mul vl]           // 16-byte Folded Reload
	smull	v9.4s, v25.4h, v8.4h
	ldr	q20, [sp, #352]                 // 16-byte Folded Reload
	b.ne	.LBB0_2
// %bb.3:
	ret
	.type	cuvil_igemm_u8_i8.neon.spec,@function
cuvil_igemm_u8_i8.neon.spec:            // @cuvil_igemm_u8_i8.neon.spec
.LBB1_4:                                // =>This Inner Loop Header: Depth=1
	smull	v9.4s, v25.4h, v8.4h
	stp	q27, q5, [sp, #128]             // 32-byte Folded Spill
	ldr	w1, [sp, #220]                  // 4-byte Folded Reload
	b.ne	.LBB1_4
	ret
