/* The prepare step as kernel-gate, kernel-run and lava job print it (cli/kgate.h). */
#include "fsbench/cli/kgate.h"
#include "fsbench/cli/commands.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "probes/journal.h"

int kg_cli_prepare(struct kg_ctx *x, int nk, const char *cmd)
{
	enum kg_prepare_fail fail;
	char err[4096];

	fflush(stdout); /* stderr's lines must not cut into a line stdout has buffered */
	if (kg_prepare(x, nk, &fail, err, sizeof(err))) {
		fprintf(stderr, "fsbench %s: %s\n", cmd, err);
		return fail == KG_PREPARE_USAGE ? FSB_EXIT_USAGE : FSB_EXIT_CANNOT_JUDGE;
	}
	for (int i = 0; i < nk; i++)
		fprintf(stderr, "fsbench %s: %s %s: %s, initramfs %s%s\n", cmd, x->k[i].label,
			x->k[i].release, x->k[i].image, x->initramfs[i],
			x->cached[i] ? " (cached)" : "");
	return 0;
}

int kg_cli_journal_open(struct kg_ctx *x, const char *cmd)
{
	int r;

	probe_scratch_init(&x->scratch);
	r = journal_open(journal_state_dir(), &x->scratch.journal);
	if (r < 0) {
		x->scratch.journal = NULL;
		if (geteuid() != 0)
			return 0;
		fprintf(stderr, "fsbench %s: creating the restore journal in %s: %s%s\n", cmd,
			journal_state_dir(), strerror(-r),
			r == -EPERM ? " (it must be root's and not writable by others)" : "");
		return FSB_EXIT_FAIL;
	}
	x->a.vm.scratch = &x->scratch;
	return 0;
}

void kg_cli_journal_close(struct kg_ctx *x)
{
	if (x->scratch.journal)
		journal_remove(x->scratch.journal);
	x->scratch.journal = journal_close(x->scratch.journal);
	x->a.vm.scratch = NULL;
}
