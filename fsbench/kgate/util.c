/* Helpers the kernel gate's files share: paths, whole files, the tools it runs, the kernel command line. */
#include "fsbench/kgate/util.h"
#include "fsbench/core/clock.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <sys/random.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/dirfd.h"
#include "base/errf.h"
#include "base/escape.h"
#include "base/fileio.h"
#include "base/spawn.h"
#include <unistd.h>

uint64_t kg_fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

int kg_hash_fd(uint64_t *h, int fd)
{
	char buf[65536];
	ssize_t n;
	off_t off = 0;

	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		*h = kg_fnv(*h, buf, (size_t)n);
		off += n;
	}
	return n < 0 ? -errno : 0;
}

int kg_hash_file(uint64_t *h, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = kg_hash_fd(h, fd);
	close(fd);
	return r;
}

bool kg_release_ok(const char *rel)
{
	size_t n = strlen(rel);

	return n && n < 128 && rel[0] != '.' &&
	       strspn(rel, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-~") ==
		       n;
}

bool kg_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

int kg_cmdline(const struct kg_kernel *k, char *out, size_t len)
{
	/*
	 * tsc=reliable: with one vCPU under TCG the guest would otherwise fall back to the
	 * emulated HPET for time, 7x slower. panic=-1 with -no-reboot turns a panic into
	 * QEMU's exit; oops=panic makes an oops one too, so a broken kernel never hangs.
	 * cryptomgr.notests: the crypto self-tests at boot were half of Debian 6.1's 1.70 s of
	 * guest time to /init (0.82 s without) and 9 % of QEMU's CPU time; they test algorithms,
	 * they change none, and the suite's paths run the same.
	 */
	return snprintf(out, len, KG_CMDLINE_BASE "%s%s", k->append[0] ? " " : "", k->append);
}

void kg_cmdline_seed(char *cmdline, size_t len)
{
	unsigned char b[16] = { 0 };
	size_t l = strlen(cmdline);

	/* getrandom of 16 bytes does not fail short; should it, the time still differs */
	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
		uint64_t t = fsb_now_ns();

		memcpy(b, &t, sizeof(t));
	}
	snprintf(cmdline + l, len - l,
		 " " KG_SEED_PARAM
		 "%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
		 b[13], b[14], b[15]);
}

void kg_cmdline_unseed(char *cmdline)
{
	char *p = strstr(cmdline, " " KG_SEED_PARAM);

	if (p) {
		char *end = p + 1 + strcspn(p + 1, " ");

		memmove(p, end, strlen(end) + 1);
	}
}

double kg_now_s(void)
{
	return (double)fsb_now_ns() / 1e9;
}

int kg_mkdir_p(const char *path, mode_t mode)
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

int kg_tool(char *const argv[], const char *out, char *msg, size_t msglen)
{
	return base_spawn_tool(argv, out, BASE_SPAWN_LAST, msg, msglen);
}

bool kg_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char *kg_read_all(const char *path, size_t *ret_len)
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

int kg_dir_fresh_at(int dfd, const char *name, const char *shown, char *err, size_t errlen)
{
	char why[512];
	struct stat st;
	int r;

	if (!fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
			return errf(err, errlen, -EEXIST, "%s exists and is %s: refusing to use it",
				    shown,
				    S_ISLNK(st.st_mode)	 ? "a symlink" :
				    !S_ISDIR(st.st_mode) ? "not a directory" :
							   "another user's");
		/* an earlier run's: its results must not pass for this boot's */
		if ((r = base_rm_at(dfd, name)))
			return errf(err, errlen, r, "removing the earlier %s: %s", shown,
				    strerror(-r));
	}
	if ((r = base_dir_make(dfd, name, 0755, why, sizeof(why))) < 0)
		return errf(err, errlen, r, "creating %s: %s", shown, why);
	return r;
}

int kg_fd_path(char *buf, size_t len, int dfd, const char *rel)
{
	return base_path(buf, len, "/proc/self/fd/%d/%s", dfd, rel);
}

void kg_err_shown(char *err, size_t errlen, const char *at, const char *shown)
{
	char *p = at[0] ? strstr(err, at) : NULL, rest[4096];

	if (!p)
		return;
	snprintf(rest, sizeof(rest), "%s", p + strlen(at));
	snprintf(p, errlen - (size_t)(p - err), "%s%s", shown, rest);
}

/* Why @st is not this user's alone, or NULL when it is (base_untrusted). */
static const char *untrusted(const struct stat *st, bool ancestor)
{
	return base_untrusted(st, ancestor, geteuid());
}

