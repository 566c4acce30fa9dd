/* Man pages and bash completion, made at build time from the commands' option tables. */
#include "fsbench/cli/commands.h"
#include "fsbench/cli/man.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * A command's tables are static in its handler file; its --help is the one place that
 * shows them all. So each command's --help runs with stdout in a temporary file and
 * opt_print_help() hooked (opt.h): the hook keeps the table and leaves a marker line where
 * the table would have been printed, and the text around the markers is the usage the
 * command prints above and below. Options, defaults, ranges and help text are then the
 * table's own, formatted by opt_help_text() as --help formats them.
 */
#define MAN_MAX_TABLES 8
#define MAN_MARK '\001'

struct captured {
	char *text; /* what --help printed, with MAN_MARK "<index>\n" for each table */
	struct fsb_opt *tbl[MAN_MAX_TABLES]; /* copies: a workload's table is freed after --help */
	int ntbl;
};

/* One page's command: a workload, a command, or one of a command's subcommands. */
struct entry {
	const char *name; /* "smallfile", "lava" */
	const char *sub; /* "job" for "fsbench lava job", or NULL */
	const char *summary;
	const struct fsb_workload *wl;
	int (*main)(int argc, char **argv);
};

static void keep_table(const struct fsb_opt *tbl, FILE *out, void *data)
{
	struct captured *c = data;
	size_t n = 0;

	while (tbl[n].name)
		n++;
	/* shallow: the strings are the static tables' (job.c copies entries, not text) */
	if (c->ntbl >= MAN_MAX_TABLES || !(c->tbl[c->ntbl] = calloc(n + 1, sizeof(*tbl))))
		return;
	memcpy(c->tbl[c->ntbl], tbl, n * sizeof(*tbl));
	fprintf(out, "%c%d\n", MAN_MARK, c->ntbl++);
}

static void captured_free(struct captured *c)
{
	for (int i = 0; i < c->ntbl; i++)
		free(c->tbl[i]);
	free(c->text);
	memset(c, 0, sizeof(*c));
}

/* Runs @e's --help into @c. 0, or -errno with @err set. */
static int capture(const struct entry *e, struct captured *c, char *err, size_t errlen)
{
	char *argv[] = { (char *)e->name, (char *)(e->sub ? e->sub : "--help"),
			 e->sub ? "--help" : NULL, NULL };
	int argc = e->sub ? 3 : 2, saved, status, r = 0;
	FILE *tmp = tmpfile();
	long size;

	memset(c, 0, sizeof(*c));
	if (!tmp || fflush(stdout) == EOF || (saved = dup(STDOUT_FILENO)) < 0) {
		r = -errno;
		snprintf(err, errlen, "capturing fsbench %s --help: %s", e->name, strerror(errno));
		if (tmp)
			fclose(tmp);
		return r;
	}
	dup2(fileno(tmp), STDOUT_FILENO);
	opt_set_help_hook(keep_table, c);
	status = e->wl ? cmd_workload(e->wl, argc, argv) : e->main(argc, argv);
	fflush(stdout);
	opt_set_help_hook(NULL, NULL);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	size = ftell(tmp);
	if (status != FSB_EXIT_OK || size < 0 || !(c->text = calloc(1, (size_t)size + 1))) {
		snprintf(err, errlen, "fsbench %s%s%s --help: exit status %d", e->name,
			 e->sub ? " " : "", e->sub ? e->sub : "", status);
		fclose(tmp);
		captured_free(c);
		return -EINVAL;
	}
	rewind(tmp);
	if (fread(c->text, 1, (size_t)size, tmp) != (size_t)size)
		r = -EIO;
	fclose(tmp);
	if (r) {
		snprintf(err, errlen, "reading back fsbench %s --help: %s", e->name, strerror(-r));
		captured_free(c);
	}
	return r;
}

/* Subcommands: "fsbench lava job" has its own table. */
static const char *const lava_subs[] = { "job", "cases", "import", NULL };

static const char *const *subcommands(const char *name)
{
	return !strcmp(name, "lava") ? lava_subs : NULL;
}

