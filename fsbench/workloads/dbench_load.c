/* The NBENCH loadfile parser (dbench_load.h): every line checked before any work. */
#include "fsbench/workloads/dbench_load.h"
#include "base/errf.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const nb_op_names[NB_NOPS + 1] = {
	[NB_DELTREE] = "Deltree",
	[NB_FLUSH] = "Flush",
	[NB_CLOSE] = "Close",
	[NB_LOCKX] = "LockX",
	[NB_RMDIR] = "Rmdir",
	[NB_MKDIR] = "Mkdir",
	[NB_RENAME] = "Rename",
	[NB_READX] = "ReadX",
	[NB_WRITEX] = "WriteX",
	[NB_UNLINK] = "Unlink",
	[NB_UNLOCKX] = "UnlockX",
	[NB_FIND_FIRST] = "FIND_FIRST",
	[NB_SET_FILE_INFORMATION] = "SET_FILE_INFORMATION",
	[NB_QUERY_FILE_INFORMATION] = "QUERY_FILE_INFORMATION",
	[NB_QUERY_PATH_INFORMATION] = "QUERY_PATH_INFORMATION",
	[NB_QUERY_FS_INFORMATION] = "QUERY_FS_INFORMATION",
	[NB_NTCREATEX] = "NTCreateX",
	[NB_SLEEP] = "Sleep",
};

/*
 * What each operation takes, from dbench's fileio backend: how many paths, then at least
 * how many of the numbers it reads (handle, offset, size, ...); at most 4 numbers.
 */
static const struct {
	uint8_t paths, nums;
	const char *usage;
} shape[NB_NOPS + 1] = {
	[NB_DELTREE] = { 1, 0, "Deltree PATH STATUS" },
	[NB_FLUSH] = { 0, 1, "Flush HANDLE STATUS" },
	[NB_CLOSE] = { 0, 1, "Close HANDLE STATUS" },
	[NB_LOCKX] = { 0, 3, "LockX HANDLE OFFSET SIZE STATUS" },
	[NB_RMDIR] = { 1, 0, "Rmdir PATH STATUS" },
	[NB_MKDIR] = { 1, 0, "Mkdir PATH STATUS" },
	[NB_RENAME] = { 2, 0, "Rename OLD NEW STATUS" },
	[NB_READX] = { 0, 4, "ReadX HANDLE OFFSET SIZE RET_SIZE STATUS" },
	[NB_WRITEX] = { 0, 4, "WriteX HANDLE OFFSET SIZE RET_SIZE STATUS" },
	[NB_UNLINK] = { 1, 0, "Unlink PATH [ATTR] STATUS" },
	[NB_UNLOCKX] = { 0, 3, "UnlockX HANDLE OFFSET SIZE STATUS" },
	[NB_FIND_FIRST] = { 1, 2, "FIND_FIRST PATTERN LEVEL MAXCOUNT [COUNT] STATUS" },
	[NB_SET_FILE_INFORMATION] = { 0, 1, "SET_FILE_INFORMATION HANDLE [LEVEL] STATUS" },
	[NB_QUERY_FILE_INFORMATION] = { 0, 1, "QUERY_FILE_INFORMATION HANDLE [LEVEL] STATUS" },
	[NB_QUERY_PATH_INFORMATION] = { 1, 0, "QUERY_PATH_INFORMATION PATH [LEVEL] STATUS" },
	[NB_QUERY_FS_INFORMATION] = { 0, 0, "QUERY_FS_INFORMATION [LEVEL] STATUS" },
	[NB_NTCREATEX] = { 1, 3, "NTCreateX PATH OPTIONS DISPOSITION HANDLE STATUS" },
	[NB_SLEEP] = { 0, 1, "Sleep MICROSECONDS STATUS" },
};

#define MAX_TOKENS 12

struct tok {
	char *s;
	bool quoted;
};

