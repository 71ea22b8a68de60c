/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Addresses to names: "symbol+offset (module)" for kernel and user frames,
 * and for the data a lock lies in (a static kernel lock, a futex).
 *
 *	ksyms		/proc/kallsyms (or text in its format): text symbols,
 *			sorted once, found by binary search        (ksyms.c)
 *	proc_maps	/proc/<pid>/maps text: the mappings of a process, also
 *			after it exited (recordings keep the text) (proc_maps.c)
 *	elf_file	one ELF file: build-id, PT_LOAD segments, function
 *			and data symbols (.symtab, else a debug file's, else
 *			.dynsym)
 *							           (elf_file.c)
 *	symbolizer	the facade: a lazily loaded ksyms and a bounded cache of
 *			elf_files keyed by (build-id, path)       (symbolizer.c)
 *	sym_budget	the bytes every cache of parsed files may hold and
 *			read per second                           (common.c)
 *
 * Pure C and libelf: no libbpf, no global state, no printing.  Functions
 * return 0 or a negative errno.  Nothing here is thread-safe: one
 * symbolizer per thread.
 *
 * Why it is built this way:
 *
 *  - Unknown is never a wrong name.  A wrong function name in a stall
 *    record sends people to the wrong code, which is worse than no name:
 *    an address is only given a symbol when it lies inside that symbol's
 *    extent (its st_size; for size-0 symbols up to the next symbol, never
 *    past the end of its section; for kallsyms, which has no sizes, up to
 *    the next symbol of the same module, at most KSYMS_TAIL_MAX past the
 *    last one, and past a BPF program).  Everything else comes back resolved = false with the
 *    module and the offset in it, and the reason (enum ls_sym_status); the
 *    caller prints "[unknown] 0x...".  A file whose build-id (or, for a
 *    live process, inode) is not the one that was mapped gives no names
 *    at all, only LS_SYM_FILE_CHANGED.
 *
 *  - The cache is per (build-id, path), not per pid.  Every process maps
 *    the same libc: parsing its symbol table once per process would cost
 *    tens of milliseconds for each of them.  The build-id says the bytes
 *    are the same whoever maps them and whenever; the path keeps two
 *    copies of one build apart (their debug links may differ).  The cache
 *    is bounded (SYMBOLIZER_MAX_FILES open files, least recently used
 *    first out) because each entry keeps a file descriptor open for the
 *    unwinder, and by the bytes it holds (struct sym_budget).
 *
 *  - A traced process owns the files it maps: it can shrink one (a mapping
 *    of it then faults, SIGBUS), rewrite it while it is read, touch it
 *    forever, or give it a symbol table of millions.  So a file is never
 *    mapped, only read into private memory within the budget (what names
 *    or unwinding need, never its code or data: elf_image__read), and
 *    checked for changes while it was read (no names then, never wrong
 *    ones); a file that changes between asks is read ever more rarely.
 *    A cached file is the one on disk while its stat is the same, ctime
 *    included (a rewrite that puts its mtime back still moves its ctime);
 *    one read as it changed (SYM_RACY_NS) is read again at the next ask,
 *    since a change in the same tick of the file system's clock would
 *    leave its stat as it was.  Of a file's data symbols only windows
 *    around the addresses asked about are kept (locks are few; a table
 *    can be huge), each read from its copy at the first ask it covers.
 *
 *  - /proc/<pid>/maps is read outside the hot path, once per process that
 *    shows up in a stall record, and kept as text.  Reading it takes the
 *    target's mmap_lock for read on kernels before ~6.17 (which walk VMAs
 *    under the lock rather than per-VMA locks / RCU): reading it from the
 *    event path would make lockstall itself a holder of the very lock it
 *    watches, in the process it watches.  Keeping the text also lets
 *    `lockstall report` symbolize after the process exited.
 */
#ifndef LOCKSTALL_SYMBOLS_H
#define LOCKSTALL_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* ---- Results ------------------------------------------------------------ */