/* Every top-level command, workloads first, as `fsbench --help` lists them. */
static int entries(struct entry *out, int max)
{
	int n = 0;

	for (int i = 0; fsb_workloads[i] && n < max; i++)
		out[n++] = (struct entry){ .name = fsb_workloads[i]->name,
					   .summary = fsb_workloads[i]->summary,
					   .wl = fsb_workloads[i] };
	for (int i = 0; fsb_commands[i].name && n < max; i++)
		out[n++] = (struct entry){ .name = fsb_commands[i].name,
					   .summary = fsb_commands[i].summary,
					   .main = fsb_commands[i].main };
	return n;
}

/* ---- roff ---- */

/* Text as roff: backslashes escaped, and a line may not start with '.' or '\''. */
static void roff_text(FILE *out, const char *s, size_t n, bool line_start)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		if (line_start && (s[i] == '.' || s[i] == '\''))
			fputs("\\&", out);
		line_start = s[i] == '\n';
		if (s[i] == '\\')
			fputs("\\e", out);
		else if (s[i] == '-')
			fputs("\\-", out);
		else
			fputc(s[i], out);
	}
}

static void roff_str(FILE *out, const char *s)
{
	roff_text(out, s, strlen(s), false);
}

static const char *metavar(const struct fsb_opt *o)
{
	switch (o->type) {
	case OPT_BOOL:
		return NULL;
	case OPT_INT:
		return "N";
	case OPT_SIZE:
		return "SIZE";
	case OPT_DURATION:
		return "DURATION";
	case OPT_DOUBLE:
		return "X";
	case OPT_ENUM:
		return "CHOICE";
	case OPT_STRING:
	case OPT_STRLIST:
		return o->file == OPT_FILE ? "FILE" : o->file == OPT_DIR ? "DIR" : "VALUE";
	}
	return "VALUE";
}

static void man_table(FILE *out, const struct fsb_opt *tbl, unsigned *types)
{
	for (const struct fsb_opt *o = tbl; o->name; o++) {
		char text[1024];
		const char *mv = metavar(o);

		opt_help_text(o, text, sizeof(text));
		fputs(".TP\n", out);
		if (o->short_name)
			fprintf(out, "\\fB\\-%c\\fR, ", o->short_name);
		fputs("\\fB\\-\\-", out);
		roff_str(out, o->name);
		fputs("\\fR", out);
		if (mv)
			fprintf(out, " \\fI%s\\fR", mv);
		fputc('\n', out);
		roff_text(out, text, strlen(text), true);
		if (o->type == OPT_STRLIST)
			fputs("; may be given more than once", out);
		fputc('\n', out);
		*types |= 1u << o->type;
	}
}

/* How SIZE and DURATION are written, once per page that has such an option. */
static void man_values(FILE *out, unsigned types)
{
	if (!(types & (1u << OPT_SIZE | 1u << OPT_DURATION | 1u << OPT_INT)))
		return;
	fputs(".SS Values\n", out);
	if (types & 1u << OPT_SIZE)
		fputs(".TP\n\\fISIZE\\fR\nbytes, or a number with b, k, M, G or T (binary multiples,"
		      " case-insensitive; kb, KiB and the like too): 4096, 4k, 8M, 2G.\n",
		      out);
	if (types & 1u << OPT_DURATION)
		fputs(".TP\n\\fIDURATION\\fR\nseconds, or a number with ns, us, ms, s, m (or min) "
		      "or h: 30, 500ms, 10s, 2m, 1h.\n",
		      out);
	fputs(".PP\nA value outside the range in brackets is a usage error (exit status 2), "
	      "found before any work.\n",
	      out);
}

