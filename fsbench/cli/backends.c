/*
 * The kernel gate's boot backends (backends.h), the one place the CLI names them: a row each,
 * with the option that selects it, its options' rules, what it fixes, its opening and how it
 * words a boot.
 */
#include "fsbench/cli/backends.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/errf.h"
#include "fsbench/lava/backend.h"
#include "fsbench/lava/jobdef.h"

/*
 * --lava-token-file goes with --lava; its jobs' controls and the files' URL are checked
 * before any request. The URL serves the work directory, so that is given, not made.
 */
static int lava_check(const struct cmd_backend_cfg *c, const struct kg_args *a, char *err,
		      size_t errlen)
{
	if (!c->lava != !c->lava_token_file)
		return errf(err, errlen, -EINVAL, "--lava and --lava-token-file go together");
	if (!c->lava && (c->lava_priority || c->lava_tags || c->lava_files_url))
		return errf(err, errlen, -EINVAL, "--%s goes with --lava",
			    c->lava_priority ? "lava-priority" :
			    c->lava_tags     ? "lava-tags" :
					       "lava-files-url");
	if (c->lava && lava_job_controls_check(c->lava_priority, c->lava_tags, "--lava-priority",
					       "--lava-tags", err, errlen))
		return -EINVAL;
	if (c->lava_files_url && lava_files_url_check(c->lava_files_url, err, errlen))
		return -EINVAL;
	if (c->lava_files_url && !a->workdir)
		return errf(err, errlen, -EINVAL,
			    "--lava-files-url needs --workdir DIR, the directory that URL serves");
	return 0;
}

/*
 * Whether @url sends the token in the clear to another machine: http:// to a host that is
 * not this one's loopback (anyone on the path can read the token and answer for LAVA).
 */
static bool lava_url_cleartext(const char *url)
{
	static const char *const local[] = { "localhost", "127.", "[::1]" };

	if (strncmp(url, "http://", 7))
		return false;
	for (size_t i = 0; i < sizeof(local) / sizeof(local[0]); i++)
		if (!strncmp(url + 7, local[i], strlen(local[i])))
			return false;
	return true;
}

static int lava_open(const struct cmd_backend_cfg *c, const char *cmd, struct kg_boot_backend *ret,
		     bool *ret_usage, char *err, size_t errlen)
{
	const struct lava_backend_opts lo = { .url = c->lava,
					      .token_file = c->lava_token_file,
					      .priority = c->lava_priority,
					      .tags = c->lava_tags,
					      .files_url = c->lava_files_url };

	if (lava_url_cleartext(c->lava))
		fprintf(stderr,
			"fsbench %s: warning: --lava %s is plain http to another machine: the API "
			"token and the results cross the network readable and forgeable; use https\n",
			cmd, c->lava);
	return lava_backend_open(&lo, ret, ret_usage, err, errlen);
}

/* The worker's boot: its times and load are not this host's to tell, its job is. */
static int lava_boot_words(const json_t *record, const struct kg_boot *b, char *out, size_t len)
{
	const json_t *lava = json_object_get(record, "lava");

	if (!lava)
		return -ENOENT;
	const json_t *nl = json_object_get(lava, "not_local"), *o;
	size_t i;
	int n = snprintf(out, len, "LAVA job %lld (%s) done in %.0f s, guest status %d",
			 (long long)json_integer_value(json_object_get(lava, "job")),
			 json_string_value(json_object_get(lava, "url")), b->seconds,
			 b->guest_status);

	/* what its QEMU had that a local boot's has not, as the worker's log shows it */
	json_array_foreach(nl, i, o)
	{
		if (n < 0 || (size_t)n >= len)
			break;
		n += snprintf(out + n, len - (size_t)n, "%s%s",
			      i ? ", " : "; beside a local boot's QEMU: ", json_string_value(o));
	}
	return 0;
}

const struct cmd_backend cmd_backends[] = {
	{ .name = "LAVA",
	  .option = "lava",
	  .select = offsetof(struct cmd_backend_cfg, lava),
	  .check = lava_check,
	  .fixed = lava_backend_fixed_opts,
	  .fixed_why = "the LAVA job sets the VM and the model disk itself; docs/lava.md",
	  .fixed_disk = "model",
	  .open = lava_open,
	  .close = lava_backend_close,
	  .boot_words = lava_boot_words },
	{ 0 },
};

const struct cmd_backend *cmd_backend_selected(const struct cmd_backend_cfg *c)
{
	for (const struct cmd_backend *be = cmd_backends; be->name; be++)
		if (*(char *const *)((const char *)c + be->select))
			return be;
	return NULL;
}