enum ls_sym_status {
	LS_SYM_OK = 0,		/* resolved */
	LS_SYM_NO_SYMBOL = 1,	/* in a known module or file, but no symbol covers it */
	LS_SYM_NO_MAPPING = 2,	/* no mapping, or no kallsyms, covers the address */
	LS_SYM_NO_FILE = 3,	/* anonymous, [vdso], or the file cannot be read */
	LS_SYM_FILE_CHANGED = 4,	/* the file is not the one that was mapped */
	LS_SYM_SKIPPED = 5,	/* not read: over the memory budget or the read rate, or changing */
};

/*
 * One frame, symbolized.  Strings are owned by whoever filled it: see
 * ksyms__find and symbolizer__user for how long they live.
 */
struct ls_sym {
	const char *name;	/* resolved: the symbol; NULL otherwise */
	__u64 off;		/* resolved: address - symbol start; 0 otherwise */
	/*
	 * Kernel: the module without brackets ("ext4", "bpf"), NULL for the
	 * core kernel or when unknown.  User: the mapping's path ("/usr/lib/
	 * x86_64-linux-gnu/libc.so.6", "[vdso]"), NULL when no mapping.
	 */
	const char *module;
	/*
	 * User frames with a mapping: the file offset (address - start +
	 * pgoff), what to print after an unknown frame's module; 0 otherwise.
	 */
	__u64 module_off;
	bool resolved;
	__u8 status;		/* enum ls_sym_status */
};

/* ---- Kernel symbols ------------------------------------------------------ */

#define KSYMS_MAX_TEXT		(256u << 20)	/* bytes of kallsyms text read, at most */
#define KSYMS_MAX_SYMS		(4u << 20)	/* symbols kept, at most */
#define KSYMS_NAME_MAX		512		/* KSYM_NAME_LEN: longer names are garbage */
/*
 * kallsyms has no sizes.  The last symbol of a module (or of the core
 * kernel) is taken to extend at most this far: a BPF program unloaded
 * since, or memory after a module, must not become "last_symbol+0x5ee0".
 */
#define KSYMS_TAIL_MAX		0x4000
/* A data symbol (a static lock, a struct holding one) covers at most this much. */
#define KSYMS_DATA_TAIL_MAX	0x1000

struct ksyms;

/*
 * Load path (NULL: /proc/kallsyms).  Errors: those of open/read, -ENOMEM,
 * -ENOENT (no text symbol in it), -EPERM (every text symbol reads as
 * address 0: kallsyms of an unprivileged reader, kptr_restrict).
 */
int ksyms__load(struct ksyms **out, const char *path);

/* The start of kallsyms a probe reads: past the per-CPU symbols, into the text ones. */
#define KSYMS_PROBE_BYTES	(64u << 10)
/*
 * Whether path (NULL: /proc/kallsyms) would name kernel frames, from its
 * first KSYMS_PROBE_BYTES only (the whole file is loaded at the first
 * kernel stack): 0, or ksyms__load's errors (-EPERM: addresses hidden).
 */
int ksyms__probe(const char *path);

/*
 * The same from len bytes of kallsyms text (NULs allowed, treated as
 * garbage).  Lines that are not "ADDR TYPE NAME[\t[MODULE]]" are skipped;
 * text symbols (t, T, w, W) are kept for ksyms__find, data and bss ones (d,
 * D, b, B) for ksyms__find_data, those at address 0 dropped.
 * Several names at one address: a global (T) beats a local (t) beats a
 * weak one (W, w); then the fewest leading underscores; then the first
 * in the text.
 */
int ksyms__parse(struct ksyms **out, const char *text, size_t len);

void ksyms__free(struct ksyms *ks);

/* Symbols kept (after dropping duplicates of one address). */
size_t ksyms__count(const struct ksyms *ks);

