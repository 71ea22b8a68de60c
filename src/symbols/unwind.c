// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * User stacks of STACK records: DWARF unwinding with libunwind's remote API
 * over the copied registers and stack, a frame-pointer walk over the same
 * copy, and the choice between them and the kernel's list (see unwind.h).
 *
 * The target "address space" libunwind sees is made of three things:
 *  - the registers of the record (access_reg);
 *  - its stack copy, [uregs[SP], uregs[SP] + copy_len) (access_mem);
 *  - the read-only file-backed segments of the ELF files the caller's
 *    find_map places in it, read from the files themselves (access_mem):
 *    .eh_frame_hdr and .eh_frame, not code.  Writable segments are
 *    refused, since the file does not hold what the process had in them;
 *  - unwind tables built here (see uw_tab_kind), at synthetic addresses.
 * Nothing else is readable: an unwind that needs more stops, and says why.
 *
 * Files are read into private memory (elf_image__read), never mapped:
 * a traced process may shrink or rewrite a file it maps, and a mapping of
 * it would fault (SIGBUS).  What the copies and tables take is charged to
 * a memory budget shared with the symbolizer (unwinder__set_budget).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <libunwind.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "symbols/internal.h"
#include "symbols/unwind.h"
#include "symbols/unwind_file.h"
#include "util.h"

/*
 * Exported by libunwind but not declared by its headers (perf declares it
 * the same way): looks ip up in a binary-search table of the .eh_frame_hdr
 * kind that lives in the target's memory, and parses the FDE it finds.
 */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					      unw_dyn_info_t *di, unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);
#define dwarf_search_unwind_table UNW_OBJ(dwarf_search_unwind_table)

/* The record numbers registers as DWARF does, and so does libunwind. */
_Static_assert(UNW_X86_64_RBP == LS_UREG_BP && UNW_X86_64_RSP == LS_UREG_SP &&
	       UNW_X86_64_RIP == LS_UREG_IP, "LS_UREG_* must follow libunwind's x86-64 numbering");

#define UW_FILES_DEFAULT	64
#define UW_MODS_MAX		16	/* files remembered with their bias within one unwind */
#define UW_FILES_MAX		4096

/* A file met in this unwind and where the process has it. */
struct uw_mod {
	struct uw_file *f;
	__u64 bias;		/* runtime address - link-time address */
	__u64 lo, hi;		/* runtime span of its PT_LOAD segments */
};

/* One unwind's state: libunwind's accessors get it as their arg. */
struct uw_ctx {
	struct unwinder *u;
	const struct ls_rec_stack *rec;
	const __u8 *copy;
	__u64 sp;
	__u64 copy_len;
	unwind_find_map_fn find_map;
	void *map_ctx;
	struct uw_mod mods[UW_MODS_MAX];
	unsigned int nr_mods;
	unsigned int next_mod;	/* round robin when mods[] is full */
	int info;		/* find_proc_info in this step: 1 not asked, 0 found, < 0 why not */
	__u64 info_addr;
	int fault;		/* the last failed memory access: -EFAULT or find_map's error */
	__u64 fault_addr;
	const __u8 *hot;	/* the file bytes of the segment read last */
	__u64 hot_lo, hot_len;	/* where they are in the target */
};

/* ---- the target's memory ---- */

/* Where libunwind reads what uw_build_tables() made for f. */
static __u64 uw_synth_addr(const struct unwinder *u, const struct uw_file *f)
{
	return UW_SYNTH_BASE + ((__u64)(f - u->files) << UW_SYNTH_SHIFT);
}

/*
 * The file mapped at addr and its bias in this process: from the files met
 * before in this unwind, else through find_map.
 */
