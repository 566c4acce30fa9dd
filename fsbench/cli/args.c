/* Commands that take files: the parser loop around opt.h (see cmd_args.h). */
#include "fsbench/cli/args.h"
#include "fsbench/cli/commands.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* One operand: the command's callback, the option it sets, or one more file. */
static int add_operand(const struct cmd_spec *spec, void *cfg, char *arg, bool *seen, char *err,
		       size_t errlen)
{
	struct cmd_files *f = (struct cmd_files *)((char *)cfg + spec->files_offset);

	if (spec->operand)
		return spec->operand(cfg, arg, err, errlen);
	if (spec->operand_opt) {
		if (*seen)
			return cmd_no_operand(cfg, arg, err, errlen);
		*seen = true;
		return opt_set(spec->opts, cfg, spec->operand_opt, arg, err, errlen) < 0 ? -EINVAL :
											   0;
	}
	if (f->n >= CMD_MAX_FILES) {
		snprintf(err, errlen, "%s: at most %d input files", arg, CMD_MAX_FILES);
		return -EINVAL;
	}
	f->v[f->n++] = arg;
	return 0;
}

int cmd_sides_finish(struct cmd_sides *s, char *err, size_t errlen)
{
	if (s->baseline && s->candidate) {
		snprintf(err, errlen, "--baseline and --candidate with no file between them");
		return -EINVAL;
	}
	if (s->candidate)
		s->side = 1;
	else if (s->baseline)
		s->side = 0;
	s->saw_candidate |= s->candidate;
	s->baseline = s->candidate = false;
	return 0;
}

int cmd_sides_add(struct cmd_sides *s, char *arg, char *err, size_t errlen)
{
	if (cmd_sides_finish(s, err, errlen))
		return -EINVAL;
	if (s->nfiles[s->side] >= CMD_MAX_FILES) {
		snprintf(err, errlen, "%s: at most %d files a side", arg, CMD_MAX_FILES);
		return -EINVAL;
	}
	s->files[s->side][s->nfiles[s->side]++] = arg;
	return 0;
}

int cmd_fail(int status, const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fsbench %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return status;
}

int cmd_no_operand(void *cfg, char *arg, char *err, size_t errlen)
{
	(void)cfg;
	snprintf(err, errlen, "unexpected argument '%s'", arg);
	return -EINVAL;
}

int cmd_one_operand(const char **slot, char *arg, char *err, size_t errlen)
{
	if (*slot)
		return cmd_no_operand(NULL, arg, err, errlen);
	*slot = arg;
	return 0;
}

/* 0 to run the command, else the exit status. */
static int parse(const struct cmd_spec *spec, void *cfg, int argc, char **argv)
{
	char err[OPT_ERR_MAX];
	bool only_operands = false, seen = false;
	int i = 1;

	if (opt_set_defaults(spec->opts, cfg, err, sizeof(err))) {
		fprintf(stderr, "fsbench %s: %s\n", spec->name, err);
		return FSB_EXIT_USAGE;
	}
	while (i < argc) {
		if (!only_operands && argv[i][0] == '-' && argv[i][1]) {
			/* argv[i - 1] stands in for the command name getopt skips */
			int r = opt_parse_argv(spec->opts, cfg, argc - i + 1, argv + i - 1, err,
					       sizeof(err));

			if (r == -ECANCELED) {
				FILE *out = spec->help_out ? spec->help_out : stdout;

				if (spec->usage)
					spec->usage(out);
				else
					fprintf(out, "usage: fsbench %s [options]\n%s\n\n",
						spec->name, spec->summary ? spec->summary : "");
				opt_print_help(spec->opts, out);
				if (spec->more_help)
					spec->more_help(out);
				return spec->help_status ? spec->help_status : -1;
			}
			if (r < 0) {
				fprintf(stderr, "fsbench %s: %s (see --help)\n", spec->name, err);
				return FSB_EXIT_USAGE;
			}
			if (r > 1) { /* getopt took something: it stops only at an operand */
				only_operands = !strcmp(argv[i + r - 2], "--");
				i += r - 1;
				continue;
			}
		}
		if (add_operand(spec, cfg, argv[i], &seen, err, sizeof(err))) {
			fprintf(stderr, "fsbench %s: %s\n", spec->name, err);
			return FSB_EXIT_USAGE;
		}
		i++;
	}
	if (spec->ret_operand_seen)
		*spec->ret_operand_seen = seen;
	return 0;
}

bool cmd_args_parse(const struct cmd_spec *spec, void *cfg, int argc, char **argv, int *ret_status)
{
	int status = parse(spec, cfg, argc, argv);

	*ret_status = status < 0 ? FSB_EXIT_OK : status; /* < 0: --help */
	return status == 0;
}

int cmd_args_run(const struct cmd_spec *spec, void *cfg, int argc, char **argv)
{
	int status;

	if (cmd_args_parse(spec, cfg, argc, argv, &status))
		status = spec->run(cfg);
	opt_free(spec->opts, cfg);
	return status;
}

size_t cmd_sides_flatten(const struct cmd_sides *s, const char **ret_paths, int *ret_sides)
{
	size_t n = 0;

	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < s->nfiles[k]; i++) {
			ret_paths[n] = s->files[k][i];
			ret_sides[n++] = k;
		}
	return n;
}
