/*
 * `fsbench history run`: a night's job in one command. Each kernel is booted --boots times by
 * this same program's kernel-run (/proc/self/exe), --jobs at a time, each boot's result
 * written into the work directory and added to the store by kernel-run --history. A kernel
 * whose boots of this suite the store already holds is not booted again.
 */
#include "fsbench/cli/history_run.h"
#include "fsbench/cli/commands.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fsbench/history/db.h"
#include "fsbench/history/ident.h"
#include "fsbench/kgate/kgate.h"
#include "fsbench/kgate/preboot.h"

#define O(f) offsetof(struct hrun_cfg, f)
const struct fsb_opt hrun_opts[] = {
	OPT_DB(O(db)),
	{ .name = "boots",
	  .type = OPT_INT,
	  .offset = O(boots),
	  .min = 1,
	  .max = 100,
	  .def = "2",
	  .help = "complete boots each kernel should have in the store" },
	{ .name = "jobs",
	  .type = OPT_INT,
	  .offset = O(jobs),
	  .min = 1,
	  .max = 64,
	  .def = "1",
	  .help = "boots at a time (each a kernel-run of its own)" },
	{ .name = "suite",
	  .type = OPT_STRING,
	  .offset = O(suite),
	  .def = KG_DEFAULT_SUITE,
	  .help = "the suite each boot runs (a name or a suite file, as kernel-run's)" },
	{ .name = "workdir",
	  .type = OPT_STRING,
	  .offset = O(workdir),
	  .def = "fsbench-history-run",
	  .file = OPT_DIR,
	  .help = "where each boot's result, log and kernel-run work directory are kept, "
		  "under SUITE-KEY/RELEASE_PACKAGE/boot-N" },
	{ 0 },
};
#undef O

void hrun_usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench history run [--db STORE] [--boots N] [--jobs N] [--suite S]\n"
		"                           [-- KERNEL-RUN-OPTIONS] KERNEL...\n\n"
		"Boots each KERNEL (a linux-image .deb, a bzImage, or a release installed under /boot)\n"
		"--boots times with `fsbench kernel-run --json ... --history STORE`, --jobs at a time,\n"
		"and so adds every boot's result to the store. A kernel (release and package version)\n"
		"that already has --boots complete boots of this suite in the store is skipped\n"
		"without booting, so a second night boots only what is new. The suite's key (in the\n"
		"work directory's names and so in the store's file paths) is the suite and the\n"
		"kernel-run options after \"--\" (but --timeout, --boot-timeout, --disk-dir,\n"
		"--lava-token-file, --lava-priority). With \"-- --lava URL --lava-token-file F\" each\n"
		"boot is a job on that LAVA server. A boot that fails is said and counted, and the\n"
		"run goes on. Exit 0: every boot added; 125: some kernel could not be booted (or\n"
		"its suite failed); 2: usage; 128: the system or the store failed.\n\n");
}

/* kernel-run options history run sets itself */
static const char *const own_opts[] = { "--kernel", "--json", "--history", "--workdir", NULL };
/*
 * kernel-run options that change no result: not part of the suite's key (--lava's URL is:
 * a LAVA lab's boots are not a local machine's, docs/lava.md)
 */
static const char *const keyless_opts[] = { "--timeout",	 "--boot-timeout",  "--disk-dir",
					    "--lava-token-file", "--lava-priority", NULL };

static bool opt_is(const char *arg, const char *const *names)
{
	for (int i = 0; names[i]; i++) {
		size_t n = strlen(names[i]);

		if (!strncmp(arg, names[i], n) && (!arg[n] || arg[n] == '='))
			return true;
	}
	return false;
}

int hrun_operand(void *cfg, char *arg, char *err, size_t errlen)
{
	struct hrun_cfg *c = cfg;
	int v = 0;

	if (c->want_value || arg[0] == '-') {
		if (c->npass >= KG_RUN_MAX_ARGS - 16) {
			snprintf(err, errlen, "%s: too many kernel-run options", arg);
			return -EINVAL;
		}
		if (!c->want_value && opt_is(arg, own_opts)) {
			snprintf(err, errlen, "%s: history run sets it for each boot", arg);
			return -EINVAL;
		}
		if (!c->want_value && (v = kg_run_opt_value(arg)) < 0) {
			snprintf(err, errlen,
				 "%s: not a kernel-run option (fsbench kernel-run --help)", arg);
			return -EINVAL;
		}
		c->want_value = !c->want_value && v == 1;
		c->pass[c->npass++] = arg;
		return 0;
	}
	if (c->nkernels >= CMD_MAX_FILES) {
		snprintf(err, errlen, "%s: more than %d kernels", arg, CMD_MAX_FILES);
		return -EINVAL;
	}
	c->kernels[c->nkernels++] = arg;
	return 0;
}

