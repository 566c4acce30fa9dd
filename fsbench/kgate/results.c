/* What a boot leaves: the guest's results disk read as untrusted, the console, the record. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/dirfd.h"
#include "base/errf.h"
#include "base/escape.h"
#include "base/fileio.h"
#include "fsbench/kgate/gate_flow.h"
#include "fsbench/kgate/kgate.h"
#include "fsbench/kgate/user.h"
#include "fsbench/kgate/util.h"
#include "probes/target/mount.h"

/*
 * The last @n lines of the console held as @fd (held since its creation: never found again
 * by name), each indented and escaped (the guest wrote them), for an error message: read
 * from at most KG_TAIL_BYTES at its end, whatever its size.
 */
static void console_tail(int fd, int n, char *out, size_t len)
{
	char *buf = malloc(KG_TAIL_BYTES + 1), line[1024];
	struct stat st;
	ssize_t got = 0;
	const char *p;
	int lines = 0;

	out[0] = 0;
	if (buf && fd >= 0 && !fstat(fd, &st)) {
		off_t from = st.st_size > KG_TAIL_BYTES ? st.st_size - KG_TAIL_BYTES : 0;
		got = pread(fd, buf, KG_TAIL_BYTES, from);
	}
	if (!buf || got < 0) {
		free(buf);
		return;
	}
	size_t flen = (size_t)got;
	while (flen && (buf[flen - 1] == '\n' || buf[flen - 1] == '\r'))
		flen--;
	for (p = buf + flen; p > buf; p--)
		if (p[-1] == '\n' && ++lines == n)
			break;
	size_t used = 0;
	for (const char *l = p; l < buf + flen && used + 8 < len;) {
		const char *nl = memchr(l, '\n', (size_t)(buf + flen - l));
		size_t ln = nl ? (size_t)(nl - l) : (size_t)(buf + flen - l);

		while (ln && l[ln - 1] == '\r')
			ln--;
		base_escape(line, sizeof(line), l, ln);
		used += snprintf(out + used, len - used, "\n  | %s", line);
		l = nl ? nl + 1 : buf + flen;
	}
	if (!flen)
		snprintf(out, len, "\n  (the console is empty)");
	free(buf);
}

/* The filesystem type under @dir ("tmpfs"), through the one mount lookup; "unknown" if none. */
static void fs_name(const char *dir, char *out, size_t len)
{
	struct probe_mount m;
	char real[PATH_MAX];

	if (!realpath(dir, real) || probe_mount_find(NULL, PROBE_MOUNT_PATH, real, 0, &m))
		base_strcpy(out, len, "unknown");
	else
		base_strcpy(out, len, m.fstype);
}

json_t *kg_boot_json(const struct kg_kernel *k, const struct kg_vm *vm, const struct kg_boot *b)
{
	char cmdline[KG_CMDLINE_MAX + 128], backing_fs[64];

	fs_name(vm->disk_dir, backing_fs, sizeof(backing_fs));
	kg_cmdline(k, cmdline, sizeof(cmdline));
	if (b->guest_cmdline[0]) { /* as booted, but for the boot's random seed */
		snprintf(cmdline, sizeof(cmdline), "%s", b->guest_cmdline);
		kg_cmdline_unseed(cmdline);
	}
	return json_pack(
		"{s:{s:s, s:s*, s:s*, s:s, s:s, s:s, s:s, s:s, s:s*}, s:{s:s, s:s?, s:s, s:i, s:i}, "
		"s:o, s:f, s:f, s:f, s:f, s:i}",
		"kernel", "spec", k->spec, "url", k->url[0] ? k->url : NULL, "sha256",
		k->url[0] ? k->sha256 : NULL, "image", k->image, "release",
		b->guest_release[0] ? b->guest_release : k->release, "cmdline", cmdline, "append",
		k->append, "entry", k->entry[0] ? k->entry : "bzimage", "entry_why",
		k->entry_why[0] ? k->entry_why : NULL, "qemu", "accelerator", vm->accel, "icount",
		vm->icount && vm->icount[0] && !strcmp(vm->accel, "tcg") ? vm->icount : NULL,
		"cpu_model", vm->cpu, "cpus", vm->cpus, "memory_mib",
		kg_disk_memory_mib(&vm->disk, vm->memory_mib), "scratch_disk",
		kg_disk_json(&vm->disk, vm->disk_dir, backing_fs), "seconds", b->seconds,
		"boot_seconds", b->boot_seconds, "host_load_pct", b->host_load_pct, "loadavg1",
		b->loadavg1, "guest_status", b->guest_status);
}