/* Splits @line at blanks; a "quoted" token may hold blanks. Token count, or -1: unterminated. */
static int tokenize(char *line, struct tok *tv, int max)
{
	int n = 0;
	char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return n;
		if (n == max)
			return max + 1;
		if (*p == '"') {
			char *end = strchr(p + 1, '"');

			if (!end)
				return -1;
			*end = 0;
			tv[n++] = (struct tok){ p + 1, true };
			p = end + 1;
			continue;
		}
		tv[n++] = (struct tok){ p, false };
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = 0;
	}
}

static int pool_add(struct nb_load *l, const char *s, size_t len, uint32_t *ret_off)
{
	if (l->pool_len + len + 1 > l->pool_cap) {
		size_t cap = l->pool_cap ? l->pool_cap * 2 : 65536;
		char *p;

		while (cap < l->pool_len + len + 1)
			cap *= 2;
		if (cap > UINT32_MAX)
			return -E2BIG;
		p = realloc(l->pool, cap);
		if (!p)
			return -ENOMEM;
		l->pool = p;
		l->pool_cap = cap;
	}
	memcpy(l->pool + l->pool_len, s, len);
	l->pool[l->pool_len + len] = 0;
	*ret_off = (uint32_t)l->pool_len;
	l->pool_len += len + 1;
	return 0;
}

/*
 * A loadfile path (backslashes already made slashes) as the client replays it: relative
 * to -D, "client1" marked for the client's own name. "" when it is acceptable, else why not.
 */
static const char *path_check(const char *s, char *out, size_t outlen, size_t *ret_len)
{
	const char *p = s;
	size_t n = 0;

	if (*p != '/')
		return "a path must start with \\ (it is taken below -D)";
	while (*p == '/')
		p++;
	if (!*p)
		return "the path names -D itself";
	for (const char *c = p; *c; c++)
		if ((unsigned char)*c < 0x20)
			return "a control character in the path";
	for (const char *c = p; *c;) {
		const char *e = strchr(c, '/');
		size_t len = e ? (size_t)(e - c) : strlen(c);

		if (len == 2 && c[0] == '.' && c[1] == '.')
			return "a '..' component would leave -D";
		c += len;
		while (*c == '/')
			c++;
	}
	while (*p) {
		if (!strncmp(p, "client1", 7)) {
			out[n++] = NB_CLIENT_MARK;
			p += 7;
		} else {
			out[n++] = *p++;
		}
		/* "client1" becomes at most "client1023": room for the expansion */
		if (n + 8 >= outlen / 2)
			return "the path is too long";
	}
	/* "\\a\\b\\" is "a/b": a call is made on a directory and a last name (base_parent_beneath) */
	while (n && out[n - 1] == '/')
		n--;
	out[n] = 0;
	*ret_len = n;
	return "";
}

static bool is_status(const char *s)
{
	return !strncmp(s, "NT_STATUS_", 10) || !strncmp(s, "0x", 2) || !strncmp(s, "SUCCESS", 7) ||
	       !strncmp(s, "ERROR", 5) || !strcmp(s, "*");
}

/* As dbench's fileio backend: only these two mean that the call is to succeed. */
static bool status_ok(const char *s)
{
	return !strcmp(s, "NT_STATUS_OK") || (!strncmp(s, "0x", 2) && !strtoul(s, NULL, 16));
}

static int find_op(const char *name)
{
	for (int op = 0; op <= NB_SLEEP; op++)
		if (!strcasecmp(name, nb_op_names[op]))
			return op;
	return -1;
}

static int line_push(struct nb_load *l, const struct nb_line *ln)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 4096;
		struct nb_line *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *ln;
	return 0;
}

struct parse_ctx {
	struct nb_load *l;
	const char *name;
	uint32_t lineno;
	uint32_t repeat; /* from a REPEAT line, for the next operation */
	char *err;
	size_t errlen;
};

static int bad(struct parse_ctx *c, const char *fmt, const char *arg)
{
	char what[300];

	snprintf(what, sizeof(what), fmt, arg);
	return errf(c->err, c->errlen, -EINVAL, "loadfile %s, line %" PRIu32 ": %s", c->name,
		    c->lineno, what);
}

