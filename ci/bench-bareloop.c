/* The reference for ci/bench-overhead: open/write/fsync/close and nothing else. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static const char *dir;
static int dfd = AT_FDCWD, name_len; /* name_len 0: DIR/tT-I; else that long, in DIR's fd */

static void name(char *out, size_t n, long t, long i)
{
	if (name_len)
		snprintf(out, n, "%0*lx", name_len, ((unsigned long)t << 40) | (unsigned long)i);
	else
		snprintf(out, n, "%s/t%ld-%ld", dir, t, i);
}
static long nfiles, size;
static pthread_barrier_t bar, done; /* start; every thread's timed loop over */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static void *worker(void *arg)
{
	long id = (long)arg;
	char path[4096], *buf = calloc(1, (size_t)size);

	pthread_barrier_wait(&bar);
	for (long i = 0; i < nfiles; i++) {
		int fd;

		name(path, sizeof(path), id, i);
		fd = openat(dfd, path, O_CREAT | O_RDWR | O_TRUNC, 0666);
		if (fd < 0 || write(fd, buf, (size_t)size) != size || fsync(fd) < 0) {
			perror(path);
			exit(1);
		}
		close(fd);
	}
	free(buf);
	/* as fsbench's threads: each unlinks its own files once every thread's loop is over */
	pthread_barrier_wait(&done);
	for (long i = 0; i < nfiles; i++) {
		name(path, sizeof(path), id, i);
		unlinkat(dfd, path, 0);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t tids[256];
	long threads;
	double t0, t1, us, sy;
	struct rusage ru0, ru1;

	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: bareloop DIR FILES_PER_THREAD SIZE THREADS [NAME_LEN]\n");
		return 2;
	}
	dir = argv[1];
	nfiles = atol(argv[2]);
	size = atol(argv[3]);
	threads = atol(argv[4]);
	if (threads < 1 || threads > 256)
		return 2;
	/* NAME_LEN: names as long as fsbench's, made relative to DIR's descriptor as fsbench's */
	if (argc == 6) {
		name_len = atoi(argv[5]);
		if (name_len < 17 || name_len > 255)
			return 2;
		dfd = open(dir, O_RDONLY | O_DIRECTORY);
		if (dfd < 0) {
			perror(dir);
			return 1;
		}
	}
	pthread_barrier_init(&bar, NULL, (unsigned)threads + 1);
	pthread_barrier_init(&done, NULL, (unsigned)threads + 1);
	for (long i = 0; i < threads; i++)
		pthread_create(&tids[i], NULL, worker, (void *)i);
	pthread_barrier_wait(&bar);
	getrusage(RUSAGE_SELF, &ru0);
	t0 = now();
	pthread_barrier_wait(&done);
	t1 = now();
	for (long i = 0; i < threads; i++)
		pthread_join(tids[i], NULL);
	getrusage(RUSAGE_SELF, &ru1);
	/* files/s, and CPU seconds (all, user, sys) of the loop and the unlinks (fsbench's cpu_*_s) */
	us = tv_s(ru1.ru_utime) - tv_s(ru0.ru_utime);
	sy = tv_s(ru1.ru_stime) - tv_s(ru0.ru_stime);
	printf("%.1f %.6f %.6f %.6f\n", (double)(nfiles * threads) / (t1 - t0), us + sy, us, sy);
	return 0;
}