/*
 * The guest's results disk is written by the kernel under test, so it is read here by
 * fsbench, not by tar: a ustar archive of at most RESULT_FILES regular files with plain names
 * ("status", "result.json"), each at most RESULT_FILE_BYTES, written 0644 by root into a
 * directory fsbench just made. Device nodes, links, setuid bits, owners, paths and anything
 * else refuse the whole disk: no guest fsbench built ever writes them.
 */
#define RESULT_FILES 32
#define RESULT_FILE_BYTES (32LL << 20)
#define TAR_BLOCK 512

/* A name the guest's /init writes: one component of [A-Za-z0-9._-], not starting with a dot. */
static bool result_name_ok(const char *name)
{
	if (!name[0] || name[0] == '.' || strlen(name) > 64)
		return false;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_' && *p != '-')
			return false;
	return true;
}

/* An octal header field; -1 when it is not one (base-256 sizes are refused too). */
static long long tar_octal(const unsigned char *f, size_t n)
{
	long long v = 0;
	size_t i = 0;

	while (i < n && f[i] == ' ')
		i++;
	if (i == n || f[i] < '0' || f[i] > '7')
		return -1;
	for (; i < n && f[i] >= '0' && f[i] <= '7'; i++) {
		if (v > (LLONG_MAX >> 3))
			return -1;
		v = v * 8 + (f[i] - '0');
	}
	return i == n || f[i] == 0 || f[i] == ' ' ? v : -1;
}

static bool tar_sum_ok(const unsigned char *h)
{
	long long want = tar_octal(h + 148, 8), sum = 0;

	for (int i = 0; i < TAR_BLOCK; i++)
		sum += i >= 148 && i < 156 ? ' ' : h[i];
	return want == sum;
}

/* One regular member's @size bytes from @in into a new file @name in @dfd. */
static int tar_copy(int in, int dfd, const char *name, long long size)
{
	char buf[65536];
	int out = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	int r = 0;

	if (out < 0)
		return -errno;
	for (long long left = size; left > 0 && !r;) {
		ssize_t n =
			read(in, buf, left < (long long)sizeof(buf) ? (size_t)left : sizeof(buf));

		if (n <= 0)
			r = n < 0 ? -errno : -EBADMSG; /* the disk ends inside the member */
		else if (write(out, buf, (size_t)n) != n)
			r = -EIO;
		else
			left -= n;
	}
	if (close(out) && !r)
		r = -errno;
	/* the member's data is padded to a whole block */
	if (!r && size % TAR_BLOCK && lseek(in, TAR_BLOCK - size % TAR_BLOCK, SEEK_CUR) < 0)
		r = -errno;
	return r;
}

/* Reads the archive on @in into @dfd. 0, or -errno with @err naming the member refused. */
static int tar_extract(int in, int dfd, char *err, size_t errlen)
{
	unsigned char h[TAR_BLOCK];
	int files = 0, r;

	for (;;) {
		ssize_t n = read(in, h, sizeof(h));
		char name[512];

		if (n != TAR_BLOCK)
			return files ? 0 : errf(err, errlen, -EBADMSG, "no archive");
		if (h[0] == 0)
			return 0; /* the end-of-archive block */
		if (!tar_sum_ok(h))
			return errf(err, errlen, -EBADMSG, "a header with a bad checksum");
		if (memcmp(h + 257, "ustar", 5) || h[345])
			return errf(err, errlen, -EBADMSG, "a header that is not plain ustar");
		char raw[101];
		snprintf(raw, sizeof(raw), "%.100s", (const char *)h);
		const char *base = !strncmp(raw, "./", 2) ? raw + 2 : raw;
		/* the name as it may be shown: the guest chose its bytes */
		base_escape_str(name, sizeof(name), raw);
		long long size = tar_octal(h + 124, 12);

		if (h[156] == '5' && (!strcmp(raw, ".") || !strcmp(raw, "./")))
			continue; /* the top directory itself */
		if (h[156] != '0' && h[156] != 0)
			return errf(err, errlen, -EPERM,
				    "member %s: type '%c' is not a regular file", name,
				    h[156] > ' ' && h[156] < 127 ? h[156] : '?');
		if (!result_name_ok(base))
			return errf(err, errlen, -EPERM, "member %s: not a plain file name", name);
		if (size < 0 || size > RESULT_FILE_BYTES)
			return errf(err, errlen, -EFBIG,
				    "member %s: size out of bounds (at most %lld)", name,
				    RESULT_FILE_BYTES);
		if (++files > RESULT_FILES)
			return errf(err, errlen, -E2BIG, "more than %d files", RESULT_FILES);
		if ((r = tar_copy(in, dfd, base, size)))
			return errf(err, errlen, r, "member %s: %s", name,
				    r == -EEXIST ? "given twice" : strerror(-r));
	}
}

