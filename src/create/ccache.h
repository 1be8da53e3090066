/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The compiler cache for the units an update compiles: ccache, when it is
 * installed, through Debian's masquerade directory.
 */
#ifndef KSPLICE_CCACHE_H
#define KSPLICE_CCACHE_H

/*
 * The environment (NAME=VALUE strings, NULL-terminated) under which @cc
 * runs through ccache, its cache in $CCACHE_DIR or else <@cache>/ccache;
 * NULL if ccache has no masquerade link for @cc.
 */
char **ccache_env(const char *cc, const char *cache);

#endif