/* One kernel of the night: who it is before it boots, and its boots. */
struct hrun_kernel {
	const char *spec;
	char release[256], package[256];
	char dir[PATH_MAX]; /* WORKDIR/KEY/RELEASE_PACKAGE */
	int have; /* complete boots of the suite in the store */
	int next; /* the next boot's number */
	int todo, added, failed;
};

/* A name for a path component: [A-Za-z0-9._+~-] kept, anything else '-'. */
static void name_clean(char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("._+~-", *s)))
			*s = '-';
}

/*
 * The suite's key: its name, then FNV-1a 64 of the suite and the kernel-run options that
 * can change a result, "kgate-0123456789abcdef".
 */
static void suite_key(const struct hrun_cfg *c, char *out, size_t len)
{
	const char *base = strrchr(c->suite, '/');
	uint64_t h = 0xcbf29ce484222325ULL;
	char name[48];
	size_t n;

	for (int i = -1; i < c->npass; i++) {
		const char *s = i < 0 ? c->suite : c->pass[i];

		if (i >= 0 && opt_is(s, keyless_opts)) {
			i += kg_run_opt_value(s) == 1; /* and its value */
			continue;
		}
		for (; *s; s++)
			h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
		h = (h ^ 0) * 0x100000001b3ULL;
	}
	snprintf(name, sizeof(name), "%s", base ? base + 1 : c->suite);
	n = strlen(name);
	if (n > 5 && !strcmp(name + n - 5, ".json"))
		name[n - 5] = 0;
	name_clean(name);
	for (char *p = name; *p; p++) /* the key is matched by LIKE, where '_' is any character */
		if (*p == '_')
			*p = '-';
	snprintf(out, len, "%s-%016" PRIx64, name, h);
}

/* `dpkg-deb -f DEB Package`'s linux-image-RELEASE[-unsigned]: the release it installs. */
static void deb_release(const char *deb, char *out, size_t len)
{
	char buf[256] = "", *p;
	int fds[2], st;
	ssize_t n = 0, r;
	pid_t pid;

	out[0] = 0;
	if (pipe2(fds, O_CLOEXEC))
		return;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(fds[1], 1);
		if (null >= 0)
			dup2(null, 2), dup2(null, 0);
		execlp("dpkg-deb", "dpkg-deb", "-f", deb, "Package", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (pid > 0 && (size_t)n < sizeof(buf) - 1 &&
	       ((r = read(fds[0], buf + n, sizeof(buf) - 1 - (size_t)n)) > 0 ||
		(r < 0 && errno == EINTR)))
		n += r > 0 ? r : 0;
	close(fds[0]);
	buf[n] = 0;
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return;
	buf[strcspn(buf, "\n")] = 0;
	p = strncmp(buf, "linux-image-", 12) ? NULL : buf + 12;
	if (!p || !*p)
		return;
	n = (ssize_t)strlen(p);
	if (n > 9 && !strcmp(p + n - 9, "-unsigned"))
		p[n - 9] = 0;
	snprintf(out, len, "%s", p);
}

/*
 * Who @k->spec is before it boots, as the store will name it: a .deb's release (its
 * package's name) and version (its file name's, as hist_kernel_of() reads it), a bzImage's
 * release from its header, or an installed release. 0, or -ENOENT when it names nothing.
 */
static int kernel_ident(struct hrun_kernel *k)
{
	size_t n = strlen(k->spec);
	char path[PATH_MAX];
	struct stat st;

	k->release[0] = k->package[0] = 0;
	if (!stat(k->spec, &st) && S_ISREG(st.st_mode)) {
		if (n > 4 && !strcmp(k->spec + n - 4, ".deb")) {
			hist_deb_version(k->spec, k->package, sizeof(k->package));
			deb_release(k->spec, k->release, sizeof(k->release));
		} else if (kg_bzimage_release(k->spec, k->release, sizeof(k->release))) {
			k->release[0] = 0;
		}
		return 0;
	}
	snprintf(path, sizeof(path), "/boot/vmlinuz-%s", k->spec);
	if (strchr(k->spec, '/') || access(path, F_OK))
		return -ENOENT;
	snprintf(k->release, sizeof(k->release), "%s", k->spec);
	return 0;
}

static int first_count(void *arg, const struct hist_row *row)
{
	*(long long *)arg = row->n > 0 && row->v[0] ? atoll(row->v[0]) : 0;
	return 0;
}

/*
 * The complete boots of kernel @k with the suite @key the store holds: files added from
 * WORKDIR/KEY/..., with a run of that kernel and none incomplete.
 */
static int store_count(struct hist_db *db, const struct hrun_kernel *k, const char *key, char *err,
		       size_t errlen)
{
	static const char sql[] =
		"SELECT count(*) FROM files f WHERE f.path LIKE $3 AND EXISTS (SELECT 1 FROM runs r "
		"JOIN kernels k ON k.id = r.kernel_id WHERE r.file_id = f.id AND k.release = $1 "
		"AND k.package = $2) AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.file_id = f.id "
		"AND r.complete = 0)";
	char like[256];
	const char *v[] = { k->release, k->package, like };
	const struct hist_row params = { v, 3 };
	long long count = 0;
	int e;

	snprintf(like, sizeof(like), "%%/%s/%%", key);
	e = hist_db_query(db, sql, &params, first_count, &count, err, errlen);
	return e < 0 ? e : (int)count;
}

/* One boot under way. */
struct hrun_boot {
	pid_t pid;
	struct hrun_kernel *k;
	int n;
	struct timespec t0;
};

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The last line of @path that is not empty, for a failed boot's reason. */
static void last_line(const char *path, char *out, size_t len)
{
	char line[1024];
	FILE *f = fopen(path, "re");

	snprintf(out, len, "(no log)");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0])
			snprintf(out, len, "%s", line);
	}
	if (f)
		fclose(f);
}