static int uw_module(struct uw_ctx *c, __u64 addr, struct uw_mod **out)
{
	struct unwind_map map = { 0 };
	struct uw_file *f;
	struct uw_mod *m;
	__u64 bias = 0, lo = ~0ULL, hi = 0;
	bool found = false;
	unsigned int i;
	int err;

	for (i = 0; i < c->nr_mods; i++) {
		if (addr >= c->mods[i].lo && addr < c->mods[i].hi) {
			*out = &c->mods[i];
			return 0;
		}
	}
	err = c->find_map(c->map_ctx, addr, &map);
	if (err)
		return err < 0 ? err : -EINVAL;
	if (!map.path || addr < map.start || addr >= map.end)
		return -ENOENT;
	err = uw_file_get(c->u, &map, &f);
	if (err)
		return err;
	/*
	 * The segment that holds the mapped file offset gives the bias:
	 * file offset o sits at map.start + (o - pgoff) in the process and at
	 * seg.vaddr + (o - seg.offset) in the file.
	 */
	for (i = 0; i < f->nr_segs; i++) {
		const struct uw_seg *s = &f->segs[i];

		if (map.pgoff >= (s->offset & ~UW_PAGE_MASK) && map.pgoff < s->offset + s->filesz) {
			bias = map.start - map.pgoff - s->vaddr + s->offset;
			found = true;
			break;
		}
	}
	if (!found)
		return -ENOENT;	/* the file does not match the mapping: replaced since? */
	for (i = 0; i < f->nr_segs; i++) {
		if (f->segs[i].vaddr + bias < lo)
			lo = f->segs[i].vaddr + bias;
		if (f->segs[i].vaddr + f->segs[i].memsz + bias > hi)
			hi = f->segs[i].vaddr + f->segs[i].memsz + bias;
	}
	if (addr < lo || addr >= hi)
		return -ENOENT;
	if (c->nr_mods < UW_MODS_MAX) {
		m = &c->mods[c->nr_mods++];
	} else {
		m = &c->mods[c->next_mod];
		c->next_mod = (c->next_mod + 1) % UW_MODS_MAX;
	}
	m->f = f;
	m->bias = bias;
	m->lo = lo;
	m->hi = hi;
	*out = m;
	return 0;
}

/* The file-backed segment of m holding runtime address addr, if any. */
static const struct uw_seg *uw_seg_at(const struct uw_mod *m, __u64 addr)
{
	__u64 vaddr = addr - m->bias;
	unsigned int i;

	for (i = 0; i < m->f->nr_segs; i++) {
		const struct uw_seg *s = &m->f->segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz)
			return s;
	}
	return NULL;
}

/*
 * Up to 8 bytes of read-only file data at addr; the part past the bytes
 * read from the segment reads 0.  Those bytes become the hot ones:
 * libunwind reads .eh_frame_hdr and .eh_frame a word at a time, mostly
 * from one place.  Only the unwind sections were read (elf_image__read):
 * code, which libunwind reads only to guess at a frame with no unwind
 * info (a PLT entry, a signal trampoline), is not there (-ENODATA).
 */
static int uw_read_file(struct uw_ctx *c, const struct uw_mod *m, __u64 addr)
{
	const struct uw_seg *s = uw_seg_at(m, addr);
	struct elf_image_range r;
	__u64 lo, hi;

	if (!s || (s->flags & PF_W))
		return -EFAULT;
	if (!elf_image__range(&m->f->im, s->offset + (addr - m->bias - s->vaddr), &r))
		return -ENODATA;
	lo = r.off > s->offset ? r.off : s->offset;
	hi = r.off + r.len < s->offset + s->filesz ? r.off + r.len : s->offset + s->filesz;
	c->hot_lo = s->vaddr + m->bias + (lo - s->offset);
	c->hot_len = hi - lo;
	c->hot = (const __u8 *)m->f->im.bytes + lo;
	return 1;
}

