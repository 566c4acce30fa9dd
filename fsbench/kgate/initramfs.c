/* The guest's initramfs: busybox, this fsbench and its libraries, mkfs tools, modules, the suite, /init. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/dirfd.h"
#include "base/errf.h"
#include "base/fileio.h"
#include "base/spawn.h"
#include "fsbench/kgate/kgate.h"
#include "fsbench/kgate/user.h"
#include "fsbench/kgate/util.h"
#include "probes/target/fs_traits.h"
#include "probes/scratch/scratch.h"

/* One file of the initramfs. */
struct ent {
	char *src; /* host file; NULL: @text */
	char *dest; /* path inside */
	char *text;
	const char *link; /* a symlink to this (static), not a file */
	mode_t mode;
	bool decompress; /* .ko.xz / .ko.zst / .ko.gz */
	bool strip; /* an ELF file whose debug sections the guest never reads */
	int fd; /* @src, opened by root: the staging step reads it without any right to its path */
};

struct ents {
	struct ent *v;
	size_t n, cap;
};

static void ents_free(struct ents *e)
{
	for (size_t i = 0; i < e->n; i++) {
		free(e->v[i].src);
		free(e->v[i].dest);
		free(e->v[i].text);
	}
	free(e->v);
}

static int ents_add(struct ents *e, const char *src, const char *dest, const char *text,
		    mode_t mode)
{
	struct ent *x;

	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].dest, dest))
			return 0;
	if (e->n == e->cap) {
		struct ent *nv = realloc(e->v, (e->cap = e->cap ? 2 * e->cap : 64) * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		e->v = nv;
	}
	x = &e->v[e->n];
	memset(x, 0, sizeof(*x));
	x->dest = strdup(dest);
	x->src = src ? realpath(src, NULL) : NULL;
	x->text = text ? strdup(text) : NULL;
	x->mode = mode;
	if (!x->dest || (src && !x->src) || (text && !x->text)) {
		int r = src && !x->src ? -errno : -ENOMEM;
		free(x->dest);
		free(x->src);
		free(x->text);
		return r;
	}
	x->decompress = kg_ends_with(dest, ".xz") || kg_ends_with(dest, ".zst") ||
			kg_ends_with(dest, ".gz");
	if (x->decompress)
		x->dest[strlen(x->dest) - (kg_ends_with(dest, ".zst") ? 4 : 3)] = 0;
	e->n++;
	return 0;
}

/* The entry whose path inside is @dest, or NULL. */
static struct ent *ents_find(struct ents *e, const char *dest)
{
	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].dest, dest))
			return &e->v[i];
	return NULL;
}

/* A program on the host: PATH, then the sbin directories root's PATH would have. */
static int find_program(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char dirs[4096];

	snprintf(dirs, sizeof(dirs), "%s:/usr/sbin:/sbin:/usr/bin:/bin", path ? path : "");
	for (char *save, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(out, len, "%s/%s", d, name);
		if (access(out, X_OK) == 0)
			return 0;
	}
	return -ENOENT;
}

/*
 * What @argv (a program and one argument) printed, to read line by line, whatever its
 * exit status (ldd says "not a dynamic executable" with 1). NULL with *@ret -errno and
 * @err when it could not run.
 */
static FILE *tool_output(char *const argv[], int *ret, char *err, size_t errlen)
{
	char out[] = "/tmp/fsbench-tool.XXXXXX", msg[256];
	int fd = mkstemp(out), r;
	FILE *f;

	if (fd < 0) {
		*ret = errf(err, errlen, -errno, "mkstemp %s: %s", out, strerror(errno));
		return NULL;
	}
	close(fd);
	r = kg_tool(argv, out, msg, sizeof(msg));
	f = r < 0 ? NULL : fopen(out, "re");
	if (!f) {
		r = r < 0 ? r : -errno;
		*ret = errf(err, errlen, r, "%s %s: %s", argv[0], argv[1], strerror(-r));
	}
	unlink(out);
	return f;
}

