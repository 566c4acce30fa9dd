/*
 * The kernel booted through its PVH entry: a bzImage's payload decompressed once on the host
 * into the cache, so that the guest does not spend its first seconds (most of a TCG boot's
 * wall time) decompressing itself instruction by instruction.
 */
#include "fsbench/kgate/pvh.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <lzma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "base/errf.h"
#include "base/fileio.h"
#include "base/dirfd.h"
#include "fsbench/kgate/user.h"
#include "fsbench/kgate/util.h"

/* Bounds on what is read and made: a bzImage is 5-15 MB, a kernel's vmlinux 30-100 MB. */
#define PVH_IMAGE_MAX (64LL << 20)
#define PVH_OUT_MAX ((size_t)512 << 20)

/* Xen's ELF note that names a 32-bit entry for a PVH boot (include/xen/interface/elfnote.h). */
#define XEN_ELFNOTE_PHYS32_ENTRY 18

struct buf {
	unsigned char *p;
	size_t len, cap;
};

/* Room for at least @want more bytes, doubling; -EFBIG past PVH_OUT_MAX. */
static int buf_room(struct buf *b, size_t want)
{
	size_t cap = b->cap ? b->cap : (size_t)64 << 20;
	unsigned char *p;

	while (cap - b->len < want)
		cap *= 2;
	if (cap > PVH_OUT_MAX)
		cap = PVH_OUT_MAX;
	if (cap - b->len < want)
		return -EFBIG;
	if (cap == b->cap)
		return 0;
	if (!(p = realloc(b->p, cap)))
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

static int unxz(const unsigned char *in, size_t n, struct buf *out)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret ret;

	if (lzma_stream_decoder(&s, UINT64_MAX, 0) != LZMA_OK)
		return -ENOMEM;
	s.next_in = in;
	s.avail_in = n;
	do {
		int r = buf_room(out, 1 << 20);

		if (r) {
			lzma_end(&s);
			return r;
		}
		s.next_out = out->p + out->len;
		s.avail_out = out->cap - out->len;
		ret = lzma_code(&s, LZMA_FINISH);
		out->len = out->cap - s.avail_out;
	} while (ret == LZMA_OK);
	lzma_end(&s);
	return ret == LZMA_STREAM_END ? 0 : -EBADMSG;
}

static int ungzip(const unsigned char *in, size_t n, struct buf *out)
{
	z_stream s = { 0 };
	int ret;

	if (inflateInit2(&s, 15 + 16) != Z_OK) /* 15 + 16: a gzip header */
		return -ENOMEM;
	s.next_in = (unsigned char *)in;
	s.avail_in = n > UINT32_MAX ? UINT32_MAX : (unsigned)n;
	do {
		int r = buf_room(out, 1 << 20);

		if (r) {
			inflateEnd(&s);
			return r;
		}
		s.next_out = out->p + out->len;
		s.avail_out = (out->cap - out->len) > UINT32_MAX ? UINT32_MAX :
								   (unsigned)(out->cap - out->len);
		size_t before = s.avail_out;
		ret = inflate(&s, Z_NO_FLUSH);
		out->len += before - s.avail_out;
	} while (ret == Z_OK);
	inflateEnd(&s);
	return ret == Z_STREAM_END ? 0 : -EBADMSG;
}

static int unzstd(const unsigned char *in, size_t n, struct buf *out)
{
	ZSTD_DStream *s = ZSTD_createDStream();
	ZSTD_inBuffer ib = { in, n, 0 };
	size_t ret;

	if (!s)
		return -ENOMEM;
	do {
		int r = buf_room(out, 1 << 20);
		ZSTD_outBuffer ob = { out->p, out->cap, out->len };

		if (r) {
			ZSTD_freeDStream(s);
			return r;
		}
		ret = ZSTD_decompressStream(s, &ob, &ib);
		out->len = ob.pos;
		/* 0: the frame is whole; the 4 bytes after it are the kernel's size_append */
	} while (!ZSTD_isError(ret) && ret != 0 && (ib.pos < ib.size || out->len == out->cap));
	ZSTD_freeDStream(s);
	return !ZSTD_isError(ret) && ret == 0 ? 0 : -EBADMSG;
}