/* A word of the target: from the stack copy, else from read-only file data. */
static int uw_read(struct uw_ctx *c, __u64 addr, __u64 *val)
{
	struct uw_mod *m;
	__u64 in;
	int err;

	if (addr >= c->sp && addr - c->sp < c->copy_len && c->copy_len - (addr - c->sp) >= 8) {
		memcpy(val, c->copy + (addr - c->sp), 8);
		return 0;
	}
	if (addr >= UW_SYNTH_BASE && !(addr >= c->hot_lo && addr - c->hot_lo < c->hot_len)) {
		__u64 slot = (addr - UW_SYNTH_BASE) >> UW_SYNTH_SHIFT;
		const struct uw_file *f = slot < c->u->max_files ? &c->u->files[slot] : NULL;

		/*
		 * Only a file of this unwind: those stay cached until it ends,
		 * so the hot window cannot outlive its bytes.
		 */
		if (!f || !f->synth || f->checked != c->u->gen ||
		    addr - uw_synth_addr(c->u, f) >= f->synth_len) {
			c->fault = -EFAULT;
			c->fault_addr = addr;
			return c->fault;
		}
		c->hot_lo = uw_synth_addr(c->u, f);
		c->hot_len = f->synth_len;
		c->hot = f->synth;
	}
	if (!(addr >= c->hot_lo && addr - c->hot_lo < c->hot_len)) {
		err = uw_module(c, addr, &m);
		if (!err)
			err = uw_read_file(c, m, addr);
		/* bytes not read are not the process's fault: no stop is blamed on them */
		if (err == -ENODATA)
			return -EFAULT;
		if (err < 0) {
			/* Not in a file: stack beyond the copy, heap, garbage. */
			c->fault = err == -ENOENT ? -EFAULT : err;
			c->fault_addr = addr;
			return c->fault;
		}
	}
	in = addr - c->hot_lo;
	*val = 0;
	memcpy(val, c->hot + in, c->hot_len - in < 8 ? c->hot_len - in : 8);
	return 0;
}

/* ---- libunwind's accessors ---- */

/* Search one of m's tables for ip. */
static int uw_search(unw_addr_space_t as, struct uw_ctx *c, const struct uw_mod *m,
		     const struct uw_table *t, unw_word_t ip, unw_proc_info_t *pi,
		     int need_unwind_info)
{
	const struct uw_file *f = m->f;
	unw_dyn_info_t di;
	__u64 synth = uw_synth_addr(c->u, f);

	memset(&di, 0, sizeof(di));
	di.start_ip = f->text_lo + m->bias;
	di.end_ip = f->text_hi + m->bias;
	/* in words; the table's entries are two 32-bit offsets each */
	di.u.rti.table_len = t->count * sizeof(struct uw_entry) / sizeof(unw_word_t);
	switch (t->kind) {
	case UW_TAB_HDR:
		/* both offsets from the header */
		di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
		di.u.rti.segbase = t->frames + m->bias;
		di.u.rti.table_data = t->table + m->bias;
		break;
	case UW_TAB_EH:
		/* functions from start_ip, FDEs from .eh_frame in the process */
		di.format = UNW_INFO_FORMAT_IP_OFFSET;
		di.u.rti.segbase = t->frames + m->bias;
		di.u.rti.table_data = synth + t->table;
		break;
	case UW_TAB_DEBUG:
		/* FDEs in synth, their absolute addresses moved by the bias */
		di.format = UNW_INFO_FORMAT_IP_OFFSET;
		di.u.rti.segbase = synth + t->frames;
		di.u.rti.table_data = synth + t->table;
		di.load_offset = m->bias;
		break;
	default:
		return -UNW_ENOINFO;
	}
	return dwarf_search_unwind_table(as, ip, &di, pi, need_unwind_info, c);
}

static int uw_find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			     int need_unwind_info, void *arg)
{
	struct uw_ctx *c = arg;
	struct uw_mod *m;
	int err;

	c->info_addr = ip;
	err = uw_module(c, ip, &m);
	if (!err && ((!m->f->eh.kind && !m->f->dbg.kind) ||
		     ip < m->f->text_lo + m->bias || ip >= m->f->text_hi + m->bias))
		err = -ENOENT;
	if (err) {
		c->info = err;
		return -UNW_ENOINFO;
	}
	c->fault = 0;
	err = uw_search(as, c, m, &m->f->eh, ip, pi, need_unwind_info);
	/* .eh_frame may cover the C runtime's functions only: then .debug_frame */
	if (err == -UNW_ENOINFO && m->f->dbg.kind) {
		c->fault = 0;
		err = uw_search(as, c, m, &m->f->dbg, ip, pi, need_unwind_info);
	}
	if (err < 0)
		c->info = c->fault ? c->fault : err == -UNW_ENOINFO ? -ENOENT : -EINVAL;
	else
		c->info = 0;
	return err;
}

