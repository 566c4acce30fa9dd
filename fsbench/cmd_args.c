/* Argument parsing for commands that take files (see cmd_args.h). */
#include "cmd_args.h"

#include <errno.h>
#include <string.h>

enum cmd_args_result cmd_args_parse(const char *cmd, const struct fsb_opt *tbl, void *cfg, int argc,
				    char **argv, cmd_operand_fn operand, void (*usage)(FILE *out))
{
	char err[OPT_ERR_MAX];
	bool only_operands = false;
	int i = 1;

	if (opt_set_defaults(tbl, cfg, err, sizeof(err))) {
		fprintf(stderr, "fsbench %s: %s\n", cmd, err);
		return CMD_ARGS_BAD;
	}
	while (i < argc) {
		if (!only_operands && argv[i][0] == '-' && argv[i][1]) {
			/* argv[i - 1] stands in for the command name getopt skips */
			int r = opt_parse_argv(tbl, cfg, argc - i + 1, argv + i - 1, err,
					       sizeof(err));

			if (r == -ECANCELED) {
				usage(stdout);
				opt_print_help(tbl, stdout);
				return CMD_ARGS_HELP;
			}
			if (r < 0) {
				fprintf(stderr, "fsbench %s: %s (see --help)\n", cmd, err);
				return CMD_ARGS_BAD;
			}
			if (r > 1) { /* getopt took something: it stops only at an operand */
				only_operands = !strcmp(argv[i + r - 2], "--");
				i += r - 1;
				continue;
			}
		}
		if (operand(cfg, argv[i], err, sizeof(err))) {
			fprintf(stderr, "fsbench %s: %s\n", cmd, err);
			return CMD_ARGS_BAD;
		}
		i++;
	}
	return CMD_ARGS_OK;
}
