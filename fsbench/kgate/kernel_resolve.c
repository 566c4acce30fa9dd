/* The kernel under test and its modules: a .deb, a bzImage with its modules, or an installed release. */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "base/dirfd.h"
#include "base/errf.h"
#include "base/escape.h"
#include "base/fileio.h"
#include "base/spawn.h"
#include "fsbench/kgate/kgate.h"
#include "probes/scratch/scratch.h"
#include "fsbench/kgate/user.h"
#include "fsbench/kgate/util.h"

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
	/* the image's own bytes, soon a path (lib/modules/RELEASE): held to a .deb's rules */
	snprintf(out, len, "%s", ver);
	return kg_release_ok(ver) && strlen(ver) < len ? 0 : -EBADMSG;
}

/*
 * The one boot/vmlinuz-* of an extracted package, and its release: a plain name, since it
 * becomes a path (lib/modules/RELEASE) and a depmod argument. 0 or -EINVAL.
 */
static int deb_image(const char *root, char *image, size_t len, char *release, size_t rlen)
{
	char pat[PATH_MAX + 32];
	const char *rel;
	glob_t g;
	int r = -EINVAL;

	snprintf(pat, sizeof(pat), "%s/boot/vmlinuz-*", root);
	if (glob(pat, 0, NULL, &g) == 0 && g.gl_pathc == 1) {
		rel = strrchr(g.gl_pathv[0], '/') + strlen("/vmlinuz-");
		if (kg_release_ok(rel) && strlen(rel) < rlen) {
			base_strcpy(image, len, g.gl_pathv[0]);
			base_strcpy(release, rlen, rel);
			r = 0;
		}
	}
	globfree(&g); /* also when glob found none, or two */
	return r;
}

/*
 * depmod -b writes into ROOT/lib/modules/RELEASE as root: a package whose ./lib, ./usr/lib
 * or modules directory is a symlink (or whose modules.* files are) would have it write
 * wherever the link points. Every directory on the way must be a real one. 0 or -ELOOP.
 */
static int deb_no_links(const char *root, const char *release, char *err, size_t errlen)
{
	static const char *const dirs[] = {
		"boot", "lib",	   "lib/modules",     "lib/modules/%s",
		"usr",	"usr/lib", "usr/lib/modules", "usr/lib/modules/%s",
		NULL
	};
	char path[PATH_MAX + 256], rel[256];
	struct stat st;

	for (int i = 0; dirs[i]; i++) {
		snprintf(rel, sizeof(rel), dirs[i], release);
		snprintf(path, sizeof(path), "%s/%s", root, rel);
		if (lstat(path, &st))
			continue;
		if (!S_ISDIR(st.st_mode))
			return errf(err, errlen, -ELOOP,
				    "./%s in the package is %s, not a directory", rel,
				    S_ISLNK(st.st_mode) ? "a symlink" : "a file");
	}
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%slib/modules/%s", root, i ? "usr/" : "", release);
		DIR *d = opendir(path);
		struct dirent *de;

		while (d && (de = readdir(d)))
			if (!strncmp(de->d_name, "modules.", 8) && de->d_type == DT_LNK) {
				closedir(d);
				return errf(err, errlen, -ELOOP,
					    "%s/%s in the package is a symlink, which depmod "
					    "would write through",
					    path, de->d_name);
			}
		if (d)
			closedir(d);
	}
	return 0;
}

/*
 * Removes the .extract.PID.* directories of runs that died mid-extraction (SIGTERM, kill -9):
 * by descriptor, since the unprivileged user that extracted one may still hold it.
 */