/* Paragraphs of usage text: filled, unless a line is indented (then kept as it is). */
static void man_paragraphs(FILE *out, const char *s, size_t n)
{
	while (n) {
		size_t len = 0;
		bool verbatim = false;

		while (n && *s == '\n')
			s++, n--;
		if (!n)
			break;
		/* a paragraph ends at a blank line */
		while (len < n && !(s[len] == '\n' && (len + 1 >= n || s[len + 1] == '\n')))
			len++;
		for (size_t i = 0; i < len; i++)
			if ((i == 0 || s[i - 1] == '\n') && (s[i] == ' ' || s[i] == '\t'))
				verbatim = true;
		fputs(verbatim ? ".PP\n.nf\n" : ".PP\n", out);
		roff_text(out, s, len, true);
		fputs(verbatim ? "\n.fi\n" : "\n", out);
		s += len;
		n -= len;
	}
}

/*
 * The usage text above the first table: "usage:" lines (and the indented lines after them)
 * are the synopsis, the rest the description.
 */
static void split_usage(const char *text, const char **syn, size_t *synlen, const char **desc,
			size_t *desclen)
{
	const char *mark = strchr(text, MAN_MARK);
	const char *end = mark ? mark : text + strlen(text), *p = text;

	*syn = NULL;
	*synlen = 0;
	if (!strncmp(p, "usage: ", 7)) {
		*syn = p + 7;
		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));

			p = nl ? nl + 1 : end;
			/* continuation: indented, not blank */
			if (p >= end || !(*p == ' ' || *p == '\t'))
				break;
		}
		*synlen = (size_t)(p - *syn);
	}
	*desc = p;
	*desclen = (size_t)(end - p);
}

static void man_synopsis(FILE *out, const char *syn, size_t n)
{
	fputs(".nf\n", out);
	for (size_t i = 0; i < n; i++) {
		if (syn[i] == '\n' && i + 1 < n) {
			/* drop the continuation lines' "usage: " indent */
			size_t j = i + 1;

			while (j < n && j - i <= 7 && syn[j] == ' ')
				j++;
			fputc('\n', out);
			i = j - 1;
			continue;
		}
		if (syn[i] == '\\')
			fputs("\\e", out);
		else if (syn[i] == '-')
			fputs("\\-", out);
		else
			fputc(syn[i], out);
	}
	fputs(".fi\n", out);
}

/* Options, and the text a command prints between and after its tables. */
static void man_options(FILE *out, const struct captured *c, unsigned *types)
{
	const char *p = strchr(c->text, MAN_MARK);

	while (p) {
		int i = atoi(p + 1);
		const char *nl = strchr(p, '\n'), *next;

		if (i >= 0 && i < c->ntbl)
			man_table(out, c->tbl[i], types);
		if (!nl)
			break;
		next = strchr(nl + 1, MAN_MARK);
		man_paragraphs(out, nl + 1, next ? (size_t)(next - nl - 1) : strlen(nl + 1));
		p = next;
	}
}

/* ---- what the tables do not hold: exit statuses, files, examples ---- */

struct status_note {
	const char *cmd; /* NULL: every command */
	int status;
	const char *meaning;
};

static const struct status_note statuses[] = {
	{ NULL, FSB_EXIT_OK, "success" },
	{ NULL, FSB_EXIT_FAIL, "the run failed or is incomplete (ENOSPC, EIO, a tool failed...)" },
	{ NULL, FSB_EXIT_USAGE, "bad flags or values; nothing was created" },
	{ "compare", FSB_EXIT_REGRESSED, "with \\-\\-gate: a gated metric regressed" },
	{ "compare", FSB_EXIT_UNUSABLE,
	  "inputs that cannot be compared, a strict gate that could not judge, or a gated "
	  "metric that would have regressed but whose sides ran under unequal conditions (host "
	  "load, the canary)" },
	{ "kernel-gate", FSB_EXIT_REGRESSED, "the candidate kernel regressed" },
	{ "kernel-gate", FSB_EXIT_CANNOT_JUDGE,
	  "the candidate cannot be judged (it did not boot, too few samples, A/A noise); "
	  "\\fBgit bisect run\\fR reads it as \"skip\"" },
	{ "kernel-run", FSB_EXIT_CANNOT_JUDGE, "the kernel did not boot" },
};

struct example {
	const char *cmd;
	const char *line;
	const char *what;
};

