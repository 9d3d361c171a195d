//go:build arm64 && !purego

#include "textflag.h"

// func teddyNEON(t *teddy, text []byte, pos int, out []uint32) (n, next int)
//
// For each block of 16 positions p..p+15: load text at p, p+1, p+2 and p+3; look the low and the
// high nibble of each byte up in its table (TBL); AND the eight results; the positions whose byte
// is not zero are candidates, found in the two 64-bit halves with RBIT and CLZ. t.masks is the
// first field of teddy; each table's first 16 bytes are used.
TEXT ·teddyNEON(SB), NOSPLIT, $0-80
	MOVD t+0(FP), R0
	MOVD text_base+8(FP), R1
	MOVD text_len+16(FP), R2
	MOVD pos+32(FP), R3
	MOVD out_base+40(FP), R4
	MOVD out_len+48(FP), R5
	MOVD $0, R6               // n
	SUB  $19, R2              // last block start
	SUB  $16, R5              // most positions reported before a block

	VLD1 (R0), [V16.B16]      // low nibbles, byte 0
	ADD  $32, R0
	VLD1 (R0), [V17.B16]      // high nibbles, byte 0
	ADD  $32, R0
	VLD1 (R0), [V18.B16]
	ADD  $32, R0
	VLD1 (R0), [V19.B16]
	ADD  $32, R0
	VLD1 (R0), [V20.B16]
	ADD  $32, R0
	VLD1 (R0), [V21.B16]
	ADD  $32, R0
	VLD1 (R0), [V22.B16]
	ADD  $32, R0
	VLD1 (R0), [V23.B16]
	VMOVI $15, V30.B16

loop:
	CMP  R2, R3
	BGT  done
	CMP  R5, R6
	BGT  done
	ADD  R3, R1, R7
	VLD1 (R7), [V0.B16]
	ADD  $1, R7, R8
	VLD1 (R8), [V1.B16]
	ADD  $2, R7, R8
	VLD1 (R8), [V2.B16]
	ADD  $3, R7, R8
	VLD1 (R8), [V3.B16]

	VAND  V30.B16, V0.B16, V4.B16
	VUSHR $4, V0.B16, V5.B16
	VTBL  V4.B16, [V16.B16], V4.B16
	VTBL  V5.B16, [V17.B16], V5.B16
	VAND  V4.B16, V5.B16, V6.B16

	VAND  V30.B16, V1.B16, V4.B16
	VUSHR $4, V1.B16, V5.B16
	VTBL  V4.B16, [V18.B16], V4.B16
	VTBL  V5.B16, [V19.B16], V5.B16
	VAND  V4.B16, V6.B16, V6.B16
	VAND  V5.B16, V6.B16, V6.B16

	VAND  V30.B16, V2.B16, V4.B16
	VUSHR $4, V2.B16, V5.B16
	VTBL  V4.B16, [V20.B16], V4.B16
	VTBL  V5.B16, [V21.B16], V5.B16
	VAND  V4.B16, V6.B16, V6.B16
	VAND  V5.B16, V6.B16, V6.B16

	VAND  V30.B16, V3.B16, V4.B16
	VUSHR $4, V3.B16, V5.B16
	VTBL  V4.B16, [V22.B16], V4.B16
	VTBL  V5.B16, [V23.B16], V5.B16
	VAND  V4.B16, V6.B16, V6.B16
	VAND  V5.B16, V6.B16, V6.B16

	VMOV V6.D[0], R9
	VMOV V6.D[1], R10
	ORR  R9, R10, R11
	CBNZ R11, emit
	ADD  $16, R3
	B    loop

emit:
	MOVD R3, R12              // the position of the half's first byte
	CBZ  R9, high
low:
	RBIT R9, R13
	CLZ  R13, R13             // the candidate byte's lowest bit
	LSR  $3, R13, R14
	ADD  R12, R14, R14
	MOVW R14, (R4)(R6<<2)
	ADD  $1, R6
	AND  $~7, R13, R13
	MOVD $0xff, R15
	LSL  R13, R15, R15
	BIC  R15, R9, R9
	CBNZ R9, low
high:
	CBZ  R10, next
	ADD  $8, R3, R12
	MOVD R10, R9
	MOVD $0, R10
	B    low
next:
	ADD  $16, R3
	B    loop

done:
	MOVD R6, n+64(FP)
	MOVD R3, next+72(FP)
	RET
