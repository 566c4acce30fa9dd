/*
 * The hidden `--man` and `--completion` the build runs (fsbench/gen/): the commands, their
 * exit statuses and examples handed to fsbench/doc/, its errors printed.
 */
#include "fsbench/cli/args.h"
#include "fsbench/cli/commands.h"
#include "fsbench/cli/man_cmd.h"
#include "fsbench/doc/docgen.h"
#include "fsbench/workloads/table.h"

#include <stdio.h>
#include <string.h>

#define MAN_MAX_COMMANDS 64

/* Subcommands: "fsbench lava job" has its own table. */
static const char *const lava_subs[] = { "job", "cases", "import", "submit", NULL };
static const char *const history_subs[] = { "add", "list", "changes", "report", "run", NULL };

/* What the exit statuses mean: every command's, then a command's own. */
static const struct doc_status statuses[] = {
	{ NULL, FSB_EXIT_OK, "success" },
	{ NULL, FSB_EXIT_FAIL, "the run failed or is incomplete (ENOSPC, EIO, a tool failed...)" },
	{ NULL, FSB_EXIT_USAGE, "bad flags or values; nothing was created" },
	{ "compare", FSB_EXIT_REGRESSED, "with \\-\\-gate: a gated metric regressed" },
	{ "compare", FSB_EXIT_CANNOT_JUDGE,
	  "cannot judge: inputs that cannot be put side by side, a strict gate that could not "
	  "judge, or a gated metric that would have regressed but whose sides ran under unequal "
	  "conditions (host load, the canary)" },
	{ "compare", FSB_EXIT_SYSTEM,
	  "the system failed (no memory, the \\-\\-json file could not be written); nothing "
	  "is implied about the inputs, and \\fBgit bisect run\\fR stops" },
	{ "kernel-gate", FSB_EXIT_REGRESSED, "the candidate kernel regressed" },
	{ "kernel-gate", FSB_EXIT_CANNOT_JUDGE,
	  "the candidate cannot be judged (it did not boot, too few samples, A/A noise); "
	  "\\fBgit bisect run\\fR reads it as \"skip\"" },
	{ "kernel-gate", FSB_EXIT_SYSTEM,
	  "the gate stopped for a reason that is neither kernel's (no memory, the restore "
	  "journal, a backend that could not be set up); \\fBgit bisect run\\fR stops rather "
	  "than call the commit bad" },
	{ "kernel-run", FSB_EXIT_CANNOT_JUDGE, "the kernel did not boot" },
	/* bisect never exits 1: a bad kernel is its answer, not its failure */
	{ "bisect", FSB_EXIT_OK, "the first bad kernel or commit was found" },
	{ "bisect", FSB_EXIT_FAIL, NULL },
	{ "bisect", FSB_EXIT_USAGE,
	  "usage: bad flags, \\-\\-good or \\-\\-bad not in the list or not commits, "
	  "\\-\\-good after \\-\\-bad, a TREE that is not git or is mid-bisect, a "
	  "\\-\\-workdir that is not empty, a \\-\\-resume whose bisect.json does not match "
	  "(nothing was done for these); or, after steps were gated, a \\-\\-metric no gate "
	  "names, or a gate that exited 2 (its options, after \"\\-\\-\", are wrong)" },
	{ "bisect", FSB_EXIT_CANNOT_JUDGE,
	  "cannot judge: \\-\\-bad is not bad against \\-\\-good (or \\-\\-good is already "
	  "bad), the bad end could not be judged, the good commit does not build, or only "
	  "skipped kernels or commits lie between the last good one and the first bad one" },
	{ "bisect", FSB_EXIT_SYSTEM,
	  "the system failed, or a gate did (exit 128 or above): the bisection stopped, and "
	  "no kernel was called bad for it; 128+N: stopped by signal N (\\-\\-resume "
	  "continues it)" },
	{ "kernel-run", FSB_EXIT_SYSTEM, "the system failed; nothing is implied about the kernel" },
	{ "history", FSB_EXIT_USAGE,
	  "usage, or (add) a file that is not an fsbench result: nothing of it added, the "
	  "other files still added" },
	{ "history", FSB_EXIT_REGRESSED, "changes, report: a change point is a regression" },
	{ "history", FSB_EXIT_CANNOT_JUDGE,
	  "changes, report: no series could be judged (fewer than 2 kernels, no kernel with 2 "
	  "runs, or boots that differ by more than 20 %); run: some kernel could not be booted "
	  "or its suite failed (the other boots still added)" },
	{ "history", FSB_EXIT_SYSTEM,
	  "the store cannot be used: it cannot be opened or reached, it is damaged or "
	  "truncated, it was written by a newer fsbench (schema version), the server went away "
	  "or the disk is full; nothing was half added, and \\fBgit bisect run\\fR stops" },
	/* the drop-ins' pages (fsbench-as-PROGRAM): their usage errors are the originals' */
	{ "fs_mark", FSB_EXIT_FAIL,
	  "the run failed or is incomplete; or, as fs_mark: \\-h or \\-\\-help, or no \\-d "
	  "(the usage on stderr, nothing run)" },
	{ "fs_mark", FSB_EXIT_USAGE, "bad flags or values (fs_mark says 1); nothing was created" },
	{ "dbench", FSB_EXIT_FAIL, "the run failed or is incomplete; or, as dbench: no NPROCS" },
	{ "dbench", FSB_EXIT_USAGE, "bad flags or values (dbench says 1); nothing was created" },
};

