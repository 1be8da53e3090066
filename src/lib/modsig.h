/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Module signatures, as the kernel checks them: what to tell the
 * administrator when it refuses one of our modules for want of one.
 */
#ifndef _KSPLICE_MODSIG_H
#define _KSPLICE_MODSIG_H

#include <stdbool.h>

/* Whether the module file @path ends with a signature. */
bool module_signed(const char *path);

/*
 * If the load of @path failed with -@err because the kernel wants signed
 * modules (module.sig_enforce=1, or lockdown), says so -- unsigned, or
 * signed by a key it does not trust -- and how to fix it; returns true.
 */
bool explain_signature_refusal(const char *path, int err);

#endif /* _KSPLICE_MODSIG_H */
