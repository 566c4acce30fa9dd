/* `fsbench bisect`: the first bad kernel of a list, or the first bad commit, gate by gate. */
#include "fsbench/cli/args.h"
#include "fsbench/cli/commands.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <jansson.h>

#include "base/spawn.h"
#include "fsbench/bisect/bisect.h"
#include "model/result_file.h"

/* Kernels a list may hold: a limit on what a user's directory can make us sort and gate. */
#define MAX_KERNELS 4096

struct bisect_cfg {
	struct cmd_files files;
	char *good, *bad, *metric, *gate_cmd, *git, *build, *workdir, *resume;
	int64_t build_timeout;
	/* not options: what follows "--", handed to kernel-gate */
	char **gate_argv;
	int gate_argc;
};

#define O(f) offsetof(struct bisect_cfg, f)
static const struct fsb_opt bisect_opts[] = {
	{ .name = "good",
	  .type = OPT_STRING,
	  .offset = O(good),
	  .help = "the good end: a kernel of the list (path, file name or package version), or "
		  "with --git a commit" },
	{ .name = "bad",
	  .type = OPT_STRING,
	  .offset = O(bad),
	  .help = "the bad end, as --good; it is gated against --good first" },
	{ .name = "metric",
	  .type = OPT_STRING,
	  .offset = O(metric),
	  .help = "NAME[@CELL]: a step is bad only when this metric regressed (in the sample "
		  "labelled CELL); a gate that regressed on others only is good" },
	{ .name = "git",
	  .type = OPT_STRING,
	  .offset = O(git),
	  .file = OPT_DIR,
	  .help = "bisect the commits of this git work tree between --good and --bad (needs "
		  "--build); it is put back with git bisect reset at the end" },
	{ .name = "build",
	  .type = OPT_STRING,
	  .offset = O(build),
	  .help = "with --git: the shell command that builds a commit (run in TREE) and leaves "
		  "the kernel image or .deb in $FSBENCH_BISECT_OUT; a failed build is skipped" },
	{ .name = "build-timeout",
	  .type = OPT_DURATION,
	  .offset = O(build_timeout),
	  .min = INT64_C(1000000000),
	  .max = INT64_C(604800000000000),
	  .def = "2h",
	  .help = "a build still running then is killed (its process group) and skipped" },
	{ .name = "workdir",
	  .type = OPT_STRING,
	  .offset = O(workdir),
	  .file = OPT_DIR,
	  .help = "where bisect.json and every step's step-N/ go (default a new "
		  "fsbench-bisect-XXXXXX)" },
	{ .name = "resume",
	  .type = OPT_STRING,
	  .offset = O(resume),
	  .file = OPT_DIR,
	  .help = "continue the bisection in DIR from its bisect.json: its steps are not gated "
		  "again; --good, --bad, --metric, --git and the kernels are taken from it, or "
		  "must be the same" },
	{ .name = "gate-cmd",
	  .type = OPT_STRING,
	  .offset = O(gate_cmd),
	  .help = "testing: run the shell command CMD BASELINE CANDIDATE STEPDIR instead of "
		  "kernel-gate (exit 0/1/125, may write STEPDIR/kernel-gate.json)" },
	{ 0 },
};
#undef O

static void usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench bisect --good K --bad K [options] [KERNEL|DIR...] [-- KERNEL-GATE-OPTIONS]\n"
		"       fsbench bisect --git TREE --good SHA --bad SHA --build CMD [options] [-- ...]\n"
		"       fsbench bisect --resume DIR [options] [-- ...]\n\n"
		"Orders the kernels (.deb files by package version, else by name as sort -V),\n"
		"keeps those between --good and --bad, gates --bad against --good, then halves as git\n"
		"bisect does: the middle kernel is gated against --good with fsbench kernel-gate\n"
		"(0 good, 1 bad, 125 skipped: its neighbours are gated instead). What follows \"--\"\n"
		"is handed to every kernel-gate (--boots, --repetitions, --disk, --qemu...).\n"
		"Exit 0: the first bad one was found; 125: it cannot be judged (why is said);\n"
		"2: usage, or a gate refused its options; 128: the system failed; 128+N: signal N\n"
		"(--resume DIR continues from DIR/bisect.json, gating only what was not decided).\n\n");
}

static volatile int stopped; /* the signal that asks us to stop, or 0 */

static void on_signal(int sig)
{
	stopped = sig;
}

/* One step of the record, and what it printed. */
struct step {
	char what[PATH_MAX]; /* kernel path or commit */
	enum bs_mark mark;
	int status, build_status; /* -1: none */
	struct bs_gate g;
	char dir[PATH_MAX + 32];
	char image[PATH_MAX + 400]; /* a build's kernel; "" when none */
};

struct ctx {
	struct bisect_cfg *c;
	char metric[96], *cell;
	char dir[PATH_MAX];
	json_t *record, *steps;
	int nstep;
	/* git mode */
	bool bisecting;
	char good_image[PATH_MAX];
	/* --resume: the steps recorded before (x->steps holds them first), and its answer */
	int resumed;
	const char *done_answer;
	int done_exit;
};

/* the command's one-line refusal (args.h), with its status */
#define fail(status, ...) cmd_fail(status, "bisect", __VA_ARGS__)

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static const char *const mark_names[] = { "untested", "good", "bad", "skip" };

/* bisect.json, rewritten after every step so an interrupted bisection leaves what it did */
static void record_write(struct ctx *x)
{
	char path[PATH_MAX + 16];
	int e;

	snprintf(path, sizeof(path), "%s/bisect.json", x->dir);
	if ((e = mdl_json_write_atomic(x->record, path)))
		fprintf(stderr, "fsbench bisect: writing %s: %s\n", path, strerror(-e));
}