/* One example per page (roff). */
static const struct doc_example examples[] = {
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
	{ "bisect",
	  "fsbench bisect \\-\\-good 6.1.0\\-47.deb \\-\\-bad 6.1.0\\-57.deb debs/ \\-\\- \\-\\-boots 4",
	  "gate the packages between the two, halving, until the first bad one is found." },
	{ "lava", "fsbench lava job \\-\\-kernel\\-url https://example.org/bzImage > job.yaml",
	  "a LAVA job definition that runs the suite on a fleet device." },
	{ "history", "fsbench history add results/*.json && fsbench history changes",
	  "keep every result over kernels (a file once, by content), then the change points of "
	  "every series, regressions first; exit 1 when one is a regression." },
	{ "info", "fsbench info /mnt/test", "the mount, device, knobs and topology under a path." },
	{ "knobs", "fsbench knobs /mnt/test",
	  "the knobs fsbench can set under a path, with their "
	  "values." },
	{ "restore", "fsbench restore", "put back the knobs an interrupted run left changed." },
	{ "fs_mark",
	  "PATH=/usr/lib/fsbench/bin:$PATH fs_mark \\-d /mnt/test \\-s 4096 \\-n 1000 \\-L 1",
	  "LKP's and mmtests' fs_mark command line, run by fsbench; fs_mark's table on stdout." },
	{ "dbench", "PATH=/usr/lib/fsbench/bin:$PATH dbench \\-D /mnt/test \\-t 60 4",
	  "four clients replay client.txt for 60 s after a 12 s warmup; dbench's output." },
	{ "compilebench",
	  "PATH=/usr/lib/fsbench/bin:$PATH compilebench \\-D /mnt/test \\-i 10 \\-\\-makej",
	  "the Phoronix Test Suite's compilebench command line; compilebench's summary lines." },
};

/*
 * The drop-ins, in fsb_dropins' order (cli/dispatch.c): what a page says beyond the
 * options. What differs is what docs/smallfile.md, docs/dbench.md and docs/tree.md say.
 */