/*
 * Fill out for addr.  Returns 0 when a symbol covers addr, -ENOENT when
 * none does (out: LS_SYM_NO_SYMBOL, module NULL: kallsyms cannot say
 * which module an address past a module's last symbol belongs to).
 * Strings live as long as ks.
 */
int ksyms__find(const struct ksyms *ks, __u64 addr, struct ls_sym *out);

/*
 * The same for a data address, among the data and bss symbols (d, D, b,
 * B), each covering up to the next, at most KSYMS_DATA_TAIL_MAX: a static
 * lock's name (cgroup_mutex), or the static struct that holds it
 * (init_mm+0x68).
 */
int ksyms__find_data(const struct ksyms *ks, __u64 addr, struct ls_sym *out);

/*
 * True when the frame at addr is BPF or tracing machinery: a BPF program,
 * trampoline or dispatcher (module "bpf"), or a function whose name starts
 * with one of bpf_prog_, bpf_trampoline_, bpf_dispatcher_, bpf_trace_run,
 * __bpf_trace_, __traceiter_, __bpf_prog_enter, __bpf_prog_exit,
 * trace_call_bpf, perf_trace_, __probestub_.
 */
bool ksyms__is_bpf_frame(const struct ksyms *ks, __u64 addr);

/*
 * How many frames at the top of a kernel stack (innermost first) belong to
 * the BPF program that captured it, and to the tracepoint that ran it.
 * A stack taken by bpf_get_stack() in a tp_btf program on 6.18 starts
 *	bpf_prog_<tag>_<name> [bpf], bpf_trace_run4, __traceiter_sched_switch,
 *	__schedule, ...
 * (__bpf_trace_<tp> instead of __traceiter_<tp> when it is the
 * tracepoint's only probe).  The program itself is often gone from
 * kallsyms by the time a report symbolizes, so unknown frames above a
 * BPF frame are skipped too; the scan stops at the first frame that is
 * resolved and not BPF.  Returns 0 when there is no such prefix.
 */
size_t ksyms__skip_bpf_frames(const struct ksyms *ks, const __u64 *ips, size_t n);

/* ---- Process mappings ---------------------------------------------------- */

#define PROC_MAPS_MAX_TEXT	(64u << 20)	/* bytes of maps text, at most */
#define PROC_MAPS_MAX_ENTRIES	(1u << 20)	/* mappings, at most (vm.max_map_count is 65530) */
#define PROC_MAPS_PATH_MAX	4096		/* longer paths: the line is skipped */
#define LS_BUILD_ID_MAX		32		/* GNU build-ids are 20 bytes (sha1) or 16 */

/* proc_map.perms */
#define PROC_MAP_R	0x1
#define PROC_MAP_W	0x2
#define PROC_MAP_X	0x4
#define PROC_MAP_SHARED	0x8

struct proc_map {
	__u64 start;		/* [start, end) */
	__u64 end;
	__u64 pgoff;		/* file offset of start */
	__u64 inode;		/* 0: anonymous */
	__u32 dev_major;
	__u32 dev_minor;
	__u8 perms;		/* PROC_MAP_* */
	bool deleted;		/* the path ended in " (deleted)", which is stripped */
	__u8 build_id_len;	/* 0: not known (proc_maps__set_build_id) */
	__u8 pad;
	__u8 build_id[LS_BUILD_ID_MAX];
	/*
	 * "" for anonymous memory, "[heap]", "[stack]", "[vdso]" ..., else an
	 * absolute path (in the process's mount namespace), spaces kept,
	 * escapes (\012) as the kernel wrote them.  Owned by the proc_maps.
	 */
	const char *path;
};

/*
 * Sorted by start, not overlapping: lines that overlap an earlier mapping
 * are dropped (and counted), as are lines that do not parse.
 */
struct proc_maps {
	struct proc_map *v;
	size_t n;
	size_t dropped;		/* lines skipped: garbage, overlaps, too long */
	__u32 pid;		/* 0: parsed from text */
	char *strings;		/* the paths */
};

