/* The tree workload's shape (measured from a real tree, or the default) and its order of runs. */
#include "base/errf.h"
#include "base/mix64.h"
#include "fsbench/workloads/tree_shape.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const tree_phase_names[TP_COUNT] = {
	[TP_INITIAL_CREATE] = "intial create",
	[TP_CREATE] = "create",
	[TP_PATCH] = "patch",
	[TP_COMPILE] = "compile",
	[TP_CLEAN] = "clean",
	[TP_READ] = "read tree",
	[TP_READ_COMPILED] = "read compiled tree",
	[TP_DELETE] = "delete tree",
	[TP_DELETE_COMPILED] = "delete compiled tree",
	[TP_STAT] = "stat tree",
	[TP_STAT_COMPILED] = "stat compiled tree",
};

bool tree_phase_is_rate(enum tree_phase p)
{
	return p < TP_DELETE;
}

void tree_shape_free(struct tree_shape *s)
{
	if (s->dpath)
		for (uint32_t i = 0; i < s->ndirs; i++)
			free(s->dpath[i]);
	free(s->dpath);
	free(s->parent);
	free(s->fdir);
	free(s->fsize);
	free(s->fkind);
	memset(s, 0, sizeof(*s));
}

/* Room for @n directories and @m files (the arrays grow by doubling). */
static int shape_reserve(struct tree_shape *s, uint32_t *dcap, uint32_t *fcap, uint32_t n,
			 uint32_t m)
{
	if (n > *dcap) {
		uint32_t cap = *dcap ? *dcap : 64;
		void *p, *q;

		while (cap < n)
			cap *= 2;
		p = realloc(s->parent, cap * sizeof(*s->parent));
		if (p)
			s->parent = p;
		q = realloc(s->dpath, cap * sizeof(*s->dpath));
		if (q)
			s->dpath = q;
		if (!p || !q)
			return -ENOMEM;
		*dcap = cap;
	}
	if (m > *fcap) {
		uint32_t cap = *fcap ? *fcap : 256;
		void *a, *b, *c;

		while (cap < m)
			cap *= 2;
		a = realloc(s->fdir, cap * sizeof(*s->fdir));
		if (a)
			s->fdir = a;
		b = realloc(s->fsize, cap * sizeof(*s->fsize));
		if (b)
			s->fsize = b;
		c = realloc(s->fkind, cap * sizeof(*s->fkind));
		if (c)
			s->fkind = c;
		if (!a || !b || !c)
			return -ENOMEM;
		*fcap = cap;
	}
	return 0;
}

/* Directory @i's path: its parent's and "d<i>". */
static int shape_add_dir(struct tree_shape *s, uint32_t parent)
{
	uint32_t i = s->ndirs;
	char *p;
	int n;

	s->parent[i] = parent;
	if (i == 0)
		n = asprintf(&p, ".");
	else if (parent == 0)
		n = asprintf(&p, "d%u", i);
	else
		n = asprintf(&p, "%s/d%u", s->dpath[parent], i);
	if (n < 0)
		return -ENOMEM;
	s->dpath[i] = p;
	s->ndirs++;
	return 0;
}

static void shape_add_file(struct tree_shape *s, uint32_t dir, uint64_t size, enum tree_kind kind)
{
	uint32_t i = s->nfiles++;

	s->fdir[i] = dir;
	s->fsize[i] = size;
	s->fkind[i] = (uint8_t)kind;
	s->bytes += size;
	if (kind == TK_SOURCE) {
		s->nsources++;
		s->source_bytes += size;
	}
}

static enum tree_kind kind_of(const char *name)
{
	static const char *const src[] = { ".c", ".S", ".s", ".cc", ".cpp", ".cxx", NULL };
	static const char *const hdr[] = { ".h", ".hh", ".hpp", NULL };
	const char *dot = strrchr(name, '.');

