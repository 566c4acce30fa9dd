/* The hidden commands the build runs: man pages and shell completion (made by fsbench/doc/). */
#ifndef FSB_CLI_MAN_CMD_H
#define FSB_CLI_MAN_CMD_H

/* `fsbench --man [COMMAND]`: fsbench(1), or fsbench-COMMAND(1), as roff on stdout. */
int fsb_man(int argc, char **argv);

/* `fsbench --completion bash`: the bash completion script on stdout. */
int fsb_completion(int argc, char **argv);

#endif
