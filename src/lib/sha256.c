// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "sha256.h"
#include "util.h"

void sha256_init(struct sha256 *s)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	if (!ctx || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1)
		die("cannot start a SHA-256 digest");
	s->ctx = ctx;
}

void sha256_update(struct sha256 *s, const void *p, size_t n)
{
	if (n && EVP_DigestUpdate(s->ctx, p, n) != 1)
		die("SHA-256 digest failed");
}

void sha256_final(struct sha256 *s, char *hex)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0, i;

	if (EVP_DigestFinal_ex(s->ctx, md, &len) != 1 || len != 32)
		die("SHA-256 digest failed");
	for (i = 0; i < len; i++)
		sprintf(hex + 2 * i, "%02x", md[i]);
	EVP_MD_CTX_free(s->ctx);
	s->ctx = NULL;
}

void sha256_hex(const void *p, size_t n, char *hex)
{
	struct sha256 s;

	sha256_init(&s);
	sha256_update(&s, p, n);
	sha256_final(&s, hex);
}

int sha256_file(const char *path, char *hex)
{
	char *data;
	size_t len;

	if (read_file(path, 1 << 30, &data, &len) < 0)
		return -1;
	sha256_hex(data, len, hex);
	free(data);
	return 0;
}

int sha256_hex_valid(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");

	return n == SHA256_HEX_LEN && !s[n];
}