/* The first @len - 1 bytes of the guest's file @name (raw), their count, or -1. */
static ssize_t guest_read(int dfd, const char *name, char *out, size_t len)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, out, len - 1);

	if (fd >= 0)
		close(fd);
	out[n > 0 ? n : 0] = 0;
	return n;
}

/* A line the guest wrote, shown to the user and recorded: its first line, escaped. */
static void guest_line(int dfd, const char *name, char *out, size_t len)
{
	char raw[1024];
	ssize_t n = guest_read(dfd, name, raw, sizeof(raw));

	base_escape(out, len, raw, n > 0 ? strcspn(raw, "\n") : 0);
}

int kg_guest_status(const char *s, size_t n)
{
	int v = 0;
	size_t i = 0;

	if (n && s[n - 1] == '\n')
		n--; /* echo's newline */
	if (!n || n > 3 || (n > 1 && s[0] == '0'))
		return -1;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v <= 255 ? v : -1;
}

/* What the reading step gets: the results disk by descriptor. */
struct tar_step {
	int in;
};

/* The reading, as the guest side's user when fsbench is root (kg_user_run). */
static int tar_step(int dfd, const char *dir, void *arg, char *err, size_t errlen)
{
	const struct tar_step *a = arg;

	(void)dir;
	return tar_extract(a->in, dfd, err, errlen);
}

/* What streams back to root from the reading step: the flat, bounded set tar_extract writes. */
static const struct kg_user_rules tar_rules = { .max_entries = RESULT_FILES,
						.max_file_bytes = RESULT_FILE_BYTES,
						.max_total_bytes = KG_RESULTS_DISK_BYTES };

