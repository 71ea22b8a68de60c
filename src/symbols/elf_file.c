// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One ELF file through libelf: build-id, PT_LOAD segments, and its
 * function symbols sorted by address with an extent each.
 *
 * The file is read into private memory (elf_image__read: its headers,
 * tables and notes, not its code and data) and parsed there (elf_memory):
 * never mapped, since a traced process can shrink a file it owns under a
 * mapping (SIGBUS) or rewrite it while libelf reads.  Names are not
 * copied: they point into that copy's string table.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "symbols/internal.h"
#include "util.h"

#define DEFAULT_DEBUG_ROOT "/usr/lib/debug"
/* a file read without a budget: at most this large */
#define ELF_FILE_MAX_BYTES (1ull << 30)
#define PAGE_MASK_4K (~0xfffULL)
/* a symbol nested in an earlier, bigger one: how far back to look */
#define NESTED_LOOKBACK 4

struct elf_seg {
	__u64 vaddr;
	__u64 off;
	__u64 filesz;
	__u64 memsz;
};

enum elf_sym_kind {
	ELF_SYM_FUNC,
	ELF_SYM_DATA,
};

struct elf_sym {
	struct sym_order o;	/* first: sorted and searched by it */
	__u64 end;		/* exclusive */
	const char *name;
	bool sized;
};

/*
 * A run of the sorted data symbols of a file, around an address asked
 * about: few files are asked about, and of those few addresses, so only
 * these are kept, never the whole table (which a process may make huge).
 */
#define DATA_WINDOW	64	/* symbols a window keeps */
#define DATA_WINDOWS	8	/* windows a file keeps: the least recently asked goes */

struct data_window {
	struct elf_sym v[DATA_WINDOW];
	size_t n;
	bool first, last;	/* it holds the table's first, last symbol */
	__u64 used;
};

struct elf_file {
	char *path;		/* "" for a debug file found by build-id alone */
	struct sym_budget *budget;	/* what reading it may take; NULL: no bound but the size */
	int fd;
	Elf *elf;
	struct elf_image image;	/* the file's bytes, which elf parses */
	int dfd;		/* the separate debug file, when its symbols are used */
	Elf *delf;
	struct elf_image dimage;
	__u8 build_id[LS_BUILD_ID_MAX];
	size_t build_id_len;
	struct elf_seg *segs;	/* PT_LOAD, in program header order */
	size_t nsegs;
	bool segs_from_debug;	/* p_offset not the original's: bias from pgoff 0 */
	struct elf_sym *syms;
	size_t nsyms;
	const char *sym_source;
	/* data symbols: windows of the table around the addresses asked about */
	struct data_window *dwin;
	size_t ndwin;
	__u64 dtick;
	bool ddropped;		/* elf_file__drop_data(): no data names from it */
};

/*
 * Regular files only (ls_open_regular): a path from a recording, or a
 * mapping of a device ("/dev/zero (deleted)" is shared anonymous memory),
 * must never open a FIFO (which blocks) or a device (opening a watchdog
 * arms it).  Links are followed: debug files are found through them, and
 * /proc/PID/map_files/ entries are links.  Errors: ls_open_regular's,
 * elf_image__read's, -ENOEXEC.
 */
static int elf_open(const char *path, struct sym_budget *b, enum elf_image_use use, int *fd,
		    Elf **elf, struct elf_image *image)
{
	struct stat st;
	int err;

	*elf = NULL;
	memset(image, 0, sizeof(*image));
	*fd = ls_open_regular(path, true, &st);
	if (*fd < 0)
		return *fd == -EINVAL ? -ENOEXEC : *fd;
	err = elf_image__read(image, *fd, b, ELF_FILE_MAX_BYTES, use);
	if (err)
		goto bad;
	err = -ENOEXEC;
	if (elf_version(EV_CURRENT) == EV_NONE)
		goto bad;
	*elf = elf_memory(image->bytes, image->len);
	if (!*elf || elf_kind(*elf) != ELF_K_ELF)
		goto bad;
	return 0;
bad:
	if (*elf)
		elf_end(*elf);
	*elf = NULL;
	elf_image__free(image);
	close(*fd);
	*fd = -1;
	return err;
}

