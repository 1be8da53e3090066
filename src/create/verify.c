// SPDX-License-Identifier: GPL-2.0
/*
 * ksplice-create --verify UPDATE: build the update again from the inputs
 * its manifest records and compare, so that whoever applies an update
 * need not trust the machine that built it, only its inputs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "create.h"
#include "sha256.h"

struct verify {
	char *dir;		/* UPDATE extracted */
	struct manifest m;
};

static const char *const input_names[] = {
	"source", "debian", "patch_sha256", "headers", "compiler",
	"config_sha256", "ksplice_version",
};

static const char *const *inputs_array(const struct manifest_inputs *in,
				       const char *v[7])
{
	v[0] = in->source;
	v[1] = in->debian;
	v[2] = in->patch_sha256;
	v[3] = in->headers;
	v[4] = in->compiler;
	v[5] = in->config_sha256;
	v[6] = in->ksplice_version;
	return v;
}

/* Differences of inputs are reasons, printed before the result. */
static int compare_inputs(const struct manifest_inputs *was,
			  const struct manifest_inputs *now)
{
	const char *a[7], *b[7];
	int n = 0;
	size_t i;

	inputs_array(was, a);
	inputs_array(now, b);
	for (i = 0; i < ARRAY_SIZE(input_names); i++) {
		if (!strcmp(a[i] ? a[i] : "", b[i] ? b[i] : ""))
			continue;
		fprintf(stderr, "ksplice-create: input %s differs: recorded '%s', here '%s'\n",
			input_names[i], a[i] ? a[i] : "", b[i] ? b[i] : "");
		n++;
	}
	return n;
}

static bool same_file(const char *a, const char *b)
{
	char ha[SHA256_HEX_LEN + 1], hb[SHA256_HEX_LEN + 1];

	return !sha256_file(a, ha) && !sha256_file(b, hb) && !strcmp(ha, hb);
}

/* Which members of the rebuilt file @path differ from those in @v->dir. */
static int compare_members(struct work *w, struct verify *v, const char *path)
{
	static const char *const fixed[] = { UPDATE_MANIFEST, UPDATE_CORE_MODULE };
	char *dir = path_join(w->dir, "rebuilt"), *ko = update_module_file(v->m.id);
	const char *names[] = { fixed[0], ko, fixed[1] };
	struct manifest m2;
	int differ = 0;
	size_t i;

	if (mkdir_p(dir) || update_file_extract(path, dir, &m2))
		return error("cannot read the rebuilt update %s", path);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		char *a = path_join(v->dir, names[i]), *b = path_join(dir, names[i]);

		if (!same_file(a, b)) {
			printf("differs: %s\n", names[i]);
			differ++;
		}
		free(a);
		free(b);
	}
	if (!differ)
		printf("differs: the tar/gzip container (members are identical)\n");
	manifest_free(&m2);
	free(ko);
	free(dir);
	return -1;
}

static int check_patch(const struct verify *v, const char *patch)
{
	char hex[SHA256_HEX_LEN + 1];

	if (sha256_file(patch, hex))
		return error_errno("cannot read %s", patch);
	if (!v->m.in.patch_sha256 || strcmp(hex, v->m.in.patch_sha256))
		return error("%s is not the patch this update was made from (sha256 %s, recorded %s)",
			     patch, hex, v->m.in.patch_sha256 ? v->m.in.patch_sha256 : "none");
	return 0;
}

/* What the manifest says to build, into w->o. */
static int set_inputs(struct work *w, struct verify *v, const char *path)
{
	struct options *o = w->o;

	if (v->m.format < 2 || !v->m.in.patch_sha256)
		return error("%s records no inputs (format %d); it cannot be verified",
			     path, v->m.format);
	if (v->m.in.debian) {
		if (o->patch)
			return error("%s was made with --debian %s: no --patch to give",
				     path, v->m.in.debian);
		o->debian = v->m.in.debian;
		if (debian_patch(o, w->dir))
			return -1;
	} else if (!o->patch) {
		return error("%s was made from a patch (sha256 %s) and source %s: give them with --patch FILE SOURCE",
			     path, v->m.in.patch_sha256,
			     v->m.in.source ? v->m.in.source : "(unknown)");
	}
	if (check_patch(v, o->patch))
		return -1;
	o->id = v->m.id;
	o->outdir = w->dir;
	o->replace = v->m.replaces != NULL;
	w->update.replace = o->replace;
	return 0;
}

int verify_update(struct work *w, const char *path)
{
	struct verify v = { .dir = path_join(w->dir, "original") };
	char *out;
	int ret;

	if (mkdir_p(v.dir) || update_file_extract(path, v.dir, &v.m))
		return error("cannot verify %s", path);
	fprintf(stderr, "ksplice-create: verifying %s (update %s)\n", path, v.m.id);
	if (set_inputs(w, &v, path))
		return -1;
	w->update.id = v.m.id;
	ret = create(w);
	if (ret)
		return error("rebuilding %s failed", path);
	compare_inputs(&v.m.in, &w->in);
	out = update_file_path(w);
	if (same_file(path, out)) {
		printf("identical\n");
		ret = 0;
	} else {
		ret = compare_members(w, &v, out);
	}
	free(out);
	manifest_free(&v.m);
	free(v.dir);
	return ret;
}
