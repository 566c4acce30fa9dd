/* Filesystem internals where the kernel offers them: jbd2 journal, xfs log, btrfs commits. */
#include "probes/sampler/fsstats.h"
#include "base/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STATS_MAX 16384

static void add(struct probe_fs_snap *s, const char *name, uint64_t v)
{
	if (s->n < PROBE_FS_MAX_VALUES) {
		s->name[s->n] = name;
		s->v[s->n++] = v;
	}
}

int probe_fs_snap_get(const struct probe_fs_snap *s, const char *name, uint64_t *ret)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->name[i], name)) {
			*ret = s->v[i];
			return 0;
		}
	return -ENOENT;
}

static void unavailable(struct probe_fs_snap *s, const char *reason, const char *arg)
{
	s->available = false;
	snprintf(s->reason, sizeof(s->reason), reason, arg);
}

/* jbd2's "average:" lines, by their text; the unit (ms, us or none) comes before it. */
static const struct {
	const char *text, *name;
} jbd2_lines[] = {
	{ .text = "waiting for transaction", .name = "wait_ns" },
	{ .text = "request delay", .name = "request_delay_ns" },
	{ .text = "running transaction", .name = "running_ns" },
	{ .text = "transaction was being locked", .name = "locked_ns" },
	{ .text = "flushing data (in ordered mode)", .name = "flushing_ns" },
	{ .text = "logging transaction", .name = "logging_ns" },
	{ .text = "average transaction commit time", .name = "commit_time_ns" },
	{ .text = "handles per transaction", .name = "handles_per_transaction" },
	{ .text = "blocks per transaction", .name = "blocks_per_transaction" },
	{ .text = "logged blocks per transaction", .name = "logged_blocks_per_transaction" },
};

static int parse_jbd2(char *text, struct probe_fs_snap *s)
{
	unsigned long long tid, req, max;
	char *line, *save = NULL;

	if (sscanf(text, "%llu transactions (%llu requested), each up to %llu blocks", &tid, &req,
		   &max) != 3)
		return -EBADMSG;
	add(s, "transactions", tid);
	add(s, "requested_transactions", req);
	add(s, "max_transaction_blocks", max);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long v;
		char unit[8] = "";
		int off = 0;
		uint64_t mul = 1;

		if (sscanf(line, " %llu%7[a-z]%n", &v, unit, &off) < 1)
			continue;
		if (!off)
			sscanf(line, " %llu%n", &v, &off);
		if (!strcmp(unit, "ms"))
			mul = 1000000;
		else if (!strcmp(unit, "us"))
			mul = 1000;
		else if (unit[0])
			continue;
		line += off;
		line += strspn(line, " ");
		for (size_t i = 0; i < sizeof(jbd2_lines) / sizeof(jbd2_lines[0]); i++)
			if (!strcmp(line, jbd2_lines[i].text))
				add(s, jbd2_lines[i].name, v * mul);
	}
	return 0;
}

/* xfs stats lines fsbench reads, with the names of their columns (fs/xfs/xfs_stats.h). */
static const struct {
	const char *line;
	const char *cols[10];
} xfs_lines[] = {
	{ .line = "log",
	  .cols = { "log_writes", "log_blocks", "log_noiclogs", "log_forces",
		    "log_force_sleeps" } },
	{ .line = "push_ail",
	  .cols = { "push_ail_try_logspace", "push_ail_sleep_logspace", "push_ail_pushes",
		    "push_ail_success", "push_ail_pushbuf", "push_ail_pinned", "push_ail_locked",
		    "push_ail_flushing", "push_ail_restarts", "push_ail_flush" } },
	{ .line = "xpc", .cols = { "xstrat_bytes", "write_bytes", "read_bytes" } },
};

