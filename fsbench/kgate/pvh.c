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

static int write_vmlinux(const char *path, const struct buf *b, char *err, size_t errlen)
{
	char *tmp = NULL;
	FILE *f = base_out_open(path, &tmp);
	int r;

	if (!f)
		return errf(err, errlen, -errno, "creating %s: %s", path, strerror(errno));
	r = fwrite(b->p, 1, b->len, f) == b->len ? 0 : -errno;
	r = base_out_commit(f, tmp, path, r);
	if (r)
		return errf(err, errlen, r, "writing %s: %s", path, strerror(-r));
	return 0;
}

/* The whole bzImage, at most PVH_IMAGE_MAX bytes, or NULL with @err. */
static unsigned char *read_image(const char *path, size_t *ret_len, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	unsigned char *p = NULL;
	struct stat st;
	ssize_t n = -ENOMEM;

	if (fd < 0) {
		errf(err, errlen, -errno, "opening %s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > PVH_IMAGE_MAX) {
		errf(err, errlen, -EFBIG, "%s: not a regular file of at most %lld MiB", path,
		     PVH_IMAGE_MAX >> 20);
		close(fd);
		return NULL;
	}
	if ((p = malloc((size_t)st.st_size + 1)))
		n = base_read_fd(fd, p, (size_t)st.st_size);
	close(fd);
	if (!p || n != (ssize_t)st.st_size) {
		errf(err, errlen, -EIO, "reading %s: %s", path,
		     !p	   ? strerror(ENOMEM) :
		     n < 0 ? strerror((int)-n) :
			     "short read");
		free(p);
		return NULL;
	}
	*ret_len = (size_t)n;
	return p;
}

int kg_pvh_resolve(struct kg_kernel *k, const char *cachedir, char *err, size_t errlen)
{
	char dir[PATH_MAX], path[PATH_MAX];
	const unsigned char *pl;
	const char *why = NULL;
	struct buf out = { 0 };
	unsigned char *img;
	size_t n, pn = 0;
	int r;

	base_strcpy(k->boot_image, sizeof(k->boot_image), k->image);
	base_strcpy(k->entry, sizeof(k->entry), "bzimage");
	k->entry_why[0] = 0;
	if (!(img = read_image(k->image, &n, err, errlen)))
		return -EIO;
	if (!(pl = payload(img, n, &pn, &why))) {
		free(img);
		base_strcpy(k->entry_why, sizeof(k->entry_why), why);
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s/pvh", cachedir);
	if ((r = kg_mkdir_p(dir, 0755))) {
		free(img);
		return errf(err, errlen, r, "creating %s: %s", dir, strerror(-r));
	}
	if ((r = kg_trusted_path(dir, err, errlen))) {
		free(img);
		return r;
	}
	base_path(path, sizeof(path), "%s/vmlinux-%s-%016llx", dir, k->release,
		  (unsigned long long)kg_fnv(KG_FNV_SEED, img, n));
	if (access(path, F_OK) == 0) { /* made by an earlier run, checked when it was made */
		free(img);
		if ((r = kg_trusted(path, S_IFREG, err, errlen)))
			return r;
		goto pvh;
	}
	r = decompress(pl, pn, &out, &why);
	free(img);
	if (!r && !pvh_elf(out.p, out.len))
		why = "it has no PVH entry (CONFIG_PVH)";
	else if (!r)
		r = write_vmlinux(path, &out, err, errlen);
	free(out.p);
	if (why) {
		base_strcpy(k->entry_why, sizeof(k->entry_why), why);
		return 0;
	}
	if (r)
		return r;
pvh:
	base_strcpy(k->boot_image, sizeof(k->boot_image), path);
	base_strcpy(k->entry, sizeof(k->entry), "pvh");
	return 0;
}