static void elf_close(int fd, Elf *elf, struct elf_image *image)
{
	if (elf)
		elf_end(elf);
	elf_image__free(image);
	if (fd >= 0)
		close(fd);
}

/* The NT_GNU_BUILD_ID in one block of notes. */
static int find_build_id_note(Elf_Data *data, __u8 *id, size_t *len)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	while (data && off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((char *)data->d_buf + name_off, "GNU", 4) &&
		    nh.n_descsz > 0 && nh.n_descsz <= LS_BUILD_ID_MAX) {
			memcpy(id, (char *)data->d_buf + desc_off, nh.n_descsz);
			*len = nh.n_descsz;
			return 0;
		}
		off = next;
	}
	return -ENOENT;
}

/* Notes sections first (debug files keep them); else PT_NOTE segments. */
static int read_build_id(Elf *elf, __u8 *id, size_t *len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Phdr ph;
	size_t i, n;

	while ((scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE &&
		    !find_build_id_note(elf_getdata(scn, NULL), id, len))
			return 0;
	}
	if (elf_getphdrnum(elf, &n))
		return -ENOENT;
	for (i = 0; i < n; i++) {
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_NOTE &&
		    !find_build_id_note(elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
							     ELF_T_NHDR), id, len))
			return 0;
	}
	return -ENOENT;
}

static int read_segments(struct elf_file *ef, Elf *elf)
{
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return -ENOEXEC;
	ef->segs = calloc(n ? n : 1, sizeof(*ef->segs));
	if (!ef->segs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		ef->segs[ef->nsegs++] = (struct elf_seg){
			.vaddr = ph.p_vaddr, .off = ph.p_offset,
			.filesz = ph.p_filesz, .memsz = ph.p_memsz,
		};
	}
	return ef->nsegs ? 0 : -ENOEXEC;
}

static int bind_rank(unsigned char bind)
{
	switch (bind) {
	case STB_GLOBAL: return 0;
	case STB_WEAK: return 1;
	default: return 2;
	}
}

/* The symbol table of type, or NULL. */
static Elf_Scn *find_symtab(Elf *elf, Elf64_Word type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, sh) && sh->sh_type == type && sh->sh_entsize)
			return scn;
	}
	return NULL;
}

/*
 * What a table of kind keeps: functions in executable sections, or sized
 * data objects in writable, allocated, non-TLS ones (.data, .bss: where a
 * lock can be).  STT_TLS has a per-thread address: no name from its value.
 */
static bool sym_wanted(const GElf_Sym *sym, const GElf_Shdr *ssh, enum elf_sym_kind kind)
{
	int st = GELF_ST_TYPE(sym->st_info);

	if (kind == ELF_SYM_DATA)
		return st == STT_OBJECT && sym->st_size &&
		       (ssh->sh_flags & (SHF_ALLOC | SHF_WRITE)) == (SHF_ALLOC | SHF_WRITE) &&
		       !(ssh->sh_flags & (SHF_EXECINSTR | SHF_TLS));
	return (st == STT_FUNC || st == STT_GNU_IFUNC) && (ssh->sh_flags & SHF_EXECINSTR);
}

/* One name per address, the best first after the sort; each unsized one ends at the next. */
static size_t syms_dedup(struct elf_sym *v, size_t n)
{
	size_t i, kept;

	for (i = 0, kept = 0; i < n; i++) {
		if (kept && v[kept - 1].o.addr == v[i].o.addr) {
			/* sized beats size 0 */
			if (!v[kept - 1].sized && v[i].sized)
				v[kept - 1] = v[i];
			continue;
		}
		v[kept++] = v[i];
	}
	for (i = 0; i < kept; i++) {
		if (!v[i].sized && i + 1 < kept && v[i + 1].o.addr < v[i].end)
			v[i].end = v[i + 1].o.addr;
	}
	return kept;
}

/*
 * The symbols of kind of one table into *out (malloc'd), sorted, one per
 * address, each with its end: st_size when it has one, else the next
 * symbol or the end of its section, whichever comes first.
 */
static int read_symbols_of(Elf *elf, Elf64_Word type, enum elf_sym_kind kind,
			   struct elf_sym **out, size_t *nout)
{
	size_t i, n, kept, nsec = 0;
	struct elf_sym *v = NULL;
	Elf_Data *data;
	GElf_Shdr sh, ssh;
	Elf_Scn *scn, *sscn;
	GElf_Sym sym;
	const char *name;
	__u64 sec_end;

