// SPDX-License-Identifier: GPL-2.0
/*
 * Why a kernel that enforces module signatures refused a module.  The
 * loader answers EKEYREJECTED for an unsigned module or one whose key it
 * does not trust (ENOKEY inside), and lockdown EPERM; insmod's "Key was
 * rejected by service" names neither the module nor the fix.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "modsig.h"
#include "util.h"

#define SIG_TRAILER	"~Module signature appended~\n"

bool module_signed(const char *path)
{
	size_t len, n = strlen(SIG_TRAILER);
	char *data;
	bool ret;

	if (read_file(path, 1 << 28, &data, &len))
		return false;
	ret = len > n && !memcmp(data + len - n, SIG_TRAILER, n);
	free(data);
	return ret;
}

/* What makes the kernel want signatures, or NULL. */
static const char *enforcer(void)
{
	char *v = NULL;
	size_t len;
	const char *who = NULL;

	if (!read_file("/sys/module/module/parameters/sig_enforce", 16, &v, &len) &&
	    v[0] == 'Y')
		who = "module.sig_enforce=1";
	free(v);
	v = NULL;
	if (!who && !read_file("/sys/kernel/security/lockdown", 256, &v, &len) &&
	    !strstr(v, "[none]"))
		who = "kernel lockdown (Secure Boot)";
	free(v);
	return who;
}

bool explain_signature_refusal(const char *path, int err)
{
	const char *who = enforcer();
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	if (err != EKEYREJECTED && err != ENOKEY && !(err == EPERM && who))
		return false;
	if (!who)
		who = "its signature policy";
	if (!module_signed(path))
		error("the kernel loads only signed modules (%s), and %s is unsigned: build the update with ksplice-create --sign-key KEY --sign-cert CERT",
		      who, name);
	else
		error("the kernel loads only modules signed by a key it trusts (%s), and %s is signed by a key it does not trust",
		      who, name);
	note("To make the kernel trust your signing key, enroll its certificate as a Machine Owner Key: openssl x509 -in CERT.pem -outform DER -out CERT.der; mokutil --import CERT.der; then reboot and confirm it in MokManager.");
	return true;
}
