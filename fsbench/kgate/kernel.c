/* The kernel under test and its modules: a .deb, a bzImage with its modules, or an installed release. */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/errf.h"
#include "base/fileio.h"
#include "fsbench/kgate/kgate.h"
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
	snprintf(out, len, "%s", ver);
	return 0;
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
	r = kg_mkdir_p(base, 0755);
	if (r)
		return errf(err, errlen, r, "creating %s: %s", base, strerror(-r));
	fsb_path(final, sizeof(final), "%s/%.*s-%llx-%llx", base, (int)(strlen(name) - 4), name,
		 (unsigned long long)st.st_size, (unsigned long long)st.st_mtime);
	if (!kg_is_dir(final)) {
		char *x[] = { "dpkg-deb", "-x", (char *)deb, tmp, NULL };

		fsb_path(tmp, sizeof(tmp), "%s/.extract.XXXXXX", base);
		if (!mkdtemp(tmp))
			return errf(err, errlen, -errno, "creating a directory in %s: %s", base,
				    strerror(errno));
		r = kg_tool(x, NULL, msg, sizeof(msg));
		if (r) {
			fsb_rm_tree(tmp);
			return errf(err, errlen, -EINVAL,
				    "kernel %s: not a usable .deb: dpkg-deb: %s", deb,
				    r < 0 ? strerror(-r) : msg);
		}
		/* newer packages ship usr/lib/modules; depmod -b looks in lib/modules */
		snprintf(pat, sizeof(pat), "%s/usr/lib/modules", tmp);
		if (kg_is_dir(pat)) {
			fsb_path(msg, sizeof(msg), "%s/lib", tmp);
			if (!kg_is_dir(msg) && symlink("usr/lib", msg))
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
		r = kg_tool(d, NULL, msg, sizeof(msg));
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
	if (kg_ends_with(spec, ".deb"))
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