static int parse_number(struct parse_ctx *c, const char *s, int64_t *ret)
{
	char *end;

	if (*s == '*' || *s == '+')
		return bad(c, "'%s': dbench's random and relative numbers are not supported", s);
	errno = 0;
	*ret = strtoll(s, &end, 0);
	if (errno || end == s || *end)
		return bad(c, "'%s' is not a number", s);
	return 0;
}

/* The operation on tokens @tv[0..n): its paths, numbers and status, checked. */
static int parse_op(struct parse_ctx *c, struct tok *tv, int n, uint64_t target_ns)
{
	struct nb_line ln = { .lineno = c->lineno, .repeat = c->repeat, .target_ns = target_ns };
	char path[NB_PATH_MAX];
	int op = find_op(tv[0].s), nums, r;

	if (op < 0)
		return bad(c, "unknown operation '%s'", tv[0].s);
	ln.op = (uint8_t)op;
	c->repeat = 1;
	if (!is_status(tv[n - 1].s))
		return bad(c, "'%s' is not a status (NT_STATUS_..., 0x..., SUCCESS, ERROR)",
			   tv[n - 1].s);
	ln.ok = status_ok(tv[n - 1].s);
	nums = n - 2 - shape[op].paths;
	if (nums < shape[op].nums || nums > 4)
		return bad(c, "expected %s", shape[op].usage);
	for (int i = 0; i < shape[op].paths; i++) {
		const struct tok *t = &tv[1 + i];
		const char *why;
		size_t len;
		uint32_t off;

		if (!t->quoted)
			return bad(c, "'%s': a path is written in double quotes", t->s);
		why = path_check(t->s, path, sizeof(path), &len);
		if (*why)
			return bad(c, "%s", why);
		r = pool_add(c->l, path, len, &off);
		if (r < 0)
			return errf(c->err, c->errlen, r, "loadfile %s: %s", c->name, strerror(-r));
		*(i ? &ln.path2 : &ln.path) = off;
	}
	for (int i = 0; i < nums; i++) {
		if (tv[1 + shape[op].paths + i].quoted)
			return bad(c, "expected %s", shape[op].usage);
		r = parse_number(c, tv[1 + shape[op].paths + i].s, &ln.p[i]);
		if (r < 0)
			return r;
	}
	if ((op == NB_READX || op == NB_WRITEX) &&
	    (ln.p[1] < 0 || ln.p[2] < 0 || ln.p[2] > NB_MAX_IO || ln.p[3] < 0))
		return bad(c, "%s: offset and sizes must be >= 0, sizes at most 16 MiB",
			   nb_op_names[op]);
	if ((op == NB_LOCKX || op == NB_UNLOCKX) && (ln.p[1] < 0 || ln.p[2] < 0))
		return bad(c, "%s: offset and size must be >= 0", nb_op_names[op]);
	if (op == NB_SLEEP && (ln.p[0] < 0 || ln.p[0] > 3600000000))
		return bad(c, "%s: 0 to 3600000000 microseconds", "Sleep");
	if ((op == NB_READX || op == NB_WRITEX) && ln.p[2] > c->l->max_io)
		c->l->max_io = (uint32_t)ln.p[2];
	if (op < NB_NOPS)
		c->l->count[op] += ln.repeat;
	if (c->l->n >= NB_MAX_LINES)
		return bad(c, "more than %s operations", "10000000");
	r = line_push(c->l, &ln);
	if (r < 0)
		return errf(c->err, c->errlen, r, "loadfile %s: %s", c->name, strerror(-r));
	return 0;
}

