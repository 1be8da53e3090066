// SPDX-License-Identifier: GPL-2.0
/* bad=N for the NMI test's update too (a module of its own needs a copy). */
#include "break.c"
