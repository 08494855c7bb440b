#include "textflag.h"

// func rdtsc() int64
//
// Unserialized: the reading may be taken a few instructions early or late,
// which is noise at the scale of a command.
TEXT ·rdtsc(SB),NOSPLIT,$0-8
	RDTSC
	SHLQ	$32, DX
	ORQ	DX, AX
	MOVQ	AX, ret+0(FP)
	RET