/*
 * The compressed payload of bzImage @img (boot protocol 2.08+: payload_offset and
 * payload_length after the setup sectors), or NULL with @why.
 */
static const unsigned char *payload(const unsigned char *img, size_t n, size_t *ret_len,
				    const char **why)
{
	unsigned setup, version;
	uint32_t off, len;
	size_t base;

	if (n < 0x250 || memcmp(img + 0x202, "HdrS", 4)) {
		*why = "not a bzImage (no HdrS setup header)";
		return NULL;
	}
	version = (unsigned)img[0x206] | (unsigned)img[0x207] << 8;
	if (version < 0x208) {
		*why = "boot protocol before 2.08 names no payload";
		return NULL;
	}
	setup = img[0x1f1] ? img[0x1f1] : 4;
	memcpy(&off, img + 0x248, 4);
	memcpy(&len, img + 0x24c, 4);
	base = ((size_t)setup + 1) * 512;
	if (base > n || off > n - base || len > n - base - off || len < 16) {
		*why = "its payload lies outside the file";
		return NULL;
	}
	*ret_len = len;
	return img + base + off;
}

static int decompress(const unsigned char *in, size_t n, struct buf *out, const char **why)
{
	static const unsigned char xz[] = { 0xfd, '7', 'z', 'X', 'Z', 0 }, gz[] = { 0x1f, 0x8b },
				   zs[] = { 0x28, 0xb5, 0x2f, 0xfd };
	int r;

	if (!memcmp(in, xz, sizeof(xz)))
		r = unxz(in, n, out);
	else if (!memcmp(in, gz, sizeof(gz)))
		r = ungzip(in, n, out);
	else if (!memcmp(in, zs, sizeof(zs)))
		r = unzstd(in, n, out);
	else {
		*why = "its payload is compressed with neither xz, gzip nor zstd";
		return -ENOTSUP;
	}
	if (r == -EFBIG)
		*why = "its payload decompresses to more than 512 MiB";
	else if (r)
		*why = "its payload does not decompress";
	return r;
}

/* Whether @p is an x86-64 ELF executable with Xen's PVH entry note (CONFIG_PVH). */
static bool pvh_elf(unsigned char *p, size_t n)
{
	Elf *e;
	GElf_Ehdr eh;
	size_t nph = 0;
	bool found = false;

	if (elf_version(EV_CURRENT) == EV_NONE || !(e = elf_memory((char *)p, n)))
		return false;
	if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) || eh.e_machine != EM_X86_64 ||
	    eh.e_type != ET_EXEC || gelf_getclass(e) != ELFCLASS64 || elf_getphdrnum(e, &nph)) {
		elf_end(e);
		return false;
	}
	for (size_t i = 0; i < nph && !found; i++) {
		GElf_Phdr ph;
		GElf_Nhdr nh;
		Elf_Data *d;
		size_t off = 0, noff, doff;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_NOTE || ph.p_offset > n ||
		    ph.p_filesz > n - ph.p_offset)
			continue;
		if (!(d = elf_getdata_rawchunk(e, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR)))
			continue;
		while (!found && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0)
			found = nh.n_type == XEN_ELFNOTE_PHYS32_ENTRY && nh.n_namesz == 4 &&
				!memcmp((char *)d->d_buf + noff, "Xen", 4);
	}
	elf_end(e);
	return found;
}

/* What the decompression step gets: the bzImage by the descriptor root opened. */
struct pvh_step {
	int fd;
	size_t len;
	const char *image;
};

/* The whole bzImage from @fd, @n bytes (at most PVH_IMAGE_MAX), or NULL with errno. */
static unsigned char *read_image(int fd, size_t n)
{
	unsigned char *p = malloc(n + 1);
	ssize_t got;

	if (!p)
		return NULL;
	got = lseek(fd, 0, SEEK_SET) ? -errno : base_read_fd(fd, p, n);
	if (got != (ssize_t)n) {
		free(p);
		errno = got < 0 ? (int)-got : EIO;
		return NULL;
	}
	return p;
}