static void uw_put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	/* libunwind frees what dwarf_search_unwind_table allocated itself. */
}

static int uw_get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr, void *arg)
{
	return -UNW_ENOINFO;	/* no JIT registration in a copy */
}

static int uw_access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp, int write,
			 void *arg)
{
	__u64 val;

	if (write)
		return -UNW_EINVAL;
	if (uw_read(arg, addr, &val))
		return -UNW_EINVAL;
	*valp = val;
	return 0;
}

static int uw_access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *valp, int write,
			 void *arg)
{
	const struct uw_ctx *c = arg;

	if (write)
		return -UNW_EREADONLYREG;
	if (reg < 0 || reg >= LS_UREGS_N)
		return -UNW_EBADREG;
	*valp = c->rec->uregs[reg];
	return 0;
}

static int uw_access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val, int write,
			   void *arg)
{
	return -UNW_EBADREG;	/* the record has no FP registers; unwinding needs none */
}

static int uw_resume(unw_addr_space_t as, unw_cursor_t *cu, void *arg)
{
	return -UNW_EINVAL;
}

static int uw_get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf, size_t len,
			    unw_word_t *off, void *arg)
{
	return -UNW_EINVAL;	/* symbols are the symbolizer's job */
}

/* ---- the unwinder ---- */

struct unwinder *unwinder__new(unsigned int max_files)
{
	/* libunwind copies them into the address space: no global needed */
	unw_accessors_t acc = {
		.find_proc_info = uw_find_proc_info,
		.put_unwind_info = uw_put_unwind_info,
		.get_dyn_info_list_addr = uw_get_dyn_info_list_addr,
		.access_mem = uw_access_mem,
		.access_reg = uw_access_reg,
		.access_fpreg = uw_access_fpreg,
		.resume = uw_resume,
		.get_proc_name = uw_get_proc_name,
	};
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	/* Idempotent; libelf refuses to work before it. */
	elf_version(EV_CURRENT);
	u->max_files = max_files ? max_files : UW_FILES_DEFAULT;
	if (u->max_files > UW_FILES_MAX)
		u->max_files = UW_FILES_MAX;
	u->files = calloc(u->max_files, sizeof(*u->files));
	u->as = unw_create_addr_space(&acc, 0);
	if (!u->files || !u->as) {
		unwinder__free(u);
		return NULL;
	}
	/*
	 * No caching: the same ip means different code in different
	 * processes (every non-PIE executable starts at 0x400000), and the
	 * per-step verdict of find_proc_info must come from this record.
	 */
	unw_set_caching_policy(u->as, UNW_CACHE_NONE);
	return u;
}

void unwinder__set_budget(struct unwinder *u, struct sym_budget *b)
{
	u->budget = b;
}

void unwinder__free(struct unwinder *u)
{
	unsigned int i;

	if (!u)
		return;
	for (i = 0; u->files && i < u->max_files; i++)
		if (u->files[i].path)
			uw_file_release(u, &u->files[i]);
	free(u->files);
	if (u->as)
		unw_destroy_addr_space(u->as);
	free(u);
}

/*
 * One walk's start, common to DWARF and fp: check the record, set up c,
 * and the first frame, the record's ip.
 */
static int uw_begin(struct uw_ctx *c, enum unwind_method method, struct unwinder *u,
		    const struct ls_rec_stack *rec, size_t rec_len, unwind_find_map_fn find_map,
		    void *ctx, __u64 *ips, unsigned int max, struct unwind_result *res)
{
	if (!rec || !res || !ips || !max || rec_len < sizeof(*rec) ||
	    rec->hdr.type != LS_REC_STACK || rec->copy_len > rec_len - sizeof(*rec) ||
	    (find_map && !u))
		return -EINVAL;
	if (!(rec->flags & LS_STACK_F_REGS))
		return -ENODATA;
	memset(res, 0, sizeof(*res));
	memset(c, 0, sizeof(*c));
	c->u = u;
	c->rec = rec;
	c->copy = ls_rec_stack_copy(rec);
	c->sp = rec->uregs[LS_UREG_SP];
	c->copy_len = rec->copy_len;
	c->find_map = find_map;
	c->map_ctx = ctx;
	if (u)
		u->gen++;
	res->method = method;
	ips[res->n++] = rec->uregs[LS_UREG_IP];
	res->stop_addr = rec->uregs[LS_UREG_IP];
	return 0;
}

