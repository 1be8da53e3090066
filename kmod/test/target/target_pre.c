// SPDX-License-Identifier: GPL-2.0
/* The pre object of the self-test: target.c with a 5-byte jump label jmp. */
#define KSPLICE_PRE
#include "target.c"
