// SPDX-License-Identifier: GPL-2.0
/*
 * Talking to the kernel: module loading and the ksplice core's sysfs
 * tree.  See kernel.h for the tree's layout and the test overrides.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/capability.h>

#include "kernel.h"
#include "update-file.h"
#include "util.h"

const char *ksplice_sysfs_root(void)
{
	const char *root = getenv("KSPLICE_SYSFS");

	return root && *root ? root : KSPLICE_SYSFS_DEFAULT;
}

bool ksplice_fake_modules(void)
{
	const char *fake = getenv("KSPLICE_FAKE_MODULES");

	return fake && !strcmp(fake, "1");
}

int check_module_privilege(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	/* Nothing privileged happens when module calls are faked. */
	if (ksplice_fake_modules())
		return 0;
	if (syscall(SYS_capget, &hdr, data) < 0)
		return error_errno("cannot read our capabilities");
	if (data[CAP_TO_INDEX(CAP_SYS_MODULE)].effective &
	    CAP_TO_MASK(CAP_SYS_MODULE))
		return 0;
	return error("must be run as root (CAP_SYS_MODULE)");
}

int module_load(const char *path)
{
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ksplice_fake_modules())
		warn("KSPLICE_FAKE_MODULES: would load module %s", path);
	else if (syscall(SYS_finit_module, fd, "", 0) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

bool module_present(const char *name)
{
	char *path = xasprintf("/sys/module/%s", name), *p;
	bool ok;

	for (p = path + strlen("/sys/module/"); *p; p++)
		if (*p == '-')
			*p = '_';
	ok = !access(path, F_OK);
	free(path);
	return ok;
}

char *module_holders(const char *name)
{
	char *path = xasprintf("/sys/module/%s/holders", name), *list = NULL;
	DIR *d = opendir(path);
	struct dirent *de;
	size_t len = 0, n;

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		n = strlen(de->d_name);
		list = xrealloc(list, len + n + 2);
		if (len)
			list[len++] = ' ';
		memcpy(list + len, de->d_name, n + 1);
		len += n;
	}
	if (d)
		closedir(d);
	free(path);
	return list;
}

int module_probe(const char *name)
{
	const char *argv[] = { "modprobe", name, NULL };

	if (ksplice_fake_modules()) {
		warn("KSPLICE_FAKE_MODULES: would run modprobe %s", name);
		return 0;
	}
	return run_command(argv);
}