/* Parse len bytes of /proc/<pid>/maps text (any bytes; NULs end a line's path). */
int proc_maps__parse(struct proc_maps **out, const char *text, size_t len);

/*
 * Read /proc/<pid>/maps into *text (NUL-terminated, malloc'd; *len without
 * the NUL), at most PROC_MAPS_MAX_TEXT bytes (-E2BIG past that).  Before
 * Linux ~6.17 this takes pid's mmap_lock for read: never from the event path.
 */
int proc_maps__read_text(__u32 pid, char **text, size_t *len);

/* Both: read and parse pid's maps, and set maps->pid. */
int proc_maps__load_pid(struct proc_maps **out, __u32 pid);

void proc_maps__free(struct proc_maps *maps);

/* The mapping that contains addr, or NULL.  Binary search. */
const struct proc_map *proc_maps__find(const struct proc_maps *maps, __u64 addr);

/*
 * Say which build-id the file of v[i] had when it was mapped (what a
 * recording stores): lookups then refuse a file with another build-id.
 * -EINVAL for a bad index or len (0 or > LS_BUILD_ID_MAX).
 */
int proc_maps__set_build_id(struct proc_maps *maps, size_t i, const __u8 *id, size_t len);

/* A mapping of a file on disk (path starts with '/'), not [vdso] or anonymous. */
bool proc_map__is_file(const struct proc_map *m);

/* ---- The memory budget --------------------------------------------------- */

#define SYM_BUDGET_DEFAULT	(64u << 20)	/* bytes, for every cache of parsed files */
#define SYM_BUDGET_MIN		(1u << 20)

/*
 * One budget, in bytes, for the parsed files the symbolizer and the
 * unwinder keep (a private copy of each file, its symbol tables, unwind
 * tables): a file is read only when it fits, after the cache that wants
 * it has let go of its least recently used ones; a file larger than half
 * the budget is never read.  The same budget bounds the bytes of files
 * read per second (a CPU bound on the thread that names): past it, names
 * are left out and counted, not waited for.  Owned by whoever makes the
 * caches (they only point at it); not thread-safe.
 */
struct sym_budget {
	size_t limit;		/* bytes: SYM_BUDGET_DEFAULT when 0 */
	size_t used;
	__u64 (*now_ns)(void);	/* the clock of the read rate: ls_now_ns when NULL */
	__u64 (*wall_ns)(void);	/* the clock file times are on: CLOCK_REALTIME when NULL */
	__u64 window_ns;	/* the second files are being read in */
	size_t window_bytes;	/* read in it */
	/* files not read, for people to be told */
	__u64 too_big;		/* larger than the budget allows */
	__u64 over_rate;	/* the second's reading was spent: left for later */
	__u64 churning;		/* changed since the last ask, again: not read this time */
	__u64 changed;		/* changed while being read: no names rather than wrong ones */
};

/* The budget's limit, its default filled in. */
size_t sym_budget__limit(const struct sym_budget *b);


/* ---- ELF files ----------------------------------------------------------- */

#define ELF_FILE_MAX_SYMS	(8u << 20)	/* function symbols kept per file, at most */

struct elf_file;

/*
 * Open path, read its build-id, PT_LOAD segments and function symbols
 * (STT_FUNC and STT_GNU_IFUNC, defined in an executable section, nonzero
 * address; of aliases, global beats weak beats local, then the fewest
 * leading underscores, then a sized one, then symbol table order): .symtab if
 * present; else the debug file found under debug_root (NULL:
 * "/usr/lib/debug") as .build-id/xx/yyyy.debug, or through .gnu_debuglink
 * next to the file, in its .debug/ or under debug_root + its directory
 * (accepted only when its build-id, or without one the link's CRC,
 * matches); else .dynsym.  Errors: those of open, -ENOEXEC (not ELF, or
 * not a kind we read), -ENOMEM.
 */
int elf_file__open(struct elf_file **out, const char *path, const char *debug_root);

