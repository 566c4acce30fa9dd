/* The knob tests' fixture: a fresh copy of fixtures/knobs-sysfs per test, and its helpers. */
#ifndef FSB_TEST_KNOB_FIXTURE_H
#define FSB_TEST_KNOB_FIXTURE_H

#include <limits.h>
#include <stdio.h>

#include "probes/knob/journal.h"
#include "probes/knob/knob.h"

/* The copy of the fake sysfs tree (setup()), and the state directory inside it. */
extern char root[PATH_MAX], state[PATH_MAX + 16];

/* The first line of @rel under root, or a failed test. */
void slurp(const char *rel, char *buf, size_t len);
void put(const char *rel, const char *value);
/* cmocka's setup and teardown: every test works on a fresh copy, as knobs write into it. */
int setup(void **st);
int teardown(void **st);
void target(const char *disk, const char *mnt, const char *fstype, struct knob_target *t);
/* A journal opened in the state directory. */
struct journal *new_journal(void);
/* A journal in the state directory left by a process that has died, one entry in it. */
FILE *dead_journal(char *path, size_t len);

#endif
