/* What a boot leaves: the guest's results disk read as untrusted, the console, the record. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/errf.h"
#include "base/fileio.h"
#include "fsbench/kgate/kgate.h"
#include "fsbench/kgate/util.h"
#include "probes/mount.h"

/* The last @n lines of @path, each indented, for an error message. */
static void console_tail(const char *path, int n, char *out, size_t len)
{
	size_t flen;
	char *buf = kg_read_all(path, &flen);
	const char *p;
	int lines = 0;

	out[0] = 0;
	if (!buf)
		return;
	while (flen && (buf[flen - 1] == '\n' || buf[flen - 1] == '\r'))
		buf[--flen] = 0;
	for (p = buf + flen; p > buf; p--)
		if (p[-1] == '\n' && ++lines == n)
			break;
	size_t used = 0;
	for (const char *l = p; *l && used + 8 < len;) {
		const char *nl = strchr(l, '\n');
		size_t ln = nl ? (size_t)(nl - l) : strlen(l);

		while (ln && l[ln - 1] == '\r')
			ln--;
		used += snprintf(out + used, len - used, "\n  | %.*s", (int)ln, l);
		l = nl ? nl + 1 : l + strlen(l);
	}
	if (!buf[0])
		snprintf(out, len, "\n  (the console is empty)");
	free(buf);
}

/* The filesystem type under @dir ("tmpfs"), through the one mount lookup; "unknown" if none. */
static void fs_name(const char *dir, char *out, size_t len)
{
	struct probe_mount m;
	char real[PATH_MAX];

	if (!realpath(dir, real) || probe_mount_find(NULL, PROBE_MOUNT_PATH, real, 0, &m))
		fsb_strcpy(out, len, "unknown");
	else
		fsb_strcpy(out, len, m.fstype);
}

json_t *kg_boot_json(const struct kg_kernel *k, const struct kg_vm *vm, const struct kg_boot *b)
{
	char cmdline[2048], backing_fs[64];

	fs_name(vm->disk_dir, backing_fs, sizeof(backing_fs));
	kg_cmdline(k, cmdline, sizeof(cmdline));
	return json_pack("{s:{s:s, s:s, s:s, s:s, s:s}, s:{s:s, s:s?, s:s, s:i, s:i}, "
			 "s:o, s:f, s:f, s:f, s:f, s:i}",
			 "kernel", "spec", k->spec, "image", k->image, "release",
			 b->guest_release[0] ? b->guest_release : k->release, "cmdline",
			 b->guest_cmdline[0] ? b->guest_cmdline : cmdline, "append", k->append,
			 "qemu", "accelerator", vm->accel, "icount",
			 vm->icount && vm->icount[0] && !strcmp(vm->accel, "tcg") ? vm->icount :
										    NULL,
			 "cpu_model", vm->cpu, "cpus", vm->cpus, "memory_mib",
			 kg_disk_memory_mib(&vm->disk, vm->memory_mib), "scratch_disk",
			 kg_disk_json(&vm->disk, vm->disk_dir, backing_fs), "seconds", b->seconds,
			 "boot_seconds", b->boot_seconds, "host_load_pct", b->host_load_pct,
			 "loadavg1", b->loadavg1, "guest_status", b->guest_status);
}

void kg_results_collect(const char *dir, const char *results, struct kg_boot *b)
{
	char guest[PATH_MAX + 16], path[PATH_MAX + 32], status[32], msg[512];
	char *x[] = { "tar", "-xf", (char *)results, "-C", guest, NULL };

	snprintf(guest, sizeof(guest), "%s/guest", dir);
	kg_mkdir_p(guest, 0755);
	if (kg_tool(x, NULL, msg, sizeof(msg)) != 0)
		return;
	fsb_path(path, sizeof(path), "%s/status", guest);
	if (fsb_read_line(path, status, sizeof(status)))
		status[0] = 0;
	if (status[0] && isdigit((unsigned char)status[0]))
		b->guest_status = atoi(status);
	fsb_path(path, sizeof(path), "%s/release", guest);
	if (fsb_read_line(path, b->guest_release, sizeof(b->guest_release)))
		b->guest_release[0] = 0;
	fsb_path(path, sizeof(path), "%s/cmdline", guest);
	if (fsb_read_line(path, b->guest_cmdline, sizeof(b->guest_cmdline)))
		b->guest_cmdline[0] = 0;
	fsb_path(b->result, sizeof(b->result), "%s/result.json", guest);
	if (access(b->result, R_OK))
		b->result[0] = 0;
}

int kg_boot_explain(const struct kg_kernel *k, const struct kg_vm *vm, const struct kg_boot *b,
		    const struct kg_watch *w, int wst, const char *qlog, char *err, size_t errlen)
{
	char tail[4096], msg[512];

	console_tail(b->console, KG_TAIL_LINES, tail, sizeof(tail));
	if (w->panicked) {
		char why[256] = "";
		char *con = kg_read_all(b->console, NULL),
		     *p = con ? strstr(con, MARK_PANIC) : NULL;

		if (p) /* the panic's own line says why; the tail may be its stack trace */
			snprintf(why, sizeof(why), ": %.*s", (int)strcspn(p, "\r\n"), p);
		free(con);
		return errf(err, errlen, -EIO,
			    "kernel %s panicked after %.0f s%s; last console lines:%s", k->release,
			    b->seconds, why, tail);
	}
	if (w->noboot)
		return errf(err, errlen, -ETIMEDOUT,
			    "kernel %s did not boot: no word from the guest's init within %d s; "
			    "last console lines:%s",
			    k->release, vm->boot_timeout_s, tail);
	if (w->timed_out)
		return errf(
			err, errlen, -ETIMEDOUT,
			"kernel %s: the guest did not finish within %d s; last console lines:%s",
			k->release, vm->timeout_s, tail);
	if (WIFEXITED(wst) && WEXITSTATUS(wst) != 0) {
		if (fsb_read_line(qlog, msg, sizeof(msg)))
			msg[0] = 0;
		return errf(err, errlen, -ENOEXEC, "%s exited with status %d: %s%s", vm->qemu,
			    WEXITSTATUS(wst), msg[0] ? msg : "(no message)",
			    w->started ? tail : "");
	}
	return errf(err, errlen, -EIO,
		    "kernel %s: the guest stopped after %.0f s without a result; last console "
		    "lines:%s",
		    k->release, b->seconds, tail);
}