static const struct example examples[] = {
	{ "smallfile",
	  "fsbench smallfile \\-d /mnt/test \\-s 4096 \\-n 2000 \\-t 2 \\-\\-json r.json",
	  "fs_mark's small-file load: 2000 files of 4 KiB per thread, fsync'ed, two threads; "
	  "the result with its latency histograms in r.json." },
	{ "stream", "fsbench stream \\-\\-dir /mnt/test \\-\\-mode writebehind \\-\\-json s.json",
	  "sequential writers with Linus's write-behind loop (sync_file_range after each chunk)." },
	{ "dbench", "fsbench dbench \\-D /mnt/test \\-t 60 4",
	  "four clients replay dbench's client.txt for 60 s after the warmup; dbench's output." },
	{ "tree", "fsbench tree \\-D /mnt/test \\-i 10 \\-r 10 \\-\\-json t.json",
	  "compilebench's load: 10 kernel-shaped trees created, then 10 phases at random on "
	  "them." },
	{ "suite", "fsbench suite quick \\-\\-json quick.json",
	  "configs/quick.json on freshly made ext4, xfs, btrfs and ext3 images (as root)." },
	{ "compare", "fsbench compare \\-\\-gate old/*.json \\-\\-candidate new/*.json",
	  "judge new results against a baseline; exit status 1 when a gated metric regressed." },
	{ "report", "fsbench report \\-o report.html old/*.json \\-\\-candidate new/*.json",
	  "one self-contained HTML page with plots and the comparison." },
	{ "explain", "fsbench explain r.json",
	  "the slowest calls of a result and what the "
	  "kernel did meanwhile." },
	{ "export", "fsbench export \\-\\-format openmetrics \\-o metrics.txt r.json",
	  "the result's metrics for Prometheus." },
	{ "kernel-gate",
	  "fsbench kernel-gate \\-\\-baseline 6.1.0\\-47\\-amd64 \\-\\-candidate arch/x86/boot/bzImage",
	  "boot both kernels in QEMU, run the suite in each, judge the candidate." },
	{ "kernel-run", "fsbench kernel-run \\-\\-kernel arch/x86/boot/bzImage",
	  "boot one kernel and run the kernel gate's suite inside." },
	{ "lava", "fsbench lava job \\-\\-kernel\\-url https://example.org/bzImage > job.yaml",
	  "a LAVA job definition that runs the suite on a fleet device." },
	{ "info", "fsbench info /mnt/test", "the mount, device, knobs and topology under a path." },
	{ "knobs", "fsbench knobs /mnt/test",
	  "the knobs fsbench can set under a path, with their "
	  "values." },
	{ "restore", "fsbench restore", "put back the knobs an interrupted run left changed." },
};

/* Whether @s is a status @cmd's page lists: the command's own, else the common one. */
static bool status_applies(const struct status_note *s, const char *cmd)
{
	if (s->cmd)
		return cmd && !strcmp(s->cmd, cmd);
	for (size_t j = 0; cmd && j < sizeof(statuses) / sizeof(statuses[0]); j++)
		if (statuses[j].cmd && !strcmp(statuses[j].cmd, cmd) &&
		    statuses[j].status == s->status)
			return false; /* the command's own meaning replaces the common one */
	return true;
}

static void man_statuses(FILE *out, const char *cmd)
{
	fputs(".SH EXIT STATUS\n", out);
	/* in the order of the status: a command's own ones among the common ones */
	for (int status = 0; status < 256; status++)
		for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++)
			if (statuses[i].status == status && status_applies(&statuses[i], cmd))
				fprintf(out, ".TP\n%d\n%s\n", status, statuses[i].meaning);
}

static void man_files(FILE *out)
{
	fputs(".SH FILES\n.TP\n", out);
	roff_str(out, FSB_CONFIGDIR_INSTALLED);
	fputs("\nthe suites (JSON) that \\fBfsbench suite NAME\\fR finds by name\n.TP\n", out);
	roff_str(out, FSB_SCHEMADIR_INSTALLED);
	fputs("\nJSON schemas of the result and compare documents\n"
	      ".TP\n/run/fsbench\n"
	      "the restore journal and the per-device locks (\\fB$FSBENCH_STATE_DIR\\fR overrides)\n"
	      ".TP\n~/.cache/fsbench\n"
	      "kernels and modules the kernel gate extracted (\\fB$FSBENCH_CACHE_DIR\\fR, else "
	      "\\fB$XDG_CACHE_HOME/fsbench\\fR)\n",
	      out);
}