static const struct doc_dropin dropin_texts[] = {
	{ "fs_mark", "smallfile", "fs_mark 3.3",
	  "\\fBfs_mark\\fR \\-d \\fIDIR\\fR [\\-d \\fIDIR\\fR ...] [\\fIoptions\\fR]",
	  "Its usage errors are fs_mark's: \\-h (or \\-\\-help) prints the usage on stderr and "
	  "exits 1, and a command line without \\-d is refused (exit 1, nothing run), where "
	  "\\fBfsbench smallfile\\fR prints its help on stdout with exit 0 and runs in a "
	  "temporary directory without \\-d. A bad flag or value exits 2.",
	  ".IP \\(bu 2\n"
	  "Sizes take units: \\-s 4k and \\-w 4k mean 4096 bytes, where fs_mark 3.3 reads "
	  "the number before the letter (4 bytes). A plain number is bytes in both.\n"
	  ".IP \\(bu 2\n"
	  "Files/sec is the files of a loop over its wall time, from the first thread's start "
	  "to the last one's end; fs_mark adds up per-thread rates, which overstates throughput "
	  "when threads end apart. fs_mark's figure is in the \\-\\-json result as "
	  "fs_mark_files_per_sec.\n"
	  ".IP \\(bu 2\n"
	  "The \\-v table is over all calls (fs_mark averages per-thread averages), with "
	  "percentiles from a latency histogram per operation.\n"
	  ".IP \\(bu 2\n"
	  "A loop that failed (ENOSPC, EIO, a signal) prints no row, and the exit status is "
	  "1.\n"
	  ".IP \\(bu 2\n"
	  "\\-t is at most 1024 (fs_mark 64) and a multiple of the number of \\-d.\n"
	  ".IP \\(bu 2\n"
	  "\\-l \\fIFILE\\fR: fs_mark writes fs_log.txt unasked; fsbench only when told.\n"
	  ".IP \\(bu 2\n"
	  "fsbench's own options (\\-\\-json, \\-\\-fdatasync, \\-\\-runtime, "
	  "\\-\\-interval, \\-\\-quiet and the probes') are accepted too." },
	{ "dbench", "dbench", "dbench 4.0", "\\fBdbench\\fR [\\fIoptions\\fR] \\fINPROCS\\fR",
	  "As dbench, a command line without NPROCS is refused (a line and the usage on "
	  "stderr, exit 1, nothing run), where \\fBfsbench dbench\\fR runs one client. NPROCS "
	  "may stand anywhere among the flags. Without \\-D the clients work in the current "
	  "directory, as dbench's do.",
	  ".IP \\(bu 2\n"
	  "Clients are threads of one process, not processes; LockX and UnlockX use "
	  "open-file-description locks, so each handle is its own lock owner.\n"
	  ".IP \\(bu 2\n"
	  "Each operation is timed alone (CLOCK_MONOTONIC) into a histogram per operation; "
	  "dbench times with gettimeofday and reports a count, a mean and a maximum.\n"
	  ".IP \\(bu 2\n"
	  "Only the fileio backend: \\-B nfs, smb, iscsi and the others are refused.\n"
	  ".IP \\(bu 2\n"
	  "An open the loadfile expects to succeed that fails ends the run with the line and the "
	  "reason; dbench warns and fails later.\n"
	  ".IP \\(bu 2\n"
	  "In a -D others may write to, paths are resolved beneath \\-D through no symbolic "
	  "link (ELOOP instead), and one such \\-D below another user's directory is refused "
	  "when run as root; dbench follows links.\n"
	  ".IP \\(bu 2\n"
	  "Cleanup removes the clients' directories and clients/ itself; dbench 4.0 leaves the "
	  "directories." },
	{ "compilebench", "tree", "compilebench 0.6",
	  "\\fBcompilebench\\fR \\-D \\fIDIR\\fR [\\fIoptions\\fR] [\\fITEST\\fR]",
	  "\\-h prints the help on stdout with exit 0, as compilebench's optparse does. A "
	  "trailing TEST (INITIAL_CREATE, COMPILE or READ_COMPILED_TREE, what the Phoronix Test "
	  "Suite appends) selects the phase the result reports; another name exits 2.",
	  ".IP \\(bu 2\n"
	  "File and directory names are generated from indices; compilebench replays the names "
	  "of a 2.6 kernel tree from its description files. compilebench's \\-s (that "
	  "directory) has no counterpart: the shape comes from \\-\\-shape\\-from or the "
	  "default.\n"
	  ".IP \\(bu 2\n"
	  "patch rewrites files whole and neither adds nor removes files; compile writes objects "
	  "without reading sources.\n"
	  ".IP \\(bu 2\n"
	  "A syncfs() after each phase run, for the device bytes per phase; "
	  "\\-\\-no\\-sync leaves it out.\n"
	  ".IP \\(bu 2\n"
	  "Without \\-D, a fresh temporary directory, removed afterwards." },
};

/* Every top-level command, workloads first, as `fsbench --help` lists them. */
static struct doc_command cmds[MAN_MAX_COMMANDS];
static const struct fsb_workload *cmd_wl[MAN_MAX_COMMANDS];
static int (*cmd_main[MAN_MAX_COMMANDS])(int argc, char **argv);

static int run_help(int i, int argc, char **argv)
{
	return cmd_wl[i] ? cmd_workload(cmd_wl[i], argc, argv, NULL) : cmd_main[i](argc, argv);
}

static struct doc_program program(void)
{
	int n = 0;