int unwind__dwarf(struct unwinder *u, const struct ls_rec_stack *rec, size_t rec_len,
		  unwind_find_map_fn find_map, void *ctx, __u64 *ips, unsigned int max,
		  struct unwind_result *res)
{
	struct uw_ctx state, *c = &state;
	unw_cursor_t cur;
	__u64 sp;
	int err;

	if (!u || !find_map)
		return -EINVAL;
	err = uw_begin(c, UNWIND_DWARF, u, rec, rec_len, find_map, ctx, ips, max, res);
	if (err)
		return err;
	sp = c->sp;
	if (unw_init_remote(&cur, u->as, c) < 0) {
		res->stop = -EINVAL;
		return 0;
	}
	for (;;) {
		unw_word_t nip, nsp;

		if (res->n >= max) {
			res->stop = -E2BIG;
			break;
		}
		c->info = 1;
		c->fault = 0;
		err = unw_step(&cur);
		/*
		 * Where the CFI lookup failed, unw_step() goes on guessing
		 * (rbp chain, [rsp]), or calls the chain ended: neither is
		 * DWARF's word, and the fp walk does that job with checks.
		 */
		if (c->info < 0) {
			res->stop = c->info;
			res->stop_addr = c->info_addr;
			break;
		}
		if (err == 0) {
			res->stop = 0;
			break;
		}
		if (err < 0) {
			res->stop = c->fault ? c->fault : err == -UNW_ENOINFO ? -ENOENT : -EINVAL;
			if (c->fault)
				res->stop_addr = c->fault_addr;
			break;
		}
		if (unw_get_reg(&cur, UNW_REG_IP, &nip) < 0 ||
		    unw_get_reg(&cur, UNW_REG_SP, &nsp) < 0) {
			res->stop = -EINVAL;
			break;
		}
		if (!nip) {
			res->stop = 0;
			break;
		}
		if (nsp <= sp) {
			res->stop = -ELOOP;
			break;
		}
		ips[res->n++] = nip;
		res->stop_addr = nip;
		sp = nsp;
	}
	return 0;
}

/* Is addr a return address: inside an executable file segment? */
static int uw_is_code(struct uw_ctx *c, __u64 addr)
{
	const struct uw_seg *s;
	struct uw_mod *m;
	int err = uw_module(c, addr, &m);

	if (err)
		return err == -ENOENT ? -ENOEXEC : err;
	s = uw_seg_at(m, addr);
	return s && (s->flags & PF_X) ? 0 : -ENOEXEC;
}

int unwind__fp(struct unwinder *u, const struct ls_rec_stack *rec, size_t rec_len,
	       unwind_find_map_fn find_map, void *ctx, __u64 *ips, unsigned int max,
	       struct unwind_result *res)
{
	struct uw_ctx state, *c = &state;
	__u64 bp, low;
	int err;

	err = uw_begin(c, UNWIND_FP, u, rec, rec_len, find_map, ctx, ips, max, res);
	if (err)
		return err;
	bp = rec->uregs[LS_UREG_BP];
	/* The first frame record may sit at sp itself (right after push rbp; mov rsp, rbp). */
	low = c->sp;
	for (;;) {
		__u64 off, next, ret;

		if (res->n >= max) {
			res->stop = -E2BIG;
			break;
		}
		/* At the first frame, a 0 or a value below sp says there is no chain. */
		if (res->n == 1 && (!bp || bp < low || (bp & 7))) {
			res->stop = -ENODATA;
			res->stop_addr = bp;
			break;
		}
		if (!bp) {
			res->stop = 0;	/* the ABI's end of the chain */
			break;
		}
		if (bp < low || (bp & 7)) {
			res->stop = -ELOOP;
			break;
		}
		off = bp - c->sp;
		/* the frame record, 16 bytes, must not wrap past the top of the address space either */
		if (off >= c->copy_len || c->copy_len - off < 16 || bp > ~0ULL - 16) {
			res->stop = -EFAULT;
			res->stop_addr = bp;
			break;
		}
		memcpy(&next, c->copy + off, 8);
		memcpy(&ret, c->copy + off + 8, 8);
		if (!ret) {
			res->stop = 0;
			break;
		}
		if (find_map) {
			err = uw_is_code(c, ret);
			if (err) {
				res->stop = err;
				res->stop_addr = ret;
				break;
			}
		}
		ips[res->n++] = ret;
		res->stop_addr = ret;
		low = bp + 16;
		bp = next;
	}
	return 0;
}