int kg_results_collect(int bdfd, const char *dir, struct kg_boot *b, char *err, size_t errlen)
{
	char guest[PATH_MAX + 16], results[PATH_MAX + 16], status[32], why[512], why2[512];
	char stage[64] = "", x[PATH_MAX + 80];
	int in = -1, dfd, sfd = -1, xfd = -1, r;
	struct stat st;
	struct kg_user u = { .lock = -1 };
	struct kg_user_ran ran = { 0 };

	snprintf(guest, sizeof(guest), "%s/guest", dir);
	snprintf(results, sizeof(results), "%s/results.img", dir);
	/* the boot's directory is new: a guest/ already there was not made by this boot */
	if ((dfd = base_dir_make(bdfd, "guest", 0700, why, sizeof(why))) < 0)
		return errf(err, errlen, dfd, "creating %s: %s", guest, why);
	in = openat(bdfd, "results.img", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0 || fstat(in, &st) || !S_ISREG(st.st_mode)) {
		r = errf(err, errlen, -errno, "reading %s: %s", results, strerror(errno));
		goto out;
	}
	if ((r = kg_user_claim(&u, err, errlen)))
		goto out;
	/*
	 * The reading step's own x/ in root's 0700 staging directory: no other user reaches it
	 * by path while the step runs, and guest/ stays root's throughout.
	 */
	if ((sfd = base_dir_make_temp(bdfd, ".guest.", stage, sizeof(stage), why, sizeof(why))) <
	    0) {
		stage[0] = 0;
		r = errf(err, errlen, sfd, "creating a directory in %s: %s", dir, why);
		goto out;
	}
	snprintf(x, sizeof(x), "%s/%s/x", dir, stage);
	if ((xfd = base_dir_make(sfd, "x", 0700, why, sizeof(why))) < 0) {
		r = errf(err, errlen, xfd, "creating %s: %s", x, why);
		goto out;
	}
	if ((r = kg_user_give(&u, xfd))) {
		errf(err, errlen, r, "chown %s: %s", x, strerror(-r));
		goto out;
	}
	/*
	 * The guest's bytes are parsed by a child with no root, whose files stream back into
	 * root's own guest/ (regular, bounded, no links): what it wrote is checked again there,
	 * and nothing it held open reaches root's copy.
	 */
	struct tar_step a = { .in = in };
	r = kg_user_run(&u, xfd, x, tar_step, &a, &ran, why, sizeof(why));
	if (!r)
		r = kg_user_stream_back(&u, xfd, x, dfd, guest, &tar_rules, why, sizeof(why));
	else /* what was read before the refusal, for a look: root's, kept */
		kg_user_stream_back(&u, xfd, x, dfd, guest, &tar_rules, why2, sizeof(why2));
	kg_user_note(bdfd, "privsep", "results disk", &ran);
	kg_user_release(&u); /* its tree is removed below: nothing of it left to the uid */
	if (r) {
		/* what was taken stays for a look; none of it is used */
		r = errf(err, errlen, r, "the guest's results disk is refused: %s (see %s)", why,
			 guest);
		goto out;
	}
	ssize_t sn = guest_read(dfd, "status", status, sizeof(status));
	if (sn >= 0 && (b->guest_status = kg_guest_status(status, (size_t)sn)) < 0) {
		char esc[4 * sizeof(status)];

		r = errf(err, errlen, -EBADMSG,
			 "the guest's status \"%s\" is not a decimal 0-255: cannot judge (see %s)",
			 base_escape(esc, sizeof(esc), status, (size_t)sn), guest);
		goto out;
	}
	guest_line(dfd, "release", b->guest_release, sizeof(b->guest_release));
	guest_line(dfd, "cmdline", b->guest_cmdline, sizeof(b->guest_cmdline));
	guest_line(dfd, "token", b->guest_token, sizeof(b->guest_token));
	guest_line(dfd, "boot_id", b->guest_boot_id, sizeof(b->guest_boot_id));
	guest_line(dfd, "time", b->guest_time, sizeof(b->guest_time));
	if (!fstatat(dfd, "result.json", &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode))
		base_path(b->result, sizeof(b->result), "%s/result.json", guest);
out:
	kg_user_release(&u);
	if (xfd >= 0)
		close(xfd);
	if (sfd >= 0)
		close(sfd);
	if (stage[0]) /* by descriptor: the step's tree, whatever it left in it */
		base_rm_at(bdfd, stage);
	if (in >= 0)
		close(in);
	if (dfd >= 0)
		close(dfd);
	return r;
}

/*
 * What earlier boots of this process left, so that one result or one guest boot never
 * passes for two (the gate's boots run in threads).
 */
#define SEEN_MAX 256
static struct {
	pthread_mutex_t lock;
	int n;
	uint64_t result[SEEN_MAX];
	char boot_id[SEEN_MAX][40];
} seen = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Whether @boot_id or @result was seen before; records both. */
static const char *seen_before(const char *boot_id, uint64_t result)
{
	const char *why = NULL;

	pthread_mutex_lock(&seen.lock);
	for (int i = 0; i < seen.n && !why; i++)
		why = !strcmp(seen.boot_id[i], boot_id) ? "the boot id of an earlier boot" :
		      seen.result[i] == result ? "the same result.json as an earlier boot" :
						 NULL;
	if (!why && seen.n < SEEN_MAX) {
		base_strcpy(seen.boot_id[seen.n], sizeof(seen.boot_id[0]), boot_id);
		seen.result[seen.n++] = result;
	}
	pthread_mutex_unlock(&seen.lock);
	return why;
}

/* A UUID as the kernel prints boot_id: 8-4-4-4-12 lowercase hex digits. */
static bool uuid_ok(const char *s)
{
	if (strlen(s) != 36)
		return false;
	for (int i = 0; i < 36; i++)
		if (i == 8 || i == 13 || i == 18 || i == 23 ? s[i] != '-' :
							      !strchr("0123456789abcdef", s[i]))
			return false;
	return true;
}

