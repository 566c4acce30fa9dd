/* What kernel-gate, kernel-run and lava job share on the CLI side: the prepare step, printed. */
#ifndef FSB_CMD_KGATE_H
#define FSB_CMD_KGATE_H

#include "fsbench/kgate/prepare.h"

/*
 * Boots a side by default. The model disk: 20 real A/A gates of 2 boots a side and pooled
 * A/A gates dealt from their boots raised no false alarm once a one-bucket step of a
 * percentile stopped counting as a change (report/floor.c; docs/kernel-gate.md, "How a
 * regression is decided"), so 2, the fewest that give the A/A floor two runs to compare.
 * virtio: p-values from 9 samples a side, host-timed.
 */
#define KG_MODEL_BOOTS 2
#define KG_VIRTIO_BOOTS 3
#define KG_MODEL_BOOTS_P999 4
#define KG_MAX_BOOTS 50

/*
 * kg_prepare() for command @cmd: prints what went wrong, or a line per kernel prepared.
 * Returns 0 to go on, else the exit status (2 usage, 125 an unusable kernel).
 */
int kg_cli_prepare(struct kg_ctx *x, int nk, const char *cmd);

/*
 * Opens the restore journal that the boots' scratch and results disks are recorded in, so
 * that `fsbench restore` removes them after a kill -9. Not root: no journal (restore is
 * root's). 0, or the exit status after printing why.
 */
int kg_cli_journal_open(struct kg_ctx *x, const char *cmd);

/* Removes the journal once the boots cleaned up after themselves. */
void kg_cli_journal_close(struct kg_ctx *x);

/*
 * One boot of side @side (boot @index of @total): runs, prints a line, appends its record
 * to @boots, puts the "vm" record into the guest's result and saves it as DIR/result.json
 * (its path in @ret_result). With @gate a nonzero guest status is no sample: 125. Returns 0,
 * or an exit status after printing why as @cmd.
 */
int kg_cli_boot(struct kg_ctx *x, int side, int index, int total, bool gate, json_t *boots,
		char *ret_result, size_t len, const char *cmd);

/*
 * kg_cli_boot into an array of its own, so that boots in threads side by side share
 * nothing: the record is the caller's in @ret_rec whatever happened. 0, or the exit status.
 */
int kg_cli_boot_one(struct kg_ctx *x, int side, int index, int total, bool gate, json_t **ret_rec,
		    char *ret_result, size_t len, const char *cmd);

/*
 * kernel-gate once its command line is in @x->a: the gate settings, the kernels prepared,
 * the boots, the comparisons, the verdict line and the gate's document. Returns the exit
 * status (0 good, 1 regressed, 2 usage, 125 cannot judge).
 */
int kg_cli_gate(struct kg_ctx *x);

#endif
