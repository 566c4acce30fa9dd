/* fsbench/lava/client: the token file's checks and a hostile server's answers (a canned HTTP server). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsbench/lava/client.h"

static char dir[] = "/tmp/fsb-lava-client-XXXXXX";
static char tokpath[256];

static void write_file(const char *path, const char *s, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(s, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static int open_err(const char *url, const char *tok, char *err, size_t errlen)
{
	struct lava_client *c = NULL;
	int r = lava_client_open(url, tok, &c, err, errlen);

	lava_client_close(c);
	return r;
}

static void test_token_file(void **state)
{
	char p[300], err[512];

	(void)state;
	write_file(tokpath, "abc_DEF-1.2\n", 0600);
	assert_int_equal(open_err("http://127.0.0.1:1/", tokpath, err, sizeof(err)), 0);
	assert_int_equal(open_err("ftp://x/", tokpath, err, sizeof(err)), -EINVAL);
	assert_int_equal(open_err("http://a b/", tokpath, err, sizeof(err)), -EINVAL);
	/* writable by others, a symlink, a header injected, too big, empty */
	snprintf(p, sizeof(p), "%s/ww", dir);
	write_file(p, "abc\n", 0622);
	assert_int_equal(open_err("http://x/", p, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "writable by its group or others"));
	snprintf(p, sizeof(p), "%s/link", dir);
	assert_int_equal(symlink(tokpath, p), 0);
	assert_int_equal(open_err("http://x/", p, err, sizeof(err)), -ELOOP);
	assert_non_null(strstr(err, "symlink"));
	snprintf(p, sizeof(p), "%s/crlf", dir);
	write_file(p, "abc\r\nX-Evil: 1\n", 0600);
	assert_int_equal(open_err("http://x/", p, err, sizeof(err)), -EINVAL);
	snprintf(p, sizeof(p), "%s/big", dir);
	{
		char *big = malloc(5000);

		memset(big, 'a', 4999);
		big[4999] = 0;
		write_file(p, big, 0600);
		free(big);
	}
	assert_int_equal(open_err("http://x/", p, err, sizeof(err)), -EFBIG);
	snprintf(p, sizeof(p), "%s/empty", dir);
	write_file(p, "\n", 0600);
	assert_int_equal(open_err("http://x/", p, err, sizeof(err)), -EINVAL);
	snprintf(p, sizeof(p), "%s", dir);
	assert_int_not_equal(open_err("http://x/", p, err, sizeof(err)), 0);
}

/* ---- a server that answers each connection with the next canned response ---- */

static const char *answers[4];
static size_t answer_len[4];
static int listen_fd, port;

static void *serve(void *arg)
{
	int n = *(int *)arg;

	for (int i = 0; i < n; i++) {
		int fd = accept(listen_fd, NULL, NULL);
		char req[65536];
		char hdr[256];

		if (fd < 0)
			return NULL;
		/* the request's head (and a small body) arrive in one read on loopback */
		if (read(fd, req, sizeof(req)) < 0)
			perror("read");
		snprintf(hdr, sizeof(hdr),
			 "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
			 answer_len[i]);
		if (write(fd, hdr, strlen(hdr)) < 0 || write(fd, answers[i], answer_len[i]) < 0)
			perror("write");
		close(fd);
	}
	return NULL;
}