/*
 * The decompression, as the guest side's user when fsbench is root (kg_user_run): the
 * payload of the bzImage (untrusted bytes) decompressed, at most PVH_OUT_MAX, checked for a
 * PVH entry and written as "vmlinux" into @dfd. -ENOEXEC with @err saying why when the
 * kernel cannot boot through PVH (then the bzImage is booted), other -errno on a failure.
 */
static int pvh_step(int dfd, const char *dir, void *arg, char *err, size_t errlen)
{
	const struct pvh_step *a = arg;
	const unsigned char *pl;
	const char *why = NULL;
	struct buf out = { 0 };
	unsigned char *img;
	size_t pn = 0;
	int fd, r;

	if (!(img = read_image(a->fd, a->len)))
		return errf(err, errlen, -errno, "reading %s: %s", a->image, strerror(errno));
	if (!(pl = payload(img, a->len, &pn, &why)))
		r = -ENOEXEC;
	else if (!(r = decompress(pl, pn, &out, &why)) && !pvh_elf(out.p, out.len)) {
		why = "it has no PVH entry (CONFIG_PVH)";
		r = -ENOEXEC;
	}
	free(img);
	if (why) {
		free(out.p);
		return errf(err, errlen, -ENOEXEC, "%s", why);
	}
	fd = openat(dfd, "vmlinux", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		r = -errno;
	else {
		for (size_t done = 0; !r && done < out.len;) {
			ssize_t n = write(fd, out.p + done, out.len - done);

			if (n > 0)
				done += (size_t)n;
			else if (n < 0 && errno != EINTR)
				r = -errno;
		}
		if (close(fd) && !r)
			r = -errno;
	}
	free(out.p);
	if (r)
		return errf(err, errlen, r, "writing %s/vmlinux: %s", dir, strerror(-r));
	return 0;
}

/* What the step may leave: the one file, no larger than the bound it was held to. */
static const struct kg_user_rules pvh_rules = { .max_entries = 1,
						.max_file_bytes = (long long)PVH_OUT_MAX,
						.max_total_bytes = (long long)PVH_OUT_MAX };

/* The seal (KG_SEAL's, for one file) of the cache's @name: "@name.content" beside it. */
static void pvh_seal_name(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s%s", name, KG_SEAL);
}

/*
 * pvh_step into x/ of a new staging directory beneath the cache @cfd (root's 0700; x given
 * to the step's user), streamed back into root's own fresh r/ (kg_user_stream_back), its
 * vmlinux sealed and renamed to @name beneath @cfd, the seal first (a run that finds the
 * vmlinux finds its seal). -ENOEXEC with @err as pvh_step says it, or -errno with @err.
 */
static int pvh_make(int cfd, const char *cache, const char *name, struct pvh_step *a, char *err,
		    size_t errlen)
{
	char stage[64], shown[PATH_MAX + 80], out[PATH_MAX + 80], why[PATH_MAX + 128];
	char seal[NAME_MAX + 16];
	struct kg_user u;
	struct kg_user_ran ran;
	int sfd, xfd = -1, ofd = -1, r;
	uint64_t h;

	if ((r = kg_user_claim(&u, err, errlen)))
		return r;
	if ((sfd = base_dir_make_temp(cfd, ".stage.", stage, sizeof(stage), why, sizeof(why))) <
	    0) {
		kg_user_release(&u);
		return errf(err, errlen, sfd, "creating a directory in %s: %s", cache, why);
	}
	snprintf(shown, sizeof(shown), "%s/%s/x", cache, stage);
	snprintf(out, sizeof(out), "%s/%s/r", cache, stage);
	pvh_seal_name(seal, sizeof(seal), name);
	if ((xfd = base_dir_make(sfd, "x", 0700, why, sizeof(why))) < 0)
		r = errf(err, errlen, xfd, "creating %s: %s", shown, why);
	else if ((r = kg_user_give(&u, xfd)))
		errf(err, errlen, r, "chown %s: %s", shown, strerror(-r));
	else if ((r = kg_user_run(&u, xfd, shown, pvh_step, a, &ran, err, errlen)))
		; /* @err says why */
	else if ((ofd = base_dir_make(sfd, "r", 0700, why, sizeof(why))) < 0)
		r = errf(err, errlen, ofd, "creating %s: %s", out, why);
	else if ((r = kg_user_stream_back(&u, xfd, shown, ofd, out, &pvh_rules, why, sizeof(why))))
		r = errf(err, errlen, r == -ENOMEM || r == -ENOSPC ? r : -EINVAL,
			 "kernel %s: refused: %s", a->image, why);
	else if ((r = kg_file_hash(ofd, "vmlinux", &h)) || (r = kg_seal_write(ofd, seal, h)))
		errf(err, errlen, r, "sealing %s/vmlinux: %s", out, strerror(-r));
	else if (renameat(ofd, seal, cfd, seal) || renameat(ofd, "vmlinux", cfd, name))
		r = errf(err, errlen, -errno, "rename %s/%s: %s", cache, name, strerror(errno));
	else {
		char note[NAME_MAX + 16];

		snprintf(note, sizeof(note), "%s.privsep", name);
		kg_user_note(cfd, note, "decompression", &ran);
	}
	if (ofd >= 0)
		close(ofd);
	if (xfd >= 0)
		close(xfd);
	close(sfd);
	/* by descriptor: the unprivileged user's x, and root's r */
	base_rm_at(cfd, stage);
	kg_user_release(&u);
	return r;
}

int kg_pvh_resolve(struct kg_kernel *k, const char *cachedir, char *err, size_t errlen)
{
	const char *at = k->image_at[0] ? k->image_at : k->image;
	struct pvh_step a = { .fd = -1, .image = k->image };
	char cache[PATH_MAX], name[NAME_MAX + 1], shown[PATH_MAX + NAME_MAX + 2];
	struct stat st;
	uint64_t h;
	int cfd, r;

	base_strcpy(k->boot_image, sizeof(k->boot_image), at);
	base_strcpy(k->entry, sizeof(k->entry), "bzimage");
	k->entry_why[0] = 0;
	if ((a.fd = open(at, O_RDONLY | O_CLOEXEC)) < 0)
		return errf(err, errlen, -errno, "opening %s: %s", k->image, strerror(errno));
	if (fstat(a.fd, &st) || !S_ISREG(st.st_mode) || st.st_size > PVH_IMAGE_MAX) {
		close(a.fd);
		return errf(err, errlen, -EFBIG, "%s: not a regular file of at most %lld MiB",
			    k->image, PVH_IMAGE_MAX >> 20);
	}
	a.len = (size_t)st.st_size;
	/* the cache's name: the bytes hashed, not parsed (the step parses them) */
	/* "sealed": entries from before kg_seal_check (issue 40) are not taken */
	h = kg_fnv(KG_FNV_SEED, "sealed", 6);
	if ((r = kg_hash_fd(&h, a.fd))) {
		close(a.fd);
		return errf(err, errlen, r, "reading %s: %s", k->image, strerror(-r));
	}
	snprintf(cache, sizeof(cache), "%s/pvh", cachedir);
	if ((cfd = kg_cache_open(cachedir, "pvh", err, errlen)) < 0) {
		close(a.fd);
		return cfd;
	}
	snprintf(name, sizeof(name), "vmlinux-%s-%016llx", k->release, (unsigned long long)h);
	snprintf(shown, sizeof(shown), "%s/%s", cache, name);
	if (fstatat(cfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) /* made by an earlier run */
		r = kg_file_seal_check(cfd, name, shown, err, errlen);
	else
		r = pvh_make(cfd, cache, name, &a, err, errlen);
	close(a.fd);
	if (r == -ENOEXEC) { /* no PVH entry: the bzImage is booted, and why is said */
		base_strcpy(k->entry_why, sizeof(k->entry_why), err);
		err[0] = 0;
		return 0;
	}
	if (r)
		return r;
	kg_fd_path(k->boot_image, sizeof(k->boot_image), cfd, name);
	base_strcpy(k->entry, sizeof(k->entry), "pvh");
	return 0;
}
