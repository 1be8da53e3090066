/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KSPLICE_VIEW_JSON_H
#define _KSPLICE_VIEW_JSON_H

#include "status.h"

/* ksplice-view --json: the whole state as one JSON object on stdout. */
int view_json(const struct status *s);

#endif /* _KSPLICE_VIEW_JSON_H */