/*
 * The cache directory @path held: opened by the trusted walk, or, when absent, made
 * beneath its parent held the same way (a sticky parent such as /tmp allowed: fsbench
 * makes its own private directory there). -errno with @err.
 */
static int cache_root(const char *path, bool shared, int depth, char *err, size_t errlen)
{
	char parent[PATH_MAX], why[256];
	int fd, pfd;

	fd = base_dir_open_trusted(path, geteuid(), shared, err, errlen);
	if (fd != -ENOENT || depth > 16)
		return fd;
	base_strcpy(parent, sizeof(parent), path);
	char *slash = strrchr(parent, '/');
	if (!slash || !slash[1])
		return fd;
	const char *name = path + (slash - parent) + 1;
	slash[slash == parent] = 0; /* "/x": its parent is "/" */
	if ((pfd = cache_root(parent, true, depth + 1, err, errlen)) < 0)
		return pfd;
	fd = base_dir_make(pfd, name, 0755, why, sizeof(why));
	close(pfd);
	if (fd == -EEXIST) /* another run made it first: judged by the walk */
		return base_dir_open_trusted(path, geteuid(), shared, err, errlen);
	if (fd < 0)
		return errf(err, errlen, fd, "creating %s: %s", path, why);
	return fd;
}

int kg_cache_open(const char *cachedir, const char *sub, char *err, size_t errlen)
{
	static struct {
		char dir[PATH_MAX];
		char sub[32];
		int fd;
	} held[8];
	static size_t nheld;
	char why[PATH_MAX + 256];
	int root, fd;

	for (size_t i = 0; i < nheld; i++)
		if (!strcmp(held[i].dir, cachedir) && !strcmp(held[i].sub, sub))
			return held[i].fd;
	if (nheld == sizeof(held) / sizeof(held[0]))
		return errf(err, errlen, -EMFILE, "%s/%s: too many caches", cachedir, sub);
	if ((root = cache_root(cachedir, false, 0, why, sizeof(why))) < 0)
		return errf(err, errlen, root, "%s the cache %s",
			    root == -EPERM ? "refusing" : "opening", why);
	fd = base_dir_make(root, sub, 0755, why, sizeof(why));
	if (fd == -EEXIST) { /* made by an earlier run: judged as restore judges the cache */
		struct stat st;
		const char *bad = NULL;

		fd = openat(root, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 && fstat(fd, &st)) {
			close(fd);
			fd = -1;
		}
		if (fd < 0) {
			fd = -errno;
			snprintf(why, sizeof(why), "%s", strerror(-fd));
		} else if ((bad = untrusted(&st, false))) {
			snprintf(why, sizeof(why), "%s (owner uid %u, mode %04o)", bad,
				 (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
			close(fd);
			fd = -EPERM;
		}
	}
	close(root);
	if (fd < 0)
		return errf(err, errlen, fd, "%s the cache %s/%s: %s",
			    fd == -EPERM ? "refusing" : "opening", cachedir, sub, why);
	base_strcpy(held[nheld].dir, sizeof(held[nheld].dir), cachedir);
	base_strcpy(held[nheld].sub, sizeof(held[nheld].sub), sub);
	held[nheld++].fd = fd;
	return fd;
}

int kg_trusted_at(int dfd, const char *name, mode_t type, const char *shown, char *err,
		  size_t errlen)
{
	struct stat st;
	const char *why;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errf(err, errlen, -errno, "%s: %s", shown, strerror(errno));
	why = untrusted(&st, false);
	if (!why && (st.st_mode & S_IFMT) != type)
		why = type == S_IFDIR ? "it is not a directory" : "it is not a regular file";
	if (why)
		return errf(err, errlen, -EPERM,
			    "refusing %s: %s (owner uid %u, mode %04o), so another user could "
			    "have put what fsbench would run as uid %u there",
			    shown, why, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777),
			    (unsigned)geteuid());
	return 0;
}

int kg_qemu_path_ok(const char *what, const char *path, char *err, size_t errlen)
{
	if (strchr(path, ','))
		return errf(err, errlen, -EINVAL,
			    "%s %s: a comma in the path would reach QEMU as an option separator",
			    what, path);
	return 0;
}

/* Names in byte order: the hash must not depend on readdir's order or the locale. */
static int name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int tree_hash_dir(int dfd, const char *rel, bool (*bytes)(const char *rel), uint64_t *h,
			 char *err, size_t errlen, int depth)
{
	struct dirent **list = NULL;
	int n, r = 0;

	if (depth > 64)
		return errf(err, errlen, -ELOOP, "%s: more than 64 directories deep", rel);
	if ((n = scandirat(dfd, ".", &list, NULL, name_cmp)) < 0)
		return errf(err, errlen, -errno, "reading %s: %s", rel, strerror(errno));
	for (int i = 0; i < n; i++) {
		const char *name = list[i]->d_name;
		char sub[PATH_MAX], target[PATH_MAX];
		struct stat st;
		uint64_t meta[3];
		int fd;
		ssize_t tn;

		if (r || !strcmp(name, ".") || !strcmp(name, "..") ||
		    (!depth && !strcmp(name, KG_SEAL)))
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, rel[0] ? "/" : "", name);
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
			r = errf(err, errlen, -errno, "%s: %s", sub, strerror(errno));
			continue;
		}
		meta[0] = st.st_mode;
		meta[1] = S_ISDIR(st.st_mode) ? 0 : (uint64_t)st.st_size;
		meta[2] = st.st_uid;
		*h = kg_fnv(kg_fnv(*h, sub, strlen(sub) + 1), meta, sizeof(meta));
		if (S_ISLNK(st.st_mode)) {
			if ((tn = readlinkat(dfd, name, target, sizeof(target))) < 0)
				r = errf(err, errlen, -errno, "%s: %s", sub, strerror(errno));
			else
				*h = kg_fnv(*h, target, (size_t)tn);
		} else if (S_ISDIR(st.st_mode) || (S_ISREG(st.st_mode) && bytes(sub))) {
			fd = openat(dfd, name,
				    O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
					    (S_ISDIR(st.st_mode) ? O_DIRECTORY : 0));
			if (fd < 0)
				r = errf(err, errlen, -errno, "opening %s: %s", sub,
					 strerror(errno));
			else if (S_ISDIR(st.st_mode))
				r = tree_hash_dir(fd, sub, bytes, h, err, errlen, depth + 1);
			else if ((r = kg_hash_fd(h, fd)))
				errf(err, errlen, r, "reading %s: %s", sub, strerror(-r));
			if (fd >= 0)
				close(fd);
		}
	}
	for (int i = 0; i < n; i++)
		free(list[i]);
	free(list);
	return r;
}

