/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The prepared tree must be configured exactly like the target: make
 * olddefconfig silently drops an option the source cannot build (e.g.
 * CONFIG_PREEMPT_RT=y on a tree without the RT patches), and objects
 * built so would match where the target's differ only by luck.
 */
#ifndef KSPLICE_CONFIG_H
#define KSPLICE_CONFIG_H

/*
 * 0 if every CONFIG_X=V line of @want is in @got and the reverse; else an
 * error naming the first differences and @source as not the target's.
 */
int config_check_kept(const char *want, const char *got, const char *source);

#endif