static int parse_xfs(char *text, struct probe_fs_snap *s)
{
	char *line, *save = NULL;
	bool any = false;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		for (size_t i = 0; i < sizeof(xfs_lines) / sizeof(xfs_lines[0]); i++) {
			size_t l = strlen(xfs_lines[i].line);
			char *p = line + l, *end;

			if (strncmp(line, xfs_lines[i].line, l) || (*p != ' ' && *p != '\t'))
				continue;
			for (int c = 0; c < 10 && xfs_lines[i].cols[c]; c++) {
				unsigned long long v = strtoull(p, &end, 10);

				if (end == p)
					break;
				add(s, xfs_lines[i].cols[c], v);
				p = end;
			}
			any = true;
		}
	}
	return any ? 0 : -EBADMSG;
}

static int parse_btrfs(char *text, struct probe_fs_snap *s)
{
	static const char *const keys[] = { "commits", "cur_commit_ms", "last_commit_ms",
					    "max_commit_ms", "total_commit_ms" };
	char *line, *save = NULL;
	bool any = false;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char key[32];
		unsigned long long v;

		if (sscanf(line, "%31s %llu", key, &v) != 2)
			continue;
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!strcmp(key, keys[i])) {
				add(s, keys[i], v);
				any = true;
			}
	}
	return any ? 0 : -EBADMSG;
}

/* <root>/proc/fs/jbd2/<device>-<inode>: the journal inode is 8 on ext4, but need not be. */
static int find_jbd2(const char *root, const char *device, char *out, size_t len)
{
	char dir[PATH_MAX];
	size_t dl = strlen(device);
	struct dirent *de;
	DIR *d;
	int r = -ENOENT;

	if (base_path(dir, sizeof(dir), "%s/proc/fs/jbd2", root) < 0)
		return -ENAMETOOLONG;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, device, dl) && de->d_name[dl] == '-') {
			r = base_path(out, len, "%s/%s/info", dir, de->d_name);
			break;
		}
	closedir(d);
	return r;
}

/* <root>/sys/fs/btrfs/<uuid>: by libblkid's UUID, else the one listing @device in devices/. */
static int find_btrfs(const char *root, const struct probe_target *t, char *out, size_t len)
{
	char dir[PATH_MAX], p[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int r = -ENOENT;

	if (base_path(dir, sizeof(dir), "%s/sys/fs/btrfs", root) < 0)
		return -ENAMETOOLONG;
	if (t->uuid[0] && base_path(p, sizeof(p), "%s/%s", dir, t->uuid) == 0 &&
	    access(p, F_OK) == 0)
		return base_path(out, len, "%s/commit_stats", p);
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (base_path(p, sizeof(p), "%s/%s/devices/%s", dir, de->d_name, t->device) == 0 &&
		    access(p, F_OK) == 0) {
			r = base_path(out, len, "%s/%s/commit_stats", dir, de->d_name);
			break;
		}
	}
	closedir(d);
	return r;
}

