/* The subcommand dispatch that main() hands argv to. */
#ifndef FSB_DISPATCH_H
#define FSB_DISPATCH_H

/* Runs the workload or command named by argv[1]; returns the exit status. */
int fsb_dispatch(int argc, char **argv);

#endif
