/* The kernel under test: resolving a kernel, building its initramfs, booting it in QEMU. */
#include "fsbench/kgate/kgate.h"
#include "fsbench/core/clock.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/errf.h"
#include "base/fileio.h"
#include "probes/fs_traits.h"
#include "probes/mount.h"
#include "probes/scratch.h"

volatile sig_atomic_t kg_interrupted;

/* Markers the guest's /init prints on the serial console. */
#define MARK_START "FSBENCH-GUEST-START"
#define MARK_EXIT "FSBENCH-GUEST-EXIT"
#define MARK_PANIC "Kernel panic"
/* Console lines quoted in an error. */
#define TAIL_LINES 12
/* The results disk: a tar archive of the guest's /out; results are a few MiB at most. */
#define RESULTS_DISK_BYTES (64LL << 20)

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static double now_s(void)
{
	return (double)fsb_now_ns() / 1e9;
}

static int mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	char *p;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, mode) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, mode) && errno != EEXIST)
		return -errno;
	return 0;
}

/*
 * Runs @argv, stdout to @out (NULL: /dev/null), stderr into @msg (its last line kept).
 * Returns the exit status (0..255), or -errno when it could not run.
 */
static int run_tool(char *const argv[], const char *out, char *msg, size_t msglen)
{
	int pfd[2], status;
	size_t used = 0;
	pid_t pid;
	char buf[4096];
	ssize_t n;

	if (msglen)
		msg[0] = 0;
	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		int e = -errno;

		close(pfd[0]);
		close(pfd[1]);
		return e;
	}
	if (pid == 0) {
		int fd = open(out ? out : "/dev/null",
			      out ? O_WRONLY | O_CREAT | O_TRUNC : O_WRONLY, 0644);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(pfd[1], 2) < 0)
			_exit(127);
		execvp(argv[0], argv);
		dprintf(2, "%s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	while ((n = read(pfd[0], buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)) {
		if (n <= 0)
			continue;
		for (ssize_t i = 0; i < n && msglen; i++) {
			if (used + 1 >= msglen) { /* keep the tail: the last words matter */
				memmove(msg, msg + msglen / 2, used - msglen / 2);
				used -= msglen / 2;
			}
			msg[used++] = buf[i];
		}
	}
	close(pfd[0]);
	if (msglen) {
		msg[used] = 0;
		while (used && (msg[used - 1] == '\n' || msg[used - 1] == ' '))
			msg[--used] = 0;
		char *nl = strrchr(msg, '\n');
		if (nl)
			memmove(msg, nl + 1, strlen(nl + 1) + 1);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status))
		return WEXITSTATUS(status) == 127 && msglen && strstr(msg, argv[0]) ?
			       -ENOENT :
			       WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