int module_unload(const char *name)
{
	if (ksplice_fake_modules()) {
		warn("KSPLICE_FAKE_MODULES: would unload module %s", name);
		return 0;
	}
	/* O_NONBLOCK: fail at once if in use rather than wait for users. */
	if (syscall(SYS_delete_module, name, O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

const char *module_load_hint(int err)
{
	switch (err) {
	case -ENOEXEC:
		return "it is not a valid module for the running kernel";
	case -EPERM:
		return "the kernel refused it: either we lack CAP_SYS_MODULE, or module signing or lockdown (Secure Boot) forbids unsigned modules";
	case -EKEYREJECTED:
	case -ENOKEY:
		return "the kernel requires signed modules and its signature was not accepted";
	case -EINVAL:
		return "the kernel rejected it; was it built for a different kernel?";
	case -ENOENT:
		return "it needs a symbol the running kernel does not export; was it built for a different kernel?";
	default:
		return "the kernel log may say more";
	}
}

int kmsg_mark(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0 && lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* The text of one /dev/kmsg record: "prio,seq,usec,flags;text\n...". */
static const char *kmsg_text(char *rec)
{
	char *text = strchr(rec, ';'), *end;

	if (!text)
		return NULL;
	end = strchr(++text, '\n');
	if (end)
		*end = '\0';
	return text;
}

int kmsg_show(int fd, const char *word)
{
	char rec[8192];
	const char *text;
	ssize_t n;
	int shown = 0;

	if (fd < 0)
		return 0;
	/* EAGAIN: no more; EPIPE: records were overwritten, read on. */
	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		if (n <= 0)
			continue;
		rec[n] = '\0';
		text = kmsg_text(rec);
		if (!text || !strstr(text, word))
			continue;
		note("The kernel log says: %s", text);
		shown++;
	}
	close(fd);
	return shown;
}

char *sysfs_path(const char *id, const char *attr)
{
	if (!attr)
		return path_join(ksplice_sysfs_root(), id);
	return xasprintf("%s/%s/%s", ksplice_sysfs_root(), id, attr);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool sysfs_core_present(void)
{
	return is_dir(ksplice_sysfs_root());
}

bool sysfs_update_present(const char *id)
{
	char *path = sysfs_path(id, NULL);
	bool ret = is_dir(path);

	free(path);
	return ret;
}

int sysfs_read(const char *id, const char *attr, char **value)
{
	char *path = sysfs_path(id, attr);
	int ret = 0;

	if (read_file(path, SYSFS_VALUE_MAX, value, NULL) < 0)
		ret = -errno;
	else
		str_rstrip(*value);
	free(path);
	return ret;
}

int sysfs_write(const char *id, const char *attr, const char *value)
{
	char *path = sysfs_path(id, attr);
	char *line = xasprintf("%s\n", value);
	size_t len = strlen(line);
	ssize_t n;
	int fd, ret = 0;

	/* No O_CREAT: a missing attribute means no such update or core. */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	do {
		n = write(fd, line, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;	/* a store consumes the whole value or fails */
	if (close(fd) < 0 && !ret)
		ret = -errno;
out:
	free(line);
	free(path);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int sysfs_list_updates(char ***ids, size_t *nr)
{
	DIR *d = opendir(ksplice_sysfs_root());
	struct dirent *de;
	char *path;

	*ids = NULL;
	*nr = 0;
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (!update_id_valid(de->d_name))
			continue;
		path = sysfs_path(de->d_name, NULL);
		if (is_dir(path)) {
			*ids = xrealloc(*ids, (*nr + 1) * sizeof(char *));
			(*ids)[(*nr)++] = xstrdup(de->d_name);
		}
		free(path);
	}
	closedir(d);
	if (*nr)
		qsort(*ids, *nr, sizeof(char *), cmp_str);
	return 0;
}

char **sysfs_function_names(const char *id)
{
	char *text, *line, *save = NULL;
	char **names;
	size_t n = 0;

	if (sysfs_read(id, "functions", &text))
		return NULL;
	names = xcalloc(1, sizeof(char *));
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t len = strcspn(line, " \t");

		if (!len)
			continue;
		names = xrealloc(names, (n + 2) * sizeof(char *));
		names[n++] = xstrndup(line, len);
		names[n] = NULL;
	}
	free(text);
	return names;
}

/* ---- explaining aborts ---- */

struct abort_cause {
	const char *name;
	const char *what[2];	/* [enum ksplice_op]: what went wrong */
	const char *advice[2];	/* what the sysadmin can do about it */
};

static const struct abort_cause causes[] = {
	{ "no_match",
	  { "the update was not built from this kernel's source",
	    "the running code is not what the update installed" },
	  { "Rebuild the update against the source of the running kernel (%s).",
	    "Something else changed that code; see ksplice-view and the kernel log." } },
	{ "code_busy",
	  { "tasks were running the code being replaced in every try",
	    "tasks were running the update's code in every try" },
	  { "Retry later, or stop those tasks and retry; --max-tries and --retry-interval give more chances.",
	    "Retry later, or stop those tasks and retry." } },
	{ "failed_to_find",
	  { "a symbol the update needs is not in the running kernel",
	    "a symbol the update needs is not in the running kernel" },
	  { "If the update patches a module, load that module first; otherwise rebuild the update against the running kernel's source (%s).",
	    "See the kernel log." } },
	{ "bad_update",
	  { "the ksplice core rejected the update module as malformed",
	    "the ksplice core rejected the update module as malformed" },
	  { "The update file is damaged or was made by an incompatible ksplice-create; rebuild it with the ksplice that matches this core.",
	    "See the kernel log." } },
	{ "already_applied",
	  { "the code it replaces is already replaced by an applied update",
	    "another applied update stands on this one (replaces the same code on top of it, or uses a function or variable it added)" },
	  { "An update of a function that applied updates replaced must be built from a source tree holding their patches, so that it stacks on them; see ksplice-view, or reverse the other update first (ksplice-undo ID).",
	    "Updates undo last-in-first-out: reverse the later update first (see ksplice-view)." } },
	{ "not_applied",
	  { "the ksplice core says the update is not applied",
	    "it is not applied" },
	  { "See ksplice-view.",
	    "See ksplice-view; ksplice-undo on an update that is not applied only unloads its module." } },
	{ "unpatchable",
	  { "a function it replaces cannot be redirected safely",
	    "a function it replaces cannot be restored safely" },
	  { "The detail says which function and why (code that runs while ksplice patches; or, in a function with no ftrace site, a static call, a module's jump label or one running past the jump's end, where the jump would go); such a function can only be changed by a reboot for now.",
	    "See the kernel log." } },
	{ "out_of_memory",
	  { "the kernel ran out of memory",
	    "the kernel ran out of memory" },
	  { "Nothing was changed; free some memory and retry.",
	    "The update stays applied; free some memory and retry." } },
	{ "refused",
	  { "a hook of the update refused to apply it",
	    "a hook of the update refused to undo it" },
	  { "Nothing was changed; the hook's message above says why.",
	    "The update stays applied; the hook's message above says why." } },
	{ "probed",
	  { "a kprobe is set in the code being replaced",
	    "a kprobe is set in the update's code" },
	  { "Nothing was changed; remove the kprobe (perf probe -d EVENT, or its line in /sys/kernel/tracing/kprobe_events) and retry.",
	    "The update stays applied; remove the kprobe (perf probe -d EVENT, or its line in /sys/kernel/tracing/kprobe_events) and retry." } },
	{ "exports",
	  { "another applied update exports a name it exports",
	    "modules use names it exports" },
	  { "Nothing was changed; a cumulative update (ksplice-create --replace) takes the other update's exports over, or undo that update first.",
	    "The update stays applied; unload the modules the detail names, then undo it." } },
	{ "unexpected",
	  { "the ksplice core hit an unexpected error",
	    "the ksplice core hit an unexpected error" },
	  { "The kernel was left unchanged; see the kernel log and report this as a ksplice bug.",
	    "The update stays applied; see the kernel log and report this as a ksplice bug." } },
};

static const char *const op_verb[] = { "apply", "reverse" };
static const char *const op_stage[] = { "applied", "reversed" };

static const struct abort_cause *find_cause(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(causes); i++) {
		if (!strcmp(causes[i].name, name))
			return &causes[i];
	}
	return NULL;
}

/* "comm pid function"; comm may hold spaces, so split from the right. */
static void print_conflict(char *line)
{
	char *func = strrchr(line, ' '), *pid;

	if (!func || func == line)
		goto raw;
	*func++ = '\0';
	pid = strrchr(line, ' ');
	if (!pid || pid == line)
		goto raw_joined;
	*pid++ = '\0';
	note("  %s (pid %s) in %s", line, pid, func);
	return;
raw_joined:
	func[-1] = ' ';
raw:
	note("  %s", line);
}

static void print_conflicts(const char *id)
{
	char *text, *line, *save = NULL;

	if (sysfs_read(id, "conflicts", &text)) {
		note("(the list of tasks in the way could not be read)");
		return;
	}
	note("Tasks in the way in the last try:");
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		print_conflict(line);
	free(text);
}

/* " (5 tries, 10 ms apart)", or "" if the tunables can't be read. */
static char *tries_text(const char *id)
{
	char *tries = NULL, *ms = NULL, *s;

	if (!sysfs_read(id, "max_tries", &tries) &&
	    !sysfs_read(id, "retry_interval_ms", &ms))
		s = xasprintf(" (%s tries, %s ms apart)", tries, ms);
	else
		s = xstrdup("");
	free(tries);
	free(ms);
	return s;
}

static void explain_known(enum ksplice_op op, const char *id,
			  const struct abort_cause *c, const char *detail)
{
	bool busy = !strcmp(c->name, "code_busy");
	char *extra = busy ? tries_text(id) : xstrdup("");
	struct utsname u;

	error("could not %s update %s: %s%s", op_verb[op], id, c->what[op],
	      extra);
	if (*detail)
		note("The ksplice core says: %s", detail);
	if (busy)
		print_conflicts(id);
	if (uname(&u) < 0)
		strcpy(u.release, "unknown");
	/* Some advice names the running kernel: uname -r. */
	note(c->advice[op], u.release);
	free(extra);
}

static void explain_unknown(enum ksplice_op op, const char *id,
			    const char *cause, const char *detail,
			    int write_err, const char *stage)
{
	char *path = sysfs_path(id, "stage");

	if (*cause)
		error("could not %s update %s: the ksplice core gave abort cause '%s', which this ksplice does not know",
		      op_verb[op], id, cause);
	else if (write_err)
		error("could not %s update %s: writing '%s' to %s failed: %s",
		      op_verb[op], id, op_stage[op], path,
		      strerror(-write_err));
	else
		error("could not %s update %s: its stage is '%s' after writing '%s' to %s",
		      op_verb[op], id, stage ? stage : "(unreadable)",
		      op_stage[op], path);
	if (*detail)
		note("The ksplice core says: %s", detail);
	note("See the kernel log (dmesg) for what the ksplice core reported.");
	free(path);
}

void explain_abort(enum ksplice_op op, const char *id, int write_err,
		   const char *stage)
{
	char *cause = NULL, *detail = NULL;
	const struct abort_cause *c;

	if (sysfs_read(id, "abort_cause", &cause))
		cause = xstrdup("");
	if (sysfs_read(id, "abort_detail", &detail))
		detail = xstrdup("");
	if (!strcmp(cause, "none"))
		cause[0] = '\0';
	c = find_cause(cause);
	if (c)
		explain_known(op, id, c, detail);
	else
		explain_unknown(op, id, cause, detail, write_err, stage);
	free(cause);
	free(detail);
}

/* Writes a per-update setting (NULL: leave it); errors say which and why. */
int sysfs_set_tunable(const char *id, const char *attr, const char *value)
{
	int ret;

	if (!value)
		return 0;
	ret = sysfs_write(id, attr, value);
	if (ret == -EINVAL)
		return error("the ksplice core refused %s %s for update %s as out of range",
			     attr, value, id);
	if (ret)
		return error("cannot set %s to %s for update %s: %s", attr,
			     value, id, strerror(-ret));
	return 0;
}