/* Starts boot @b->n of @b->k: kernel-run in a child, its output in boot-N.log. */
static int boot_start(const struct hrun_cfg *c, struct hrun_boot *b)
{
	char json[PATH_MAX + 32], wd[PATH_MAX + 32], log[PATH_MAX + 32];
	char *argv[KG_RUN_MAX_ARGS + 16];
	int argc = 0;
	pid_t parent = getpid();

	snprintf(json, sizeof(json), "%s/boot-%d.json", b->k->dir, b->n);
	snprintf(wd, sizeof(wd), "%s/boot-%d", b->k->dir, b->n);
	snprintf(log, sizeof(log), "%s/boot-%d.log", b->k->dir, b->n);
	argv[argc++] = "fsbench";
	argv[argc++] = "kernel-run";
	argv[argc++] = "--kernel";
	argv[argc++] = (char *)b->k->spec;
	argv[argc++] = "--json";
	argv[argc++] = json;
	argv[argc++] = "--history";
	argv[argc++] = c->db ? c->db : "default";
	argv[argc++] = "--workdir";
	argv[argc++] = wd;
	for (int i = 0; i < c->npass; i++)
		argv[argc++] = c->pass[i];
	argv[argc++] = c->suite;
	argv[argc] = NULL;
	fflush(NULL);
	clock_gettime(CLOCK_MONOTONIC, &b->t0);
	b->pid = fork();
	if (b->pid < 0)
		return -errno;
	if (b->pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

		/* a boot never outlives the night's job */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (fd < 0 || null < 0 || getppid() != parent || dup2(fd, 1) < 0 ||
		    dup2(fd, 2) < 0 || dup2(null, 0) < 0)
			_exit(FSB_EXIT_SYSTEM);
		execv("/proc/self/exe", argv);
		dprintf(2, "fsbench history run: running /proc/self/exe: %s\n", strerror(errno));
		_exit(FSB_EXIT_SYSTEM);
	}
	printf("%s (%s) boot %d: booting, log %s\n", b->k->release[0] ? b->k->release : b->k->spec,
	       b->k->package[0] ? b->k->package : "-", b->n, log);
	return 0;
}