	scn = find_symtab(elf, type, &sh);
	if (!scn)
		return -ENOENT;
	data = elf_getdata(scn, NULL);
	if (!data || elf_getshdrnum(elf, &nsec))
		return -ENOEXEC;
	/* the data libelf has, not what the header claims */
	n = data->d_size / sh.sh_entsize;
	if (n > ELF_FILE_MAX_SYMS)
		n = ELF_FILE_MAX_SYMS;
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0, kept = 0; i < n; i++) {
		if (!gelf_getsym(data, (int)i, &sym))
			break;
		if (!sym.st_value || sym.st_shndx == SHN_UNDEF || sym.st_shndx >= nsec)
			continue;
		sscn = elf_getscn(elf, sym.st_shndx);
		if (!sscn || !gelf_getshdr(sscn, &ssh) || !sym_wanted(&sym, &ssh, kind))
			continue;
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		v[kept] = (struct elf_sym){
			.o = {
				.addr = sym.st_value,
				.seq = (__u32)i,
				.rank = (__u8)bind_rank(GELF_ST_BIND(sym.st_info)),
				.under = sym_leading_underscores(name, strlen(name)),
			},
			.end = sym.st_size ? sym.st_value + sym.st_size : 0,
			.name = name,
			.sized = sym.st_size != 0,
		};
		sec_end = ssh.sh_addr + ssh.sh_size;
		/*
		 * A symbol that claims to run past its section is lying; one
		 * without a size carries its section's end until the sort.
		 */
		if (!v[kept].sized || v[kept].end > sec_end || v[kept].end < v[kept].o.addr)
			v[kept].end = sec_end;
		kept++;
	}
	qsort(v, kept, sizeof(*v), sym_order_cmp);
	kept = syms_dedup(v, kept);
	/* room was made for the whole table: the budget charges what is kept */
	*out = ls_shrink(v, kept, sizeof(*v));
	*nout = kept;
	return 0;
}

/* The function symbols of one table into ef->syms. */
static int read_symbols(struct elf_file *ef, Elf *elf, Elf64_Word type)
{
	struct elf_sym *v;
	size_t n;
	int err = read_symbols_of(elf, type, ELF_SYM_FUNC, &v, &n);

	if (err)
		return err;
	free(ef->syms);
	ef->syms = v;
	ef->nsyms = n;
	return 0;
}

static bool has_symtab(Elf *elf)
{
	GElf_Shdr sh;

	return find_symtab(elf, SHT_SYMTAB, &sh) != NULL;
}

/* The CRC of .gnu_debuglink: the usual CRC-32 (zlib's), computed without a table. */
static __u32 mem_crc32(const __u8 *p, size_t len)
{
	__u32 crc = 0xffffffff;
	size_t i;
	int k;

	for (i = 0; i < len; i++) {
		crc ^= p[i];
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320 & -(crc & 1));
	}
	return ~crc;
}

/* A candidate debug file: opened and kept in ef when it has the right build-id (or CRC). */
static bool try_debug(struct elf_file *ef, const char *path, bool check_crc, __u32 crc)
{
	__u8 id[LS_BUILD_ID_MAX];
	struct elf_image image;
	size_t len = 0;
	Elf *elf;
	int fd;

	/* without a build-id only the CRC of every byte says it is the same build */
	if (elf_open(path, ef->budget, ef->build_id_len ? ELF_IMAGE_NAMES : ELF_IMAGE_WHOLE, &fd,
		     &elf, &image))
		return false;
	if (!has_symtab(elf))
		goto reject;
	if (ef->build_id_len) {
		/* the build-id says it is the same build, nothing else does */
		if (read_build_id(elf, id, &len) || len != ef->build_id_len ||
		    memcmp(id, ef->build_id, len))
			goto reject;
	} else if (!check_crc || mem_crc32(image.bytes, image.len) != crc) {
		goto reject;
	}
	if (read_symbols(ef, elf, SHT_SYMTAB))
		goto reject;
	ef->dfd = fd;
	ef->delf = elf;
	ef->dimage = image;
	return true;
reject:
	elf_close(fd, elf, &image);
	return false;
}

