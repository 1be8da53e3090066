// SPDX-License-Identifier: GPL-2.0
/* The post version of target.c, compiled only for its object. */
#define KSPLICE_V2
#include "target.c"