/*
 * Symbols only, from the debug file of build-id id under debug_root:
 * for a mapped file that changed or vanished since.  Its segments are
 * those of the debug file, whose p_offsets are not the original's, so
 * elf_file__bias() needs the mapping at file offset 0 (see there).
 * -ENOENT when there is no such debug file.
 */
int elf_file__open_debug(struct elf_file **out, const __u8 *id, size_t len, const char *debug_root);

void elf_file__free(struct elf_file *ef);

/* The file's NT_GNU_BUILD_ID; -ENOENT when it has none. */
int elf_file__build_id(const struct elf_file *ef, const __u8 **id, size_t *len);

/*
 * The load bias of ef as mapped by m, for the DWARF unwinder: an address
 * ip in m is the ELF virtual address ip - bias, what .eh_frame and
 * .debug_frame talk about.  The PT_LOAD that holds file offset m->pgoff
 * gives it: bias = m->start - m->pgoff + p_offset - p_vaddr.  For an
 * elf_file from elf_file__open_debug(), m must be the file's mapping at
 * pgoff 0 (the first PT_LOAD), as ld.so maps every segment from one base.
 * -ENOENT when no PT_LOAD holds m->pgoff.
 */
int elf_file__bias(const struct elf_file *ef, const struct proc_map *m, __u64 *bias);

/*
 * The function symbol covering ELF virtual address vaddr: 0, or -ENOENT
 * (out: LS_SYM_NO_SYMBOL).  out->module is not set.  Names live as long
 * as ef.
 */
int elf_file__find(const struct elf_file *ef, __u64 vaddr, struct ls_sym *out);

/*
 * The data symbol covering ELF virtual address vaddr: sized STT_OBJECTs in
 * writable allocated sections (.data, .bss; not TLS), from the table the
 * function symbols came from.  vaddr must lie in [st_value, st_value +
 * st_size): a lock inside a struct is its offset in it, an address past
 * every object is no name.  Only a few windows of the table around the
 * addresses asked about are kept; one is read at an address none covers,
 * which counts against the budget's bytes per second.  0, or -ENOENT (out:
 * LS_SYM_NO_SYMBOL), -EAGAIN (the second's reading is spent), -ENOMEM.
 * Names live as long as ef.
 */
int elf_file__find_data(struct elf_file *ef, __u64 vaddr, struct ls_sym *out);

/* The file as opened: path ("" for elf_file__open_debug), fd and libelf handle; -1/NULL if none. */
const char *elf_file__path(const struct elf_file *ef);
int elf_file__fd(const struct elf_file *ef);
struct Elf *elf_file__elf(const struct elf_file *ef);
/* The separate debug file (for .debug_frame) when one was used, else NULL. */
struct Elf *elf_file__debug_elf(const struct elf_file *ef);
/* Where the symbols came from: "symtab", "dynsym", "debug", "none". */
const char *elf_file__sym_source(const struct elf_file *ef);

/* ---- The facade ---------------------------------------------------------- */

#define SYMBOLIZER_MAX_FILES	64	/* elf_files cached (open fds), default */
#define SYMBOLIZER_CHURN_PATHS	64	/* paths whose changes between asks are followed */
#define SYMBOLIZER_CHURN_MAX_SHIFT	10	/* a churning file is read once in 2^10 asks at least */

struct symbolizer_opts {
	const char *kallsyms;	/* NULL: /proc/kallsyms */
	const char *debug_root;	/* NULL: /usr/lib/debug */
	unsigned int max_files;	/* 0: SYMBOLIZER_MAX_FILES */
	struct sym_budget *budget;	/* shared, outlives the symbolizer; NULL: one of its own */
};

struct symbolizer;

/* opts may be NULL.  Nothing is read until the first lookup.  NULL: no memory. */
struct symbolizer *symbolizer__new(const struct symbolizer_opts *opts);
void symbolizer__free(struct symbolizer *s);