static void build_id_path(char *buf, size_t len, const char *root, const __u8 *id, size_t n)
{
	size_t i, o;

	o = (size_t)snprintf(buf, len, "%s/.build-id/%02x/", root, id[0]);
	for (i = 1; i < n && o + 3 < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%02x", id[i]);
	snprintf(buf + o, len - o, ".debug");
}

/* The .gnu_debuglink file name and CRC; -ENOENT without one. */
static int read_debuglink(Elf *elf, const char **name, __u32 *crc)
{
	size_t shstrndx, nlen, coff;
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	const char *sname;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return -ENOENT;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		sname = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!sname || strcmp(sname, ".gnu_debuglink"))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			return -ENOENT;
		nlen = strnlen(data->d_buf, data->d_size);
		coff = (nlen + 4) & ~(size_t)3;	/* NUL, then padding to 4 */
		if (!nlen || nlen == data->d_size || coff + 4 > data->d_size ||
		    memchr(data->d_buf, '/', nlen))
			return -ENOENT;
		*name = data->d_buf;
		memcpy(crc, (char *)data->d_buf + coff, 4);	/* little-endian on x86 */
		return 0;
	}
	return -ENOENT;
}

/* By build-id, then by .gnu_debuglink: next to the file, in .debug/, under the root. */
static bool find_debug(struct elf_file *ef, const char *root)
{
	const char *link, *slash;
	char buf[PATH_MAX];
	int dlen;
	__u32 crc;

	if (ef->build_id_len) {
		build_id_path(buf, sizeof(buf), root, ef->build_id, ef->build_id_len);
		if (try_debug(ef, buf, false, 0))
			return true;
	}
	if (!ef->path[0] || read_debuglink(ef->elf, &link, &crc))
		return false;
	slash = strrchr(ef->path, '/');
	dlen = slash ? (int)(slash - ef->path) : 0;
	snprintf(buf, sizeof(buf), "%.*s/%s", dlen, ef->path, link);
	/* the link naming the file itself is no debug file */
	if (strcmp(buf, ef->path) && try_debug(ef, buf, true, crc))
		return true;
	snprintf(buf, sizeof(buf), "%.*s/.debug/%s", dlen, ef->path, link);
	if (try_debug(ef, buf, true, crc))
		return true;
	snprintf(buf, sizeof(buf), "%s%.*s/%s", root, dlen, ef->path, link);
	return try_debug(ef, buf, true, crc);
}

static struct elf_file *elf_file__alloc(const char *path, struct sym_budget *b)
{
	struct elf_file *ef = calloc(1, sizeof(*ef));

	if (!ef)
		return NULL;
	ef->budget = b;
	ef->fd = ef->dfd = -1;
	ef->sym_source = "none";
	ef->path = strdup(path);
	if (!ef->path) {
		free(ef);
		return NULL;
	}
	return ef;
}

int elf_file__open(struct elf_file **out, const char *path, const char *debug_root)
{
	return elf_file__open_with(out, path, debug_root, NULL);
}

int elf_file__open_with(struct elf_file **out, const char *path, const char *debug_root,
			struct sym_budget *b)
{
	struct elf_file *ef;
	GElf_Ehdr eh;
	int err;

	*out = NULL;
	ef = elf_file__alloc(path, b);
	if (!ef)
		return -ENOMEM;
	err = elf_open(path, b, ELF_IMAGE_NAMES, &ef->fd, &ef->elf, &ef->image);
	if (err)
		goto cleanup;
	if (!gelf_getehdr(ef->elf, &eh) || (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)) {
		err = -ENOEXEC;
		goto cleanup;
	}
	err = read_segments(ef, ef->elf);
	if (err)
		goto cleanup;
	read_build_id(ef->elf, ef->build_id, &ef->build_id_len);
	if (has_symtab(ef->elf)) {
		err = read_symbols(ef, ef->elf, SHT_SYMTAB);
		ef->sym_source = "symtab";
	} else if (find_debug(ef, debug_root ? debug_root : DEFAULT_DEBUG_ROOT)) {
		ef->sym_source = "debug";
	} else {
		err = read_symbols(ef, ef->elf, SHT_DYNSYM);
		ef->sym_source = err ? "none" : "dynsym";
	}
	/* no symbols is no error: the frames come back unknown, the segments still serve */
	if (err == -ENOENT || err == -ENOEXEC)
		err = 0;
	if (err)
		goto cleanup;
	*out = ef;
	ef = NULL;
cleanup:
	elf_file__free(ef);
	return err;
}