	for (int i = 0; fsb_workloads[i] && n < MAN_MAX_COMMANDS; i++, n++) {
		cmds[n] = (struct doc_command){ .name = fsb_workloads[i]->name,
						.summary = fsb_workloads[i]->summary };
		cmd_wl[n] = fsb_workloads[i];
	}
	for (int i = 0; fsb_commands[i].name && n < MAN_MAX_COMMANDS; i++, n++) {
		cmds[n] = (struct doc_command){ .name = fsb_commands[i].name,
						.summary = fsb_commands[i].summary,
						.subs = !strcmp(fsb_commands[i].name, "lava") ?
								lava_subs :
							!strcmp(fsb_commands[i].name, "history") ?
								history_subs :
								NULL };
		cmd_main[n] = fsb_commands[i].main;
	}
	return (struct doc_program){ .cmds = cmds,
				     .ncmds = n,
				     .help = run_help,
				     .statuses = statuses,
				     .nstatuses = sizeof(statuses) / sizeof(statuses[0]),
				     .examples = examples,
				     .nexamples = sizeof(examples) / sizeof(examples[0]),
				     .dropins = dropin_texts,
				     .ndropins = sizeof(dropin_texts) / sizeof(dropin_texts[0]) };
}

/* The pages' drop-ins are dispatch's, one for one: a new drop-in needs its page's text. */
static int dropins_match(void)
{
	size_t n = 0;

	for (; fsb_dropins[n].program; n++)
		if (n >= sizeof(dropin_texts) / sizeof(dropin_texts[0]) ||
		    strcmp(fsb_dropins[n].program, dropin_texts[n].program) ||
		    strcmp(fsb_dropins[n].workload, dropin_texts[n].cmd))
			return cmd_fail(
				FSB_EXIT_FAIL, "--man",
				"drop-in %s (%s): cli/man_cmd.c's dropin_texts has no page text for "
				"it in fsb_dropins' order",
				fsb_dropins[n].program, fsb_dropins[n].workload);
	if (n != sizeof(dropin_texts) / sizeof(dropin_texts[0]))
		return cmd_fail(FSB_EXIT_FAIL, "--man",
				"cli/man_cmd.c's dropin_texts has %zu drop-ins, cli/dispatch.c's "
				"fsb_dropins %zu",
				sizeof(dropin_texts) / sizeof(dropin_texts[0]), n);
	return 0;
}

int fsb_man(int argc, char **argv)
{
	struct doc_program p = program();
	char err[512] = "";
	int i = -1, r;

	r = dropins_match();
	if (r)
		return r;

	/* `--man as-PROGRAM`: a drop-in's page (dbench is a command too) */
	if (argc >= 2 && !strncmp(argv[1], "as-", 3)) {
		size_t k = 0;

		while (k < p.ndropins && strcmp(argv[1] + 3, p.dropins[k].program))
			k++;
		if (k == p.ndropins)
			return cmd_fail(FSB_EXIT_USAGE, "--man", "'%s' is not a drop-in",
					argv[1] + 3);
		if (doc_man_dropin(stdout, &p, (int)k, err, sizeof(err)) < 0) {
			fprintf(stderr, "fsbench --man %s: %s\n", argv[1], err);
			return FSB_EXIT_FAIL;
		}
		return fflush(stdout) == EOF ? FSB_EXIT_FAIL : FSB_EXIT_OK;
	}
	if (argc >= 2) {
		while (++i < p.ncmds && strcmp(argv[1], p.cmds[i].name))
			;
		if (i == p.ncmds)
			return cmd_fail(FSB_EXIT_USAGE, "--man", "'%s' is not a command", argv[1]);
	}
	if (doc_man(stdout, &p, i, err, sizeof(err)) < 0) {
		fprintf(stderr, "fsbench --man %s: %s\n", argc >= 2 ? argv[1] : "", err);
		return FSB_EXIT_FAIL;
	}
	return fflush(stdout) == EOF ? FSB_EXIT_FAIL : FSB_EXIT_OK;
}

int fsb_completion(int argc, char **argv)
{
	struct doc_program p = program();
	char err[512] = "";

	if (argc < 2 || strcmp(argv[1], "bash"))
		return cmd_fail(FSB_EXIT_USAGE, "--completion", "which shell? (bash)");
	if (doc_completion(stdout, &p, err, sizeof(err)) < 0)
		return cmd_fail(FSB_EXIT_FAIL, "--completion", "%s", err);
	return fflush(stdout) == EOF ? FSB_EXIT_FAIL : FSB_EXIT_OK;
}