int kg_bzimage_release(const char *image, char *out, size_t len)
{
	unsigned char hdr[0x210];
	char ver[128];
	ssize_t n;
	unsigned off;
	int fd = open(image, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = pread(fd, hdr, sizeof(hdr), 0);
	if (n != (ssize_t)sizeof(hdr) || memcmp(hdr + 0x202, "HdrS", 4)) {
		close(fd);
		return -ENOEXEC;
	}
	/* boot protocol: kernel_version at 0x20e points at a string 0x200 bytes further */
	off = (unsigned)hdr[0x20e] | (unsigned)hdr[0x20f] << 8;
	n = pread(fd, ver, sizeof(ver) - 1, off + 0x200);
	close(fd);
	if (n <= 0)
		return -ENOEXEC;
	ver[n] = 0;
	ver[strcspn(ver, " ")] = 0;
	if (!ver[0])
		return -ENOEXEC;
	snprintf(out, len, "%s", ver);
	return 0;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A .deb, extracted once per file (name, size, mtime) into the cache, with depmod run on it. */
static int deb_resolve(const char *deb, const char *cachedir, struct kg_kernel *k, char *err,
		       size_t errlen)
{
	char base[PATH_MAX], final[PATH_MAX], tmp[PATH_MAX], msg[512], pat[PATH_MAX + 32];
	const char *name = strrchr(deb, '/') ? strrchr(deb, '/') + 1 : deb;
	struct stat st;
	glob_t g;
	int r;

	if (stat(deb, &st))
		return errf(err, errlen, -ENOENT, "kernel %s: %s", deb, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return errf(err, errlen, -EINVAL, "kernel %s: not a regular file", deb);
	snprintf(base, sizeof(base), "%s/kernels", cachedir);
	r = mkdir_p(base, 0755);
	if (r)
		return errf(err, errlen, r, "creating %s: %s", base, strerror(-r));
	fsb_path(final, sizeof(final), "%s/%.*s-%llx-%llx", base, (int)(strlen(name) - 4), name,
		 (unsigned long long)st.st_size, (unsigned long long)st.st_mtime);
	if (!is_dir(final)) {
		char *x[] = { "dpkg-deb", "-x", (char *)deb, tmp, NULL };

		fsb_path(tmp, sizeof(tmp), "%s/.extract.XXXXXX", base);
		if (!mkdtemp(tmp))
			return errf(err, errlen, -errno, "creating a directory in %s: %s", base,
				    strerror(errno));
		r = run_tool(x, NULL, msg, sizeof(msg));
		if (r) {
			fsb_rm_tree(tmp);
			return errf(err, errlen, -EINVAL,
				    "kernel %s: not a usable .deb: dpkg-deb: %s", deb,
				    r < 0 ? strerror(-r) : msg);
		}
		/* newer packages ship usr/lib/modules; depmod -b looks in lib/modules */
		snprintf(pat, sizeof(pat), "%s/usr/lib/modules", tmp);
		if (is_dir(pat)) {
			fsb_path(msg, sizeof(msg), "%s/lib", tmp);
			if (!is_dir(msg) && symlink("usr/lib", msg))
				return errf(err, errlen, -errno, "symlink %s: %s", msg,
					    strerror(errno));
		}
		snprintf(pat, sizeof(pat), "%s/boot/vmlinuz-*", tmp);
		if (glob(pat, 0, NULL, &g) || g.gl_pathc != 1) {
			fsb_rm_tree(tmp);
			return errf(
				err, errlen, -EINVAL,
				"kernel %s: not a linux-image package (no single boot/vmlinuz-*)",
				deb);
		}
		snprintf(k->release, sizeof(k->release), "%s",
			 strstr(g.gl_pathv[0], "/boot/vmlinuz-") + strlen("/boot/vmlinuz-"));
		globfree(&g);
		char *d[] = { "depmod", "-b", tmp, k->release, NULL };
		r = run_tool(d, NULL, msg, sizeof(msg));
		if (r) {
			fsb_rm_tree(tmp);
			return errf(err, errlen, -EINVAL, "kernel %s: depmod %s: %s", deb,
				    k->release, r < 0 ? strerror(-r) : msg);
		}
		if (rename(tmp, final)) {
			r = -errno;
			fsb_rm_tree(tmp);
			if (r != -EEXIST && r != -ENOTEMPTY) /* another run extracted it first */
				return errf(err, errlen, r, "rename %s: %s", final, strerror(-r));
		}
	}
	snprintf(pat, sizeof(pat), "%s/boot/vmlinuz-*", final);
	if (glob(pat, 0, NULL, &g) || g.gl_pathc != 1)
		return errf(err, errlen, -EINVAL, "kernel %s: no boot/vmlinuz-* in %s", deb, final);
	snprintf(k->image, sizeof(k->image), "%s", g.gl_pathv[0]);
	globfree(&g);
	snprintf(k->release, sizeof(k->release), "%s",
		 strstr(k->image, "/boot/vmlinuz-") + strlen("/boot/vmlinuz-"));
	fsb_path(k->moddir, sizeof(k->moddir), "%s/lib/modules/%s", final, k->release);
	return 0;
}

int kg_kernel_resolve(const char *spec, const char *modules, const char *cachedir,
		      struct kg_kernel *k, char *err, size_t errlen)
{
	char path[PATH_MAX + 64];
	struct stat st;
	int r;

	snprintf(k->spec, sizeof(k->spec), "%s", spec);
	if (!spec[0])
		return errf(err, errlen, -ENOENT, "an empty kernel name");
	if (ends_with(spec, ".deb"))
		return deb_resolve(spec, cachedir, k, err, errlen);
	if (stat(spec, &st) == 0) {
		if (!S_ISREG(st.st_mode))
			return errf(err, errlen, -EINVAL, "kernel %s: not a regular file", spec);
		if (!realpath(spec, k->image))
			return errf(err, errlen, -errno, "kernel %s: %s", spec, strerror(errno));
		r = kg_bzimage_release(spec, k->release, sizeof(k->release));
		if (r)
			return errf(err, errlen, r == -ENOEXEC ? -EINVAL : r, "kernel %s: %s", spec,
				    r == -ENOEXEC ? "not a bzImage (no HdrS setup header)" :
						    strerror(-r));
		if (modules) {
			snprintf(path, sizeof(path), "%s/lib/modules/%s", modules, k->release);
			if (!is_dir(path)) {
				snprintf(path, sizeof(path), "%s/modules.dep", modules);
				if (access(path, R_OK))
					return errf(
						err, errlen, -ENOENT,
						"kernel %s is %s, but %s holds no lib/modules/%s",
						spec, k->release, modules, k->release);
				snprintf(path, sizeof(path), "%s", modules);
			}
		} else {
			snprintf(path, sizeof(path), "/lib/modules/%s", k->release);
			if (!is_dir(path))
				return errf(err, errlen, -ENOENT,
					    "kernel %s is %s, but /lib/modules/%s does not exist: "
					    "give its modules (a directory holding lib/modules/%s)",
					    spec, k->release, k->release, k->release);
		}
		fsb_path(k->moddir, sizeof(k->moddir), "%s", path);
		return 0;
	}
	if (strchr(spec, '/'))
		return errf(err, errlen, -ENOENT, "kernel %s: %s", spec, strerror(errno));
	snprintf(k->image, sizeof(k->image), "/boot/vmlinuz-%s", spec);
	snprintf(k->moddir, sizeof(k->moddir), "/lib/modules/%s", spec);
	snprintf(k->release, sizeof(k->release), "%s", spec);
	if (access(k->image, R_OK))
		return errf(err, errlen, -ENOENT,
			    "kernel %s: not a file, a .deb, or a release under /boot (%s: %s)",
			    spec, k->image, strerror(errno));
	if (!is_dir(k->moddir))
		return errf(err, errlen, -ENOENT, "kernel %s: %s does not exist", spec, k->moddir);
	return 0;
}

/* "kernel/fs/ext4/ext4.ko.xz" -> "ext4"; dashes become underscores, as modprobe does. */
static void mod_name(const char *path, char *out, size_t len)
{
	const char *b = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t i;

	for (i = 0; b[i] && i + 1 < len && strncmp(b + i, ".ko", 3); i++)
		out[i] = b[i] == '-' ? '_' : b[i];
	out[i] = 0;
}

static char *read_all(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, len = 0, n;

	if (!f)
		return NULL;
	do {
		if (len + 65536 + 1 > cap) {
			char *nb = realloc(buf, cap = (cap ? cap * 2 : 131072));
			if (!nb) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, 65536, f);
		len += n;
	} while (n > 0);
	fclose(f);
	buf[len] = 0;
	if (ret_len)
		*ret_len = len;
	return buf;
}

/* Whether @name is one line's module in a modules.builtin text. */
static bool in_builtin(const char *builtin, const char *name)
{
	char m[128];

	for (const char *l = builtin; l && *l;) {
		const char *nl = strchr(l, '\n');
		char line[PATH_MAX];
		size_t n = nl ? (size_t)(nl - l) : strlen(l);

		if (n < sizeof(line)) {
			memcpy(line, l, n);
			line[n] = 0;
			mod_name(line, m, sizeof(m));
			if (!strcmp(m, name))
				return true;
		}
		l = nl ? nl + 1 : NULL;
	}
	return false;
}

static int add_unique(char **paths, size_t *n, size_t max, const char *p)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(paths[i], p))
			return 0;
	if (*n >= max)
		return -E2BIG;
	paths[*n] = strdup(p);
	if (!paths[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

int kg_modules_resolve(const char *moddir, const char *const *names, size_t nnames,
		       char **ret_paths, size_t max, char *err, size_t errlen)
{
	char path[PATH_MAX + 32];
	char *dep, *builtin;
	size_t n = 0;
	int r = 0;

	snprintf(path, sizeof(path), "%s/modules.dep", moddir);
	dep = read_all(path, NULL);
	if (!dep)
		return errf(err, errlen, -errno, "reading %s: %s (run depmod for this kernel)",
			    path, strerror(errno));
	snprintf(path, sizeof(path), "%s/modules.builtin", moddir);
	builtin = read_all(path, NULL); /* absent: nothing built in that we know of */
	for (size_t i = 0; i < nnames && !r; i++) {
		bool optional = names[i][0] == '?';
		const char *want = names[i] + optional;
		char *line = NULL, m[128];
		bool found = false;

		if (builtin && in_builtin(builtin, want))
			continue;
		for (char *l = dep; *l && !found;) {
			char *nl = strchr(l, '\n'), *colon = strchr(l, ':');

			if (colon && (!nl || colon < nl)) {
				*colon = 0;
				mod_name(l, m, sizeof(m));
				*colon = ':';
				if (!strcmp(m, want)) {
					found = true;
					line = strndup(l, nl ? (size_t)(nl - l) : strlen(l));
				}
			}
			l = nl ? nl + 1 : l + strlen(l);
		}
		if (!found) {
			if (!optional)
				r = errf(err, errlen, -ENOENT,
					 "module %s: neither in %s/modules.dep nor built in", want,
					 moddir);
			continue;
		}
		if (!line) {
			r = -ENOMEM;
			break;
		}
		/* modules.dep lists every dependency, the ones loaded last first */
		char *colon = strchr(line, ':'), *toks[128];
		size_t nt = 0;
		*colon = 0;
		for (char *t = strtok(colon + 1, " \t"); t && nt < 128; t = strtok(NULL, " \t"))
			toks[nt++] = t;
		while (nt-- > 0 && !r)
			r = add_unique(ret_paths, &n, max, toks[nt]);
		if (!r)
			r = add_unique(ret_paths, &n, max, line);
		if (r == -E2BIG)
			errf(err, errlen, r, "more than %zu modules for %s", max, want);
		free(line);
	}
	free(dep);
	free(builtin);
	if (r) {
		for (size_t i = 0; i < n; i++)
			free(ret_paths[i]);
		return r;
	}
	return (int)n;
}

/* One file of the initramfs. */
struct ent {
	char *src; /* host file; NULL: @text */
	char *dest; /* path inside */
	char *text;
	mode_t mode;
	bool decompress; /* .ko.xz / .ko.zst / .ko.gz */
};

struct ents {
	struct ent *v;
	size_t n, cap;
};

static void ents_free(struct ents *e)
{
	for (size_t i = 0; i < e->n; i++) {
		free(e->v[i].src);
		free(e->v[i].dest);
		free(e->v[i].text);
	}
	free(e->v);
}

static int ents_add(struct ents *e, const char *src, const char *dest, const char *text,
		    mode_t mode)
{
	struct ent *x;

	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].dest, dest))
			return 0;
	if (e->n == e->cap) {
		struct ent *nv = realloc(e->v, (e->cap = e->cap ? 2 * e->cap : 64) * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		e->v = nv;
	}
	x = &e->v[e->n];
	memset(x, 0, sizeof(*x));
	x->dest = strdup(dest);
	x->src = src ? realpath(src, NULL) : NULL;
	x->text = text ? strdup(text) : NULL;
	x->mode = mode;
	if (!x->dest || (src && !x->src) || (text && !x->text)) {
		int r = src && !x->src ? -errno : -ENOMEM;
		free(x->dest);
		free(x->src);
		free(x->text);
		return r;
	}
	x->decompress = ends_with(dest, ".xz") || ends_with(dest, ".zst") || ends_with(dest, ".gz");
	if (x->decompress)
		x->dest[strlen(x->dest) - (ends_with(dest, ".zst") ? 4 : 3)] = 0;
	e->n++;
	return 0;
}

/* A program on the host: PATH, then the sbin directories root's PATH would have. */
static int find_program(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char dirs[4096];

	snprintf(dirs, sizeof(dirs), "%s:/usr/sbin:/sbin:/usr/bin:/bin", path ? path : "");
	for (char *save, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(out, len, "%s/%s", d, name);
		if (access(out, X_OK) == 0)
			return 0;
	}
	return -ENOENT;
}

/* The shared libraries and loader ldd names for @elf; a static binary has none. */
static int add_libs(struct ents *e, const char *elf, char *err, size_t errlen)
{
	char out[] = "/tmp/fsbench-ldd.XXXXXX", msg[256];
	char *argv[] = { "ldd", (char *)elf, NULL };
	int fd = mkstemp(out), r;
	FILE *f;
	char line[1024];

	if (fd < 0)
		return errf(err, errlen, -errno, "mkstemp %s: %s", out, strerror(errno));
	close(fd);
	r = run_tool(argv, out, msg, sizeof(msg));
	if (r < 0) {
		unlink(out);
		return errf(err, errlen, r, "ldd %s: %s", elf, strerror(-r));
	}
	f = fopen(out, "re");
	unlink(out);
	if (!f)
		return errf(err, errlen, -errno, "ldd %s: %s", elf, strerror(errno));
	r = 0;
	while (!r && fgets(line, sizeof(line), f)) {
		char *arrow = strstr(line, "=> "), *p = arrow ? arrow + 3 : line;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '/')
			continue; /* linux-vdso, "not a dynamic executable" */
		p[strcspn(p, " \t\n(")] = 0;
		r = ents_add(e, p, p, NULL, 0755);
		if (r)
			errf(err, errlen, r, "library %s of %s: %s", p, elf, strerror(-r));
	}
	fclose(f);
	return r;
}

/* The guest's /init: mounts, modules, the suite, results out, power off. */
static const char guest_init[] =
	"#!/bin/busybox sh\n"
	"# fsbench guest: runs the suite on the scratch disk, writes /out to the results disk as\n"
	"# tar, powers off. Scratch /dev/vda and results /dev/vdb; with fsbench.disk=model the\n"
	"# scratch disk is null_blk's /dev/nullb0 and the results disk the only virtio one\n"
	"/bin/busybox --install -s /bin\n"
	"export PATH=/bin:/sbin:/usr/bin:/usr/sbin\n"
	"mount -t devtmpfs dev /dev 2>/dev/null\n"
	"exec </dev/console >/dev/console 2>&1\n"
	"mount -t proc proc /proc\n"
	"mount -t sysfs sys /sys\n"
	"mount -t tmpfs run /run\n"
	"mount -t tmpfs tmp /tmp\n"
	"mkdir -p /out\n"
	"dev=/dev/vda out=/dev/vdb nb=\n"
	"for w in $(cat /proc/cmdline); do\n"
	"\tcase $w in\n"
	"\tfsbench.disk=model) dev=/dev/nullb0 out=/dev/vda ;;\n"
	"\tnull_blk.*) nb=\"$nb ${w#null_blk.}\" ;;\n"
	"\tesac\n"
	"done\n"
	"while read -r m; do\n"
	"\t# a module's parameters on the kernel command line are modprobe's to apply\n"
	"\tp=; case $m in */null_blk.ko) [ $dev = /dev/nullb0 ] && p=$nb || continue ;; esac\n"
	"\tinsmod \"/lib/modules/$(uname -r)/$m\" $p || echo \"fsbench-guest: insmod $m failed\"\n"
	"done </etc/fsbench/modules\n"
	"i=0\n"
	"while [ ! -b $dev ] || [ ! -b $out ]; do\n"
	"\ti=$((i + 1)); [ $i -gt 200 ] && break; sleep 0.05\n"
	"done\n"
	"if grep -qw fsbench.shell /proc/cmdline; then\n"
	"\t# LAVA: a shell on the console; the test definition runs the suite\n"
	"\texport PS1='fsbench-guest# '\n"
	"\t# its overlay: an ext2 disk labelled LAVA, mounted where its own paths say\n"
	"\tsleep 1\n"
	"\tdev=$(findfs LABEL=LAVA 2>/dev/null)\n"
	"\tif [ -n \"$dev\" ] && mkdir -p /mnt/lava && mount \"$dev\" /mnt/lava; then\n"
	"\t\td=$(grep -o '^/lava-[0-9]*' /mnt/lava/*/lava-test-runner.conf | head -n 1)\n"
	"\t\td=${d#*:}\n"
	"\t\t[ -n \"$d\" ] && ln -s /mnt/lava \"$d\"\n"
	"\tfi\n"
	"\techo \"fsbench-guest: $(uname -r) ready\"\n"
	"\texec setsid cttyhack sh\n"
	"fi\n"
	"set --\n"
	"while IFS= read -r a; do set -- \"$@\" \"$a\"; done </etc/fsbench/args\n"
	"echo " MARK_START " $(uname -r)\n"
	"if [ -b $dev ] && [ -b $out ]; then\n"
	"\t/bin/fsbench suite \"$@\" --device $dev --force --json /out/result.json "
	">/out/stdout 2>/out/stderr\n"
	"\trc=$?\n"
	"\tcat /out/stdout /out/stderr\n"
	"else\n"
	"\techo \"fsbench-guest: no $dev and $out: virtio_blk or null_blk did not come up\"\n"
	"\trc=125\n"
	"fi\n"
	"echo $rc >/out/status\n"
	"uname -r >/out/release\n"
	"cat /proc/cmdline >/out/cmdline\n"
	"tar -cf $out -C /out . && sync\n"
	"echo " MARK_EXIT " $rc\n"
	"poweroff -f\n";

/* FNV-1a, 64 bits: a cache key over every file's path, mode and bytes, not a signature. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

static int hash_file(uint64_t *h, const char *path)
{
	char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		*h = fnv(*h, buf, (size_t)n);
	if (n < 0) {
		int e = -errno;
		close(fd);
		return e;
	}
	close(fd);
	return 0;
}

static int write_text(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	size_t len = strlen(text);

	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len) {
		int e = errno ? -errno : -EIO;
		close(fd);
		return e;
	}
	if (fchmod(fd, mode) || close(fd))
		return -errno;
	return 0;
}

static int stage_ent(const char *stage, const struct ent *x, char *err, size_t errlen)
{
	char dest[PATH_MAX * 2], msg[256];
	int r;

	snprintf(dest, sizeof(dest), "%s%s", stage, x->dest);
	*strrchr(dest, '/') = 0;
	r = mkdir_p(dest, 0755);
	if (r)
		return errf(err, errlen, r, "mkdir %s: %s", dest, strerror(-r));
	snprintf(dest, sizeof(dest), "%s%s", stage, x->dest);
	if (x->text)
		r = write_text(dest, x->text, x->mode);
	else {
		const char *tool = !x->decompress	     ? "cat" :
				   ends_with(x->src, ".zst") ? "zstd" :
				   ends_with(x->src, ".xz")  ? "xz" :
							       "gzip";
		char *argv[] = { (char *)tool, x->decompress ? "-dc" : "--", x->src, NULL };

		r = run_tool(argv, dest, msg, sizeof(msg));
		if (r)
			return errf(err, errlen, r < 0 ? r : -EIO, "copying %s: %s: %s", x->src,
				    tool, r < 0 ? strerror(-r) : msg);
		r = chmod(dest, x->mode) ? -errno : 0;
	}
	if (r)
		return errf(err, errlen, r, "writing %s: %s", dest, strerror(-r));
	return 0;
}

static int collect(const struct kg_initramfs_opts *o, struct ents *e, char *err, size_t errlen)
{
	char prog[PATH_MAX], dest[PATH_MAX * 2], *mods[KG_MAX_MODULES], *list = NULL;
	const char *names[KG_MAX_MODULES];
	size_t nn = 0, listlen = 0;
	int r, nm;

	if (find_program("busybox", prog, sizeof(prog)))
		return errf(err, errlen, -ENOENT,
			    "busybox not found on the host (apt-get install busybox-static)");
	if ((r = ents_add(e, prog, "/bin/busybox", NULL, 0755)) ||
	    (r = add_libs(e, prog, err, errlen)))
		return r;
	/* ldd must see the file: through /proc/self/exe it would see its own shell */
	if (!realpath("/proc/self/exe", prog))
		return errf(err, errlen, -errno, "/proc/self/exe: %s", strerror(errno));
	if ((r = ents_add(e, prog, "/bin/fsbench", NULL, 0755)) ||
	    (r = add_libs(e, prog, err, errlen)))
		return r;
	for (const char *const *fs = o->fstypes; *fs; fs++) {
		const struct fs_traits *ft = fs_traits_find(*fs);
		char *mkfs[PROBE_SCRATCH_ARGV_MAX];
		const char *tool;

		/* the program the guest's suite will run: scratch.c's own mkfs command line */
		r = probe_scratch_mkfs_argv(*fs, "/dev/vda", NULL, mkfs, PROBE_SCRATCH_ARGV_MAX);
		if (r)
			return errf(err, errlen, r, "mkfs for %s: %s", *fs, strerror(-r));
		tool = strrchr(mkfs[0], '/') ? strrchr(mkfs[0], '/') + 1 : mkfs[0];
		fsb_path(dest, sizeof(dest), "/sbin/%s", tool);
		r = find_program(tool, prog, sizeof(prog)) ?
			    errf(err, errlen, -ENOENT,
				 "%s not found on the host: the guest needs it for the suite's %s",
				 tool, *fs) :
			    0;
		for (int i = 0; mkfs[i]; i++)
			free(mkfs[i]);
		if (r || (r = ents_add(e, prog, dest, NULL, 0755)) ||
		    (r = add_libs(e, prog, err, errlen)))
			return r;
		if (ft && ft->mkfs_config && access(ft->mkfs_config, R_OK) == 0 &&
		    (r = ents_add(e, ft->mkfs_config, ft->mkfs_config, NULL, 0644)))
			return r;
		if (ft && ft->kmod && nn < KG_MAX_MODULES - 8) {
			/* the checksum driver is asked for by name at mount, not through modules.dep */
			names[nn++] = "?crc32c_generic";
			names[nn++] = ft->kmod;
		}
	}
	if (o->lava) { /* LAVA's qemu guest disk holds its test shell: IDE, ext2 */
		names[nn++] = "?ata_piix";
		names[nn++] = "?sd_mod";
		names[nn++] = "?ext4";
	}
	names[nn++] = "virtio_pci";
	names[nn++] = "virtio_blk";
	/* the model disk (disk.h); /init loads it only when the command line asks for it */
	names[nn++] = "?null_blk";
	nm = kg_modules_resolve(o->kernel->moddir, names, nn, mods, KG_MAX_MODULES, err, errlen);
	if (nm < 0)
		return nm;
	r = 0;
	for (int i = 0; i < nm; i++) {
		char src[PATH_MAX * 2];
		size_t l = strlen(mods[i]);
		char *nl;

		snprintf(src, sizeof(src), "%s/%s", o->kernel->moddir, mods[i]);
		snprintf(dest, sizeof(dest), "/lib/modules/%s/%s", o->kernel->release, mods[i]);
		if (!r && (r = ents_add(e, src, dest, NULL, 0644)))
			errf(err, errlen, r, "module %s: %s", src, strerror(-r));
		if (!r && (nl = realloc(list, listlen + l + 2))) {
			list = nl;
			/* the staged name: decompressed, as /init loads it */
			memcpy(list + listlen, mods[i], l);
			listlen += l;
			for (const char *z = ".xz\0.zst\0.gz\0"; *z; z += strlen(z) + 1)
				if (ends_with(mods[i], z)) {
					listlen -= strlen(z);
					break;
				}
			list[listlen++] = '\n';
			list[listlen] = 0;
		} else if (!r)
			r = -ENOMEM;
		free(mods[i]);
	}
	if (!r)
		r = ents_add(e, NULL, "/etc/fsbench/modules", list ? list : "", 0644);
	free(list);
	if (r)
		return r;
	{
		char *args = NULL;
		size_t al = 0;
		const char *sb = strrchr(o->suite, '/') ? strrchr(o->suite, '/') + 1 : o->suite;
		FILE *m = open_memstream(&args, &al);

		if (!m)
			return -ENOMEM;
		/* the suite under its own name: the result names the suite after its file */
		fsb_path(dest, sizeof(dest), "/etc/fsbench/%s%s", sb,
			 ends_with(sb, ".json") ? "" : ".json");
		fprintf(m, "%s\n", dest);
		for (const char *const *a = o->suite_args; a && *a; a++)
			fprintf(m, "%s\n", *a);
		fclose(m);
		r = ents_add(e, NULL, "/etc/fsbench/args", args, 0644);
		free(args);
		if (r)
			return r;
	}
	if (access(o->suite, R_OK))
		return errf(err, errlen, -errno, "suite %s: %s", o->suite, strerror(errno));
	if ((r = ents_add(e, o->suite, dest, NULL, 0644)) ||
	    (r = ents_add(e, NULL, "/init", guest_init, 0755)))
		return r;
	return 0;
}

