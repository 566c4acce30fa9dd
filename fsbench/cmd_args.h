/* Argument parsing for commands that take files: the option table parser, operands anywhere. */
#ifndef FSB_CMD_ARGS_H
#define FSB_CMD_ARGS_H

#include <stddef.h>
#include <stdio.h>

#include "opt.h"

enum cmd_args_result {
	CMD_ARGS_OK, /* parsed: run the command */
	CMD_ARGS_HELP, /* -h/--help: help was printed to stdout, exit FSB_EXIT_OK */
	CMD_ARGS_BAD, /* one line went to stderr, exit FSB_EXIT_USAGE */
};

/* Takes one operand (a file) in command-line order; 0, or -EINVAL with @err set. */
typedef int (*cmd_operand_fn)(void *cfg, char *arg, char *err, size_t errlen);

/*
 * Sets @tbl's defaults in @cfg, then parses @argv (argv[0] is the command) with
 * opt_parse_argv(), options and operands in any order: each run of options up to the next
 * operand, then that operand to @operand; after "--" everything is an operand. On -h,
 * prints @usage and the table's help. Free @cfg's strings with opt_free() in every case.
 */
enum cmd_args_result cmd_args_parse(const char *cmd, const struct fsb_opt *tbl, void *cfg, int argc,
				    char **argv, cmd_operand_fn operand, void (*usage)(FILE *out));

#endif