/* Plans @k: its work directory, the boots the store has and those to make. 0 or an exit status. */
static int kernel_plan(const struct hrun_cfg *c, struct hist_db *db, const char *root,
		       const char *key, struct hrun_kernel *k)
{
	char name[600], err[2048];
	struct stat st;
	int have;

	if (kernel_ident(k))
		return cmd_fail(FSB_EXIT_USAGE, "history run",
				"%s: no such kernel file, nor a release installed under /boot",
				k->spec);
	if (k->release[0]) {
		snprintf(name, sizeof(name), "%s_%s", k->release, k->package[0] ? k->package : "-");
	} else { /* not known before it boots: by its file's name, and never skipped */
		const char *b = strrchr(k->spec, '/');

		snprintf(name, sizeof(name), "%s", b ? b + 1 : k->spec);
	}
	name_clean(name);
	if ((size_t)snprintf(k->dir, sizeof(k->dir), "%s/%s/%s", root, key, name) >= sizeof(k->dir))
		return cmd_fail(FSB_EXIT_USAGE, "history run",
				"%s: the work directory's path is "
				"too long",
				k->spec);
	have = k->release[0] ? store_count(db, k, key, err, sizeof(err)) : 0;
	if (have < 0)
		return cmd_fail(have == -EINVAL ? FSB_EXIT_USAGE : FSB_EXIT_SYSTEM, "history run",
				"counting %s's boots in the store: %s", k->spec, err);
	k->have = have;
	k->todo = have >= c->boots ? 0 : (int)c->boots - have;
	/* the next boot number free in the work directory: a failed boot's files are kept */
	k->next = 1;
	for (;;) {
		char p[PATH_MAX + 32], q[PATH_MAX + 32];

		snprintf(p, sizeof(p), "%s/boot-%d.json", k->dir, k->next);
		snprintf(q, sizeof(q), "%s/boot-%d", k->dir, k->next);
		if (stat(p, &st) && stat(q, &st))
			break;
		k->next++;
	}
	if (!k->release[0])
		printf("%s: its release is not known before it boots: booting %d\n", k->spec,
		       k->todo);
	else if (!k->todo)
		printf("%s (%s): %d complete boot%s of %s in the store already: skipped\n",
		       k->release, k->package[0] ? k->package : "-", have, have == 1 ? "" : "s",
		       key);
	else if (have)
		printf("%s (%s): %d of %d boots in the store: booting %d\n", k->release,
		       k->package[0] ? k->package : "-", have, (int)c->boots, k->todo);
	return 0;
}

/* mkdir -p @path (0755). */
static int mkdirs(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(buf, 0755) && errno != EEXIST)
				return -errno;
			*p = '/';
		}
	return mkdir(buf, 0755) && errno != EEXIST ? -errno : 0;
}

/* What one finished boot means for the night: 0 go on, else the status to stop with. */
static int boot_done(struct hrun_boot *b, int wst, int *failed)
{
	char log[PATH_MAX + 32], why[1024];
	int st = WIFEXITED(wst) ? WEXITSTATUS(wst) : 128 + WTERMSIG(wst);
	const char *who = b->k->release[0] ? b->k->release : b->k->spec;
	const char *pkg = b->k->package[0] ? b->k->package : "-";

	snprintf(log, sizeof(log), "%s/boot-%d.log", b->k->dir, b->n);
	if (st == FSB_EXIT_OK) {
		b->k->added++;
		printf("%s (%s) boot %d: added, %.0f s\n", who, pkg, b->n, since(&b->t0));
		return 0;
	}
	last_line(log, why, sizeof(why));
	printf("%s (%s) boot %d: FAILED, exit %d after %.0f s: %s\n", who, pkg, b->n, st,
	       since(&b->t0), why);
	if (st == FSB_EXIT_USAGE || st >= FSB_EXIT_SYSTEM)
		return st; /* the options or the system, not this kernel: no other boot does better */
	b->k->failed++;
	(*failed)++;
	return 0;
}

