/* Man pages and bash completion, made from the option tables of the commands the CLI hands in. */
#ifndef FSB_DOCGEN_H
#define FSB_DOCGEN_H

#include <stddef.h>
#include <stdio.h>

/* One command as `fsbench --help` lists it. */
struct doc_command {
	const char *name; /* "smallfile", "lava" */
	const char *summary;
	/* NULL-terminated subcommands with tables of their own ("job" of lava), or NULL */
	const char *const *subs;
};

/*
 * An exit status a page lists: @cmd's own, or every command's when @cmd is NULL. A command's
 * own entry with no @meaning says that the common one does not apply to it (a status it
 * never exits with), and its page lists none.
 */
struct doc_status {
	const char *cmd;
	int status;
	const char *meaning; /* roff; NULL: none (see above) */
};

/* An example on @cmd's page: the command line and what it does, both roff. */
struct doc_example {
	const char *cmd;
	const char *line;
	const char *what;
};

/*
 * A program whose name runs command @cmd (fsbench as fs_mark is fsbench smallfile): its
 * page, fsbench-as-PROGRAM(1), has @cmd's options and says what differs from @original.
 */
struct doc_dropin {
	const char *program; /* "fs_mark" */
	const char *cmd; /* a workload of doc_program's cmds: "smallfile" */
	const char *original; /* what it stands in for: "fs_mark 3.3" */
	const char *synopsis; /* roff: "\\fBfs_mark\\fR \\-d \\fIDIR\\fR [\\fIoptions\\fR]" */
	const char *usage; /* roff: its usage errors, as the original's */
	const char *differences; /* roff: .IP paragraphs */
};

/*
 * What the pages are made from. The generators know no command: the caller (the CLI)
 * lists them, runs their --help and says what their exit statuses mean.
 */
struct doc_program {
	const struct doc_command *cmds; /* workloads first, as --help lists them */
	int ncmds;
	/*
	 * Runs command @i with @argv ({name, "--help"}, or {name, sub, "--help"}): it prints
	 * its usage on stdout and its tables through opt_print_help() (core/opt.h), which the
	 * generators hook to keep them. 0 when it did.
	 */
	int (*help)(int i, int argc, char **argv);
	const struct doc_status *statuses;
	size_t nstatuses;
	const struct doc_example *examples;
	size_t nexamples;
	const struct doc_dropin *dropins;
	size_t ndropins;
};

/*
 * fsbench(1) when @i is -1, else fsbench-NAME(1) of command @i, as roff on @out. 0, or
 * -errno with @err set (a --help that failed or could not be captured).
 */
int doc_man(FILE *out, const struct doc_program *p, int i, char *err, size_t errlen);

/*
 * fsbench-as-PROGRAM(1) of drop-in @i, as roff on @out; its exit statuses are those listed
 * for PROGRAM, else the common ones. 0, or -errno with @err set.
 */
int doc_man_dropin(FILE *out, const struct doc_program *p, int i, char *err, size_t errlen);

/* The bash completion script on @out. 0, or -errno with @err set. */
int doc_completion(FILE *out, const struct doc_program *p, char *err, size_t errlen);

#endif
