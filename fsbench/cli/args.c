/* Commands that take files: the parser loop around opt.h (see cmd_args.h). */
#include "fsbench/cli/args.h"
#include "fsbench/cli/commands.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int add_file(const struct cmd_spec *spec, void *cfg, char *arg, char *err, size_t errlen)
{
	struct cmd_files *f = (struct cmd_files *)((char *)cfg + spec->files_offset);

	if (spec->operand)
		return spec->operand(cfg, arg, err, errlen);
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

/* 0 to run the command, else the exit status. */
static int parse(const struct cmd_spec *spec, void *cfg, int argc, char **argv)
{
	char err[OPT_ERR_MAX];
	bool only_operands = false;
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
				spec->usage(stdout);
				opt_print_help(spec->opts, stdout);
				return -1;
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
		if (add_file(spec, cfg, argv[i], err, sizeof(err))) {
			fprintf(stderr, "fsbench %s: %s\n", spec->name, err);
			return FSB_EXIT_USAGE;
		}
		i++;
	}
	return 0;
}

int cmd_args_run(const struct cmd_spec *spec, void *cfg, int argc, char **argv)
{
	int status = parse(spec, cfg, argc, argv);

	if (status < 0)
		status = FSB_EXIT_OK; /* --help */
	else if (status == 0)
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