/*
 * The kernel symbols, loaded on first use (once: a failure is remembered
 * and returned again, not retried).  NULL with *err set when unavailable.
 */
const struct ksyms *symbolizer__ksyms(struct symbolizer *s, int *err);

/*
 * A kernel address.  Returns 0 with out filled (resolved or not), or the
 * error that made kallsyms unavailable (-EPERM unprivileged), out then
 * unknown with LS_SYM_NO_MAPPING.  Strings live as long as s.
 */
int symbolizer__kernel(struct symbolizer *s, __u64 addr, struct ls_sym *out);

/*
 * A user address of the process whose mappings are maps.  Returns 0 with
 * out filled (resolved or not, out->status says why not); -EINVAL for
 * NULL arguments.  The file is looked up in the cache by (build-id, path)
 * when the mapping carries a build-id, else opened and checked against
 * the mapping's inode (a file replaced since it was mapped gives
 * LS_SYM_FILE_CHANGED, never names).  A file with a recorded build-id
 * that changed or vanished since is named from its debug file under
 * debug_root when there is one.  For a live process (maps->pid set) the
 * file is opened through /proc/<pid>/root (its mount namespace), or
 * /proc/<pid>/map_files/ when deleted; once it exited, by its path (the
 * inode or build-id check still applies).  Only regular files are opened.
 *
 * For a return address (every frame of a stack but the innermost) pass
 * addr - 1: the call may be a function's last instruction, and its return
 * address the start of the next function.
 *
 * out->name stays valid until the next symbolizer__user() or
 * symbolizer__file() call (which may evict a file from the cache);
 * out->module points into maps.  Copy what you keep.
 */
int symbolizer__user(struct symbolizer *s, const struct proc_maps *maps, __u64 addr, struct ls_sym *out);

/*
 * A data address of the process whose mappings are maps (a futex: a lock
 * in user memory): the data symbol of the file mapped there
 * (elf_file__find_data), out->module the file's path.  Its .bss may lie
 * in the anonymous mapping right after the file's last one: that counts
 * as the file's, the symbol extents decide.  Other anonymous memory (heap,
 * stack, mmap) has no name.  A process that is gone (maps->pid 0, a
 * recording) gets a name only from the build-id recorded for the file (on
 * any of its mappings, see proc_maps__set_build_id): nothing else says
 * the file on disk is the one that was mapped.  Returns 0 with out filled
 * (resolved or not, out->status says why not); -EINVAL for NULL
 * arguments.  Strings live as for symbolizer__user().
 */
int symbolizer__data(struct symbolizer *s, const struct proc_maps *maps, __u64 addr,
		     struct ls_sym *out);

/* What the DWARF unwinder needs for one ip. */
struct ls_file_info {
	const struct proc_map *map;	/* the mapping holding ip */
	struct elf_file *elf;	/* its file, owned by the cache */
	__u64 bias;		/* ELF virtual address = ip - bias */
};

/*
 * For ip in the process of maps: which mapping, which ELF file (with fd,
 * libelf handle and debug file, see elf_file__*), and what bias.  Returns
 * 0, -ENOENT (no mapping, anonymous, or no PT_LOAD holds it), -ESTALE
 * (the file changed since it was mapped), or the error opening the file.
 * out->elf stays valid until the next symbolizer__user() or
 * symbolizer__file() call.
 */
int symbolizer__file(struct symbolizer *s, const struct proc_maps *maps, __u64 ip, struct ls_file_info *out);

/*
 * The build-id of the file mapped at m (one of maps), as it is on disk now
 * (-ESTALE: another file there): from the cache when the file is in it,
 * else from the file's notes alone, without reading or caching the file.
 * 0, -ENOENT (it has none), -EAGAIN (the read rate is spent), or -errno.
 */
int symbolizer__build_id(struct symbolizer *s, const struct proc_maps *maps,
			 const struct proc_map *m, __u8 *id, size_t *len);

#endif /* LOCKSTALL_SYMBOLS_H */