int elf_file__open_debug(struct elf_file **out, const __u8 *id, size_t len, const char *debug_root)
{
	return elf_file__open_debug_with(out, id, len, debug_root, NULL);
}

int elf_file__open_debug_with(struct elf_file **out, const __u8 *id, size_t len,
			      const char *debug_root, struct sym_budget *b)
{
	struct elf_file *ef;
	char buf[PATH_MAX];
	int err;

	*out = NULL;
	if (!id || !len || len > LS_BUILD_ID_MAX)
		return -EINVAL;
	ef = elf_file__alloc("", b);
	if (!ef)
		return -ENOMEM;
	memcpy(ef->build_id, id, len);
	ef->build_id_len = len;
	build_id_path(buf, sizeof(buf), debug_root ? debug_root : DEFAULT_DEBUG_ROOT, id, len);
	if (!try_debug(ef, buf, false, 0)) {
		err = -ENOENT;
		goto cleanup;
	}
	ef->sym_source = "debug";
	err = read_segments(ef, ef->delf);
	if (err)
		goto cleanup;
	ef->segs_from_debug = true;
	*out = ef;
	ef = NULL;
cleanup:
	elf_file__free(ef);
	return err;
}

void elf_file__free(struct elf_file *ef)
{
	if (!ef)
		return;
	elf_close(ef->fd, ef->elf, &ef->image);
	elf_close(ef->dfd, ef->delf, &ef->dimage);
	free(ef->segs);
	free(ef->syms);
	free(ef->dwin);
	free(ef->path);
	free(ef);
}

size_t elf_file__cost(const struct elf_file *ef)
{
	return sizeof(*ef) + ef->image.held + ef->dimage.held + ef->nsegs * sizeof(*ef->segs) +
	       ef->nsyms * sizeof(struct elf_sym) + ef->ndwin * sizeof(struct data_window);
}

int elf_file__build_id(const struct elf_file *ef, const __u8 **id, size_t *len)
{
	if (!ef->build_id_len)
		return -ENOENT;
	*id = ef->build_id;
	*len = ef->build_id_len;
	return 0;
}