static void record_step(struct ctx *x, const struct step *s, const char *build_log)
{
	json_t *o = json_pack("{s:i, s:s, s:s}", "step", x->nstep, x->c->git ? "commit" : "kernel",
			      s->what, "verdict", mark_names[s->mark]);

	if (s->status >= 0) /* the gate's; none for the good commit's build */
		json_object_set_new(o, "exit", json_integer(s->status));

	if (s->g.found) {
		json_object_set_new(o, "metric", json_string(s->g.metric));
		json_object_set_new(o, "cell", json_string(s->g.cell));
		json_object_set_new(o, "change_pct", num_or_null(s->g.change));
		json_object_set_new(o, "floor_pct", num_or_null(s->g.floor));
	}
	if (build_log) {
		json_object_set_new(o, "build_status", json_integer(s->build_status));
		json_object_set_new(o, "build_log", json_string(build_log));
	}
	if (s->image[0]) /* what was built: the good commit's is every step's baseline */
		json_object_set_new(o, "image", json_string(s->image));
	json_object_set_new(o, "dir", json_string(s->dir));
	json_array_append_new(x->steps, o);
	record_write(x);
}

/* The answer, said and recorded; returns the exit status. */
static int answer(struct ctx *x, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int answer(struct ctx *x, int status, const char *fmt, ...)
{
	char line[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	printf("%s\n", line);
	json_object_set_new(x->record, "answer", json_string(line));
	json_object_set_new(x->record, "exit", json_integer(status));
	record_write(x);
	return status;
}

static void say_step(const struct ctx *x, const struct step *s, const char *name, const char *note)
{
	printf("step %d: %s: %s", x->nstep, name, mark_names[s->mark]);
	if (s->g.found) {
		printf(" (%s%s%s %+.2f%%", s->g.metric, s->g.cell[0] ? "@" : "", s->g.cell,
		       s->g.change);
		if (isfinite(s->g.floor))
			printf(", floor %.2f%%", s->g.floor);
		printf(")");
	} else if (s->status >= 0) {
		printf(" (exit %d)", s->status);
	}
	printf("%s%s\n", note ? ": " : "", note ? note : "");
	fflush(stdout);
}

/* A recorded verdict's mark; BS_UNTESTED for anything else. */
static enum bs_mark mark_of(const char *verdict)
{
	for (int m = BS_GOOD; verdict && m <= BS_SKIP; m++)
		if (!strcmp(verdict, mark_names[m]))
			return m;
	return BS_UNTESTED;
}

/* --resume: a step bisect.json recorded, said again as say_step() said it. */
static void say_recorded(const json_t *o, const char *name)
{
	const char *m = json_string_value(json_object_get(o, "metric"));
	const char *cell = json_string_value(json_object_get(o, "cell"));
	const json_t *ch = json_object_get(o, "change_pct"), *fl = json_object_get(o, "floor_pct");
	const json_t *ex = json_object_get(o, "exit");

	printf("step %d: %s: %s", (int)json_integer_value(json_object_get(o, "step")), name,
	       json_string_value(json_object_get(o, "verdict")));
	if (m && json_is_number(ch)) {
		printf(" (%s%s%s %+.2f%%", m, cell && cell[0] ? "@" : "", cell ? cell : "",
		       json_number_value(ch));
		if (json_is_number(fl))
			printf(", floor %.2f%%", json_number_value(fl));
		printf(")");
	} else if (json_is_integer(ex)) {
		printf(" (exit %d)", (int)json_integer_value(ex));
	}
	printf(": recorded, not gated again\n");
	fflush(stdout);
}

/*
 * Gates @cand against @base into @s->dir: the mark, or a negative exit status that stops
 * the bisection (a gate's usage error, a system failure, a signal).
 */
static int gate(struct ctx *x, const char *base, const char *cand, struct step *s)
{
	char log[PATH_MAX + 64], doc[PATH_MAX + 64], err[1024], self[PATH_MAX];
	char *argv[16 + 256];
	int n = 0, st, r;
	ssize_t l;

	snprintf(log, sizeof(log), "%s/gate.log", s->dir);
	if (x->c->gate_cmd) {
		argv[n++] = "sh";
		argv[n++] = "-c";
		argv[n++] = NULL; /* below */
		argv[n++] = "sh";
	} else {
		if ((l = readlink("/proc/self/exe", self, sizeof(self) - 1)) < 0)
			return -fail(FSB_EXIT_SYSTEM, "reading /proc/self/exe: %s",
				     strerror(errno));
		self[l] = 0;
		argv[n++] = self;
		argv[n++] = "kernel-gate";
		argv[n++] = "--baseline";
		argv[n++] = (char *)base;
		argv[n++] = "--candidate";
		argv[n++] = (char *)cand;
		argv[n++] = "--workdir";
		argv[n++] = s->dir;
		for (int i = 0; i < x->c->gate_argc && i < 256; i++)
			argv[n++] = x->c->gate_argv[i];
		argv[n] = NULL;
	}
	char *script = NULL;

	if (x->c->gate_cmd) {
		if (asprintf(&script, "%s \"$@\"", x->c->gate_cmd) < 0)
			return -fail(FSB_EXIT_SYSTEM, "no memory");
		argv[2] = script;
		argv[n++] = (char *)base;
		argv[n++] = (char *)cand;
		argv[n++] = s->dir;
		argv[n] = NULL;
	}
	r = bs_run(&(struct bs_cmd){ .argv = argv, .log = log }, &stopped, &st);
	free(script);
	if (r == -EINTR)
		return -(128 + stopped);
	if (r)
		return -fail(FSB_EXIT_SYSTEM, "running the gate for %s: %s", cand, strerror(-r));
	s->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	snprintf(doc, sizeof(doc), "%s/kernel-gate.json", s->dir);
	if (!access(doc, F_OK)) {
		if (bs_gate_read(doc, x->c->metric ? x->metric : NULL, x->cell, &s->g, err,
				 sizeof(err)))
			fprintf(stderr, "fsbench bisect: %s\n", err);
		else if (x->c->metric && !s->g.named && s->status <= 1)
			/* a typo would otherwise skip every kernel */
			return -fail(FSB_EXIT_USAGE, "--metric %s is not in %s", x->c->metric, doc);
	}
	switch (s->status) {
	case FSB_EXIT_OK:
		return BS_GOOD;
	case FSB_EXIT_REGRESSED:
		/* --metric: bad only when that metric is what regressed */
		if (!x->c->metric)
			return BS_BAD;
		return s->g.found ? (s->g.regressed ? BS_BAD : BS_GOOD) : BS_SKIP;
	case FSB_EXIT_CANNOT_JUDGE:
		return BS_SKIP;
	case FSB_EXIT_USAGE:
		return -fail(FSB_EXIT_USAGE, "the gate refused its options (exit 2): see %s", log);
	default:
		return -fail(FSB_EXIT_SYSTEM, "the gate for %s exited %d: stopping (see %s)", cand,
			     s->status, log);
	}
}

static int step_dir(struct ctx *x, struct step *s)
{
	snprintf(s->dir, sizeof(s->dir), "%s/step-%d", x->dir, ++x->nstep);
	if (mkdir(s->dir, 0755) && errno != EEXIST)
		return -fail(FSB_EXIT_SYSTEM, "creating %s: %s", s->dir, strerror(errno));
	return 0;
}

/* ---- across a list of kernels ---- */

struct list {
	struct bs_kernel k[MAX_KERNELS];
	size_t n;
};

/*
 * @path made absolute against the working directory, its links kept (k1.deb and k2.deb may
 * be links to one package): what bisect.json records, so --resume can run from elsewhere.
 */
static void abs_path(const char *path, char *buf, size_t len)
{
	char cwd[PATH_MAX];
	int n;

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)) ||
	    (n = snprintf(buf, len, "%s/%s", cwd, path)) < 0 || (size_t)n >= len)
		snprintf(buf, len, "%s", path);
}