int kg_initramfs_build(const struct kg_initramfs_opts *o, char *ret_path, size_t len,
		       bool *ret_cached, char *err, size_t errlen)
{
	static const char *const dirs[] = { "/proc",	"/sys",	     "/dev", "/run",
					    "/tmp",	"/var/tmp",  "/out", "/sbin",
					    "/usr/bin", "/usr/sbin", "/mnt", NULL };
	char base[PATH_MAX], stage[PATH_MAX], tmp[PATH_MAX + 16], final[PATH_MAX + 64], msg[512];
	struct ents e = { 0 };
	uint64_t h = 0xcbf29ce484222325ULL;
	int r;

	*ret_cached = false;
	r = collect(o, &e, err, errlen);
	if (r) {
		if (!err[0])
			errf(err, errlen, r, "collecting the initramfs: %s", strerror(-r));
		goto out;
	}
	h = fnv(h, guest_init, sizeof(guest_init)); /* the layout's version, in effect */
	for (size_t i = 0; i < e.n; i++) {
		h = fnv(h, e.v[i].dest, strlen(e.v[i].dest) + 1);
		h = fnv(h, &e.v[i].mode, sizeof(e.v[i].mode));
		if (e.v[i].text)
			h = fnv(h, e.v[i].text, strlen(e.v[i].text));
		else if ((r = hash_file(&h, e.v[i].src))) {
			errf(err, errlen, r, "reading %s: %s", e.v[i].src, strerror(-r));
			goto out;
		}
	}
	snprintf(base, sizeof(base), "%s/initramfs", o->cachedir);
	if ((r = mkdir_p(base, 0755))) {
		errf(err, errlen, r, "creating %s: %s", base, strerror(-r));
		goto out;
	}
	snprintf(final, sizeof(final), "%s/%016llx.cpio", base, (unsigned long long)h);
	snprintf(ret_path, len, "%s", final);
	if (access(final, R_OK) == 0) {
		*ret_cached = true;
		goto out;
	}
	fsb_path(stage, sizeof(stage), "%s/.stage.XXXXXX", base);
	if (!mkdtemp(stage)) {
		r = errf(err, errlen, -errno, "creating a directory in %s: %s", base,
			 strerror(errno));
		goto out;
	}
	for (size_t i = 0; !r && i < e.n; i++)
		r = stage_ent(stage, &e.v[i], err, errlen);
	for (size_t i = 0; !r && dirs[i]; i++) {
		snprintf(tmp, sizeof(tmp), "%s%s", stage, dirs[i]);
		if ((r = mkdir_p(tmp, 0755)))
			errf(err, errlen, r, "mkdir %s: %s", tmp, strerror(-r));
	}
	/* the kernel opens /dev/console before /init runs; without root /init reopens it */
	snprintf(tmp, sizeof(tmp), "%s/dev/console", stage);
	if (!r && mknod(tmp, S_IFCHR | 0600, makedev(5, 1)) && errno != EPERM)
		r = errf(err, errlen, -errno, "mknod %s: %s", tmp, strerror(errno));
	if (!r) {
		fsb_path(tmp, sizeof(tmp), "%s.tmp.%d", final, (int)getpid());
		char *argv[] = { "sh",
				 "-c",
				 "cd \"$1\" && find . | LC_ALL=C sort | "
				 "cpio --quiet -o -H newc --reproducible -R 0:0 >\"$2\"",
				 "sh",
				 stage,
				 tmp,
				 NULL };
		r = run_tool(argv, NULL, msg, sizeof(msg));
		if (r)
			r = errf(err, errlen, r < 0 ? r : -EIO, "cpio of %s into %s: %s", stage,
				 tmp, r < 0 ? strerror(-r) : msg);
		else if (rename(tmp, final))
			r = errf(err, errlen, -errno, "rename %s: %s", final, strerror(errno));
		if (r)
			unlink(tmp);
	}
	fsb_rm_tree(stage);
out:
	ents_free(&e);
	return r;
}