static void man_examples(FILE *out, const char *cmd)
{
	bool any = false;

	for (size_t i = 0; i < sizeof(examples) / sizeof(examples[0]); i++) {
		if (cmd && strcmp(examples[i].cmd, cmd))
			continue;
		if (!any)
			fputs(".SH EXAMPLES\n", out);
		any = true;
		fprintf(out, ".PP\n.nf\n%s\n.fi\n.RS\n%s\n.RE\n", examples[i].line,
			examples[i].what);
	}
}

static void man_header(FILE *out, const char *page, const char *summary)
{
	char up[64];
	size_t i;

	for (i = 0; page[i] && i + 1 < sizeof(up); i++)
		up[i] = page[i] >= 'a' && page[i] <= 'z' ? page[i] - 'a' + 'A' : page[i];
	up[i] = '\0';
	fputs(".TH ", out);
	roff_str(out, up);
	fprintf(out, " 1 \"\" \"fsbench %s\" \"fsbench manual\"\n.SH NAME\n", FSB_VERSION);
	roff_str(out, page);
	fputs(" \\- ", out);
	roff_str(out, summary);
	fputc('\n', out);
}

/* A command's page: its --help, then exit statuses, files, examples, see also. */
static int man_command(FILE *out, const struct entry *e, char *err, size_t errlen)
{
	const char *const *subs = subcommands(e->name);
	char page[64];
	unsigned types = 0;
	struct captured c;
	const char *syn, *desc;
	size_t synlen, desclen;
	int r;

	snprintf(page, sizeof(page), "fsbench-%s", e->name);
	man_header(out, page, e->summary);
	r = capture(e, &c, err, errlen);
	if (r)
		return r;
	split_usage(c.text, &syn, &synlen, &desc, &desclen);
	fputs(".SH SYNOPSIS\n", out);
	man_synopsis(out, syn ? syn : e->name, syn ? synlen : strlen(e->name));
	fputs(".SH DESCRIPTION\n", out);
	/* workloads print their summary in --help already */
	if (!memmem(desc, desclen, e->summary, strlen(e->summary))) {
		roff_str(out, e->summary);
		fputs(".\n", out);
	}
	man_paragraphs(out, desc, desclen);
	if (c.ntbl) {
		fputs(".SH OPTIONS\n", out);
		man_options(out, &c, &types);
	}
	captured_free(&c);
	for (int i = 0; subs && subs[i]; i++) {
		struct entry s = *e;

		s.sub = subs[i];
		r = capture(&s, &c, err, errlen);
		if (r)
			return r;
		fprintf(out, ".SH \"%s %s\"\n", e->name, subs[i]);
		split_usage(c.text, &syn, &synlen, &desc, &desclen);
		if (syn)
			man_synopsis(out, syn, synlen);
		man_paragraphs(out, desc, desclen);
		man_options(out, &c, &types);
		captured_free(&c);
	}
	man_values(out, types);
	man_statuses(out, e->name);
	man_files(out);
	man_examples(out, e->name);
	fputs(".SH SEE ALSO\n\\fBfsbench\\fR(1)\n", out);
	return 0;
}

