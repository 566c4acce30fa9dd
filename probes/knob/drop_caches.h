/* Cold caches between repetitions: sync, then drop the page cache, dentries and inodes. */
#ifndef PROBE_DROP_CACHES_H
#define PROBE_DROP_CACHES_H

/*
 * Writes "3" to <@root>/proc/sys/vm/drop_caches after sync(2) (@root NULL or "" is the
 * live system; a fixture root is not synced). Returns 0 or -errno (-EACCES without root).
 */
int probe_drop_caches(const char *root);

#endif