void kg_vm_defaults(struct kg_vm *vm)
{
	memset(vm, 0, sizeof(*vm));
	vm->qemu = "qemu-system-x86_64";
	vm->accel = "tcg";
	vm->icount = "shift=0,sleep=on";
	vm->cpu = "qemu64";
	vm->cpus = 1;
	vm->memory_mib = 1024;
	vm->disk_bytes = 2LL << 30;
	vm->disk = (struct kg_disk){ .kind = KG_DISK_VIRTIO,
				     .bytes = vm->disk_bytes,
				     .latency_ns = KG_DISK_LATENCY_NS,
				     .queue_depth = KG_DISK_QUEUE_DEPTH };
	vm->disk_dir = "/dev/shm";
	vm->boot_timeout_s = 180;
	vm->timeout_s = 1800;
}

void kg_cmdline(const struct kg_kernel *k, char *out, size_t len)
{
	/*
	 * tsc=reliable: with one vCPU under TCG the guest would otherwise fall back to the
	 * emulated HPET for time, 7x slower. panic=-1 with -no-reboot turns a panic into
	 * QEMU's exit; oops=panic makes an oops one too, so a broken kernel never hangs.
	 */
	snprintf(out, len, "console=ttyS0 quiet tsc=reliable panic=-1 oops=panic rdinit=/init%s%s",
		 k->append[0] ? " " : "", k->append);
}