/* fsbench(1): the commands, the default run, the fs_mark name. */
static int man_main(FILE *out, const struct entry *e, int n)
{
	man_header(out, "fsbench", "filesystem benchmark and latency profiling suite");
	fputs(".SH SYNOPSIS\n.nf\nfsbench\nfsbench \\fICOMMAND\\fR [\\fIoptions\\fR]\n"
	      "fsbench \\fICOMMAND\\fR \\-\\-help\nfsbench \\-\\-version\n.fi\n"
	      ".SH DESCRIPTION\n"
	      "fsbench measures filesystems the way kernel developers argue about them: "
	      "fs_mark's small-file load and dd-style streaming, with a latency histogram per "
	      "operation, what the kernel did meanwhile, the block-device and vm knobs set "
	      "and always restored, suites on freshly made ext3, ext4, xfs and btrfs, "
	      "statistical comparison and gating, and kernels booted in QEMU to gate or "
	      "bisect them.\n"
	      ".PP\nWithout a command, fsbench runs the quick suite: as root on fresh "
	      "filesystems on a temporary image, otherwise its small-file part in a temporary "
	      "directory.\n"
	      ".PP\nInvoked as \\fBfs_mark\\fR (the link \\-Dfs_mark_link=true installs), "
	      "fsbench is \\fBfsbench smallfile\\fR with fs_mark's flags.\n"
	      ".SH COMMANDS\n",
	      out);
	for (int i = 0; i < n; i++) {
		fputs(".TP\n\\fBfsbench\\-", out);
		roff_str(out, e[i].name);
		fputs("\\fR(1)\n", out);
		roff_str(out, e[i].summary);
		fputc('\n', out);
	}
	man_statuses(out, NULL);
	fputs(".PP\nSome commands have statuses of their own: see their pages.\n"
	      ".SH ENVIRONMENT\n"
	      ".TP\nTMPDIR\nwhere temporary images and directories go (default /var/tmp)\n"
	      ".TP\nFSBENCH_STATE_DIR\nthe restore journal's directory (default /run/fsbench)\n"
	      ".TP\nFSBENCH_CACHE_DIR\nthe kernel gate's cache\n",
	      out);
	man_files(out);
	fputs(".SH EXAMPLES\n.PP\n.nf\nfsbench\n.fi\n.RS\nthe quick suite.\n.RE\n", out);
	man_examples(out, "smallfile");
	fputs(".SH SEE ALSO\n", out);
	for (int i = 0; i < n; i++) {
		fputs(i ? ",\n\\fBfsbench\\-" : "\\fBfsbench\\-", out);
		roff_str(out, e[i].name);
		fputs("\\fR(1)", out);
	}
	fputs(",\n\\fBfs_mark\\fR(1)\n", out);
	return 0;
}

int fsb_man(int argc, char **argv)
{
	struct entry e[64];
	int n = entries(e, 64);
	char err[512];

	if (argc < 2)
		return man_main(stdout, e, n) ? FSB_EXIT_FAIL : FSB_EXIT_OK;
	for (int i = 0; i < n; i++)
		if (!strcmp(argv[1], e[i].name)) {
			if (man_command(stdout, &e[i], err, sizeof(err)) < 0) {
				fprintf(stderr, "fsbench --man %s: %s\n", argv[1], err);
				return FSB_EXIT_FAIL;
			}
			return fflush(stdout) == EOF ? FSB_EXIT_FAIL : FSB_EXIT_OK;
		}
	fprintf(stderr, "fsbench --man: '%s' is not a command\n", argv[1]);
	return FSB_EXIT_USAGE;
}

/* ---- bash completion ---- */

/* The case arms of one command: what follows each option, then the option words. */
static void completion_tables(FILE *out, const struct captured *c)
{
	fputs("\t\tcase $prev in\n", out);
	for (int t = 0; t < c->ntbl; t++)
		for (const struct fsb_opt *o = c->tbl[t]; o->name; o++) {
			if (o->type == OPT_BOOL)
				continue;
			fprintf(out, "\t\t--%s", o->name);
			if (o->short_name)
				fprintf(out, " | -%c", o->short_name);
			fputs(")\n\t\t\t", out);
			if (o->type == OPT_ENUM) {
				fputs("COMPREPLY=($(compgen -W '", out);
				for (int i = 0; o->choices[i]; i++)
					fprintf(out, "%s%s", i ? " " : "", o->choices[i]);
				fputs("' -- \"$cur\"))", out);
			} else if (o->file == OPT_FILE) {
				fputs("_fsbench_files", out);
			} else if (o->file == OPT_DIR) {
				fputs("_fsbench_dirs", out);
			} else if (o->type == OPT_STRING || o->type == OPT_STRLIST) {
				/* text the table does not call a path: readline's default */
				fputs("compopt -o default 2>/dev/null; COMPREPLY=()", out);
			} else {
				fputs("COMPREPLY=()", out); /* a number: nothing to offer */
			}
			fputs("\n\t\t\treturn ;;\n", out);
		}
	fputs("\t\tesac\n\t\topts='", out);
	for (int t = 0; t < c->ntbl; t++)
		for (const struct fsb_opt *o = c->tbl[t]; o->name; o++) {
			fprintf(out, "--%s ", o->name);
			if (o->short_name)
				fprintf(out, "-%c ", o->short_name);
		}
	fputs("--help'\n", out);
}

