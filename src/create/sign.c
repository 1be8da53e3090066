// SPDX-License-Identifier: GPL-2.0
/*
 * --sign-key KEY --sign-cert CERT: the update and core modules signed as
 * the kernel's own are, by the target's scripts/sign-file (in its build
 * dir; Debian ships it in linux-kbuild-6.1), with the configuration's
 * CONFIG_MODULE_SIG_HASH.  A kernel booted with module.sig_enforce=1 (or
 * locked down by Secure Boot) loads them only if it trusts CERT, e.g. as
 * a Machine Owner Key enrolled with mokutil --import.
 *
 * After stripping: strip would drop the appended signature.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "create.h"
#include "modsig.h"

/* CONFIG_MODULE_SIG_HASH of @config, or sha256 (Debian's). */
static char *sig_hash(const char *config)
{
	const char *key = "\nCONFIG_MODULE_SIG_HASH=\"";
	char *text = NULL, *p = NULL, *hash = NULL;
	size_t len;

	if (!read_file(config, 1 << 24, &text, &len))
		p = strstr(text, key);
	if (p) {
		p += strlen(key);
		hash = xstrndup(p, strcspn(p, "\"\n"));
	}
	free(text);
	return hash && *hash ? hash : (free(hash), xstrdup("sha256"));
}

int sign_check_args(const struct options *o)
{
	if (!o->sign_key != !o->sign_cert)
		return error("--sign-key and --sign-cert go together");
	if (!o->sign_key)
		return 0;
	if (access(o->sign_key, R_OK))
		return error_errno("--sign-key %s", o->sign_key);
	if (access(o->sign_cert, R_OK))
		return error_errno("--sign-cert %s", o->sign_cert);
	return 0;
}

int sign_modules(const struct options *o, const char *const *files)
{
	char *tool = path_join(o->build, "scripts/sign-file");
	char *hash;
	size_t i;
	int ret = 0;

	if (!o->sign_key)
		goto out;
	if (access(tool, X_OK)) {
		ret = error("no %s to sign the modules with (Debian ships it in linux-kbuild-6.1)",
			    tool);
		goto out;
	}
	hash = sig_hash(o->config);
	for (i = 0; files[i] && !ret; i++) {
		const char *argv[] = { tool, hash, o->sign_key, o->sign_cert,
				       files[i], NULL };

		if (run_command(argv) || !module_signed(files[i]))
			ret = error("%s could not sign %s with %s", tool,
				    files[i], o->sign_key);
	}
	if (!ret)
		fprintf(stderr, "  signed the modules (%s, %s)\n", hash,
			o->sign_cert);
	free(hash);
out:
	free(tool);
	return ret;
}
