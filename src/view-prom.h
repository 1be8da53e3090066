/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KSPLICE_VIEW_PROM_H
#define _KSPLICE_VIEW_PROM_H

#include "status.h"

/* ksplice-view --prometheus: a node-exporter textfile on stdout. */
int view_prometheus(const struct status *s);

#endif /* _KSPLICE_VIEW_PROM_H */