/* How much of the kernel's frame-pointer list (rec->user) fits in max. */
static void uw_kernel_list(const struct ls_rec_stack *rec, unsigned int max,
			   struct unwind_result *res)
{
	unsigned int n = rec->nr_user < LS_USTACK_MAX ? rec->nr_user : LS_USTACK_MAX;

	memset(res, 0, sizeof(*res));
	res->method = n ? UNWIND_KERNEL_FP : UNWIND_NONE;
	res->stop = rec->flags & LS_STACK_F_USER_TRUNC ? -E2BIG : 0;
	if (n > max) {
		n = max;
		res->stop = -E2BIG;
	}
	res->n = n;
	res->stop_addr = n ? rec->user[n - 1] : 0;
}

int unwind__stack(struct unwinder *u, const struct ls_rec_stack *rec, size_t rec_len,
		  unwind_find_map_fn find_map, void *ctx, __u64 *ips, unsigned int max,
		  struct unwind_result *res)
{
	struct unwind_result dw = { 0 }, fp = { 0 }, kn;
	__u64 *fp_ips = NULL;
	int err;

	if (!ips || !rec || !res || !max || rec_len < sizeof(*rec))
		return -EINVAL;
	if (rec->flags & LS_STACK_F_REGS) {
		err = unwind__dwarf(u, rec, rec_len, find_map, ctx, ips, max, &dw);
		if (err)
			return err;
		/* A complete DWARF unwind needs no second opinion. */
		if (dw.n > 1 && (dw.stop == 0 || dw.stop == -E2BIG)) {
			*res = dw;
			return 0;
		}
		fp_ips = calloc(max, sizeof(*fp_ips));
		if (!fp_ips)
			return -ENOMEM;
		err = unwind__fp(u, rec, rec_len, find_map, ctx, fp_ips, max, &fp);
		if (err)
			goto cleanup;
	}
	uw_kernel_list(rec, max, &kn);
	/* Otherwise the longest; on a tie DWARF, then the checked fp walk, then the kernel's. */
	if (dw.n && dw.n >= fp.n && dw.n >= kn.n) {
		*res = dw;
	} else if (fp.n && fp.n >= kn.n) {
		memcpy(ips, fp_ips, fp.n * sizeof(*ips));
		*res = fp;
	} else {
		memcpy(ips, rec->user, kn.n * sizeof(*ips));
		*res = kn;
	}
	err = 0;
cleanup:
	free(fp_ips);
	return err;
}

const char *unwind__method_name(enum unwind_method m)
{
	switch (m) {
	case UNWIND_DWARF:
		return "dwarf";
	case UNWIND_FP:
		return "fp";
	case UNWIND_KERNEL_FP:
		return "kernel-fp";
	default:
		return "none";
	}
}

const char *unwind__stop_text(int stop)
{
	switch (stop) {
	case 0:
		return "outermost frame";
	case -E2BIG:
		return "frame limit";
	case -ENOENT:
		return "no unwind info";
	case -EFAULT:
		return "beyond the stack copy";
	case -ELOOP:
		return "stack pointer did not increase";
	case -ENODATA:
		return "no frame pointer";
	case -ENOEXEC:
		return "return address not in code";
	case -EINVAL:
		return "bad unwind info";
	default:
		return "mapping lookup failed";
	}
}
