/* Man pages in roff: a command's --help and tables, its exit statuses, files and examples. */
#include "fsbench/doc/capture.h"
#include "fsbench/doc/docgen.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	const char *mark = strchr(text, DOC_MARK);
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
static void man_options(FILE *out, const struct doc_captured *c, unsigned *types)
{
	const char *p = strchr(c->text, DOC_MARK);

	while (p) {
		int i = atoi(p + 1);
		const char *nl = strchr(p, '\n'), *next;

		if (i >= 0 && i < c->ntbl)
			man_table(out, c->tbl[i], types);
		if (!nl)
			break;
		next = strchr(nl + 1, DOC_MARK);
		man_paragraphs(out, nl + 1, next ? (size_t)(next - nl - 1) : strlen(nl + 1));
		p = next;
	}
}

/* ---- what the tables do not hold: exit statuses, files, examples ---- */

/* Whether @s is a status @cmd's page lists: the command's own, else the common one. */
static bool status_applies(const struct doc_program *p, const struct doc_status *s, const char *cmd)
{
	if (s->cmd)
		return cmd && !strcmp(s->cmd, cmd) && s->meaning;
	for (size_t j = 0; cmd && j < p->nstatuses; j++)
		if (p->statuses[j].cmd && !strcmp(p->statuses[j].cmd, cmd) &&
		    p->statuses[j].status == s->status)
			return false; /* the command's own meaning replaces the common one */
	return true;
}

