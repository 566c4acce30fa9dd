/* The attribution table: a run's slowest calls, each with what the kernel did meanwhile. */
#ifndef RPT_ATTRIB_H
#define RPT_ATTRIB_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* Rows at most in one table (fsbench keeps 20 slow calls per op). */
#define RPT_ATTRIB_MAX 256

/*
 * One slow call of a result's probes.slow_calls as a sentence into @buf: "fsync 20.59 ms =
 * jbd2 commit 20.47 ms (locked 0.01, flushing 0.00, logging 20.46; 2 flushes 19.78 ms on
 * loop1, 3 handles) + 3 writes (36 KiB) 0.11 ms". @device names the disk.
 */
void rpt_attrib_sentence(const json_t *call, const char *device, char *buf, size_t len);

/*
 * The table for one run: calls of @op (NULL: all ops), slowest first, at most @max, as
 * text columns or a markdown table. Returns the rows printed, or -ENOENT when the run
 * has no probes.
 */
int rpt_attrib_print(FILE *out, const json_t *run, const char *op, size_t max, bool markdown);

/*
 * The table of every run of result @doc (read from @path) that has probes, each under a
 * line naming the file, the run, its workload, filesystem and device; *@shown counts the
 * runs shown so far (a blank line between them).
 */
void rpt_attrib_print_doc(FILE *out, const char *path, const json_t *doc, const char *op,
			  size_t max, bool markdown, int *shown);

/* The same as an HTML table, text through @esc; returns the rows (0: nothing printed). */
int rpt_attrib_html(FILE *out, const json_t *run, size_t max,
		    void (*esc)(FILE *out, const char *s));

#endif