int elf_file__bias(const struct elf_file *ef, const struct proc_map *m, __u64 *bias)
{
	const struct elf_seg *s;
	size_t i;

	if (ef->segs_from_debug) {
		if (m->pgoff || !ef->nsegs)
			return -ENOENT;
		*bias = m->start - (ef->segs[0].vaddr & PAGE_MASK_4K);
		return 0;
	}
	for (i = 0; i < ef->nsegs; i++) {
		s = &ef->segs[i];
		/* ld.so maps a segment from the page that holds p_offset */
		if (s->filesz && m->pgoff >= (s->off & PAGE_MASK_4K) && m->pgoff < s->off + s->filesz) {
			*bias = m->start - m->pgoff + s->off - s->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

/* The symbol of v (n, sorted) covering vaddr, or a nested one in an earlier, bigger one. */
static int syms_find(const struct elf_sym *v, size_t n, __u64 vaddr, struct ls_sym *out)
{
	size_t lo = sym_upper_bound(v, n, sizeof(*v), vaddr), i;

	for (i = lo; i > 0 && lo - i < NESTED_LOOKBACK; i--) {
		const struct elf_sym *s = &v[i - 1];

		if (vaddr < s->end) {
			ls_sym__unknown(out, LS_SYM_OK);
			out->name = s->name;
			out->off = vaddr - s->o.addr;
			out->resolved = true;
			return 0;
		}
		/* only a sized symbol can hold a later one */
		if (!s->sized)
			break;
	}
	ls_sym__unknown(out, LS_SYM_NO_SYMBOL);
	return -ENOENT;
}

int elf_file__find(const struct elf_file *ef, __u64 vaddr, struct ls_sym *out)
{
	return syms_find(ef->syms, ef->nsyms, vaddr, out);
}

/*
 * Whether a search of w for vaddr finds what a search of the whole table
 * would: the symbols before vaddr it looks back over, and the first after
 * it, are in w, or w reaches the table's end there.
 */
static bool window_covers(const struct data_window *w, __u64 vaddr)
{
	size_t lo = sym_upper_bound(w->v, w->n, sizeof(w->v[0]), vaddr);

	return (lo < w->n || w->last) && (lo >= NESTED_LOOKBACK || w->first);
}

/* The table the data symbols come from: the one the function symbols came from. */
static int read_data_symbols(struct elf_file *ef, struct elf_sym **v, size_t *n)
{
	if (ef->delf)
		return read_symbols_of(ef->delf, SHT_SYMTAB, ELF_SYM_DATA, v, n);
	if (ef->elf && has_symtab(ef->elf))
		return read_symbols_of(ef->elf, SHT_SYMTAB, ELF_SYM_DATA, v, n);
	if (ef->elf)
		return read_symbols_of(ef->elf, SHT_DYNSYM, ELF_SYM_DATA, v, n);
	return -ENOENT;
}

/* A slot for a new window: a new one while there is room, else the least recently used. */
static struct data_window *window_slot(struct elf_file *ef)
{
	struct data_window *w;
	size_t i, lru = 0;

	if (ef->ndwin < DATA_WINDOWS) {
		w = realloc(ef->dwin, (ef->ndwin + 1) * sizeof(*w));
		if (w) {
			ef->dwin = w;
			return &ef->dwin[ef->ndwin++];
		}
		if (!ef->ndwin)
			return NULL;
	}
	for (i = 1; i < ef->ndwin; i++)
		if (ef->dwin[i].used < ef->dwin[lru].used)
			lru = i;
	return &ef->dwin[lru];
}

/*
 * Read the table again, and keep the window of it around vaddr.  The read
 * counts against the budget's bytes per second: -EAGAIN when spent.
 */
static int window_read(struct elf_file *ef, __u64 vaddr, struct data_window **out)
{
	struct data_window *w;
	struct elf_sym *v;
	size_t n, at, lo, hi;
	int err = sym_budget__take_read(ef->budget, ef->image.held + ef->dimage.held);

	if (err)
		return err;
	err = read_data_symbols(ef, &v, &n);
	if (err == -ENOENT || err == -ENOEXEC) {
		/* no table to read, now or later: an empty window covers every address */
		v = NULL;
		n = 0;
	} else if (err) {
		return err;
	}
	w = window_slot(ef);
	if (!w) {
		free(v);
		return -ENOMEM;
	}
	/* vaddr's place, with the symbols a search looks back over before it */
	at = sym_upper_bound(v, n, sizeof(*v), vaddr);
	lo = at > DATA_WINDOW / 2 ? at - DATA_WINDOW / 2 : 0;
	hi = n - lo > DATA_WINDOW ? lo + DATA_WINDOW : n;
	if (hi > lo)
		memcpy(w->v, v + lo, (hi - lo) * sizeof(*v));
	w->n = hi - lo;
	w->first = lo == 0;
	w->last = hi == n;
	free(v);
	*out = w;
	return 0;
}

int elf_file__find_data(struct elf_file *ef, __u64 vaddr, struct ls_sym *out)
{
	struct data_window *w = NULL;
	size_t i;
	int err;

	ls_sym__unknown(out, LS_SYM_NO_SYMBOL);
	if (ef->ddropped)
		return -ENOENT;
	for (i = 0; i < ef->ndwin && !w; i++)
		if (window_covers(&ef->dwin[i], vaddr))
			w = &ef->dwin[i];
	if (!w) {
		err = window_read(ef, vaddr, &w);
		if (err)
			return err;
	}
	w->used = ++ef->dtick;
	return syms_find(w->v, w->n, vaddr, out);
}

void elf_file__drop_data(struct elf_file *ef)
{
	free(ef->dwin);
	ef->dwin = NULL;
	ef->ndwin = 0;
	ef->ddropped = true;
}

const char *elf_file__path(const struct elf_file *ef)
{
	return ef->path;
}

int elf_file__fd(const struct elf_file *ef)
{
	return ef->fd;
}

struct Elf *elf_file__elf(const struct elf_file *ef)
{
	return ef->elf;
}

struct Elf *elf_file__debug_elf(const struct elf_file *ef)
{
	return ef->delf;
}

const char *elf_file__sym_source(const struct elf_file *ef)
{
	return ef->sym_source;
}