static void man_statuses(FILE *out, const struct doc_program *p, const char *cmd)
{
	fputs(".SH EXIT STATUS\n", out);
	/* in the order of the status: a command's own ones among the common ones */
	for (int status = 0; status < 256; status++)
		for (size_t i = 0; i < p->nstatuses; i++)
			if (p->statuses[i].status == status &&
			    status_applies(p, &p->statuses[i], cmd))
				fprintf(out, ".TP\n%d\n%s\n", status, p->statuses[i].meaning);
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

static void man_examples(FILE *out, const struct doc_program *p, const char *cmd)
{
	bool any = false;

	for (size_t i = 0; i < p->nexamples; i++) {
		const struct doc_example *ex = &p->examples[i];

		if (cmd && strcmp(ex->cmd, cmd))
			continue;
		if (!any)
			fputs(".SH EXAMPLES\n", out);
		any = true;
		fprintf(out, ".PP\n.nf\n%s\n.fi\n.RS\n%s\n.RE\n", ex->line, ex->what);
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
static int man_command(FILE *out, const struct doc_program *p, int ci, char *err, size_t errlen)
{
	const struct doc_command *e = &p->cmds[ci];
	const char *const *subs = e->subs;
	char page[64];
	unsigned types = 0;
	struct doc_captured c;
	const char *syn, *desc;
	size_t synlen, desclen;
	int r;

	snprintf(page, sizeof(page), "fsbench-%s", e->name);
	man_header(out, page, e->summary);
	r = doc_capture(p, ci, NULL, &c, err, errlen);
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
	doc_captured_free(&c);
	for (int i = 0; subs && subs[i]; i++) {
		r = doc_capture(p, ci, subs[i], &c, err, errlen);
		if (r)
			return r;
		fprintf(out, ".SH \"%s %s\"\n", e->name, subs[i]);
		split_usage(c.text, &syn, &synlen, &desc, &desclen);
		if (syn)
			man_synopsis(out, syn, synlen);
		man_paragraphs(out, desc, desclen);
		man_options(out, &c, &types);
		doc_captured_free(&c);
	}
	man_values(out, types);
	man_statuses(out, p, e->name);
	man_files(out);
	man_examples(out, p, e->name);
	fputs(".SH SEE ALSO\n\\fBfsbench\\fR(1)\n", out);
	return 0;
}

/* fsbench(1): the commands, the default run, the fs_mark name. */
static int man_main(FILE *out, const struct doc_program *p)
{
	const struct doc_command *e = p->cmds;
	int n = p->ncmds;

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
	      ".SH COMMANDS\n",
	      out);
	for (int i = 0; i < n; i++) {
		fputs(".TP\n\\fBfsbench\\-", out);
		roff_str(out, e[i].name);
		fputs("\\fR(1)\n", out);
		roff_str(out, e[i].summary);
		fputc('\n', out);
	}
	fputs(".SH DROP-INS\nRun under another program's name (a link named so, as the package "
	      "puts in /usr/lib/fsbench/bin), fsbench is one of its commands with that program's "
	      "flags:\n",
	      out);
	for (size_t i = 0; i < p->ndropins; i++) {
		fputs(".TP\n\\fBfsbench\\-as\\-", out);
		roff_str(out, p->dropins[i].program);
		fputs("\\fR(1)\n\\fB", out);
		roff_str(out, p->dropins[i].program);
		fputs("\\fR is \\fBfsbench ", out);
		roff_str(out, p->dropins[i].cmd);
		fputs("\\fR, in place of ", out);
		roff_str(out, p->dropins[i].original);
		fputs("\n", out);
	}
	man_statuses(out, p, NULL);
	fputs(".PP\nSome commands have statuses of their own: see their pages.\n"
	      ".SH ENVIRONMENT\n"
	      ".TP\nTMPDIR\nwhere temporary images and directories go (default /var/tmp)\n"
	      ".TP\nFSBENCH_STATE_DIR\nthe restore journal's directory (default /run/fsbench)\n"
	      ".TP\nFSBENCH_CACHE_DIR\nthe kernel gate's cache\n",
	      out);
	man_files(out);
	fputs(".SH EXAMPLES\n.PP\n.nf\nfsbench\n.fi\n.RS\nthe quick suite.\n.RE\n", out);
	man_examples(out, p, "smallfile");
	fputs(".SH SEE ALSO\n", out);
	for (int i = 0; i < n; i++) {
		fputs(i ? ",\n\\fBfsbench\\-" : "\\fBfsbench\\-", out);
		roff_str(out, e[i].name);
		fputs("\\fR(1)", out);
	}
	for (size_t i = 0; i < p->ndropins; i++) {
		fputs(",\n\\fBfsbench\\-as\\-", out);
		roff_str(out, p->dropins[i].program);
		fputs("\\fR(1)", out);
	}
	fputc('\n', out);
	return 0;
}

int doc_man(FILE *out, const struct doc_program *p, int i, char *err, size_t errlen)
{
	if (i < 0)
		return man_main(out, p);
	return man_command(out, p, i, err, errlen);
}

/*
 * fsbench-as-PROGRAM(1): the drop-in's synopsis and usage errors, what differs from the
 * original, then the options of the command it runs, from the same --help as that
 * command's page (the drop-in parses the same table).
 */
int doc_man_dropin(FILE *out, const struct doc_program *p, int i, char *err, size_t errlen)
{
	const struct doc_dropin *d = &p->dropins[i];
	char page[64], summary[128];
	unsigned types = 0;
	struct doc_captured c;
	int ci, r;

	for (ci = 0; ci < p->ncmds && strcmp(p->cmds[ci].name, d->cmd); ci++)
		;
	if (ci == p->ncmds) {
		snprintf(err, errlen, "drop-in %s runs '%s', which is not a command", d->program,
			 d->cmd);
		return -EINVAL;
	}
	snprintf(page, sizeof(page), "fsbench-as-%s", d->program);
	snprintf(summary, sizeof(summary), "fsbench %s run as %s, in place of %s", d->cmd,
		 d->program, d->original);
	man_header(out, page, summary);
	fprintf(out, ".SH SYNOPSIS\n.nf\n%s\n.fi\n.SH DESCRIPTION\n", d->synopsis);
	fputs("Run under the name \\fB", out);
	roff_str(out, d->program);
	fputs("\\fR (a symbolic or hard link to fsbench; argv[0]'s last component), "
	      "fsbench is \\fBfsbench ",
	      out);
	roff_str(out, d->cmd);
	fputs("\\fR: it takes ", out);
	roff_str(out, d->original);
	fputs("'s flags with their meaning and prints its output, so a harness that runs \\fB",
	      out);
	roff_str(out, d->program);
	fputs("\\fR from PATH runs fsbench unchanged. \\fBmeson install\\fR puts the link in "
	      "PREFIX/lib/fsbench/bin, the Debian package in /usr/lib/fsbench/bin: first in "
	      "PATH, it runs fsbench and \\fBman ",
	      out);
	roff_str(out, d->program);
	fputs("\\fR shows this page. See \\fBfsbench\\fR(1) for choosing it with "
	      "\\fBupdate\\-alternatives\\fR(1) instead; \\fBmeson install\\fR with \\-D",
	      out);
	roff_str(out, d->program);
	fputs("_link=true puts the link in bindir itself.\n.PP\n", out);
	fputs(d->usage, out);
	fputs("\n.SH \"DIFFERENCES FROM ", out);
	for (const char *o = d->original; *o; o++)
		fputc(*o >= 'a' && *o <= 'z' ? *o - 'a' + 'A' : *o, out);
	fprintf(out, "\"\n%s\n", d->differences);
	r = doc_capture(p, ci, NULL, &c, err, errlen);
	if (r)
		return r;
	if (c.ntbl) {
		fputs(".SH OPTIONS\nThe options of \\fBfsbench ", out);
		roff_str(out, d->cmd);
		fputs("\\fR(1), fsbench's own among them:\n", out);
		man_options(out, &c, &types);
	}
	doc_captured_free(&c);
	man_values(out, types);
	man_statuses(out, p, d->program);
	man_examples(out, p, d->program);
	fputs(".SH SEE ALSO\n\\fBfsbench\\-", out);
	roff_str(out, d->cmd);
	fputs("\\fR(1), \\fBfsbench\\fR(1), \\fB", out);
	roff_str(out, d->program);
	fputs("\\fR(1) (the original's page, where its package is installed)\n", out);
	return 0;
}