/* The shared libraries and loader ldd names for @elf; a static binary has none. */
static int add_libs(struct ents *e, const char *elf, char *err, size_t errlen)
{
	char *argv[] = { "ldd", (char *)elf, NULL };
	char line[1024];
	int r = 0;
	FILE *f = tool_output(argv, &r, err, errlen);

	if (!f)
		return r;
	while (!r && fgets(line, sizeof(line), f)) {
		char *arrow = strstr(line, "=> "), *p = arrow ? arrow + 3 : line;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '/')
			continue; /* linux-vdso, "not a dynamic executable" */
		p[strcspn(p, " \t\n(")] = 0;
		r = ents_add(e, p, p, NULL, 0755);
		if (r)
			errf(err, errlen, r, "library %s of %s: %s", p, elf, strerror(-r));
	}
	fclose(f);
	return r;
}

/*
 * Busybox's applets as symlinks made here, where `busybox --install -s` in the guest's
 * /init made them at every boot (268 symlinks in emulated instructions). Added last, so a
 * real program staged under an applet's name (mkfs.ext4, dmsetup) stays, as --install
 * left it.
 */
static int add_applets(struct ents *e, const char *busybox, char *err, size_t errlen)
{
	char *argv[] = { (char *)busybox, "--list-full", NULL };
	char line[256];
	int r = 0;
	FILE *f = tool_output(argv, &r, err, errlen);

	while (f && !r && fgets(line, sizeof(line), f)) {
		char dest[300];

		line[strcspn(line, "\n")] = 0;
		/* names of the host's busybox: letters, digits, [ and ._-, under bin or sbin */
		if (!line[0] || strstr(line, "..") ||
		    line[strspn(line, "abcdefghijklmnopqrstuvwxyz"
				      "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				      "0123456789/[._-")])
			continue;
		snprintf(dest, sizeof(dest), "/%s", line);
		if (!strcmp(dest, "/bin/busybox") || ents_find(e, dest))
			continue;
		if ((r = ents_add(e, NULL, dest, "", 0777)))
			break;
		e->v[e->n - 1].link = "/bin/busybox";
	}
	if (f)
		fclose(f);
	return r;
}

/* The guest's /init: mounts, modules, the suite, results out, power off. */
static const char guest_init[] =
	"#!/bin/busybox sh\n"
	"# fsbench guest: runs the suite on the scratch disk, writes /out to the results disk as\n"
	"# tar, powers off. Scratch /dev/vda and results /dev/vdb; with fsbench.disk=model the\n"
	"# scratch disk is null_blk's /dev/nullb0 and the results disk the only virtio one\n"
	"# busybox's applets are symlinks in the initramfs (made on the host, not here)\n"
	"export PATH=/bin:/sbin:/usr/bin:/usr/sbin\n"
	"mount -t devtmpfs dev /dev 2>/dev/null\n"
	"exec </dev/console >/dev/console 2>&1\n"
	"mount -t proc proc /proc\n"
	"# the first word on the console: the host times the boot by it (and under KVM knows\n"
	"# the guest runs); the guest's own clock says how long its kernel took\n"
	"read -r up _ </proc/uptime\n"
	"echo " MARK_INIT " uptime $up\n"
	"mount -t sysfs sys /sys\n"
	"mount -t tmpfs run /run\n"
	"mount -t tmpfs tmp /tmp\n"
	"mkdir -p /out\n"
	"dev=/dev/vda out=/dev/vdb nb= fl= tok= sh=\n"
	"for w in $(cat /proc/cmdline); do\n"
	"\tcase $w in\n"
	"\tfsbench.disk=model) dev=/dev/nullb0 out=/dev/vda ;;\n"
	"\tfsbench.shell) sh=1 ;;\n"
	"\tfsbench.flush_ms=*) fl=${w#fsbench.flush_ms=} ;;\n"
	"\tnull_blk.*) nb=\"$nb ${w#null_blk.}\" ;;\n"
	"\tesac\n"
	"done\n"
	"while read -r m; do\n"
	"\t# a module's parameters on the kernel command line are modprobe's to apply\n"
	"\tp=; case $m in */null_blk.ko) [ $dev = /dev/nullb0 ] && p=$nb || continue ;; esac\n"
	"\tinsmod \"/lib/modules/$(uname -r)/$m\" $p || echo \"fsbench-guest: insmod $m failed\"\n"
	"done </etc/fsbench/modules\n"
	"# the disks, given up to 10 s to appear: LAVA's shell needs the model disk alone (it\n"
	"# reports /out), and none without it (a verdict job's boot, a board's test definition)\n"
	"w=\"$dev $out\"\n"
	"[ -n \"$sh\" ] && { [ $dev = /dev/nullb0 ] && w=$dev || w=; }\n"
	"i=0\n"
	"for d in $w; do\n"
	"\twhile [ ! -b $d ] && [ $i -le 200 ]; do i=$((i + 1)); sleep 0.05; done\n"
	"done\n"
	"if [ -n \"$fl\" ] && [ -b $dev ]; then\n"
	"\t# the model's flush latency: dm-delay's flush class delayed, reads and writes not\n"
	"\tt=\"0 $(cat /sys/block/nullb0/size) delay $dev 0 0 $dev 0 0 $dev 0 $fl\"\n"
	"\tif echo \"$t\" | DM_DISABLE_UDEV=1 dmsetup create --noudevsync fsbench-flush; then\n"
	"\t\tdev=/dev/dm-0\n"
	"\telse\n"
	"\t\techo \"fsbench-guest: dm-delay over $dev ($t) failed\"; dev=/dev/no-flush-delay\n"
	"\tfi\n"
	"fi\n"
	"# the suite, its output and status in /out\n"
	"suite() {\n"
	"\tset --\n"
	"\twhile IFS= read -r a; do set -- \"$@\" \"$a\"; done </etc/fsbench/args\n"
	"\tread -r up _ </proc/uptime\n"
	"\techo " MARK_START " $(uname -r) uptime $up\n"
	/* no canary: the boots alternate A B B A, and between kernels it cannot be judged */
	"\t/bin/fsbench suite \"$@\" --device $dev --force --no-canary --json /out/result.json "
	">/out/stdout 2>/out/stderr\n"
	"\trc=$?\n"
	"\tcat /out/stdout /out/stderr\n"
	"\techo $rc >/out/status\n"
	"}\n"
	"if [ -n \"$sh\" ]; then\n"
	"\t# LAVA: a shell on the console for its test definition, which reports the suite\n"
	"\t# LAVA waits for the kernel's banner, which quiet keeps off the console\n"
	"\tcat /proc/version\n"
	"\t# on the model disk the suite runs here first, as in a local boot (the same\n"
	"\t# command, as early in the guest's time); on another disk the test definition runs it\n"
	"\t[ $dev = /dev/nullb0 ] && [ -b $dev ] && suite\n"
	"\texport PS1='fsbench-guest# '\n"
	"\t# its overlay: an ext2 disk labelled LAVA, mounted where its own paths say\n"
	"\tsleep 1\n"
	"\tdev=$(findfs LABEL=LAVA 2>/dev/null)\n"
	"\tif [ -n \"$dev\" ] && mkdir -p /mnt/lava && mount \"$dev\" /mnt/lava; then\n"
	"\t\td=$(grep -o '^/lava-[0-9]*' /mnt/lava/*/lava-test-runner.conf | head -n 1)\n"
	"\t\td=${d#*:}\n"
	"\t\t[ -n \"$d\" ] && ln -s /mnt/lava \"$d\"\n"
	"\tfi\n"
	"\techo \"fsbench-guest: $(uname -r) ready\"\n"
	"\texec setsid cttyhack sh\n"
	"fi\n"
	"if [ -b $dev ] && [ -b $out ]; then\n"
	"\tsuite\n"
	"else\n"
	"\techo \"fsbench-guest: no $dev and $out: virtio_blk or null_blk did not come up\"\n"
	"\trc=125\n"
	"fi\n"
	"echo $rc >/out/status\n"
	"uname -r >/out/release\n"
	"cat /proc/cmdline >/out/cmdline\n"
	"# what binds this result to this boot: the host's token (in the archive root appended\n"
	"# for this boot alone, never on the command line), the boot id, the guest's time\n"
	"[ -r /etc/fsbench/token ] && read -r tok </etc/fsbench/token\n"
	"echo \"$tok\" >/out/token\n"
	"cat /proc/sys/kernel/random/boot_id >/out/boot_id\n"
	"date +%s >/out/time\n"
	"tar -cf $out -C /out . && sync\n"
	"read -r up _ </proc/uptime\n"
	"echo " MARK_EXIT " $rc uptime $up\n"
	"poweroff -f\n";

/* @argv reading @in, its output into the new file @out (created 0644, never through a symlink). */
static int tool_in(char *const *argv, int in, const char *out, char *msg, size_t msglen)
{
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644), r;

	if (fd < 0)
		return -errno;
	r = base_spawn_tool_fd(argv, in, fd, BASE_SPAWN_LAST, msg, msglen);
	if (close(fd) && !r)
		r = -errno;
	return r;
}

static int write_text(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode), r = 0;
	size_t len = strlen(text);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	/* a short write sets no errno: the one left over from before would be stale */
	if (n != (ssize_t)len)
		r = n < 0 ? -errno : -EIO;
	else if (fchmod(fd, mode))
		r = -errno;
	if (close(fd) && !r)
		r = -errno;
	return r;
}

/*
 * @x into the staging tree @stage: its source read from the descriptor root opened (stdin
 * of the tool that copies, strips or decompresses it).
 */
static int stage_ent(const char *stage, const struct ent *x, char *err, size_t errlen)
{
	char dest[PATH_MAX * 2], msg[256];
	int r;

	snprintf(dest, sizeof(dest), "%s%s", stage, x->dest);
	*strrchr(dest, '/') = 0;
	r = kg_mkdir_p(dest, 0755);
	if (r)
		return errf(err, errlen, r, "mkdir %s: %s", dest, strerror(-r));
	snprintf(dest, sizeof(dest), "%s%s", stage, x->dest);
	if (x->link)
		r = symlink(x->link, dest) ? -errno : 0;
	else if (x->text)
		r = write_text(dest, x->text, x->mode);
	else if (x->strip) {
		char *argv[] = { "objcopy", "--strip-debug", "/dev/stdin", dest, NULL };

		r = base_spawn_tool_fd(argv, x->fd, -1, BASE_SPAWN_LAST, msg, sizeof(msg));
		if (r == -ENOENT) { /* no binutils: the whole file, as it is */
			char *cat[] = { "cat", NULL };
			r = tool_in(cat, x->fd, dest, msg, sizeof(msg));
		}
		if (r)
			return errf(err, errlen, r < 0 ? r : -EIO, "copying %s: %s", x->src,
				    r < 0 ? strerror(-r) : msg);
		r = chmod(dest, x->mode) ? -errno : 0;
	} else {
		const char *tool = !x->decompress		? "cat" :
				   kg_ends_with(x->src, ".zst") ? "zstd" :
				   kg_ends_with(x->src, ".xz")	? "xz" :
								  "gzip";
		char *argv[] = { (char *)tool, x->decompress ? "-dc" : NULL, NULL };

		r = tool_in(argv, x->fd, dest, msg, sizeof(msg));
		if (r)
			return errf(err, errlen, r < 0 ? r : -EIO, "copying %s: %s: %s", x->src,
				    tool, r < 0 ? strerror(-r) : msg);
		r = chmod(dest, x->mode) ? -errno : 0;
	}
	if (r)
		return errf(err, errlen, r, "writing %s: %s", dest, strerror(-r));
	return 0;
}

/*
 * The modules @names (with what they depend on) from the kernel's module tree, and their
 * list /init loads, as /etc/fsbench/modules. 0 or -errno with @err.
 */
static int stage_modules(const struct kg_initramfs_opts *o, struct ents *e, const char **names,
			 size_t nn, char *err, size_t errlen)
{
	char dest[PATH_MAX * 2], *mods[KG_MAX_MODULES], *list = NULL;
	size_t listlen = 0;
	int r, nm;

	nm = kg_modules_resolve(o->kernel->moddir, names, nn, mods, KG_MAX_MODULES, err, errlen);
	if (nm < 0)
		return nm;
	r = 0;
	for (int i = 0; i < nm; i++) {
		char src[PATH_MAX * 2];
		size_t l = strlen(mods[i]);
		char *nl;

		snprintf(src, sizeof(src), "%s/%s", o->kernel->moddir, mods[i]);
		snprintf(dest, sizeof(dest), "/lib/modules/%s/%s", o->kernel->release, mods[i]);
		if (!r && (r = ents_add(e, src, dest, NULL, 0644)))
			errf(err, errlen, r, "module %s: %s", src, strerror(-r));
		if (!r && (nl = realloc(list, listlen + l + 2))) {
			list = nl;
			/* the staged name: decompressed, as /init loads it */
			memcpy(list + listlen, mods[i], l);
			listlen += l;
			for (const char *z = ".xz\0.zst\0.gz\0"; *z; z += strlen(z) + 1)
				if (kg_ends_with(mods[i], z)) {
					listlen -= strlen(z);
					break;
				}
			list[listlen++] = '\n';
			list[listlen] = 0;
		} else if (!r)
			r = -ENOMEM;
		free(mods[i]);
	}
	if (!r)
		r = ents_add(e, NULL, "/etc/fsbench/modules", list ? list : "", 0644);
	free(list);
	return r;
}

static int collect(const struct kg_initramfs_opts *o, struct ents *e, char *err, size_t errlen)
{
	char prog[PATH_MAX], dest[PATH_MAX * 2];
	const char *names[KG_MAX_MODULES];
	size_t nn = 0;
	int r;

	if (find_program("busybox", prog, sizeof(prog)))
		return errf(err, errlen, -ENOENT,
			    "busybox not found on the host (apt-get install busybox-static)");
	if ((r = ents_add(e, prog, "/bin/busybox", NULL, 0755)) ||
	    (r = add_libs(e, prog, err, errlen)))
		return r;
	/* ldd must see the file: through /proc/self/exe it would see its own shell */
	if (!realpath("/proc/self/exe", prog))
		return errf(err, errlen, -errno, "/proc/self/exe: %s", strerror(errno));
	if ((r = ents_add(e, prog, "/bin/fsbench", NULL, 0755)) ||
	    (r = add_libs(e, prog, err, errlen)))
		return r;
	ents_find(e, "/bin/fsbench")->strip = true; /* a build's debug info: 2.6 MB of 18 */
	for (const char *const *fs = o->fstypes; *fs; fs++) {
		const struct fs_traits *ft = fs_traits_find(*fs);
		char *mkfs[PROBE_SCRATCH_ARGV_MAX];
		const char *tool;

		/* the program the guest's suite will run: scratch.c's own mkfs command line */
		r = probe_scratch_mkfs_argv(*fs, "/dev/vda", NULL, mkfs, PROBE_SCRATCH_ARGV_MAX);
		if (r)
			return errf(err, errlen, r, "mkfs for %s: %s", *fs, strerror(-r));
		tool = strrchr(mkfs[0], '/') ? strrchr(mkfs[0], '/') + 1 : mkfs[0];
		base_path(dest, sizeof(dest), "/sbin/%s", tool);
		r = find_program(tool, prog, sizeof(prog)) ?
			    errf(err, errlen, -ENOENT,
				 "%s not found on the host: the guest needs it for the suite's %s",
				 tool, *fs) :
			    0;
		for (int i = 0; mkfs[i]; i++)
			free(mkfs[i]);
		if (r || (r = ents_add(e, prog, dest, NULL, 0755)) ||
		    (r = add_libs(e, prog, err, errlen)))
			return r;
		if (ft && ft->mkfs_config && access(ft->mkfs_config, R_OK) == 0 &&
		    (r = ents_add(e, ft->mkfs_config, ft->mkfs_config, NULL, 0644)))
			return r;
		if (ft && ft->kmod && nn < KG_MAX_MODULES - 8) {
			/* the checksum driver is asked for by name at mount, not through modules.dep */
			names[nn++] = "?crc32c_generic";
			names[nn++] = ft->kmod;
		}
	}
	if (o->flush_delay) { /* the model's flush latency: dm-delay over null_blk (disk.h) */
		if (find_program("dmsetup", prog, sizeof(prog)))
			return errf(err, errlen, -ENOENT,
				    "dmsetup not found on the host: the guest needs it for "
				    "--disk-flush-latency (apt-get install dmsetup)");
		if ((r = ents_add(e, prog, "/sbin/dmsetup", NULL, 0755)) ||
		    (r = add_libs(e, prog, err, errlen)))
			return r;
		names[nn++] = "dm_delay";
	}
	if (o->shell_disk) { /* a test shell's overlay disk (kg_prep_needs): IDE, ext2 */
		names[nn++] = "?ata_piix";
		names[nn++] = "?sd_mod";
		names[nn++] = "?ext4";
	}
	names[nn++] = "virtio_pci";
	names[nn++] = "virtio_blk";
	/* the model disk (disk.h); /init loads it only when the command line asks for it */
	names[nn++] = "?null_blk";
	if ((r = stage_modules(o, e, names, nn, err, errlen)))
		return r;
	{
		char *args = NULL;
		size_t al = 0;
		const char *sb = strrchr(o->suite, '/') ? strrchr(o->suite, '/') + 1 : o->suite;
		FILE *m = open_memstream(&args, &al);

		if (!m)
			return -ENOMEM;
		/* the suite under its own name: the result names the suite after its file */
		base_path(dest, sizeof(dest), "/etc/fsbench/%s%s", sb,
			  kg_ends_with(sb, ".json") ? "" : ".json");
		fprintf(m, "%s\n", dest);
		for (const char *const *a = o->suite_args; a && *a; a++)
			fprintf(m, "%s\n", *a);
		fclose(m);
		r = ents_add(e, NULL, "/etc/fsbench/args", args, 0644);
		free(args);
		if (r)
			return r;
	}
	if (access(o->suite, R_OK))
		return errf(err, errlen, -errno, "suite %s: %s", o->suite, strerror(errno));
	if ((r = ents_add(e, o->suite, dest, NULL, 0644)) ||
	    (r = ents_add(e, NULL, "/init", guest_init, 0755)))
		return r;
	return add_applets(e, ents_find(e, "/bin/busybox")->src, err, errlen);
}

/* The directories /init and the kernel expect, made in the staging tree too. */
static const char *const stage_dirs[] = { "/proc",    "/sys",	   "/dev", "/run",
					  "/tmp",     "/var/tmp",  "/out", "/sbin",
					  "/usr/bin", "/usr/sbin", "/mnt", NULL };

/*
 * The most the archive may be: a gate's is tens of MiB (fsbench, its libraries, the mkfs
 * tools, a few modules); the bound stops a step that would fill root's disk.
 */
#define INITRAMFS_MAX (1LL << 30)

/* What the staging step gets: the files, and where the archive goes (a socket to root). */
struct stage_step {
	const struct ents *e;
	int out;
};

/*
 * The staging tree @dir and its archive, as the guest side's user when fsbench is root
 * (kg_user_run): every file from the descriptors root opened, then find | sort | cpio into
 * the descriptor of the archive root made. 0 or -errno with @err.
 */
static int stage_step(int dfd, const char *dir, void *arg, char *err, size_t errlen)
{
	const struct stage_step *a = arg;
	char tmp[PATH_MAX + 16], msg[512];
	int r = 0;

	(void)dfd;
	for (size_t i = 0; !r && i < a->e->n; i++)
		r = stage_ent(dir, &a->e->v[i], err, errlen);
	for (size_t i = 0; !r && stage_dirs[i]; i++) {
		snprintf(tmp, sizeof(tmp), "%s%s", dir, stage_dirs[i]);
		if ((r = kg_mkdir_p(tmp, 0755)))
			errf(err, errlen, r, "mkdir %s: %s", tmp, strerror(-r));
	}
	if (r)
		return r;
	char *argv[] = { "sh",
			 "-c",
			 "cd \"$1\" && find . | LC_ALL=C sort | "
			 "cpio --quiet -o -H newc --reproducible -R 0:0",
			 "sh",
			 (char *)dir,
			 NULL };
	r = base_spawn_tool_fd(argv, 0, a->out, BASE_SPAWN_LAST, msg, sizeof(msg));
	if (r)
		r = errf(err, errlen, r < 0 ? r : -EIO, "cpio of %s: %s", dir,
			 r < 0 ? strerror(-r) : msg);
	return r;
}

/*
 * The kernel opens /dev/console before /init runs. Root once made the node in the staging
 * tree (mknod); the tree is now the unprivileged user's, so root appends it to the archive
 * as a second newc archive of its own bytes, which the kernel unpacks after the first.
 */
static int console_append(int fd)
{
	char buf[512] = { 0 };
	int n = 0;

	/* magic, ino mode uid gid nlink mtime filesize devmajor devminor rdevmajor rdevminor namesize check */
	n += snprintf(buf + n, sizeof(buf) - n,
		      "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X", 1u,
		      (unsigned)(S_IFCHR | 0600), 0u, 0u, 1u, 0u, 0u, 0u, 0u, 5u, 1u, 12u, 0u);
	memcpy(buf + n, "dev/console", 12);
	n = (n + 12 + 3) & ~3; /* the name, padded to 4 bytes with the header */
	n += snprintf(buf + n, sizeof(buf) - n,
		      "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X", 0u, 0u, 0u, 0u,
		      1u, 0u, 0u, 0u, 0u, 0u, 0u, 11u, 0u);
	memcpy(buf + n, "TRAILER!!!", 11);
	if (lseek(fd, 0, SEEK_END) < 0)
		return -errno;
	return write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf) ? 0 : -EIO;
}

/*
 * The seal (KG_SEAL) of root's archive @tname beneath @dfd, as "@name" KG_SEAL: written under
 * a name of this process's and renamed, before the archive is (a run that finds the archive
 * finds its seal; two runs making the same one replace each other's alike). 0 or -errno.
 */
static int seal(int dfd, const char *tname, const char *name)
{
	char s[64], st[96]; /* "HASH.cpio" names */
	uint64_t h;
	int r;

	snprintf(s, sizeof(s), "%s%s", name, KG_SEAL);
	snprintf(st, sizeof(st), "%s.tmp.%d", s, (int)getpid());
	if ((r = kg_file_hash(dfd, tname, &h)) || (r = kg_seal_write(dfd, st, h)))
		return r;
	if (renameat(dfd, st, dfd, s)) {
		r = -errno;
		unlinkat(dfd, st, 0);
	}
	return r;
}

int kg_initramfs_build(const struct kg_initramfs_opts *o, char *ret_path, char *ret_at, size_t len,
		       bool *ret_cached, char *err, size_t errlen)
{
	char base[PATH_MAX], stage[PATH_MAX + 32], tmp[PATH_MAX + 64], final[PATH_MAX + 64];
	char name[32], tname[64] = "", sname[32], why[256];
	struct ents e = { 0 };
	struct kg_user u = { .lock = -1 };
	struct kg_user_ran ran;
	/* "sealed": archives from before their seal (issue 40) are not taken */
	uint64_t h = kg_fnv(KG_FNV_SEED, "sealed", 6);
	int r, sfd = -1, out = -1, bfd = -1;

	*ret_cached = false;
	r = collect(o, &e, err, errlen);
	if (r) {
		if (!err[0])
			errf(err, errlen, r, "collecting the initramfs: %s", strerror(-r));
		goto out;
	}
	h = kg_fnv(h, guest_init, sizeof(guest_init)); /* the layout's version, in effect */
	for (size_t i = 0; i < e.n; i++) {
		h = kg_fnv(h, e.v[i].dest, strlen(e.v[i].dest) + 1);
		h = kg_fnv(h, &e.v[i].mode, sizeof(e.v[i].mode));
		h = kg_fnv(h, &e.v[i].strip, sizeof(e.v[i].strip));
		if (e.v[i].link)
			h = kg_fnv(h, e.v[i].link, strlen(e.v[i].link) + 1);
		else if (e.v[i].text)
			h = kg_fnv(h, e.v[i].text, strlen(e.v[i].text));
		else if ((r = kg_hash_file(&h, e.v[i].src))) {
			errf(err, errlen, r, "reading %s: %s", e.v[i].src, strerror(-r));
			goto out;
		}
	}
	snprintf(base, sizeof(base), "%s/initramfs", o->cachedir);
	/* root boots what it finds here: the cache must be root's alone, as restore's state */
	if ((bfd = kg_cache_open(o->cachedir, "initramfs", err, errlen)) < 0) {
		r = bfd;
		goto out;
	}
	snprintf(name, sizeof(name), "%016llx.cpio", (unsigned long long)h);
	snprintf(final, sizeof(final), "%s/%s", base, name);
	base_strcpy(ret_path, len, final);
	kg_fd_path(ret_at, len, bfd, name);
	if (fstatat(bfd, name, &(struct stat){ 0 }, AT_SYMLINK_NOFOLLOW) == 0) {
		r = kg_file_seal_check(bfd, name, final, err, errlen);
		*ret_cached = !r;
		goto out;
	}
	if ((r = kg_user_claim(&u, err, errlen)))
		goto out;
	for (size_t i = 0; i < e.n; i++) /* every source by descriptor, before the drop */
		if ((e.v[i].fd = e.v[i].src ? open(e.v[i].src, O_RDONLY | O_CLOEXEC) : -1) < 0 &&
		    e.v[i].src) {
			r = errf(err, errlen, -errno, "opening %s: %s", e.v[i].src,
				 strerror(errno));
			goto out;
		}
	if ((sfd = base_dir_make_temp(bfd, ".stage.", sname, sizeof(sname), why, sizeof(why))) <
	    0) {
		r = errf(err, errlen, sfd, "creating a directory in %s: %s", base, why);
		goto out;
	}
	base_path(stage, sizeof(stage), "%s/%s", base, sname);
	/* the archive: root's new file, which root writes from what the step sends (run_into) */
	snprintf(tname, sizeof(tname), "%s.tmp.%d", name, (int)getpid());
	base_path(tmp, sizeof(tmp), "%s/%s", base, tname);
	if ((out = openat(bfd, tname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)) <
	    0) {
		r = errf(err, errlen, -errno, "opening %s: %s", tmp, strerror(errno));
		tname[0] = 0; /* not ours to remove */
		goto rm;
	}
	if ((r = kg_user_give(&u, sfd))) {
		errf(err, errlen, r, "chown %s: %s", stage, strerror(-r));
		goto rm;
	}
	struct stage_step a = { .e = &e, .out = -1 };
	if ((r = kg_user_run_into(&u, sfd, stage, stage_step, &a, &a.out, out, INITRAMFS_MAX, &ran,
				  err, errlen)))
		goto rm;
	if (u.drop && (r = console_append(out)))
		errf(err, errlen, r, "writing %s: %s", tmp, strerror(-r));
	else if (close(out))
		r = errf(err, errlen, -errno, "writing %s: %s", tmp, strerror(errno));
	else if ((out = -1, r = seal(bfd, tname, name)))
		errf(err, errlen, r, "sealing %s: %s", tmp, strerror(-r));
	else if (renameat(bfd, tname, bfd, name))
		r = errf(err, errlen, -errno, "rename %s: %s", final, strerror(errno));
	else {
		char note[64];

		snprintf(note, sizeof(note), "%s.privsep", name);
		kg_user_note(bfd, note, "staging, cpio", &ran);
	}
rm:
	if (r && tname[0])
		unlinkat(bfd, tname, 0);
	/* by descriptor: the tree is the unprivileged user's */
	if (sfd >= 0)
		base_rm_at(bfd, sname);
out:
	if (sfd >= 0)
		close(sfd);
	if (out >= 0)
		close(out);
	for (size_t i = 0; i < e.n; i++)
		if (e.v[i].fd > 0)
			close(e.v[i].fd);
	ents_free(&e);
	kg_user_release(&u);
	return r;
}