static int list_add(struct list *l, const char *rel)
{
	char path[PATH_MAX];
	char line[256] = "";
	struct base_spawn sp = {
		.argv = (char *const[]){ "dpkg-deb", "-f", (char *)path, "Version", NULL },
		.out = BASE_SPAWN_CAPTURE,
		.err = BASE_SPAWN_DEVNULL,
		.keep = BASE_SPAWN_FIRST,
		.line = line,
		.linelen = sizeof(line),
	};
	struct bs_kernel *k;
	size_t len;
	int st;

	abs_path(rel, path, sizeof(path));
	len = strlen(path);
	if (l->n >= MAX_KERNELS)
		return fail(FSB_EXIT_USAGE, "more than %d kernels", MAX_KERNELS);
	k = &l->k[l->n];
	k->path = strdup(path);
	if (!k->path)
		return fail(FSB_EXIT_SYSTEM, "no memory");
	k->name = strrchr(k->path, '/') ? strrchr(k->path, '/') + 1 : k->path;
	k->version = NULL;
	if (len > 4 && !strcmp(path + len - 4, ".deb")) {
		if (base_spawn_run(&sp, &st) || !WIFEXITED(st) || WEXITSTATUS(st) || !line[0]) {
			free(k->path);
			return fail(FSB_EXIT_USAGE,
				    "%s: not a package (dpkg-deb -f %s Version failed)", rel, rel);
		}
		k->version = strdup(line);
	}
	l->n++;
	return 0;
}

static int list_operand(struct list *l, const char *arg)
{
	struct dirent **ents;
	struct stat st;
	int n, r = 0;

	if (stat(arg, &st))
		return fail(FSB_EXIT_USAGE, "%s: %s", arg, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return list_add(l, arg);
	if ((n = scandir(arg, &ents, NULL, alphasort)) < 0)
		return fail(FSB_EXIT_USAGE, "%s: %s", arg, strerror(errno));
	for (int i = 0; i < n; i++) {
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "%s/%s", arg, ents[i]->d_name);
		if (!r && ents[i]->d_name[0] != '.' && !stat(p, &st) && S_ISREG(st.st_mode))
			r = list_add(l, p);
		free(ents[i]);
	}
	free(ents);
	return r;
}

/* The index of the kernel that @spec names (path, file name or version), or -1. */
static ssize_t list_find(const struct list *l, const char *spec)
{
	char abs[PATH_MAX];

	abs_path(spec, abs, sizeof(abs));
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->k[i].path, abs) || !strcmp(l->k[i].name, spec) ||
		    (l->k[i].version && !strcmp(l->k[i].version, spec)))
			return (ssize_t)i;
	return -1;
}

static void list_free(struct list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->k[i].path);
		free(l->k[i].version);
	}
}

/* --good and --bad: in the list, or files added to it; -1 after a refusal */
static ssize_t list_end(struct list *l, const char *spec, const char *flag)
{
	ssize_t i = list_find(l, spec);

	if (i >= 0)
		return i;
	if (access(spec, F_OK)) {
		fail(FSB_EXIT_USAGE, "%s %s: not a kernel of the list, nor a file", flag, spec);
		return -1;
	}
	return list_add(l, spec) ? -1 : (ssize_t)l->n - 1;
}

/*
 * --resume: a step that was running when the bisection stopped has a directory but no
 * record; it is moved aside (step-N.stopped-R) so its number is gated afresh in a clean one.
 */
static int workdir_resume(struct ctx *x)
{
	char path[PATH_MAX + 32], aside[PATH_MAX + 64];

	for (int i = x->nstep + 1;; i++) {
		snprintf(path, sizeof(path), "%s/step-%d", x->dir, i);
		if (access(path, F_OK))
			return 0;
		snprintf(aside, sizeof(aside), "%s.stopped-%d", path, x->resumed);
		if (rename(path, aside))
			return fail(FSB_EXIT_SYSTEM, "moving %s aside: %s", path, strerror(errno));
	}
}