	if (!dot)
		return TK_OTHER;
	for (int i = 0; src[i]; i++)
		if (!strcmp(dot, src[i]))
			return TK_SOURCE;
	for (int i = 0; hdr[i]; i++)
		if (!strcmp(dot, hdr[i]))
			return TK_HEADER;
	return TK_OTHER;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Entry names of the open directory @fd, sorted (readdir's order differs per filesystem). */
static int list_dir(int fd, char ***ret, size_t *ret_n)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;
	char **v = NULL;
	size_t n = 0, cap = 0;

	if (!d) {
		close(fd);
		return -errno;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (n == cap) {
			char **nv = realloc(v, (cap = cap ? cap * 2 : 64) * sizeof(*v));

			if (!nv)
				goto nomem;
			v = nv;
		}
		if (!(v[n] = strdup(e->d_name)))
			goto nomem;
		n++;
	}
	closedir(d);
	if (n) /* an empty directory leaves v NULL, which qsort may not be given */
		qsort(v, n, sizeof(*v), cmp_names);
	*ret = v;
	*ret_n = n;
	return 0;
nomem:
	closedir(d);
	while (n)
		free(v[--n]);
	free(v);
	return -ENOMEM;
}

/* Adds directory @i's entries: its files, and its subdirectories as new directories. */
/* The real tree's relative paths while it is measured: the shape keeps generated names only. */
struct real_paths {
	char **v;
	uint32_t n, cap;
};

static int real_add(struct real_paths *rp, const char *parent, const char *name)
{
	char *p;

	if (rp->n == rp->cap) {
		uint32_t cap = rp->cap ? rp->cap * 2 : 64;
		char **v = realloc(rp->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		rp->v = v;
		rp->cap = cap;
	}
	if (!parent)
		p = strdup(name);
	else if (asprintf(&p, "%s/%s", parent, name) < 0)
		p = NULL;
	if (!p)
		return -ENOMEM;
	rp->v[rp->n++] = p;
	return 0;
}

static void real_free(struct real_paths *rp)
{
	for (uint32_t i = 0; i < rp->n; i++)
		free(rp->v[i]);
	free(rp->v);
}

static int measure_dir(struct tree_shape *s, struct real_paths *rp, int root_fd, dev_t dev,
		       uint32_t i, uint32_t *dcap, uint32_t *fcap, const char *path, char *err,
		       size_t errlen)
{
	char **names = NULL;
	size_t n = 0;
	int fd, r = 0;

	fd = openat(root_fd, rp->v[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		return errf(err, errlen, r, "--shape-from: opening %s/%s: %s", path, rp->v[i],
			    strerror(-r));
	}
	r = list_dir(fd, &names, &n); /* closes fd */
	if (r < 0)
		return errf(err, errlen, r, "--shape-from: reading %s/%s: %s", path, rp->v[i],
			    strerror(-r));
	fd = openat(root_fd, rp->v[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	for (size_t k = 0; k < n && !r; k++) {
		struct stat st;

		if (fd < 0 || fstatat(fd, names[k], &st, AT_SYMLINK_NOFOLLOW) < 0) {
			r = errf(err, errlen, -errno, "--shape-from: examining %s/%s/%s: %s", path,
				 rp->v[i], names[k], strerror(errno));
			break;
		}
		if (S_ISDIR(st.st_mode) && st.st_dev == dev) {
			if (s->ndirs >= TREE_MAX_DIRS)
				r = errf(err, errlen, -E2BIG,
					 "--shape-from: %s has more than %u directories", path,
					 TREE_MAX_DIRS);
			else if (!(r = shape_reserve(s, dcap, fcap, s->ndirs + 1, 0)) &&
				 !(r = real_add(rp, rp->v[i], names[k])))
				r = shape_add_dir(s, i);
		} else if (S_ISREG(st.st_mode)) {
			if (s->nfiles >= TREE_MAX_FILES)
				r = errf(err, errlen, -E2BIG,
					 "--shape-from: %s has more than %u files", path,
					 TREE_MAX_FILES);
			else if (!(r = shape_reserve(s, dcap, fcap, 0, s->nfiles + 1)))
				shape_add_file(s, i,
					       (uint64_t)st.st_size > TREE_MAX_FILE_SIZE ?
						       TREE_MAX_FILE_SIZE :
						       (uint64_t)st.st_size,
					       kind_of(names[k]));
		}
		/* symbolic links, devices, sockets, other mounts: not part of the shape */
	}
	if (fd >= 0)
		close(fd);
	for (size_t k = 0; k < n; k++)
		free(names[k]);
	free(names);
	if (r == -ENOMEM)
		errf(err, errlen, r, "--shape-from: measuring %s: %s", path, strerror(ENOMEM));
	return r;
}

static unsigned path_depth(const char *p)
{
	unsigned d = 0;

	for (; *p; p++)
		d += *p == '/';
	return d;
}

int tree_shape_measure(const char *path, struct tree_shape *ret, char *err, size_t errlen)
{
	struct tree_shape s = { 0 };
	struct real_paths rp = { 0 };
	uint32_t dcap = 0, fcap = 0;
	struct stat st;
	int root_fd, r;

	root_fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (root_fd < 0 || fstat(root_fd, &st) < 0) {
		r = -errno;
		if (root_fd >= 0)
			close(root_fd);
		return errf(err, errlen, r, "--shape-from: opening %s: %s", path, strerror(-r));
	}
	r = shape_reserve(&s, &dcap, &fcap, 1, 1);
	if (!r)
		r = real_add(&rp, NULL, ".");
	if (!r)
		r = shape_add_dir(&s, 0);
	/* breadth first: directory i's subdirectories get the next indices, after i's files */
	for (uint32_t i = 0; !r && i < s.ndirs; i++) {
		if (path_depth(s.dpath[i]) >= TREE_MAX_DEPTH) {
			r = errf(err, errlen, -E2BIG,
				 "--shape-from: %s is deeper than %d directories", path,
				 TREE_MAX_DEPTH);
			break;
		}
		r = measure_dir(&s, &rp, root_fd, st.st_dev, i, &dcap, &fcap, path, err, errlen);
	}
	close(root_fd);
	real_free(&rp);
	if (!r && !s.nfiles)
		r = errf(err, errlen, -EINVAL, "--shape-from: %s holds no regular files", path);
	if (r < 0) {
		if (r == -ENOMEM && !err[0])
			errf(err, errlen, r, "--shape-from: measuring %s: %s", path,
			     strerror(ENOMEM));
		tree_shape_free(&s);
		return r;
	}
	snprintf(s.from, sizeof(s.from), "%s", path);
	*ret = s;
	return 0;
}

/*
 * The default shape, measured on this project's Debian 12 VM (2026-12-01) from
 * /usr/src/linux-headers-6.1.0-57-common, the kernel source tree that Debian ships for
 * building modules: 527 directories, 9418 regular files, 51677611 bytes. The two tables
 * are its directories in breadth-first order (entries sorted by name): how many
 * subdirectories and how many regular files each holds. Its file sizes by power of two
 * are default_size_log2 (count of files whose size has that bit length).
 */
static const uint16_t default_subdirs[527] = {
	2, 13, 29, 1,  5, 2, 2, 1, 29, 1,  1, 1, 1, 1,	1, 1, 1, 2, 0, 1, 4, 35, 0,  0, 0, 65, 0,
	4, 0,  0,  11, 0, 0, 0, 0, 1,  14, 2, 1, 3, 10, 0, 0, 0, 2, 2, 3, 1, 1,	 1,  1, 2, 1,  2,
	0, 2,  0,  0,  0, 0, 0, 0, 0,  0,  0, 0, 0, 2,	0, 0, 0, 0, 0, 0, 0, 0,	 0,  0, 0, 0,  0,
	0, 0,  0,  0,  2, 2, 2, 2, 18, 2,  2, 0, 0, 0,	0, 0, 0, 0, 0, 0, 0, 0,	 0,  0, 0, 1,  0,
	0, 0,  3,  0,  0, 0, 0, 0, 0,  0,  0, 0, 0, 0,	0, 0, 0, 0, 0, 0, 0, 0,	 0,  0, 0, 0,  0,
	0, 0,  0,  0,  0, 2, 0, 0, 0,  0,  0, 0, 0, 0,	0, 6, 0, 1, 0, 0, 0, 0,	 9,  0, 0, 0,  0,
	0, 0,  24, 0,  0, 0, 0, 0, 1,  1,  0, 0, 0, 0,	0, 0, 1, 0, 4, 0, 0, 0,	 0,  0, 0, 0,  0,
	0, 0,  17, 0,  0, 0, 0, 0, 0,  0,  0, 0, 0, 0,	0, 0, 0, 0, 0, 0, 2, 0,	 0,  0, 0, 0,  0,
	0, 0,  0,  0,  1, 0, 0, 0, 0,  0,  0, 0, 0, 0,	0, 1, 0, 0, 0, 0, 0, 0,	 27, 1, 0, 1,  1,
	2, 0,  0,  0,  2, 0, 1, 4, 0,  1,  1, 1, 1, 1,	3, 1, 1, 3, 1, 0, 1, 43, 1,  0, 1, 3,  1,
	1, 1,  3,  1,  0, 1, 1, 1, 1,  1,  1, 1, 1, 1,	1, 1, 1, 1, 1, 1, 1, 1,	 0,  1, 8, 1,  0,
	0, 0,  0,  0,  0, 0, 0, 1, 0,  0,  0, 0, 0, 0,	0, 0, 0, 0, 0, 0, 0, 0,	 0,  0, 0, 0,  0,
	0, 0,  0,  0,  0, 0, 0, 0, 0,  0,  0, 0, 0, 0,	0, 0, 0, 0, 0, 0, 0, 0,	 0,  0, 0, 0,  0,
	0, 0,  0,  0,  0, 1, 0, 0, 0,  0,  0, 0, 0, 0,	0, 0, 0, 0, 0, 0, 0, 0,	 0,  0, 0, 0,  0,
	0, 0,  0,  0,  0, 1, 0, 0, 0,  0,  0, 0, 0, 0,	0, 0, 0, 0, 0, 0, 0, 0,	 1,  0, 0, 0,  0,
	0, 0,  0,  0,  0, 0, 0, 0, 0,  0,  0, 0, 0, 2,	0, 0, 0, 0, 0, 0, 2, 0,	 0,  0, 0, 0,  0,
	0, 0,  0,  0,  0, 0, 0, 0, 0,  0,  0, 0, 0, 0,	2, 1, 0, 0, 0, 0, 0, 5,	 0,  0, 0, 0,  0,
	0, 0,  0,  0,  1, 0, 0, 0, 0,  0,  2, 2, 0, 0,	0, 0, 0, 0, 0, 0, 0, 0,	 0,  0, 0, 0,  0,
	0, 0,  0,  0,  0, 0, 0, 0, 0,  0,  0, 0, 0, 0,	0, 0, 0, 0, 0, 0, 0, 0,	 0,  0, 0, 0,  0,
	0, 0,  0,  0,  0, 0, 0, 0, 0,  0,  0, 0, 0, 0,
};

static const uint16_t default_files[527] = {
	1,   0,	  0,   1,   1,	 1,   1,   1,	 3,   1,  2,   1,  1,	1,   1,	  3,  32,  123,
	9,   61,  91,  0,   16,	 6,   6,   1401, 9,   62, 1,   6,  203, 7,   1,	  42, 3,   37,
	0,   160, 3,   7,   1,	 5,   14,  47,	 17,  0,  0,   0,  0,	0,   0,	  0,  0,   0,
	9,   0,	  1,   1,   1,	 1,   1,   1,	 1,   1,  1,   1,  1,	0,   1,	  1,  1,   1,
	1,   1,	  1,   1,   1,	 1,   1,   1,	 1,   1,  1,   1,  1,	0,   0,	  0,  0,   0,
	0,   0,	  7,   25,  1,	 20,  4,   12,	 3,   11, 2,   1,  2,	367, 2,	  12, 0,   6,
	17,  1,	  7,   5,   25,	 8,   6,   2,	 5,   19, 15,  1,  2,	6,   1,	  10, 50,  1,
	78,  2,	  11,  110, 16,	 24,  1,   6,	 1,   11, 3,   1,  9,	3,   7,	  23, 15,  8,
	3,   9,	  3,   18,  8,	 1,   3,   5,	 6,   6,  12,  2,  3,	21,  17,  18, 2,   7,
	4,   3,	  141, 7,   17,	 10,  44,  2,	 0,   21, 1,   1,  1,	1,   1,	  2,  9,   8,
	214, 13,  1,   20,  3,	 37,  3,   4,	 5,   5,  36,  0,  4,	30,  8,	  33, 3,   3,
	1,   66,  10,  9,   48,	 1,   3,   12,	 10,  2,  5,   42, 22,	6,   4,	  12, 20,  6,
	3,   7,	  1,   1,   7,	 4,   1,   1,	 9,   7,  3,   1,  1,	13,  4,	  17, 3,   152,
	4,   8,	  38,  28,  543, 6,   5,   26,	 6,   17, 3,   4,  6,	15,  102, 0,  180, 31,
	0,   0,	  0,   0,   0,	 177, 0,   0,	 112, 0,  167, 0,  192, 0,   101, 0,  310, 0,
	106, 0,	  161, 0,   142, 0,   0,   0,	 0,   0,  0,   0,  0,	0,   0,	  0,  0,   0,
	0,   0,	  0,   0,   249, 0,   334, 0,	 1,   4,  1,   1,  1,	3,   1,	  2,  4,   2,
	1,   1,	  6,   1,   4,	 1,   6,   5,	 2,   1,  1,   2,  3,	3,   3,	  3,  3,   2,
	2,   2,	  3,   2,   2,	 2,   2,   2,	 2,   1,  3,   6,  11,	8,   2,	  10, 8,   4,
	2,   6,	  1,   1,   7,	 1,   11,  1,	 1,   2,  1,   1,  1,	3,   0,	  6,  1,   1,
	3,   11,  3,   7,   1,	 10,  4,   4,	 6,   1,  2,   2,  2,	8,   2,	  8,  1,   1,
	2,   3,	  1,   1,   1,	 90,  2,   17,	 9,   13, 4,   2,  1,	2,   1,	  2,  19,  5,
	14,  2,	  2,   4,   0,	 4,   5,   17,	 35,  15, 8,   5,  7,	18,  5,	  7,  19,  7,
	2,   6,	  7,   20,  0,	 3,   2,   3,	 30,  25, 16,  1,  3,	4,   2,	  6,  13,  3,
	24,  3,	  5,   4,   2,	 2,   11,  1,	 2,   7,  2,   4,  3,	2,   2,	  6,  11,  14,
	6,   2,	  4,   8,   13,	 2,   1,   5,	 9,   76, 1,   9,  24,	16,  9,	  5,  2,   41,
	24,  3,	  8,   5,   42,	 4,   14,  3,	 2,   5,  44,  6,  3,	8,   11,  19, 2,   16,
	4,   2,	  3,   2,   1,	 2,   9,   2,	 2,   17, 43,  2,  7,	2,   3,	  5,  6,   4,
	11,  48,  3,   1,   4,	 1,   5,   8,	 2,   2,  4,   4,  4,	1,   1,	  1,  1,   1,
	8,   5,	  21,  11,  3,
};

/* [b]: files of bit length b, i.e. sizes in [2^(b-1), 2^b); b = 0 is the empty file */
static const uint16_t default_size_log2[20] = {
	[3] = 1,    [4] = 2,	 [5] = 50,    [6] = 36,	   [7] = 53,	[8] = 400,
	[9] = 1084, [10] = 1492, [11] = 1696, [12] = 1771, [13] = 1297, [14] = 883,
	[15] = 408, [16] = 184,	 [17] = 45,   [18] = 10,   [19] = 6,
};

/*
 * Kinds in the measured tree: 9301 .h, 35 .c/.S, 82 others. Debian strips the .c files
 * from this package, so a compile phase over it would have almost nothing to compile;
 * the default shape therefore turns every other header into a source, an assumption (a
 * full kernel tree holds .c and .h files in about that proportion), not a measurement.
 */
#define DEFAULT_OTHER 82u
#define DEFAULT_SOURCES 35u
#define DEFAULT_FILES 9418u

int tree_shape_default(struct tree_shape *ret)
{
	struct tree_shape s = { 0 };
	uint32_t dcap = 0, fcap = 0, nf = 0;
	uint8_t bucket[DEFAULT_FILES];
	int r;

	/* the measured sizes, each bit length as often as measured, in a fixed shuffled order */
	for (unsigned b = 0; b < 20; b++)
		for (unsigned k = 0; k < default_size_log2[b]; k++)
			bucket[nf++] = (uint8_t)b;
	for (uint32_t i = nf - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(base_mix64(i) % (i + 1));
		uint8_t x = bucket[i];

		bucket[i] = bucket[j];
		bucket[j] = x;
	}
	r = shape_reserve(&s, &dcap, &fcap, 527, DEFAULT_FILES);
	if (!r)
		r = shape_add_dir(&s, 0);
	for (uint32_t i = 0; !r && i < 527; i++) {
		for (unsigned k = 0; k < default_subdirs[i] && !r; k++)
			r = s.ndirs < 527 ? shape_add_dir(&s, i) : -EINVAL;
		for (unsigned k = 0; k < default_files[i] && !r; k++) {
			uint32_t f = s.nfiles;
			uint64_t h = base_mix64(UINT64_C(0x7472656500000000) | f), lo, size;
			unsigned b = bucket[f];
			enum tree_kind kind;

			lo = b ? UINT64_C(1) << (b - 1) : 0;
			size = b ? lo + (h >> 32) % lo : 0;
			if (h % DEFAULT_FILES < DEFAULT_OTHER)
				kind = TK_OTHER;
			else if (h % DEFAULT_FILES < DEFAULT_OTHER + DEFAULT_SOURCES ||
				 (h >> 20) & 1)
				kind = TK_SOURCE;
			else
				kind = TK_HEADER;
			shape_add_file(&s, i, size, kind);
		}
	}
	if (r < 0) {
		tree_shape_free(&s);
		return r;
	}
	snprintf(
		s.from, sizeof(s.from),
		"default: linux-headers-6.1.0-57-common as measured (527 directories, 9418 files)");
	*ret = s;
	return 0;
}

/* Trees by state, for drawing one that a phase can run on. */
enum { TS_ABSENT, TS_PLAIN, TS_COMPILED };

static bool phase_needs_compiled(int p)
{
	return p == TP_CLEAN || p == TP_READ_COMPILED || p == TP_DELETE_COMPILED ||
	       p == TP_STAT_COMPILED;
}

/* A random tree in state @want, or -1; @rng advances. */
static int64_t pick_tree(const uint8_t *state, uint32_t ntrees, int want, uint64_t *rng)
{
	uint32_t n = 0, k;

	for (uint32_t i = 0; i < ntrees; i++)
		n += state[i] == want;
	if (!n)
		return -1;
	k = (uint32_t)(base_mix64((*rng)++) % n);
	for (uint32_t i = 0; i < ntrees; i++)
		if (state[i] == want && !k--)
			return i;
	return -1;
}

static void step_apply(uint8_t *state, struct tree_step st)
{
	switch (st.phase) {
	case TP_INITIAL_CREATE:
	case TP_CREATE:
	case TP_CLEAN:
		state[st.tree] = TS_PLAIN;
		break;
	case TP_COMPILE:
		state[st.tree] = TS_COMPILED;
		break;
	case TP_DELETE:
	case TP_DELETE_COMPILED:
		state[st.tree] = TS_ABSENT;
		break;
	default:
		break;
	}
}

int tree_schedule(int64_t initial, int64_t runs, bool makej, uint64_t seed, struct tree_step **ret,
		  size_t *ret_n, uint32_t *ret_ntrees)
{
	size_t cap = (size_t)initial * (makej ? 3 : 1) + (makej ? 3 : (size_t)runs), n = 0;
	uint64_t rng = seed;
	uint32_t ntrees = 0;
	struct tree_step *v;
	uint8_t *state;

	if (initial < 0 || runs < 0 || (uint64_t)initial + (uint64_t)runs > TREE_MAX_TREES)
		return -E2BIG;
	v = calloc(cap + 1, sizeof(*v));
	state = calloc((size_t)initial + (size_t)runs + 1, 1);
	if (!v || !state) {
		free(v);
		free(state);
		return -ENOMEM;
	}
#define PUSH(p, tr)                                                               \
	do {                                                                      \
		v[n] = (struct tree_step){ .phase = (uint8_t)(p), .tree = (tr) }; \
		step_apply(state, v[n++]);                                        \
	} while (0)
	for (uint32_t i = 0; i < (uint32_t)initial; i++) {
		PUSH(TP_INITIAL_CREATE, ntrees++);
		if (makej)
			PUSH(TP_COMPILE, i);
	}
	if (makej) {
		for (int k = 0; k < 3 && ntrees; k++)
			PUSH(TP_READ_COMPILED,
			     (uint32_t)pick_tree(state, ntrees, TS_COMPILED, &rng));
		for (uint32_t i = 0; i < ntrees; i++)
			PUSH(TP_DELETE_COMPILED, i);
	} else {
		for (int64_t k = 0; k < runs; k++) {
			for (;;) {
				int p = 1 + (int)(base_mix64(rng++) % (TP_COUNT - 1));
				int64_t tr;

				if (p == TP_CREATE) {
					PUSH(TP_CREATE, ntrees++);
					break;
				}
				tr = pick_tree(state, ntrees,
					       phase_needs_compiled(p) ? TS_COMPILED : TS_PLAIN,
					       &rng);
				if (tr >= 0) {
					PUSH(p, (uint32_t)tr);
					break;
				}
			}
		}
	}
#undef PUSH
	free(state);
	*ret = v;
	*ret_n = n;
	*ret_ntrees = ntrees;
	return 0;
}