static void deb_sweep(int bfd)
{
	int fd = openat(bfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;

	if (fd >= 0 && !d)
		close(fd);
	while (d && (de = readdir(d))) {
		long pid;
		char *end;

		if (strncmp(de->d_name, ".extract.", 9))
			continue;
		pid = strtol(de->d_name + 9, &end, 10);
		if (*end != '.' || pid <= 0 || (kill((pid_t)pid, 0) == 0 || errno == EPERM))
			continue; /* not one of ours, or its run is alive */
		base_rm_at(bfd, de->d_name);
	}
	if (d)
		closedir(d);
}

/* What the extraction step gets: the package by descriptor, its name, the kernel found. */
struct deb_step {
	int fd;
	const char *deb, *base;
	struct kg_kernel *k;
};

/*
 * The extraction, as the guest side's user when fsbench is root (kg_user_run): dpkg-deb -x
 * of the package (read from the descriptor root opened) into @dir, checked, depmod run on it.
 */
static int deb_step(int dfd, const char *dir, void *arg, char *err, size_t errlen)
{
	struct deb_step *a = arg;
	char msg[512], lib[PATH_MAX + 16], why[512];
	char *x[] = { "dpkg-deb", "-x", "-", (char *)dir, NULL };
	struct kg_kernel *k = a->k;
	struct statvfs v;
	int r;

	/* the first line: tar's reason (No space left on device) comes before dpkg-deb's */
	r = base_spawn_tool_fd(x, a->fd, -1, BASE_SPAWN_FIRST, msg, sizeof(msg));
	/* tar says "Wrote only 512 of 6305 bytes" on a full disk: say what that means */
	if (r && !fstatvfs(dfd, &v) &&
	    (long long)v.f_bavail * (long long)v.f_frsize < KG_FULL_BYTES)
		return errf(err, errlen, -ENOSPC,
			    "kernel %s: extracting into %s: %s (%lld KiB free; dpkg-deb: %s)",
			    a->deb, a->base, strerror(ENOSPC),
			    (long long)v.f_bavail * (long long)v.f_frsize >> 10, msg);
	if (r)
		return errf(err, errlen, -EINVAL, "kernel %s: not a usable .deb: dpkg-deb: %s",
			    a->deb, r < 0 ? strerror(-r) : msg);
	if (deb_image(dir, k->image, sizeof(k->image), k->release, sizeof(k->release)))
		return errf(err, errlen, -EINVAL,
			    "kernel %s: not a linux-image package (no single boot/vmlinuz-RELEASE "
			    "with a plain release name)",
			    a->deb);
	if ((r = deb_no_links(dir, k->release, why, sizeof(why))))
		return errf(err, errlen, -EINVAL, "kernel %s: refused: %s", a->deb, why);
	/* newer packages ship usr/lib/modules; depmod -b looks in lib/modules */
	base_path(lib, sizeof(lib), "%s/usr/lib/modules", dir);
	if (kg_is_dir(lib)) {
		base_path(lib, sizeof(lib), "%s/lib", dir);
		if (!kg_is_dir(lib) && symlink("usr/lib", lib))
			return errf(err, errlen, -errno, "symlink %s: %s", lib, strerror(errno));
	}
	/*
	 * depmod makes a relative base absolute by the working directory's path, which the
	 * user may not traverse (the cache under /root, the root-only directory above this
	 * one): /proc/self/cwd leads to the same directory without that path.
	 */
	char *d[] = { "depmod", "-b", strcmp(dir, ".") ? (char *)dir : "/proc/self/cwd", k->release,
		      NULL };
	r = kg_tool(d, NULL, msg, sizeof(msg));
	if (r)
		return errf(err, errlen, -EINVAL, "kernel %s: depmod %s: %s", a->deb, k->release,
			    r < 0 ? strerror(-r) : msg);
	base_path(lib, sizeof(lib), "%s/lib/modules/%s/modules.dep", dir, k->release);
	if (access(lib, R_OK))
		return errf(err, errlen, -EINVAL, "kernel %s: depmod %s wrote no %s: %s", a->deb,
			    k->release, lib, strerror(errno));
	return 0;
}

/*
 * What an extracted package may hold once it streams back to root: a tree, relative links
 * inside. A Debian kernel's is ~5000 entries and ~400 MiB; the bounds leave room for a
 * debug-heavy build and stop a tree made to fill root's disk.
 */
static const struct kg_user_rules deb_rules = { .subdirs = true,
						.links = true,
						.max_entries = 200000,
						.max_total_bytes = 8LL << 30 };

/*
 * What of a kernel tree the seal hashes the bytes of: the image and the modules.* indexes
 * (modules.dep names what the initramfs copies). Every entry's name, mode and size is
 * hashed, but not the ~400 MiB of .ko files: read again on every use, they took 9.5 s on
 * this host (cold) where the gate's other start-up is well under a second. A module changed
 * in place at its size is the one change the seal misses; root's entry is made of root's
 * own fresh files, which no step holds open, so that takes a writer that is root already.
 */
static bool deb_seal_bytes(const char *rel)
{
	const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;

	return !strncmp(rel, "boot/", 5) || !strncmp(base, "modules.", 8);
}

/* The seal of the entry @fname beneath @bfd (shown as @shown) is what it holds. */
static int deb_seal_check(int bfd, const char *fname, const char *shown, char *err, size_t errlen)
{
	char seal[PATH_MAX];
	uint64_t h;
	int efd = openat(bfd, fname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), r;

	if (efd < 0)
		return errf(err, errlen, -errno, "opening %s: %s", shown, strerror(errno));
	base_path(seal, sizeof(seal), "%s/%s", shown, KG_SEAL);
	if (!(r = kg_tree_hash(efd, deb_seal_bytes, &h, err, errlen)))
		r = kg_seal_check(efd, KG_SEAL, h, seal, err, errlen);
	close(efd);
	return r;
}

/*
 * dpkg-deb -x of @deb into @tmp/x, @tmp (into @tmp, @tmplen bytes) a new directory beneath
 * the cache @bfd (named @base), and depmod on it, as the guest side's user, then streamed
 * back into root's own fresh @tmp/r (kg_user_stream_back), sealed (KG_SEAL). @tmp stays
 * root's 0700, as restore removes only such a tree after a kill -9; x in it is the one
 * handed to the user, which it reaches by descriptor (its working directory), never by a
 * path through @tmp.
 */
static int deb_extract(const char *deb, int bfd, const char *base, struct probe_scratch *journal,
		       char *tmp, size_t tmplen, struct kg_kernel *k, char *err, size_t errlen)
{
	struct deb_step a = { .fd = -1, .deb = deb, .base = base, .k = k };
	char x[PATH_MAX + 80], out[PATH_MAX + 80], why[PATH_MAX + 128], prefix[64];
	struct kg_user u;
	struct kg_user_ran ran;
	int tfd, dfd = -1, odfd = -1, r;
	uint64_t h;

	if ((r = kg_user_claim(&u, err, errlen)))
		return r;
	snprintf(prefix, sizeof(prefix), ".extract.%d.", (int)getpid());
	if ((tfd = base_dir_make_temp(bfd, prefix, tmp, tmplen, why, sizeof(why))) < 0) {
		tmp[0] = 0;
		kg_user_release(&u);
		return errf(err, errlen, tfd, "creating a directory in %s: %s", base, why);
	}
	base_path(x, sizeof(x), "%s/%s", base, tmp);
	/* before anything is in it: a kill -9 from here on leaves a tree restore removes */
	if (journal && (r = probe_scratch_journal_tree(journal, x, err, errlen))) {
		close(tfd);
		kg_user_release(&u);
		return r;
	}
	base_path(x, sizeof(x), "%s/%s/x", base, tmp);
	base_path(out, sizeof(out), "%s/%s/r", base, tmp);
	if ((dfd = base_dir_make(tfd, "x", 0700, why, sizeof(why))) < 0)
		r = errf(err, errlen, dfd, "kernel %s: creating %s: %s", deb, x, why);
	else if ((a.fd = open(deb, O_RDONLY | O_CLOEXEC)) < 0)
		r = errf(err, errlen, -errno, "kernel %s: opening it: %s", deb, strerror(errno));
	else if ((r = kg_user_give(&u, dfd)))
		errf(err, errlen, r, "chown %s: %s", x, strerror(-r));
	else if ((r = kg_user_run(&u, dfd, x, deb_step, &a, &ran, err, errlen)))
		; /* @err says why */
	else if ((odfd = base_dir_make(tfd, "r", 0700, why, sizeof(why))) < 0)
		r = errf(err, errlen, odfd, "kernel %s: creating %s: %s", deb, out, why);
	else if ((r = kg_user_stream_back(&u, dfd, x, odfd, out, &deb_rules, why, sizeof(why))))
		r = errf(err, errlen, r == -ENOMEM || r == -ENOSPC ? r : -EINVAL,
			 "kernel %s: refused: %s", deb, why);
	else {
		kg_user_note(odfd, ".privsep", "dpkg-deb, depmod", &ran);
		if ((r = kg_tree_hash(odfd, deb_seal_bytes, &h, why, sizeof(why))))
			errf(err, errlen, r, "kernel %s: %s", deb, why);
		else if ((r = kg_seal_write(odfd, KG_SEAL, h)))
			errf(err, errlen, r, "writing %s/%s: %s", out, KG_SEAL, strerror(-r));
	}
	if (odfd >= 0)
		close(odfd);
	if (dfd >= 0)
		close(dfd);
	if (a.fd > 0)
		close(a.fd);
	close(tfd);
	kg_user_release(&u);
	return r;
}

/* A .deb, extracted once per content (its hash) into the cache, with depmod run on it. */
static int deb_resolve(const char *deb, const char *cachedir, struct probe_scratch *journal,
		       struct kg_kernel *k, char *err, size_t errlen)
{
	char base[PATH_MAX], fname[NAME_MAX + 1], final[PATH_MAX + NAME_MAX + 2], tmp[64] = "";
	char at[PATH_MAX];
	const char *name = strrchr(deb, '/') ? strrchr(deb, '/') + 1 : deb;
	struct stat st;
	int bfd, r;

	if (stat(deb, &st))
		return errf(err, errlen, -ENOENT, "kernel %s: %s", deb, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return errf(err, errlen, S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL,
			    "kernel %s: not a regular file", deb);
	snprintf(base, sizeof(base), "%s/kernels", cachedir);
	if ((bfd = kg_cache_open(cachedir, "kernels", err, errlen)) < 0)
		return bfd;
	deb_sweep(bfd);
	/*
	 * keyed by content: a package rebuilt with the same name, size and mtime is another.
	 * "sealed": entries made before they were streamed back and sealed (issue 40) hold the
	 * step's own inodes, which a descriptor it kept may still write: never taken.
	 */
	uint64_t h = kg_fnv(KG_FNV_SEED, "sealed", 6);
	h = kg_fnv(h, &st.st_size, sizeof(st.st_size));
	if ((r = kg_hash_file(&h, deb)))
		return errf(err, errlen, r, "kernel %s: reading it: %s", deb, strerror(-r));
	snprintf(fname, sizeof(fname), "%.*s-%016llx", (int)(strlen(name) - 4), name,
		 (unsigned long long)h);
	base_path(final, sizeof(final), "%s/%s", base, fname);
	if (fstatat(bfd, fname, &st, AT_SYMLINK_NOFOLLOW)) {
		r = deb_extract(deb, bfd, base, journal, tmp, sizeof(tmp), k, err, errlen);
		char x[sizeof(tmp) + 2];

		snprintf(x, sizeof(x), "%s/r", tmp); /* in root's 0700 @tmp: no one else's path */
		if (!r && renameat(bfd, x, bfd, fname)) {
			r = -errno;
			if (r == -EEXIST || r == -ENOTEMPTY) /* another run extracted it first */
				r = 0;
			else
				errf(err, errlen, r, "rename %s: %s", final, strerror(-r));
		}
		/* by descriptor: the unprivileged user's tree x, and root's r unless renamed */
		if (tmp[0])
			base_rm_at(bfd, tmp);
		if (r)
			return r;
	}
	if ((r = kg_trusted_at(bfd, fname, S_IFDIR, final, err, errlen)) ||
	    (r = deb_seal_check(bfd, fname, final, err, errlen)))
		return r;
	/* from here by the held directory: /proc/self/fd/N/NAME, never the cache's path */
	kg_fd_path(at, sizeof(at), bfd, fname);
	if (deb_image(at, k->image_at, sizeof(k->image_at), k->release, sizeof(k->release)))
		return errf(err, errlen, -EINVAL, "kernel %s: no boot/vmlinuz-* in %s", deb, final);
	base_path(k->image, sizeof(k->image), "%s/boot/vmlinuz-%s", final, k->release);
	base_path(at, sizeof(at), "%s/boot/vmlinuz-%s", fname, k->release);
	if ((r = kg_trusted_at(bfd, at, S_IFREG, k->image, err, errlen)))
		return r;
	kg_fd_path(at, sizeof(at), bfd, fname);
	base_path(k->moddir, sizeof(k->moddir), "%s/lib/modules/%s", at, k->release);
	return 0;
}

int kg_kernel_resolve(const char *spec, const char *modules, const char *cachedir,
		      struct probe_scratch *journal, struct kg_kernel *k, char *err, size_t errlen)
{
	char path[PATH_MAX + 64];
	struct stat st;
	int r;

	snprintf(k->spec, sizeof(k->spec), "%s", spec);
	k->image_at[0] = 0; /* a .deb's sets it: its image beneath the cache's descriptor */
	if (!spec[0])
		return errf(err, errlen, -ENOENT, "an empty kernel name");
	if (kg_ends_with(spec, ".deb"))
		return deb_resolve(spec, cachedir, journal, k, err, errlen);
	if (stat(spec, &st) == 0) {
		if (!S_ISREG(st.st_mode))
			return errf(err, errlen, S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL,
				    "kernel %s: not a regular file", spec);
		if (!realpath(spec, k->image))
			return errf(err, errlen, -errno, "kernel %s: %s", spec, strerror(errno));
		r = kg_bzimage_release(spec, k->release, sizeof(k->release));
		if (r == -EBADMSG) {
			char esc[4 * sizeof(k->release)];

			base_escape_str(esc, sizeof(esc), k->release);
			k->release[0] = 0;
			return errf(err, errlen, -EINVAL,
				    "kernel %s: its header's release \"%s\" is not a plain release "
				    "name (letters, digits and ._+~-)",
				    spec, esc);
		}
		if (r)
			return errf(err, errlen, r == -ENOEXEC ? -EINVAL : r, "kernel %s: %s", spec,
				    r == -ENOEXEC ? "not a bzImage (no HdrS setup header)" :
						    strerror(-r));
		if (modules) {
			snprintf(path, sizeof(path), "%s/lib/modules/%s", modules, k->release);
			if (!kg_is_dir(path)) {
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
			if (!kg_is_dir(path))
				return errf(err, errlen, -ENOENT,
					    "kernel %s is %s, but /lib/modules/%s does not exist: "
					    "give its modules (a directory holding lib/modules/%s)",
					    spec, k->release, k->release, k->release);
		}
		base_path(k->moddir, sizeof(k->moddir), "%s", path);
		return 0;
	}
	if (strchr(spec, '/') || !kg_release_ok(spec))
		return errf(err, errlen, -ENOENT, "kernel %s: %s", spec, strerror(errno));
	snprintf(k->image, sizeof(k->image), "/boot/vmlinuz-%s", spec);
	snprintf(k->moddir, sizeof(k->moddir), "/lib/modules/%s", spec);
	snprintf(k->release, sizeof(k->release), "%s", spec);
	if (access(k->image, R_OK))
		return errf(err, errlen, -ENOENT,
			    "kernel %s: not a file, a .deb, or a release under /boot (%s: %s)",
			    spec, k->image, strerror(errno));
	if (!kg_is_dir(k->moddir))
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
	dep = kg_read_all(path, NULL);
	if (!dep)
		return errf(err, errlen, -errno, "reading %s: %s (run depmod for this kernel)",
			    path, strerror(errno));
	snprintf(path, sizeof(path), "%s/modules.builtin", moddir);
	builtin = kg_read_all(path, NULL); /* absent: nothing built in that we know of */
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
