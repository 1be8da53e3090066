/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SHA-256 (OpenSSL's libcrypto), as 64 lowercase hex digits: the digests
 * of update file members and of the inputs an update was made from.
 */
#ifndef _KSPLICE_SHA256_H
#define _KSPLICE_SHA256_H

#include <stddef.h>

#define SHA256_HEX_LEN	64

struct sha256 {
	void *ctx;		/* EVP_MD_CTX */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *p, size_t n);
/* Writes SHA256_HEX_LEN digits and a NUL to @hex; frees the context. */
void sha256_final(struct sha256 *s, char *hex);
void sha256_hex(const void *p, size_t n, char *hex);
/* The digest of a file's contents; 0, or -1 with errno set. */
int sha256_file(const char *path, char *hex);
/* @s is SHA256_HEX_LEN lowercase hex digits. */
int sha256_hex_valid(const char *s);

#endif