int probe_fsstats_read(const char *root, const struct probe_target *t, struct probe_fs_snap *ret)
{
	struct probe_fs_snap *s;
	int (*parse)(char *, struct probe_fs_snap *) = NULL;
	char *buf = NULL;
	ssize_t n;
	int r = 0;

	if (!t)
		return -EINVAL;
	if (!root)
		root = "";
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	if (!strcmp(t->fstype, "ext3") || !strcmp(t->fstype, "ext4")) {
		base_strcpy(s->kind, sizeof(s->kind), "jbd2");
		parse = parse_jbd2;
		if (!t->has_block_device)
			unavailable(s, "%s without a block device has no jbd2 statistics",
				    t->fstype);
		else if (find_jbd2(root, t->device, s->source, sizeof(s->source)) < 0)
			unavailable(
				s,
				"no /proc/fs/jbd2/%s-*: the filesystem has no journal (or jbd2 is not loaded)",
				t->device);
	} else if (!strcmp(t->fstype, "xfs")) {
		base_strcpy(s->kind, sizeof(s->kind), "xfs");
		parse = parse_xfs;
		if (!t->has_block_device ||
		    base_path(s->source, sizeof(s->source), "%s/sys/fs/xfs/%s/stats/stats", root,
			      t->device) < 0)
			unavailable(s, "%s", "no xfs device name to find its statistics by");
	} else if (!strcmp(t->fstype, "btrfs")) {
		base_strcpy(s->kind, sizeof(s->kind), "btrfs");
		parse = parse_btrfs;
		if (!t->has_block_device || find_btrfs(root, t, s->source, sizeof(s->source)) < 0)
			unavailable(s, "%s", "no /sys/fs/btrfs/<uuid> for this filesystem");
	} else {
		base_strcpy(s->kind, sizeof(s->kind), t->fstype[0] ? t->fstype : "unknown");
		unavailable(s, "the kernel offers no journal or commit statistics for %s",
			    t->fstype[0] ? t->fstype : "an unknown filesystem");
	}

	if (parse && !s->reason[0]) {
		buf = malloc(STATS_MAX);
		if (!buf) {
			r = -ENOMEM;
			goto out;
		}
		n = base_read_file(s->source, buf, STATS_MAX);
		if (n == -ENOENT && !strcmp(s->kind, "btrfs"))
			unavailable(s, "%s",
				    "no commit_stats: Linux before 6.0 does not have them");
		else if (n == -ENOENT && !strcmp(s->kind, "xfs"))
			unavailable(
				s, "%s",
				"no per-filesystem stats: the kernel lacks CONFIG_XFS_STATS or predates them");
		else if (n < 0)
			unavailable(s, "cannot read it: %s", strerror((int)-n));
		else if (parse(buf, s) < 0)
			unavailable(s, "%s", "the file's format is not one fsbench knows");
		else
			s->available = true;
	}
	*ret = *s;
out:
	free(buf);
	free(s);
	return r;
}

/* After minus before, or null when either lacks it or it went backwards (remount). */
static json_t *delta(const struct probe_fs_snap *a, const struct probe_fs_snap *b, const char *name,
		     uint64_t scale)
{
	uint64_t x, y;

	if (probe_fs_snap_get(a, name, &x) < 0 || probe_fs_snap_get(b, name, &y) < 0 || y < x)
		return json_null();
	return json_integer((json_int_t)((y - x) * scale));
}

static json_t *value(const struct probe_fs_snap *s, const char *name, uint64_t scale)
{
	uint64_t x;

	return probe_fs_snap_get(s, name, &x) < 0 ? json_null() :
						    json_integer((json_int_t)(x * scale));
}

static json_t *raw(const struct probe_fs_snap *s)
{
	json_t *o = json_object();

	for (int i = 0; o && i < s->n; i++)
		json_object_set_new(o, s->name[i], json_integer((json_int_t)s->v[i]));
	return o;
}

/* The mean over the run of a per-transaction mean the kernel keeps since mount. */
static json_t *run_mean(const struct probe_fs_snap *a, const struct probe_fs_snap *b,
			const char *name)
{
	uint64_t na, nb, ma, mb;
	double total;

	if (probe_fs_snap_get(a, "transactions", &na) < 0 ||
	    probe_fs_snap_get(b, "transactions", &nb) < 0 || nb <= na ||
	    probe_fs_snap_get(b, name, &mb) < 0)
		return json_null();
	/* with no transaction before, the kernel prints no averages at all */
	if (probe_fs_snap_get(a, name, &ma) < 0)
		ma = 0;
	total = (double)mb * (double)nb - (double)ma * (double)na;
	return json_real(total > 0 ? total / (double)(nb - na) : 0);
}

