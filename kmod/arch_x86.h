/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the x86 parts of the core: opcodes and thunk names.
 */
#ifndef _KSPLICE_ARCH_X86_H
#define _KSPLICE_ARCH_X86_H

#define X86_CALL	0xe8
#define X86_JMP32	0xe9
#define X86_RET		0xc3
#define X86_INT3	0xcc
#define X86_NOP1	0x90
#define X86_CS		0x2e
#define X86_DS		0x3e
#define X86_LOCK	0xf0
#define X86_JMP8	0xeb

#define THUNK_PREFIX	"__x86_indirect_thunk_"
#define ITS_PREFIX	"__x86_indirect_its_thunk_"

/* Where x86_return_thunk is: apply_returns() jumps to its value. */
extern unsigned long *ksplice_return_thunk_var;

bool ksplice_x86_reloc_pcrel(unsigned int type);

#endif /* _KSPLICE_ARCH_X86_H */