/* The last @n lines of @path, each indented, for an error message. */
static void console_tail(const char *path, int n, char *out, size_t len)
{
	size_t flen;
	char *buf = read_all(path, &flen);
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

/* CPU jiffies of the whole host: busy (not idle or iowait) and total. */
static void host_cpu(unsigned long long *busy, unsigned long long *total)
{
	unsigned long long v[10] = { 0 };
	FILE *f = fopen("/proc/stat", "re");

	*busy = *total = 0;
	if (!f)
		return;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		   &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) >= 4) {
		for (int i = 0; i < 8; i++) /* guest time is already in user */
			*total += v[i];
		*busy = *total - v[3] - v[4];
	}
	fclose(f);
}

/* utime + stime of @pid in jiffies; 0 when gone. */
static unsigned long long proc_cpu(pid_t pid)
{
	char path[64], buf[1024];
	unsigned long long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f)) {
		char *p = strrchr(buf, ')');
		/* after "pid (comm)": state is field 3, utime 14, stime 15 */
		if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
				&st) != 2)
			ut = st = 0;
	}
	fclose(f);
	return ut + st;
}

static bool file_has(const char *path, const char *needle, off_t *pos)
{
	char buf[65536 + 64];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	bool found = false;

	if (fd < 0)
		return false;
	/* scan what is new since @pos, with an overlap for a marker cut in two */
	off_t from = *pos > 64 ? *pos - 64 : 0;
	while ((n = pread(fd, buf, sizeof(buf) - 1, from)) > 0) {
		buf[n] = 0;
		for (ssize_t i = 0; i < n; i++) /* NULs from the console would stop strstr */
			if (!buf[i])
				buf[i] = ' ';
		if (memmem(buf, (size_t)n, needle, strlen(needle))) {
			found = true;
			break;
		}
		if (n < (ssize_t)sizeof(buf) - 1)
			break;
		from += n - 64;
	}
	close(fd);
	return found;
}

