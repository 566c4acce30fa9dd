/* The prepare step as kernel-gate, kernel-run and lava job print it (cli/kgate.h). */
#include "fsbench/cli/kgate.h"
#include "fsbench/cli/commands.h"

#include <stdio.h>

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