static struct lava_client *client(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	struct lava_client *c;
	char url[64], err[512];

	listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(listen_fd >= 0);
	assert_int_equal(bind(listen_fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(listen_fd, 4), 0);
	assert_int_equal(getsockname(listen_fd, (struct sockaddr *)&a, &al), 0);
	port = ntohs(a.sin_port);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", port);
	write_file(tokpath, "tok\n", 0600);
	assert_int_equal(lava_client_open(url, tokpath, &c, err, sizeof(err)), 0);
	return c;
}

static void answer(const char *s, size_t n)
{
	answers[0] = s;
	answer_len[0] = n;
}

static void run1(pthread_t *t)
{
	static int one = 1;

	assert_int_equal(pthread_create(t, NULL, serve, &one), 0);
}

static void test_hostile_answers(void **state)
{
	struct lava_client *c = client();
	struct lava_job_status st;
	char err[4096], *s = NULL;
	pthread_t t;
	long id = 0;

	(void)state;
	/* a submission without a job id */
	answer("{\"job_ids\": []}", 15);
	run1(&t);
	assert_int_equal(lava_job_submit(c, "device_type: qemu\n", &id, err, sizeof(err)), -EPROTO);
	pthread_join(t, NULL);
	assert_non_null(strstr(err, "no single job id"));
	answer("{\"job_ids\": [42]}", 17);
	run1(&t);
	assert_int_equal(lava_job_submit(c, "x", &id, err, sizeof(err)), 0);
	pthread_join(t, NULL);
	assert_int_equal(id, 42);
	/* not JSON */
	answer("<html>", 6);
	run1(&t);
	assert_int_equal(lava_job_status(c, 42, &st, err, sizeof(err)), -EPROTO);
	pthread_join(t, NULL);
	/* a terminal's escape sequence in the failure comment comes back escaped */
	const char *j = "{\"state\": \"Finished\", \"health\": \"Incomplete\", "
			"\"failure_comment\": \"bad\\u001b[2Jthing\\n\"}";
	answer(j, strlen(j));
	run1(&t);
	assert_int_equal(lava_job_status(c, 42, &st, err, sizeof(err)), 0);
	pthread_join(t, NULL);
	assert_string_equal(st.health, "Incomplete");
	assert_string_equal(st.failure_comment, "bad\\x1b[2Jthing\\x0a");
	/* a status answer of 2 MiB: refused, not read whole */
	char *big = malloc(2 << 20);

	memset(big, ' ', 2 << 20);
	answer(big, 2 << 20);
	run1(&t);
	assert_int_equal(lava_job_status(c, 42, &st, err, sizeof(err)), -EFBIG);
	pthread_join(t, NULL);
	free(big);
	/* the log's tail: the last lines only, each "level: message", escaped */
	const char *log = "- {\"dt\": \"1\", \"lvl\": \"info\", \"msg\": \"first\"}\n"
			  "- {\"dt\": \"2\", \"lvl\": \"target\", \"msg\": \"second\"}\n"
			  "- {\"dt\": \"3\", \"lvl\": \"error\", \"msg\": \"third\\u0007\"}\n"
			  "not yaml \x1b]0;x\n";
	answer(log, strlen(log));
	run1(&t);
	char fault[128] = "x";

	assert_int_equal(lava_job_log_tail(c, 42, 3, &s, fault, sizeof(fault), err, sizeof(err)),
			 0);
	pthread_join(t, NULL);
	assert_string_equal(s, "  target: second\n  error: third\\x07\nnot yaml \\x1b]0;x");
	assert_string_equal(fault, ""); /* nothing of the kernel's failing */
	free(s);
	/* results with a NUL byte */
	answer("- a\0b", 5);
	run1(&t);
	size_t len;
	assert_int_equal(lava_job_results(c, 42, &s, &len, err, sizeof(err)), -EPROTO);
	pthread_join(t, NULL);
	close(listen_fd);
	lava_client_close(c);
}

/* lava_boot() on a job that ends Incomplete: the job, its URL, health, comment and log tail */
static void test_boot_incomplete(void **state)
{
	struct lava_client *c = client();
	static int three = 3;
	const char *st = "{\"state\": \"Finished\", \"health\": \"Incomplete\", "
			 "\"failure_comment\": \"deploy failed\"}";
	const char *log = "- {\"dt\": \"1\", \"lvl\": \"error\", \"msg\": \"no kernel\"}\n";
	char err[4096], *res = (char *)"x";
	size_t len = 0;
	pthread_t t;
	long id = 0;

	(void)state;
	answers[0] = "{\"job_ids\": [7]}";
	answers[1] = st;
	answers[2] = log;
	for (int i = 0; i < 3; i++)
		answer_len[i] = strlen(answers[i]);
	assert_int_equal(pthread_create(&t, NULL, serve, &three), 0);
	assert_int_equal(lava_boot(c, "device_type: qemu\n", 60, &id, &res, &len, err, sizeof(err)),
			 -EIO);
	pthread_join(t, NULL);
	assert_int_equal(id, 7);
	assert_null(res);
	assert_non_null(strstr(err, "job 7 (http://127.0.0.1:"));
	assert_non_null(strstr(err, "/scheduler/job/7) finished Incomplete: deploy failed"));
	assert_non_null(strstr(err, "\n  error: no kernel"));
	close(listen_fd);
	lava_client_close(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_token_file),
		cmocka_unit_test(test_hostile_answers),
		cmocka_unit_test(test_boot_incomplete),
	};
	int r;

	/* the server's write of an answer the client refused to read whole */
	signal(SIGPIPE, SIG_IGN);
	if (!mkdtemp(dir))
		return 1;
	snprintf(tokpath, sizeof(tokpath), "%s/token", dir);
	r = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		r = r ? r : 1;
	return r;
}
