/* What the knob_*.c files share and nobody else uses (the public API is knob.h). */
#ifndef PROBE_KNOB_INTERNAL_H
#define PROBE_KNOB_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "probes/knob/knob.h"
#include "probes/target/mount.h"

/* "Unbounded" for integer knobs: far beyond any real value, still a valid long long. */
#define LL_BIG (1LL << 40)

/* The file of knob @name (of definition @d) relative to @t's root. 0, or -ENOENT. */
int knob_path(const struct knob_target *t, const struct knob_def *d, const char *name, char *ret,
	      size_t len);

/* "[none] mq-deadline kyber": the bracketed word, or the only word of a plain file. */
int knob_select_active(const char *content, char *ret, size_t len);

/* Whether @word is one of those a select file lists. */
bool knob_select_lists(const char *content, const char *word);

/* Barriers are on unless the options turn them off (fs_traits spells "off" per type). */
bool knob_barrier_on(const struct probe_mount *m);

/* Remounts @mountpoint adding @opt; -EXDEV under a fixture root. 0 or -errno. */
int knob_remount(const char *root, const char *mountpoint, const char *opt);

/* A whole decimal integer, or -EINVAL. */
int knob_parse_ll(const char *s, long long *ret);

/* A knob value as JSON: integers and booleans as numbers, the rest as strings. */
json_t *knob_value_json(const struct knob_def *d, const char *v);

#endif
