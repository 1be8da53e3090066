// SPDX-License-Identifier: GPL-2.0
/* cb=N for the NMI test's update too (a module of its own needs a copy). */
#include "cb.c"