static void jbd2_json(json_t *o, const struct probe_fs_snap *a, const struct probe_fs_snap *b)
{
	uint64_t na = 0, nb = 0;

	json_object_set_new(o, "transactions", delta(a, b, "transactions", 1));
	json_object_set_new(o, "requested_transactions", delta(a, b, "requested_transactions", 1));
	json_object_set_new(o, "handles_per_transaction",
			    run_mean(a, b, "handles_per_transaction"));
	json_object_set_new(o, "blocks_per_transaction", run_mean(a, b, "blocks_per_transaction"));
	json_object_set_new(o, "logged_blocks_per_transaction",
			    run_mean(a, b, "logged_blocks_per_transaction"));
	probe_fs_snap_get(a, "transactions", &na);
	probe_fs_snap_get(b, "transactions", &nb);
	/* each printed mean is truncated by less than 1, so the rebuilt total is off by < na + nb */
	json_object_set_new(o, "per_transaction_uncertainty",
			    nb > na ? json_real((double)(na + nb) / (double)(nb - na)) :
				      json_null());
	json_object_set_new(o, "average_commit_time_ns", value(b, "commit_time_ns", 1));
}

static void xfs_json(json_t *o, const struct probe_fs_snap *a, const struct probe_fs_snap *b)
{
	json_object_set_new(o, "log_writes", delta(a, b, "log_writes", 1));
	/* xfs counts log blocks in 512-byte basic blocks */
	json_object_set_new(o, "log_bytes", delta(a, b, "log_blocks", 512));
	json_object_set_new(o, "log_forces", delta(a, b, "log_forces", 1));
	json_object_set_new(o, "log_force_sleeps", delta(a, b, "log_force_sleeps", 1));
	json_object_set_new(o, "log_noiclogs", delta(a, b, "log_noiclogs", 1));
	for (int c = 0; c < 10; c++)
		json_object_set_new(o, xfs_lines[1].cols[c], delta(a, b, xfs_lines[1].cols[c], 1));
	json_object_set_new(o, "write_bytes", delta(a, b, "write_bytes", 1));
}

static void btrfs_json(json_t *o, const struct probe_fs_snap *a, const struct probe_fs_snap *b)
{
	uint64_t ca, cb, ta, tb;

	json_object_set_new(o, "commits", delta(a, b, "commits", 1));
	json_object_set_new(o, "total_commit_ns", delta(a, b, "total_commit_ms", 1000000));
	if (probe_fs_snap_get(a, "commits", &ca) == 0 &&
	    probe_fs_snap_get(b, "commits", &cb) == 0 &&
	    probe_fs_snap_get(a, "total_commit_ms", &ta) == 0 &&
	    probe_fs_snap_get(b, "total_commit_ms", &tb) == 0 && cb > ca && tb >= ta)
		json_object_set_new(o, "mean_commit_ns",
				    json_real((double)(tb - ta) * 1e6 / (double)(cb - ca)));
	else
		json_object_set_new(o, "mean_commit_ns", json_null());
	json_object_set_new(o, "last_commit_ns", value(b, "last_commit_ms", 1000000));
	json_object_set_new(o, "max_commit_ns_since_mount", value(b, "max_commit_ms", 1000000));
}

json_t *probe_fsstats_json(const struct probe_fs_snap *a, const struct probe_fs_snap *b)
{
	json_t *top = json_object(), *o = json_object();

	if (!top || !o) {
		json_decref(top);
		json_decref(o);
		return NULL;
	}
	json_object_set_new(o, "source", b->source[0] ? json_string(b->source) : json_null());
	if (!a->available || !b->available || strcmp(a->kind, b->kind)) {
		const char *why = !b->available ? b->reason :
				  !a->available ? a->reason :
						  "the filesystem changed";

		json_object_set_new(o, "available", json_false());
		json_object_set_new(o, "reason", json_string(why));
	} else {
		json_object_set_new(o, "available", json_true());
		if (!strcmp(b->kind, "jbd2"))
			jbd2_json(o, a, b);
		else if (!strcmp(b->kind, "xfs"))
			xfs_json(o, a, b);
		else if (!strcmp(b->kind, "btrfs"))
			btrfs_json(o, a, b);
		json_object_set_new(o, "before", raw(a));
		json_object_set_new(o, "after", raw(b));
	}
	json_object_set_new(top, b->kind, o);
	return top;
}
