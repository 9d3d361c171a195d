//go:build amd64 && !purego

#include "textflag.h"

// func teddyAVX2(t *teddy, text []byte, pos int, out []uint32) (n, next int)
//
// For each block of 32 positions p..p+31: load text at p, p+1, p+2 and p+3; split each byte into
// its nibbles; look each nibble up in its table (VPSHUFB); AND the eight results; the positions
// whose byte is not zero are candidates. t.masks is the first field of teddy.
TEXT ·teddyAVX2(SB), NOSPLIT, $0-80
	MOVQ t+0(FP), AX
	MOVQ text_base+8(FP), SI
	MOVQ text_len+16(FP), DX
	MOVQ pos+32(FP), CX
	MOVQ out_base+40(FP), DI
	MOVQ out_len+48(FP), R8
	XORQ R9, R9               // n
	SUBQ $35, DX              // last block start
	SUBQ $32, R8              // most positions reported before a block

	VMOVDQU 0(AX), Y6         // low nibbles, byte 0
	VMOVDQU 32(AX), Y7        // high nibbles, byte 0
	VMOVDQU 64(AX), Y8
	VMOVDQU 96(AX), Y9
	VMOVDQU 128(AX), Y10
	VMOVDQU 160(AX), Y11
	VMOVDQU 192(AX), Y12
	VMOVDQU 224(AX), Y13
	MOVL $0x0f, R10
	MOVQ R10, X14
	VPBROADCASTB X14, Y14     // 0x0f in every byte
	VPXOR Y15, Y15, Y15       // zero

loop:
	CMPQ CX, DX
	JGT  done
	CMPQ R9, R8
	JGT  done
	VMOVDQU (SI)(CX*1), Y0
	VMOVDQU 1(SI)(CX*1), Y1
	VMOVDQU 2(SI)(CX*1), Y2
	VMOVDQU 3(SI)(CX*1), Y5

	VPSRLW  $4, Y0, Y3
	VPAND   Y14, Y0, Y0
	VPAND   Y14, Y3, Y3
	VPSHUFB Y0, Y6, Y0
	VPSHUFB Y3, Y7, Y3
	VPAND   Y0, Y3, Y4

	VPSRLW  $4, Y1, Y3
	VPAND   Y14, Y1, Y1
	VPAND   Y14, Y3, Y3
	VPSHUFB Y1, Y8, Y1
	VPSHUFB Y3, Y9, Y3
	VPAND   Y1, Y4, Y4
	VPAND   Y3, Y4, Y4

	VPSRLW  $4, Y2, Y3
	VPAND   Y14, Y2, Y2
	VPAND   Y14, Y3, Y3
	VPSHUFB Y2, Y10, Y2
	VPSHUFB Y3, Y11, Y3
	VPAND   Y2, Y4, Y4
	VPAND   Y3, Y4, Y4

	VPSRLW  $4, Y5, Y3
	VPAND   Y14, Y5, Y5
	VPAND   Y14, Y3, Y3
	VPSHUFB Y5, Y12, Y5
	VPSHUFB Y3, Y13, Y3
	VPAND   Y5, Y4, Y4
	VPAND   Y3, Y4, Y4

	VPCMPEQB  Y15, Y4, Y4
	VPMOVMSKB Y4, BX
	NOTL      BX
	TESTL     BX, BX
	JNZ       emit
	ADDQ      $32, CX
	JMP       loop

emit:
	BSFL  BX, R11
	ADDQ  CX, R11
	MOVL  R11, (DI)(R9*4)
	INCQ  R9
	LEAL  -1(BX), R11
	ANDL  R11, BX
	JNZ   emit
	ADDQ  $32, CX
	JMP   loop

done:
	VZEROUPPER
	MOVQ R9, n+64(FP)
	MOVQ CX, next+72(FP)
	RET