int fsb_completion(int argc, char **argv)
{
	struct entry e[64];
	int n = entries(e, 64);
	char err[512];

	if (argc < 2 || strcmp(argv[1], "bash")) {
		fprintf(stderr, "fsbench --completion: which shell? (bash)\n");
		return FSB_EXIT_USAGE;
	}
	printf("# bash completion for fsbench %s, made from its option tables (fsbench "
	       "--completion bash)\n"
	       "_fsbench_files() { compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "
	       "\"$cur\")); }\n"
	       "_fsbench_dirs() { compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "
	       "\"$cur\")); }\n\n"
	       "_fsbench()\n{\n"
	       "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
	       "\tlocal cmd=${COMP_WORDS[1]} first=2 opts\n"
	       "\t# invoked as fs_mark, fsbench is fsbench smallfile\n"
	       "\tif [ \"${COMP_WORDS[0]##*/}\" = fs_mark ]; then cmd=smallfile first=1; fi\n"
	       "\tif [ \"$COMP_CWORD\" -lt \"$first\" ]; then\n"
	       "\t\tCOMPREPLY=($(compgen -W '",
	       FSB_VERSION);
	for (int i = 0; i < n; i++)
		printf("%s ", e[i].name);
	printf("--help --version' -- \"$cur\"))\n\t\treturn\n\tfi\n");
	for (int i = 0; i < n; i++) {
		const char *const *subs = subcommands(e[i].name);

		if (!subs)
			continue;
		printf("\tif [ \"$cmd\" = %s ]; then\n\t\tif [ \"$COMP_CWORD\" -eq 2 ]; then\n"
		       "\t\t\tCOMPREPLY=($(compgen -W '",
		       e[i].name);
		for (int j = 0; subs[j]; j++)
			printf("%s ", subs[j]);
		printf("--help' -- \"$cur\"))\n\t\t\treturn\n\t\tfi\n"
		       "\t\tcmd=\"%s ${COMP_WORDS[2]}\"\n\tfi\n",
		       e[i].name);
	}
	printf("\tcase $cmd in\n");
	for (int i = 0; i < n; i++) {
		const char *const *subs = subcommands(e[i].name);
		struct captured c;

		for (int j = -1; j < 0 || (subs && subs[j]); j++) {
			struct entry s = e[i];

			if (j >= 0)
				s.sub = subs[j];
			else if (subs)
				continue;
			if (capture(&s, &c, err, sizeof(err)) < 0) {
				fprintf(stderr, "fsbench --completion: %s\n", err);
				return FSB_EXIT_FAIL;
			}
			if (s.sub)
				printf("\t\"%s %s\")\n", s.name, s.sub);
			else
				printf("\t%s)\n", s.name);
			completion_tables(stdout, &c);
			printf("\t\t;;\n");
			captured_free(&c);
		}
	}
	printf("\t*)\n\t\t_fsbench_files\n\t\treturn ;;\n\tesac\n"
	       "\tif [[ $cur == -* ]]; then\n"
	       "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	       "\telse\n\t\t_fsbench_files # operands: result files, suites, paths\n\tfi\n}\n"
	       "complete -F _fsbench fsbench fs_mark\n");
	return fflush(stdout) == EOF ? FSB_EXIT_FAIL : FSB_EXIT_OK;
}