static int workdir_make(struct ctx *x)
{
	if (x->c->resume) {
		snprintf(x->dir, sizeof(x->dir), "%s", x->c->resume);
	} else if (!x->c->workdir) {
		snprintf(x->dir, sizeof(x->dir), "fsbench-bisect-XXXXXX");
		if (!mkdtemp(x->dir))
			return fail(FSB_EXIT_SYSTEM, "creating %s: %s", x->dir, strerror(errno));
	} else {
		DIR *d;
		struct dirent *e;

		snprintf(x->dir, sizeof(x->dir), "%s", x->c->workdir);
		if (mkdir(x->dir, 0755) && errno != EEXIST)
			return fail(FSB_EXIT_SYSTEM, "creating %s: %s", x->dir, strerror(errno));
		/* steps go in numbered, and a directory of other things (/run) is not ours */
		if (!(d = opendir(x->dir)))
			return fail(FSB_EXIT_USAGE, "--workdir %s: %s", x->dir, strerror(errno));
		while ((e = readdir(d)) && (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")))
			;
		closedir(d);
		if (e)
			return fail(
				FSB_EXIT_USAGE,
				"--workdir %s is not empty (if a bisection stopped there, --resume "
				"%s continues it); give a new one",
				x->dir, x->dir);
	}
	/* absolute: builds run in TREE, and FSBENCH_BISECT_OUT must still name the step's dir */
	{
		char abs[PATH_MAX];

		if (!realpath(x->dir, abs))
			return fail(FSB_EXIT_SYSTEM, "%s: %s", x->dir, strerror(errno));
		snprintf(x->dir, sizeof(x->dir), "%s", abs);
	}
	fprintf(stderr, "fsbench bisect: steps and bisect.json in %s%s\n", x->dir,
		x->c->resume ? " (resumed)" : "");
	return x->c->resume ? workdir_resume(x) : 0;
}

/* Gates k[@i] against the good end and says the step; the mark or a negative exit status. */
static int list_step(struct ctx *x, const struct bs_kernel *good, const struct bs_kernel *k,
		     const char *note)
{
	struct step s = { .status = -1, .build_status = -1 };
	int m;

	if ((m = step_dir(x, &s)))
		return m;
	snprintf(s.what, sizeof(s.what), "%s", k->path);
	if ((m = gate(x, good->path, k->path, &s)) < 0)
		return m;
	s.mark = m;
	say_step(x, &s, k->name,
		 s.mark == BS_SKIP ? "cannot judge it; its neighbours are gated instead" : note);
	record_step(x, &s, NULL);
	return m;
}

/* The change a kernel brought, as its step recorded it: " (files/s -4.10%)" or "". */
static void change_of(struct ctx *x, const char *what, char *buf, size_t len)
{
	json_t *o;
	size_t i;

	buf[0] = 0;
	json_array_foreach(x->steps, i, o)
	{
		const char *w =
			json_string_value(json_object_get(o, x->c->git ? "commit" : "kernel"));
		const char *m = json_string_value(json_object_get(o, "metric"));
		const char *cell = json_string_value(json_object_get(o, "cell"));
		json_t *ch = json_object_get(o, "change_pct");

		if (w && !strcmp(w, what) && m && json_is_number(ch))
			snprintf(buf, len, " (%s%s%s %+.2f%%)", m, cell && cell[0] ? "@" : "",
				 cell ? cell : "", json_number_value(ch));
	}
}

/*
 * The kernels from --good to --bad, recorded; with --resume, they must be those recorded
 * then (the halving's steps are indices into them). 0 or a refusal's exit status.
 */
static int list_record(struct ctx *x, const struct list *l, size_t gi, size_t n)
{
	json_t *now = json_array(), *then = json_object_get(x->record, "kernels");
	size_t i;

	if (!now)
		return fail(FSB_EXIT_SYSTEM, "no memory");
	for (i = 0; i < n; i++)
		json_array_append_new(now, json_string(l->k[gi + i].path));
	if (!x->resumed) {
		json_object_set_new(x->record, "kernels", now);
		return 0;
	}
	for (i = 0; i < n && i < json_array_size(then); i++)
		if (!json_equal(json_array_get(now, i), json_array_get(then, i)))
			break;
	json_decref(now);
	if (i == n && n == json_array_size(then))
		return 0;
	return fail(FSB_EXIT_USAGE,
		    "--resume %s: the kernels from --good to --bad are not those its bisect.json "
		    "recorded (%zu now, %zu then; the first that differs: %s, then %s)",
		    x->c->resume, n, json_array_size(then), i < n ? l->k[gi + i].path : "none",
		    json_is_string(json_array_get(then, i)) ?
			    json_string_value(json_array_get(then, i)) :
			    "none");
}

/*
 * --resume: the verdicts bisect.json recorded, marked and said again, so no kernel is
 * gated twice. 0 or a refusal's exit status.
 */
static int list_replay(struct ctx *x, const struct list *l, size_t gi, enum bs_mark *mark, size_t n)
{
	json_t *o;
	size_t i;

	json_array_foreach(x->steps, i, o)
	{
		const char *k = json_string_value(json_object_get(o, "kernel"));
		enum bs_mark m = mark_of(json_string_value(json_object_get(o, "verdict")));
		ssize_t j = k ? list_find(l, k) : -1;

		if (j < (ssize_t)gi || j >= (ssize_t)(gi + n) || m == BS_UNTESTED)
			return fail(FSB_EXIT_USAGE,
				    "--resume %s: step %zu of bisect.json (%s) is not a verdict on "
				    "a kernel of the list",
				    x->c->resume, i + 1, k ? k : "no kernel");
		mark[j - (ssize_t)gi] = m;
		say_recorded(o, l->k[j].name);
	}
	return 0;
}

static int bisect_list(struct ctx *x)
{
	struct list *l = calloc(1, sizeof(*l));
	struct bisect_cfg *c = x->c;
	enum bs_mark *mark = NULL;
	ssize_t gi, bi, next;
	size_t good, bad, skipped, n;
	int r = 0, m;
	char buf[256];

	if (!l)
		return fail(FSB_EXIT_SYSTEM, "no memory");
	for (int i = 0; i < c->files.n && !r; i++)
		r = list_operand(l, c->files.v[i]);
	if (x->resumed && !c->files.n) { /* the kernels bisect.json recorded */
		json_t *k;
		size_t i;

		json_array_foreach(json_object_get(x->record, "kernels"), i,
				   k) if (!r && json_is_string(k))
			r = list_add(l, json_string_value(k));
	}
	if (r)
		goto out;
	r = FSB_EXIT_USAGE;
	if ((gi = list_end(l, c->good, "--good")) < 0 || (bi = list_end(l, c->bad, "--bad")) < 0)
		goto out;
	{
		char gp[PATH_MAX], bp[PATH_MAX];

		snprintf(gp, sizeof(gp), "%s", l->k[gi].path);
		snprintf(bp, sizeof(bp), "%s", l->k[bi].path);
		bs_kernels_sort(l->k, l->n);
		gi = list_find(l, gp);
		bi = list_find(l, bp);
	}
	if (gi >= bi) {
		r = fail(FSB_EXIT_USAGE, "--good %s does not come before --bad %s in the order",
			 c->good, c->bad);
		goto out;
	}
	n = (size_t)(bi - gi + 1);
	mark = calloc(n, sizeof(*mark));
	if (!mark) {
		r = fail(FSB_EXIT_SYSTEM, "no memory");
		goto out;
	}
	if ((r = list_record(x, l, (size_t)gi, n)) || (r = workdir_make(x)))
		goto out;
	/* the order, as it decides the answer: a name and, for a package, its version */
	printf("%zu kernels in order:", n);
	for (size_t i = 0; i < n; i++) {
		const struct bs_kernel *k = &l->k[gi + (ssize_t)i];

		printf(" %s%s%s%s", k->name, k->version ? " (" : "", k->version ? k->version : "",
		       k->version ? ")" : "");
	}
	printf("\n");
	mark[0] = BS_GOOD;
	if ((r = list_replay(x, l, (size_t)gi, mark, n)))
		goto out;
	if (x->done_answer) { /* decided before: said again, nothing gated */
		printf("%s\n", x->done_answer);
		r = x->done_exit;
		goto out;
	}
	/* the bad end first: a range whose ends do not differ has nothing to find */
	m = mark[n - 1];
	if (m == BS_UNTESTED)
		m = list_step(x, &l->k[gi], &l->k[bi], "the bad end against the good one");
	if (m < 0) {
		r = -m;
		goto out;
	}
	if (m != BS_BAD) {
		r = answer(x, FSB_EXIT_CANNOT_JUDGE, "cannot judge: --bad is %s against --good",
			   m == BS_GOOD ? "not bad" : "not judged (skipped)");
		goto out;
	}
	mark[n - 1] = BS_BAD;
	while ((next = bs_next(mark, n)) >= 0) {
		m = list_step(x, &l->k[gi], &l->k[gi + next], NULL);
		if (m < 0) {
			r = -m;
			goto out;
		}
		mark[next] = m;
	}
	skipped = bs_bounds(mark, n, &good, &bad);
	if (!skipped) {
		change_of(x, l->k[gi + (ssize_t)bad].path, buf, sizeof(buf));
		r = answer(x, FSB_EXIT_OK, "first bad: %s%s", l->k[gi + (ssize_t)bad].name, buf);
	} else {
		char list[4096] = "";
		size_t len = 0;

		for (size_t i = good + 1; i < bad; i++)
			if (mark[i] == BS_SKIP && len < sizeof(list))
				len += snprintf(list + len, sizeof(list) - len, "%s%s",
						len ? ", " : "", l->k[gi + (ssize_t)i].name);
		r = answer(
			x, FSB_EXIT_CANNOT_JUDGE,
			"cannot judge: the first bad one is %s or one before it that was skipped "
			"(%s), after the last good %s",
			l->k[gi + (ssize_t)bad].name, list, l->k[gi + (ssize_t)good].name);
	}
out:
	free(mark);
	list_free(l);
	free(l);
	return r;
}

/* ---- across commits ---- */

/*
 * `git -C TREE ARGS...` with its output in @log (NULL: DIR/git.log; "/dev/null" before the
 * work directory exists); its exit status, or -1 when git did not run.
 */
static int git(struct ctx *x, const char *log, ...)
{
	char *argv[16] = { "git", "-C", x->c->git }, path[PATH_MAX + 16];
	int n = 3, st;
	va_list ap;

	va_start(ap, log);
	while (n < 15 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	if (!log) {
		snprintf(path, sizeof(path), "%s/git.log", x->dir);
		log = path;
	}
	if (bs_run(&(struct bs_cmd){ .argv = argv, .log = log }, NULL, &st))
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The first line of DIR/git.log into @buf. */
static void git_line(struct ctx *x, char *buf, size_t len)
{
	char path[PATH_MAX + 16];
	FILE *f;

	snprintf(path, sizeof(path), "%s/git.log", x->dir);
	buf[0] = 0;
	if ((f = fopen(path, "r"))) {
		if (!fgets(buf, (int)len, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
}

static bool git_log_has(struct ctx *x, const char *what)
{
	char path[PATH_MAX + 16], line[4096];
	bool has = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/git.log", x->dir);
	if ((f = fopen(path, "r"))) {
		while (!has && fgets(line, sizeof(line), f))
			has = strstr(line, what) != NULL;
		fclose(f);
	}
	return has;
}

/*
 * Builds HEAD into @s->dir/out with the user's command: 0 with @image set, 1 when the build
 * failed, timed out or left no kernel (a skip), or a negative exit status.
 */
static int build(struct ctx *x, struct step *s, char *image, size_t len, char *log, size_t loglen)
{
	char out[PATH_MAX + 64];
	struct dirent **ents;
	int st, r, n;

	snprintf(out, sizeof(out), "%s/out", s->dir);
	snprintf(log, loglen, "%s/build.log", s->dir);
	if (mkdir(out, 0755) && errno != EEXIST)
		return -fail(FSB_EXIT_SYSTEM, "creating %s: %s", out, strerror(errno));
	r = bs_run(&(struct bs_cmd){ .argv = (char *const[]){ "sh", "-c", x->c->build, NULL },
				     .cwd = x->c->git,
				     .env_name = "FSBENCH_BISECT_OUT",
				     .env_value = out,
				     .log = log,
				     .timeout_ms = (long)(x->c->build_timeout / 1000000) },
		   &stopped, &st);
	if (r == -EINTR)
		return -(128 + stopped);
	if (r == -ETIMEDOUT) {
		s->build_status = 124;
		return 1;
	}
	if (r)
		return -fail(FSB_EXIT_SYSTEM, "running the build: %s", strerror(-r));
	s->build_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (s->build_status)
		return 1;
	/* the kernel: a .deb if there is one, else the first file */
	image[0] = 0;
	if ((n = scandir(out, &ents, NULL, alphasort)) < 0)
		return -fail(FSB_EXIT_SYSTEM, "reading %s: %s", out, strerror(errno));
	for (int i = 0; i < n; i++) {
		size_t l = strlen(ents[i]->d_name);

		if (ents[i]->d_name[0] != '.' &&
		    (!image[0] || (l > 4 && !strcmp(ents[i]->d_name + l - 4, ".deb"))))
			snprintf(image, len, "%s/%s", out, ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	return image[0] ? 0 : 1;
}

/* Builds and gates HEAD (@sha) against the good build: the mark or a negative status. */
static int commit_step(struct ctx *x, const char *sha, const char *note)
{
	struct step s = { .status = -1, .build_status = -1 };
	char log[PATH_MAX + 64];
	int m;

	if ((m = step_dir(x, &s)))
		return m;
	snprintf(s.what, sizeof(s.what), "%s", sha);
	m = build(x, &s, s.image, sizeof(s.image), log, sizeof(log));
	if (m < 0)
		return m;
	if (m == 1) {
		s.mark = BS_SKIP;
		say_step(x, &s, sha,
			 s.build_status == 124 ? "the build timed out" :
			 s.build_status	       ? "the build failed" :
						 "the build left no kernel");
		record_step(x, &s, log);
		return BS_SKIP;
	}
	if ((m = gate(x, x->good_image, s.image, &s)) < 0)
		return m;
	s.mark = m;
	say_step(x, &s, sha, s.mark == BS_SKIP ? "cannot judge it" : note);
	record_step(x, &s, log);
	return m;
}

/*
 * After `git bisect good|bad|skip`: git's answer, said and recorded (its exit status), or -1
 * while it has none.
 */
static int git_answer(struct ctx *x)
{
	char line[512];

	git_line(x, line, sizeof(line));
	if (git_log_has(x, "is the first bad commit")) {
		char buf[256], *sp = strchr(line, ' ');

		if (sp)
			*sp = 0;
		change_of(x, line, buf, sizeof(buf));
		return answer(x, FSB_EXIT_OK, "first bad: %s%s", line, buf);
	}
	if (git_log_has(x, "only 'skip'ped commits left")) {
		char all[4096] = "", path[PATH_MAX + 16], l2[256];
		size_t len = 0;
		FILE *f;

		snprintf(path, sizeof(path), "%s/git.log", x->dir);
		if ((f = fopen(path, "r"))) {
			/* git lists the candidates, one SHA a line, after its message */
			while (fgets(l2, sizeof(l2), f) && len < sizeof(all))
				if (strspn(l2, "0123456789abcdef") >= 40)
					len += snprintf(all + len, sizeof(all) - len, "%s%.12s",
							len ? ", " : "", l2);
			fclose(f);
		}
		return answer(x, FSB_EXIT_CANNOT_JUDGE,
			      "cannot judge: only skipped commits are left: %s", all);
	}
	return -1;
}

/*
 * --resume: git bisect is given the marks bisect.json recorded (the good build and the bad
 * end are `git bisect start`'s), so it stands where it stood; each recorded step is said
 * again. 0, or a refusal's exit status.
 */
static int git_replay(struct ctx *x)
{
	json_t *o;
	size_t i;
	int st;

	json_array_foreach(x->steps, i, o)
	{
		const char *sha = json_string_value(json_object_get(o, "commit"));
		const char *v = json_string_value(json_object_get(o, "verdict"));

		if (!sha || !v || mark_of(v) == BS_UNTESTED)
			return fail(FSB_EXIT_USAGE,
				    "--resume %s: step %zu of bisect.json has no "
				    "commit or verdict",
				    x->dir, i + 1);
		say_recorded(o, sha);
		/* 1 and 2 are git's answers (e.g. only skipped commits left): git_answer() reads
		 * them; -1 and 128 are failures (a SHA no longer in TREE) */
		if (i >= 2 && ((st = git(x, NULL, "bisect", v, sha, NULL)) < 0 || st >= 128))
			return fail(FSB_EXIT_SYSTEM, "git bisect %s %s failed (see %s/git.log)", v,
				    sha, x->dir);
	}
	return 0;
}

static int bisect_git_steps(struct ctx *x)
{
	char head[128], good[64], bad[64], log[PATH_MAX + 64], mid[128];
	struct step s = { .status = -1, .build_status = -1 }; /* the good build: no gate */
	size_t nrec = json_array_size(x->steps);
	int m;

	if (x->resumed) {
		/* the commits as they were resolved then, though a branch may have moved */
		const char *g = json_string_value(json_object_get(x->record, "good_sha"));
		const char *b = json_string_value(json_object_get(x->record, "bad_sha"));

		if (!g || !b)
			return fail(FSB_EXIT_USAGE,
				    "--resume %s: bisect.json has no good_sha, bad_sha", x->dir);
		snprintf(good, sizeof(good), "%s", g);
		snprintf(bad, sizeof(bad), "%s", b);
	} else {
		/* the SHAs resolved once, so a branch name moving meanwhile changes nothing */
		if (git(x, NULL, "rev-parse", "--verify", "-q", x->c->good, NULL))
			return fail(FSB_EXIT_USAGE, "--good %s: not a commit of %s", x->c->good,
				    x->c->git);
		git_line(x, good, sizeof(good));
		if (git(x, NULL, "rev-parse", "--verify", "-q", x->c->bad, NULL))
			return fail(FSB_EXIT_USAGE, "--bad %s: not a commit of %s", x->c->bad,
				    x->c->git);
		git_line(x, bad, sizeof(bad));
		json_object_set_new(x->record, "good_sha", json_string(good));
		json_object_set_new(x->record, "bad_sha", json_string(bad));
	}
	if (git(x, NULL, "bisect", "start", bad, good, NULL))
		return fail(FSB_EXIT_USAGE, "git bisect start %s %s failed (see %s/git.log)", bad,
			    good, x->dir);
	x->bisecting = true;
	if (nrec && (m = git_replay(x)))
		return m;
	if (nrec > 2 && (m = git_answer(x)) >= 0)
		return m;
	if (git(x, NULL, "rev-parse", "HEAD", NULL))
		return fail(FSB_EXIT_SYSTEM, "git rev-parse HEAD failed");
	git_line(x, mid, sizeof(mid));
	if (nrec) {
		/* the baseline was built before: its kernel is still in step-1/out */
		json_t *o = json_array_get(x->steps, 0);
		const char *img = json_string_value(json_object_get(o, "image"));

		if (!img || access(img, R_OK))
			return fail(FSB_EXIT_USAGE,
				    "--resume %s: the good commit's build (%s) is not there",
				    x->dir, img ? img : "bisect.json names none");
		snprintf(x->good_image, sizeof(x->good_image), "%s", img);
	} else {
		/* the baseline, built once */
		if (git(x, NULL, "checkout", "-q", good, NULL))
			return fail(FSB_EXIT_SYSTEM, "git checkout %s failed (see %s/git.log)",
				    good, x->dir);
		if ((m = step_dir(x, &s)))
			return -m;
		snprintf(s.what, sizeof(s.what), "%s", good);
		m = build(x, &s, x->good_image, sizeof(x->good_image), log, sizeof(log));
		if (m < 0)
			return -m;
		s.mark = m ? BS_SKIP : BS_GOOD;
		if (!m)
			snprintf(s.image, sizeof(s.image), "%s", x->good_image);
		say_step(x, &s, good,
			 m ? "the good commit's build failed" : "the good commit, built");
		record_step(x, &s, log);
		if (m)
			return answer(x, FSB_EXIT_CANNOT_JUDGE,
				      "cannot judge: the good commit does not build (see %s)", log);
	}
	if (nrec >= 2) {
		m = mark_of(
			json_string_value(json_object_get(json_array_get(x->steps, 1), "verdict")));
	} else {
		if (git(x, NULL, "checkout", "-q", bad, NULL))
			return fail(FSB_EXIT_SYSTEM, "git checkout %s failed", bad);
		m = commit_step(x, bad, "the bad end against the good one");
		if (m < 0)
			return -m;
	}
	if (m != BS_BAD)
		return answer(x, FSB_EXIT_CANNOT_JUDGE, "cannot judge: --bad is %s against --good",
			      m == BS_GOOD ? "not bad" : "not judged (skipped)");
	if (git(x, NULL, "checkout", "-q", mid, NULL))
		return fail(FSB_EXIT_SYSTEM, "git checkout %s failed", mid);
	for (;;) {
		if (git(x, NULL, "rev-parse", "HEAD", NULL))
			return fail(FSB_EXIT_SYSTEM, "git rev-parse HEAD failed");
		git_line(x, head, sizeof(head));
		if ((m = commit_step(x, head, NULL)) < 0)
			return -m;
		git(x, NULL, "bisect", m == BS_GOOD ? "good" : m == BS_BAD ? "bad" : "skip", NULL);
		if ((m = git_answer(x)) >= 0)
			return m;
		if (stopped)
			return 128 + stopped;
	}
}

static int bisect_git(struct ctx *x)
{
	struct bisect_cfg *c = x->c;
	int r;

	if (!c->build)
		return fail(FSB_EXIT_USAGE, "--git needs --build");
	if (c->files.n)
		return fail(FSB_EXIT_USAGE, "--git takes no kernels");
	if (git(x, "/dev/null", "rev-parse", "--is-inside-work-tree", NULL))
		return fail(FSB_EXIT_USAGE, "--git %s: not a git work tree", c->git);
	if (!git(x, "/dev/null", "bisect", "log", NULL))
		return fail(
			FSB_EXIT_USAGE,
			"--git %s: a bisect is in progress there (git bisect log); left as it is",
			c->git);
	/* both ends are commits: checked before anything is made */
	for (int i = 0; i < 2; i++) {
		char spec[512];

		snprintf(spec, sizeof(spec), "%s^{commit}", i ? c->bad : c->good);
		if (git(x, "/dev/null", "rev-parse", "--verify", "-q", spec, NULL))
			return fail(FSB_EXIT_USAGE, "%s %s: not a commit of %s",
				    i ? "--bad" : "--good", i ? c->bad : c->good, c->git);
	}
	if (x->done_answer) { /* decided before: said again, the tree not touched */
		printf("%s\n", x->done_answer);
		return x->done_exit;
	}
	if ((r = workdir_make(x)))
		return r;
	r = bisect_git_steps(x);
	if (x->bisecting && git(x, NULL, "bisect", "reset", NULL))
		fprintf(stderr, "fsbench bisect: git bisect reset in %s failed (see %s/git.log)\n",
			c->git, x->dir);
	return r;
}

/*
 * --resume DIR: DIR/bisect.json becomes the record, its steps the first ones; --good, --bad,
 * --metric and --git come from it or must say the same. 0 or a refusal's exit status.
 */
static int resume_load(struct ctx *x)
{
	struct bisect_cfg *c = x->c;
	struct {
		const char *key, *flag;
		char **val;
	} f[] = { { "good", "--good", &c->good },
		  { "bad", "--bad", &c->bad },
		  { "metric", "--metric", &c->metric },
		  { "git", "--git", &c->git } };
	char path[PATH_MAX + 16], err[1024], a[PATH_MAX], b[PATH_MAX];
	const char *schema, *ans;
	json_t *old, *ex;

	if (c->workdir)
		return fail(FSB_EXIT_USAGE, "--resume DIR is the work directory: no --workdir");
	snprintf(path, sizeof(path), "%s/bisect.json", c->resume);
	if (!(old = mdl_json_file(path, err, sizeof(err))))
		return fail(FSB_EXIT_USAGE, "--resume %s: %s", c->resume, err);
	x->record = old; /* freed by the caller: the values below live in it */
	schema = json_string_value(json_object_get(old, "schema"));
	if (!schema || strcmp(schema, "fsbench-bisect/1") ||
	    !json_is_array(json_object_get(old, "steps")))
		return fail(FSB_EXIT_USAGE, "--resume %s: not a bisect.json of fsbench-bisect/1",
			    path);
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		const char *rec = json_string_value(json_object_get(old, f[i].key));
		bool same;

		if (!*f[i].val) { /* the option's, freed with the others (opt_free) */
			if (rec && !(*f[i].val = strdup(rec)))
				return fail(FSB_EXIT_SYSTEM, "no memory");
			continue;
		}
		same = rec && !strcmp(rec, *f[i].val);
		if (!same && rec && !strcmp(f[i].key, "git")) /* one tree, named otherwise */
			same = realpath(rec, a) && realpath(*f[i].val, b) && !strcmp(a, b);
		if (!same)
			return fail(FSB_EXIT_USAGE,
				    "--resume %s: %s %s, but its bisect.json recorded %s%s%s",
				    c->resume, f[i].flag, *f[i].val, rec ? f[i].flag : "none",
				    rec ? " " : "", rec ? rec : "");
	}
	ans = json_string_value(json_object_get(old, "answer"));
	ex = json_object_get(old, "exit");
	if (ans && (json_integer_value(ex) == FSB_EXIT_OK ||
		    json_integer_value(ex) == FSB_EXIT_CANNOT_JUDGE)) {
		x->done_answer = ans;
		x->done_exit = (int)json_integer_value(ex);
	}
	x->steps = json_object_get(old, "steps");
	x->nstep = (int)json_array_size(x->steps);
	x->resumed = (int)json_integer_value(json_object_get(old, "resumed")) + 1;
	if (!x->done_answer) { /* answered anew, or stopped anew */
		json_object_del(old, "answer");
		json_object_del(old, "exit");
		json_object_set_new(old, "resumed", json_integer(x->resumed));
	}
	return 0;
}

/* The checks, then the bisection; x->record is the caller's to free. */
static int bisect_go(struct ctx *px)
{
	struct ctx x = *px;
	struct bisect_cfg *c = x.c;
	struct sigaction sa = { .sa_handler = on_signal };
	char *at;
	int r;

	if (!c->good || !c->bad)
		return fail(FSB_EXIT_USAGE, "--good and --bad are both needed");
	if (c->build && !c->git)
		return fail(FSB_EXIT_USAGE, "--build is for --git");
	if (c->metric) {
		snprintf(x.metric, sizeof(x.metric), "%s", c->metric);
		if ((at = strchr(x.metric, '@')))
			*at = 0, x.cell = at + 1;
		if (!x.metric[0] || (x.cell && !x.cell[0]))
			return fail(FSB_EXIT_USAGE, "--metric %s: NAME or NAME@CELL", c->metric);
	}
	if (!c->resume) {
		char tree[PATH_MAX];

		x.record = json_pack("{s:s, s:s, s:s, s:s?, s:[]}", "schema", "fsbench-bisect/1",
				     "good", c->good, "bad", c->bad, "metric", c->metric, "steps");
		if (!x.record)
			return fail(FSB_EXIT_SYSTEM, "no memory");
		x.steps = json_object_get(x.record, "steps");
		/* absolute, as --resume from elsewhere needs it */
		if (c->git)
			json_object_set_new(x.record, "git",
					    json_string(realpath(c->git, tree) ? tree : c->git));
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	r = c->git ? bisect_git(&x) : bisect_list(&x);
	if (stopped &&
	    x.dir[0]) { /* what was done stays in bisect.json; the answer says why no more */
		char why[64];

		snprintf(why, sizeof(why), "stopped by signal %d", stopped);
		json_object_set_new(x.record, "answer", json_string(why));
		json_object_set_new(x.record, "exit", json_integer(r));
		record_write(&x);
	}
	px->record = x.record;
	return r;
}

static int bisect_run(void *cfg)
{
	struct ctx x = { .c = cfg };
	int r = x.c->resume ? resume_load(&x) : 0;

	if (!r)
		r = bisect_go(&x);
	json_decref(x.record);
	return r;
}

static const struct cmd_spec bisect_cmd = {
	.name = "bisect",
	.opts = bisect_opts,
	.files_offset = offsetof(struct bisect_cfg, files),
	.usage = usage,
	.run = bisect_run,
};

int cmd_bisect(int argc, char **argv)
{
	struct bisect_cfg c = { 0 };

	/* what follows "--" is kernel-gate's, not ours */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			c.gate_argv = argv + i + 1;
			c.gate_argc = argc - i - 1;
			argc = i;
			break;
		}
	return cmd_args_run(&bisect_cmd, &c, argc, argv);
}