int hrun_run(void *cfg)
{
	struct hrun_cfg *c = cfg;
	struct hrun_kernel *ks;
	struct hrun_boot *running;
	struct hist_db *db = NULL;
	char root[PATH_MAX], key[96], err[2048];
	int status = 0, failed = 0, nrun = 0, booted = 0, skipped = 0, todo = 0, e;
	struct timespec t0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (c->want_value)
		return cmd_fail(FSB_EXIT_USAGE, "history run", "%s: a value is required",
				c->pass[c->npass - 1]);
	if (!c->nkernels)
		return cmd_fail(FSB_EXIT_USAGE, "history run", "no kernels (see --help)");
	if (c->npass) {
		char *argv[KG_RUN_MAX_ARGS + 1] = { "kernel-run" };

		memcpy(argv + 1, c->pass, (size_t)c->npass * sizeof(*argv));
		if (kg_run_args_check(c->npass + 1, argv, err, sizeof(err)))
			return cmd_fail(FSB_EXIT_USAGE, "history run", "kernel-run options: %s",
					err);
	}
	if ((e = mkdirs(c->workdir)) || !realpath(c->workdir, root))
		return cmd_fail(FSB_EXIT_SYSTEM, "history run",
				"creating the work directory %s: %s", c->workdir,
				strerror(e ? -e : errno));
	suite_key(c, key, sizeof(key));
	e = hist_db_open(c->db, &db, err, sizeof(err));
	if (e)
		return cmd_fail(e == -EINVAL ? FSB_EXIT_USAGE : FSB_EXIT_SYSTEM, "history run",
				"opening the store %s", err);
	ks = calloc((size_t)c->nkernels, sizeof(*ks));
	running = calloc((size_t)c->jobs, sizeof(*running));
	if (!ks || !running) {
		status = cmd_fail(FSB_EXIT_SYSTEM, "history run", "%s", strerror(ENOMEM));
		goto out;
	}
	printf("history run: %d kernel%s, %d boot%s each of suite %s, %d at a time, store %s, "
	       "work directory %s/%s\n",
	       c->nkernels, c->nkernels == 1 ? "" : "s", (int)c->boots, c->boots == 1 ? "" : "s",
	       c->suite, (int)c->jobs, db->where, root, key);
	for (int i = 0; i < c->nkernels && !status; i++) {
		ks[i].spec = c->kernels[i];
		status = kernel_plan(c, db, root, key, &ks[i]);
		for (int j = 0; j < i && !status; j++)
			if (!strcmp(ks[i].dir, ks[j].dir))
				status = cmd_fail(FSB_EXIT_USAGE, "history run",
						  "%s: the same kernel as %s", ks[i].spec,
						  ks[j].spec);
		skipped += !status && !ks[i].todo;
		todo += ks[i].todo;
	}
	db = hist_db_close(db); /* the boots' kernel-runs write it */
	if (!status)
		printf("history run: %d boot%s to make\n", todo, todo == 1 ? "" : "s");
	for (int i = 0; i < c->nkernels && !status; i++)
		if (ks[i].todo && (e = mkdirs(ks[i].dir)))
			status = cmd_fail(FSB_EXIT_SYSTEM, "history run", "creating %s: %s",
					  ks[i].dir, strerror(-e));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* in the order given, each kernel's boots in turn: a kernel's boots finish together */
	for (int i = 0, stop = status; i < c->nkernels || nrun;) {
		int wst;
		pid_t pid;

		while (!stop && nrun < c->jobs && i < c->nkernels) {
			struct hrun_boot *b = &running[nrun];

			if (!ks[i].todo) {
				i++;
				continue;
			}
			*b = (struct hrun_boot){ .k = &ks[i], .n = ks[i].next++ };
			ks[i].todo--;
			if ((e = boot_start(c, b))) {
				stop = status = cmd_fail(FSB_EXIT_SYSTEM, "history run",
							 "starting a boot: %s", strerror(-e));
				break;
			}
			nrun++;
			booted++;
		}
		if (stop && !nrun)
			break;
		if (!nrun)
			continue;
		pid = waitpid(-1, &wst, 0);
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0) {
			status = cmd_fail(FSB_EXIT_SYSTEM, "history run", "waiting for a boot: %s",
					  strerror(errno));
			break;
		}
		for (int j = 0; j < nrun; j++) {
			int r;

			if (running[j].pid != pid)
				continue;
			r = boot_done(&running[j], wst, &failed);
			if (r && !stop)
				stop = status = r;
			running[j] = running[--nrun];
			break;
		}
	}
	printf("history run: %d boot%s (%d failed), %d kernel%s skipped as in the store, in %.0f "
	       "s\n",
	       booted, booted == 1 ? "" : "s", failed, skipped, skipped == 1 ? "" : "s",
	       since(&t0));
	if (!status && failed)
		status = FSB_EXIT_CANNOT_JUDGE;
out:
	free(running);
	free(ks);
	hist_db_close(db);
	return status;
}