/* One line of the file, NUL-terminated without its newline. */
static int parse_line(struct parse_ctx *c, char *line)
{
	struct tok tv[MAX_TOKENS];
	uint64_t target_ns = 0;
	int n;

	/* as dbench: comments are skipped whatever they hold */
	if (line[strspn(line, " \t")] == '#')
		return 0;
	for (char *p = line; *p; p++)
		if (*p == '\\')
			*p = '/';
	n = tokenize(line, tv, MAX_TOKENS);
	if (n < 0)
		return bad(c, "%s", "a \" without its closing \"");
	if (n > MAX_TOKENS)
		return bad(c, "%s", "too many fields");
	/* as dbench: blank lines and lines of one word are skipped */
	if (n < 2)
		return 0;
	if (!strcasecmp(tv[0].s, "REPEAT")) {
		int64_t v;

		if (n != 2 || parse_number(c, tv[1].s, &v) < 0 || v < 1 || v > NB_MAX_REPEAT)
			return bad(c, "%s", "expected REPEAT N, N from 1 to 1000000");
		c->repeat = (uint32_t)v;
		return 0;
	}
	if (!strncmp(tv[0].s, "SMB", 3))
		return bad(c, "%s", "this is a dbench 1 loadfile");
	for (size_t i = 0; i < 4; i++) {
		static const char *const unsupported[] = { "LOOP", "ENDLOOP", "WRITEPATTERN",
							   "RANDOMSTRING" };

		if (!strcasecmp(tv[0].s, unsupported[i]))
			return bad(c, "%s is not supported by fsbench dbench", unsupported[i]);
	}
	if (isdigit((unsigned char)tv[0].s[0])) {
		char *end;
		double secs = strtod(tv[0].s, &end);

		if (*end || !(secs >= 0 && secs < 1e9))
			return bad(c, "'%s' is not a timestamp in seconds", tv[0].s);
		target_ns = (uint64_t)(secs * 1e9);
		c->l->timed = true;
		if (n < 3)
			return bad(c, "%s", "a timestamp without an operation");
		return parse_op(c, tv + 1, n - 1, target_ns);
	}
	return parse_op(c, tv, n, 0);
}

int nb_load_parse(FILE *f, const char *name, struct nb_load *ret, char *err, size_t errlen)
{
	struct parse_ctx c = { .l = ret, .name = name, .repeat = 1, .err = err, .errlen = errlen };
	char line[NB_LINE_MAX + 2];
	uint32_t empty;
	int r;

	memset(ret, 0, sizeof(*ret));
	r = pool_add(ret, "", 0, &empty);
	if (r < 0)
		return errf(err, errlen, r, "loadfile %s: %s", name, strerror(-r));
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);

		c.lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = 0;
		else if (!feof(f))
			return bad(&c, "%s", "longer than 1024 characters");
		if (len && line[len - 1] == '\r')
			line[--len] = 0;
		if (memchr(line, 0, len))
			return bad(&c, "%s",
				   "a NUL byte (a binary or gzip'ed file? gunzip it first)");
		r = parse_line(&c, line);
		if (r < 0)
			return r;
	}
	if (ferror(f))
		return errf(err, errlen, -EIO, "reading loadfile %s: %s", name, strerror(EIO));
	if (c.repeat != 1)
		return errf(err, errlen, -EINVAL,
			    "loadfile %s: REPEAT on the last line repeats nothing", name);
	if (!ret->n)
		return errf(err, errlen, -EINVAL, "loadfile %s: no operations", name);
	ret->nlines = c.lineno;
	return 0;
}

int nb_load_read(const char *path, struct nb_load *ret, char *err, size_t errlen)
{
	struct stat st;
	FILE *f;
	int fd, r;

	memset(ret, 0, sizeof(*ret));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return errf(err, errlen, -errno, "opening loadfile %s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return errf(err, errlen, r, "loadfile %s: %s", path, strerror(-r));
	}
	if (!S_ISREG(st.st_mode) || st.st_size > (1 << 30)) {
		close(fd);
		return errf(err, errlen, -EINVAL, "loadfile %s: %s", path,
			    S_ISREG(st.st_mode) ? "larger than 1 GiB" : "not a regular file");
	}
	f = fdopen(fd, "r");
	if (!f) {
		r = -errno;
		close(fd);
		return errf(err, errlen, r, "reading loadfile %s: %s", path, strerror(-r));
	}
	r = nb_load_parse(f, path, ret, err, errlen);
	fclose(f);
	if (r < 0)
		nb_load_free(ret);
	return r;
}

void nb_load_free(struct nb_load *l)
{
	free(l->v);
	free(l->pool);
	memset(l, 0, sizeof(*l));
}