int kg_tree_hash(int dfd, bool (*bytes)(const char *rel), uint64_t *ret, char *err, size_t errlen)
{
	uint64_t h = KG_FNV_SEED;
	int r = tree_hash_dir(dfd, "", bytes, &h, err, errlen, 0);

	if (!r)
		*ret = h;
	return r;
}

int kg_seal_write(int dfd, const char *name, uint64_t h)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "fnv1a64 %016llx\n", (unsigned long long)h), r = 0;
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	if (write(fd, line, (size_t)n) != n)
		r = errno ? -errno : -EIO;
	else if (fsync(fd))
		r = -errno;
	if (close(fd) && !r)
		r = -errno;
	return r;
}

int kg_seal_check(int dfd, const char *name, uint64_t h, const char *shown, char *err,
		  size_t errlen)
{
	char want[64], line[64] = "";
	ssize_t n = -1;
	int fd, r;

	if ((r = kg_trusted_at(dfd, name, S_IFREG, shown, err, errlen)))
		return r;
	if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
		n = read(fd, line, sizeof(line) - 1);
		close(fd);
	}
	if (n < 0)
		return errf(err, errlen, -errno, "reading %s: %s", shown, strerror(errno));
	line[n] = 0;
	snprintf(want, sizeof(want), "fnv1a64 %016llx\n", (unsigned long long)h);
	if (strcmp(line, want)) {
		char esc[128];

		line[n < 24 ? n : 24] = 0; /* the seal's first bytes, as a log shows them */
		return errf(err, errlen, -EBADMSG,
			    "refusing the cache entry %s: what it holds is not what fsbench wrote "
			    "(content hash %016llx, recorded %s): remove it",
			    shown, (unsigned long long)h, base_escape_str(esc, sizeof(esc), line));
	}
	return 0;
}

int kg_file_hash(int dfd, const char *name, uint64_t *ret)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	*ret = KG_FNV_SEED;
	r = kg_hash_fd(ret, fd);
	close(fd);
	return r;
}

int kg_file_seal_check(int dfd, const char *name, const char *shown, char *err, size_t errlen)
{
	char seal[NAME_MAX + 16], sshown[PATH_MAX + 16];
	uint64_t h;
	int r;

	if ((r = kg_trusted_at(dfd, name, S_IFREG, shown, err, errlen)))
		return r;
	if ((r = kg_file_hash(dfd, name, &h)))
		return errf(err, errlen, r, "reading %s: %s", shown, strerror(-r));
	snprintf(seal, sizeof(seal), "%s%s", name, KG_SEAL);
	base_path(sshown, sizeof(sshown), "%s%s", shown, KG_SEAL);
	return kg_seal_check(dfd, seal, h, sshown, err, errlen);
}