/* A new sparse file of @bytes; 0 or -errno. */
static int sparse_file(const char *path, long long bytes)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600), r = 0;

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, bytes))
		r = -errno;
	close(fd);
	if (r)
		unlink(path);
	return r;
}

int kg_boot_run(const struct kg_kernel *k, const char *initramfs, const struct kg_vm *vm,
		const char *dir, struct kg_boot *b, char *err, size_t errlen)
{
	char scratchdir[PATH_MAX], scratch[PATH_MAX + 16], results[PATH_MAX + 16],
		qlog[PATH_MAX + 16], cmdline[2048], drive0[PATH_MAX + 96], drive1[PATH_MAX + 64],
		mem[32], smp[16], tail[4096], guest[PATH_MAX + 16], msg[512], serial[PATH_MAX + 16],
		status[32];
	unsigned long long busy0, total0, busy1, total1, qcpu = 0;
	bool started = false, panicked = false, timed_out = false, noboot = false;
	off_t seen_start = 0, seen_panic = 0;
	double t0, deadline_boot, deadline;
	int r = 0, wst = 0;
	pid_t pid;

	memset(b, 0, sizeof(*b));
	b->guest_status = -1;
	if ((r = mkdir_p(dir, 0755)))
		return errf(err, errlen, r, "creating %s: %s", dir, strerror(-r));
	snprintf(b->console, sizeof(b->console), "%s/console.log", dir);
	snprintf(serial, sizeof(serial), "file:%s", b->console);
	snprintf(results, sizeof(results), "%s/results.img", dir);
	snprintf(qlog, sizeof(qlog), "%s/qemu.log", dir);
	snprintf(scratchdir, sizeof(scratchdir), "%s/fsbench-kgate.XXXXXX", vm->disk_dir);
	if (!mkdtemp(scratchdir))
		return errf(err, errlen, -errno, "creating the scratch disk's directory in %s: %s",
			    vm->disk_dir, strerror(errno));
	snprintf(scratch, sizeof(scratch), "%s/scratch.img", scratchdir);
	/* a fresh sparse disk per boot: nothing carries over from the last kernel's run */
	if (vm->disk.kind == KG_DISK_VIRTIO && (r = sparse_file(scratch, vm->disk_bytes))) {
		errf(err, errlen, r, "creating the scratch disk %s: %s", scratch, strerror(-r));
		goto out;
	}
	unlink(results);
	if ((r = sparse_file(results, RESULTS_DISK_BYTES))) {
		errf(err, errlen, r, "creating the results disk %s: %s", results, strerror(-r));
		goto out;
	}
	unlink(b->console);
	kg_cmdline(k, cmdline, sizeof(cmdline));
	if (vm->disk.kind == KG_DISK_MODEL) {
		size_t l = strlen(cmdline);

		cmdline[l++] = ' ';
		kg_disk_cmdline(&vm->disk, cmdline + l, sizeof(cmdline) - l);
	}
	snprintf(drive0, sizeof(drive0), "file=%s,if=virtio,format=raw,cache=none,aio=native",
		 scratch);
	snprintf(drive1, sizeof(drive1), "file=%s,if=virtio,format=raw", results);
	snprintf(mem, sizeof(mem), "%d", kg_disk_memory_mib(&vm->disk, vm->memory_mib));
	snprintf(smp, sizeof(smp), "%d", vm->cpus);

	const char *argv[48];
	int n = 0;
	argv[n++] = vm->qemu;
	argv[n++] = "-nodefaults";
	argv[n++] = "-no-user-config";
	argv[n++] = "-display";
	argv[n++] = "none";
	argv[n++] = "-no-reboot";
	argv[n++] = "-accel";
	argv[n++] = vm->accel;
	if (vm->icount && vm->icount[0] && !strcmp(vm->accel, "tcg")) {
		argv[n++] = "-icount";
		argv[n++] = vm->icount;
	}
	argv[n++] = "-cpu";
	argv[n++] = vm->cpu;
	argv[n++] = "-smp";
	argv[n++] = smp;
	argv[n++] = "-m";
	argv[n++] = mem;
	argv[n++] = "-kernel";
	argv[n++] = k->image;
	argv[n++] = "-initrd";
	argv[n++] = initramfs;
	argv[n++] = "-append";
	argv[n++] = cmdline;
	argv[n++] = "-serial";
	argv[n++] = serial;
	if (vm->disk.kind == KG_DISK_VIRTIO) {
		argv[n++] = "-drive";
		argv[n++] = drive0;
	}
	argv[n++] = "-drive";
	argv[n++] = drive1;
	argv[n] = NULL;

	host_cpu(&busy0, &total0);
	t0 = now_s();
	deadline_boot = t0 + vm->boot_timeout_s;
	deadline = t0 + vm->timeout_s;
	pid = fork();
	if (pid < 0) {
		r = errf(err, errlen, -errno, "fork for %s: %s", vm->qemu, strerror(errno));
		goto out;
	}
	if (pid == 0) {
		int lf = open(qlog, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (lf < 0 || dup2(lf, 1) < 0 || dup2(lf, 2) < 0)
			_exit(127);
		execvp(argv[0], (char *const *)argv);
		dprintf(2, "%s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	for (;;) {
		pid_t w = waitpid(pid, &wst, WNOHANG);
		double t = now_s();

		if (w == pid)
			break;
		unsigned long long c = proc_cpu(pid);
		if (c > qcpu)
			qcpu = c;
		if (!started && file_has(b->console, MARK_START, &seen_start)) {
			started = true;
			b->boot_seconds = t - t0;
		}
		if (!panicked && file_has(b->console, MARK_PANIC, &seen_panic)) {
			panicked = true;
			deadline =
				t + 5; /* panic=-1 and -no-reboot make QEMU exit; if not, stop it */
		}
		if (kg_interrupted) {
			kill(pid, SIGKILL);
			waitpid(pid, &wst, 0);
			r = errf(err, errlen, -EINTR,
				 "kernel %s: stopped by signal %d after %.0f s", k->release,
				 (int)kg_interrupted, t - t0);
			goto out;
		}
		if (panicked ? t > deadline : (!started && t > deadline_boot) || t > deadline) {
			noboot = !started && !panicked;
			timed_out = !panicked;
			kill(pid, SIGKILL);
			waitpid(pid, &wst, 0);
			break;
		}
		poll(NULL, 0, 200);
	}
	b->seconds = now_s() - t0;
	host_cpu(&busy1, &total1);
	if (total1 > total0) {
		double others = (double)(busy1 - busy0) - (double)qcpu;
		b->host_load_pct = others > 0 ? 100.0 * others / (double)(total1 - total0) : 0;
	}
	{
		double l[1];
		if (getloadavg(l, 1) == 1)
			b->loadavg1 = l[0];
	}
	if (!started && file_has(b->console, MARK_START, &seen_start)) {
		started = true;
		b->boot_seconds = b->seconds;
	}
	if (!panicked && file_has(b->console, MARK_PANIC, &seen_panic))
		panicked = true;

	/* whatever happened, the guest may have left its results on the second disk */
	snprintf(guest, sizeof(guest), "%s/guest", dir);
	mkdir_p(guest, 0755);
	{
		char *x[] = { "tar", "-xf", results, "-C", guest, NULL };
		if (run_tool(x, NULL, msg, sizeof(msg)) == 0) {
			fsb_path(tail, sizeof(tail), "%s/status", guest);
			if (fsb_read_line(tail, status, sizeof(status)))
				status[0] = 0;
			if (status[0] && isdigit((unsigned char)status[0]))
				b->guest_status = atoi(status);
			fsb_path(tail, sizeof(tail), "%s/release", guest);
			if (fsb_read_line(tail, b->guest_release, sizeof(b->guest_release)))
				b->guest_release[0] = 0;
			fsb_path(tail, sizeof(tail), "%s/cmdline", guest);
			if (fsb_read_line(tail, b->guest_cmdline, sizeof(b->guest_cmdline)))
				b->guest_cmdline[0] = 0;
			fsb_path(b->result, sizeof(b->result), "%s/result.json", guest);
			if (access(b->result, R_OK))
				b->result[0] = 0;
		}
	}
	unlink(results);
	if (b->guest_status >= 0 && !panicked)
		goto out;
	console_tail(b->console, TAIL_LINES, tail, sizeof(tail));
	if (panicked) {
		char why[256] = "";
		char *con = read_all(b->console, NULL), *p = con ? strstr(con, MARK_PANIC) : NULL;

		if (p) /* the panic's own line says why; the tail may be its stack trace */
			snprintf(why, sizeof(why), ": %.*s", (int)strcspn(p, "\r\n"), p);
		free(con);
		r = errf(err, errlen, -EIO,
			 "kernel %s panicked after %.0f s%s; last console lines:%s", k->release,
			 b->seconds, why, tail);
	} else if (noboot)
		r = errf(err, errlen, -ETIMEDOUT,
			 "kernel %s did not boot: no word from the guest's init within %d s; last "
			 "console lines:%s",
			 k->release, vm->boot_timeout_s, tail);
	else if (timed_out)
		r = errf(err, errlen, -ETIMEDOUT,
			 "kernel %s: the guest did not finish within %d s; last console lines:%s",
			 k->release, vm->timeout_s, tail);
	else if (WIFEXITED(wst) && WEXITSTATUS(wst) != 0) {
		if (fsb_read_line(qlog, msg, sizeof(msg)))
			msg[0] = 0;
		r = errf(err, errlen, -ENOEXEC, "%s exited with status %d: %s%s", vm->qemu,
			 WEXITSTATUS(wst), msg[0] ? msg : "(no message)", started ? tail : "");
	} else
		r = errf(err, errlen, -EIO,
			 "kernel %s: the guest stopped after %.0f s without a result; last console "
			 "lines:%s",
			 k->release, b->seconds, tail);
out:
	fsb_rm_tree(scratchdir);
	return r;
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

void kg_cachedir(char *out, size_t len)
{
	const char *d = getenv("FSBENCH_CACHE_DIR"), *x = getenv("XDG_CACHE_HOME"),
		   *h = getenv("HOME");

	if (d && d[0])
		snprintf(out, len, "%s", d);
	else if (x && x[0])
		snprintf(out, len, "%s/fsbench", x);
	else
		snprintf(out, len, "%s/.cache/fsbench", h && h[0] ? h : "/var/cache");
}
