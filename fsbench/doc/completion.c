/* The bash completion script: every command's options, from the tables its --help passes. */
#include "fsbench/doc/capture.h"
#include "fsbench/doc/docgen.h"

#include <stdio.h>
#include <string.h>

/* The case arms of one command: what follows each option, then the option words. */
static void completion_tables(FILE *out, const struct doc_captured *c)
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

int doc_completion(FILE *out, const struct doc_program *p, char *err, size_t errlen)
{
	const struct doc_command *e = p->cmds;
	int n = p->ncmds;

	fprintf(out,
		"# bash completion for fsbench %s, made from its option tables (fsbench "
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
		fprintf(out, "%s ", e[i].name);
	fprintf(out, "--help --version' -- \"$cur\"))\n\t\treturn\n\tfi\n");
	for (int i = 0; i < n; i++) {
		const char *const *subs = e[i].subs;

		if (!subs)
			continue;
		fprintf(out,
			"\tif [ \"$cmd\" = %s ]; then\n\t\tif [ \"$COMP_CWORD\" -eq 2 ]; then\n"
			"\t\t\tCOMPREPLY=($(compgen -W '",
			e[i].name);
		for (int j = 0; subs[j]; j++)
			fprintf(out, "%s ", subs[j]);
		fprintf(out,
			"--help' -- \"$cur\"))\n\t\t\treturn\n\t\tfi\n"
			"\t\tcmd=\"%s ${COMP_WORDS[2]}\"\n\tfi\n",
			e[i].name);
	}
	fprintf(out, "\tcase $cmd in\n");
	for (int i = 0; i < n; i++) {
		const char *const *subs = e[i].subs;
		struct doc_captured c;

		for (int j = -1; j < 0 || (subs && subs[j]); j++) {
			const char *sub = j >= 0 ? subs[j] : NULL;
			int r;

			if (j < 0 && subs)
				continue;
			r = doc_capture(p, i, sub, &c, err, errlen);
			if (r < 0)
				return r;
			if (sub)
				fprintf(out, "\t\"%s %s\")\n", e[i].name, sub);
			else
				fprintf(out, "\t%s)\n", e[i].name);
			completion_tables(out, &c);
			fputs("\t\t;;\n", out);
			doc_captured_free(&c);
		}
	}
	fprintf(out, "\t*)\n\t\t_fsbench_files\n\t\treturn ;;\n\tesac\n"
		     "\tif [[ $cur == -* ]]; then\n"
		     "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
		     "\telse\n\t\t_fsbench_files # operands: result files, suites, paths\n\tfi\n}\n"
		     "complete -F _fsbench fsbench fs_mark\n");
	return 0;
}