int kg_result_bound(const struct kg_kernel *k, const struct kg_boot *b, char *why, size_t len)
{
	const char *dup;
	char *end;
	long long t;
	uint64_t h = KG_FNV_SEED;

	if (!b->guest_token[0] || strcmp(b->guest_token, b->token))
		return errf(why, len, -EBADMSG,
			    "the result carries %s%s%s, not this boot's: it was not made by this "
			    "boot, cannot judge",
			    b->guest_token[0] ? "the token \"" : "no token", b->guest_token,
			    b->guest_token[0] ? "\"" : "");
	if (strcmp(b->guest_release, k->release))
		return errf(why, len, -EBADMSG,
			    "the result says release \"%s\", but this boot was of %s: cannot judge",
			    b->guest_release, k->release);
	if (!uuid_ok(b->guest_boot_id))
		return errf(why, len, -EBADMSG,
			    "the result's boot id \"%s\" is not a kernel's boot_id: cannot judge",
			    b->guest_boot_id);
	/*
	 * The guest's clock starts from the host's RTC; under TCG it then runs slower than the
	 * host's, rarely faster: a time before the boot (less a minute) or long after it is
	 * another boot's.
	 */
	errno = 0;
	t = strtoll(b->guest_time, &end, 10);
	if (errno || end == b->guest_time || *end || t < b->wall_start - 60 ||
	    t > b->wall_end + 300 + (b->wall_end - b->wall_start))
		return errf(why, len, -EBADMSG,
			    "the result's time \"%s\" is outside its boot's (%lld to %lld): "
			    "cannot judge",
			    b->guest_time, b->wall_start, b->wall_end);
	int r = b->result[0] ? kg_hash_file(&h, b->result) : 0;
	if (r)
		return errf(why, len, -EBADMSG, "reading %s: %s", b->result, strerror(-r));
	if ((dup = seen_before(b->guest_boot_id, h)))
		return errf(why, len, -EBADMSG,
			    "the result has %s: one boot's result passed off as two, cannot judge",
			    dup);
	return 0;
}

int kg_boot_explain(const struct kg_kernel *k, const struct kg_vm *vm, const struct kg_boot *b,
		    const struct kg_watch *w, int wst, int console, const char *qlog, char *err,
		    size_t errlen)
{
	char tail[4096], msg[512];

	console_tail(console, KG_TAIL_LINES, tail, sizeof(tail));
	if (w->panicked) {
		char line[256] = "", why[1100] = "";
		ssize_t n = console < 0 || w->panic_at < 0 ?
				    -1 :
				    pread(console, line, sizeof(line) - 1, w->panic_at);

		if (n > 0) { /* the panic's own line says why; the tail may be its stack trace */
			line[n] = 0;
			why[0] = ':';
			why[1] = ' ';
			base_escape(why + 2, sizeof(why) - 2, line, strcspn(line, "\r\n"));
		}
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
			"kernel %s: the guest did not finish within %d s%s; last console lines:%s",
			k->release, vm->timeout_s,
			w->paused ? " (QEMU used no CPU for the last 10 s or more: the VM is "
				    "paused or QEMU stopped, not slow)" :
				    "",
			tail);
	if (WIFEXITED(wst) && WEXITSTATUS(wst) != 0) {
		if (base_read_line(qlog, msg, sizeof(msg)))
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

void kg_guest_stdout_copy(int wfd, const char *name, FILE *out)
{
	char rel[96], *line = NULL, *esc = NULL;
	size_t cap = 0;
	struct stat st;
	FILE *f = NULL;
	ssize_t n;
	int fd;

	if (wfd < 0 || !name[0] ||
	    snprintf(rel, sizeof(rel), "%s/guest/stdout", name) >= (int)sizeof(rel))
		return;
	/* O_NONBLOCK: a FIFO left there does not hang the open; it is not read */
	fd = base_open_beneath(wfd, rel, O_RDONLY | O_NONBLOCK, 0);
	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "r"))))
		close(fd);
	while (f && (n = getline(&line, &cap, f)) > 0) {
		bool nl = line[n - 1] == '\n';
		char *e = realloc(esc, 4 * (size_t)n + 1);

		if (!e)
			break;
		esc = e;
		fputs(base_escape(esc, 4 * (size_t)n + 1, line, (size_t)n - nl), out);
		if (nl)
			fputc('\n', out);
	}
	free(line);
	free(esc);
	if (f)
		fclose(f);
	fflush(out); /* the guest's last line may lack its newline */
}
