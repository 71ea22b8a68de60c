// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Stacks in the outputs: resolved frames on a hand-built stall, through
 * the text, JSON, Markdown, HTML and folded sinks.  What is checked: the
 * order (innermost first in reports, outermost first in folded lines),
 * unknown frames never given a name, repeats deduplicated, hostile names
 * escaped, and frames copied by the sinks that keep stalls.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>
#include <jansson.h>
#include <criterion/criterion.h>
#include "symbols/symbols.h"
#include "sinks/report.h"
#include "sinks/sink_common.h"
#include "unit/sink_fixture.h"

static const struct sink_opts opts = { .top = 10, .t0_ns = FX_T0 };

static const struct ls_frame waiter_v[] = {
	{ 0xffffffff81100000ULL, "lock_mm_and_find_vma", 0x2d, "vmlinux", LS_FRAME_KERNEL },
	{ 0xffffffff81200000ULL, "do_user_addr_fault", 0x1b2, "vmlinux", LS_FRAME_KERNEL },
	{ 0x7f0000001000ULL, "__memmove_avx_unaligned", 0x10, "/usr/lib/libc.so.6", LS_FRAME_USER },
	{ 0x555500001000ULL, NULL, 0x1000, "/opt/db/bin/db", LS_FRAME_USER },
	{ 0x555500002000ULL, "db__query", 0x44, "/opt/db/bin/db", LS_FRAME_USER },
};

static const struct ls_frame holder_v[] = {
	{ 0xffffffff81300000ULL, "__access_remote_vm", 0x34a, "vmlinux", LS_FRAME_KERNEL },
	{ 0x7f0000002000ULL, "__libc_pread", 0x57, "/usr/lib/libc.so.6", LS_FRAME_USER },
	{ 0x400000ULL, "<script>;evil\n", 0x1, "/tmp/a;b", LS_FRAME_USER },
};

static const struct ls_frames waiter_fr = {
	.v = waiter_v, .n = 5, .n_kernel = 2, .user_method = "dwarf", .digest = 0x1111,
};

static const struct ls_frames holder_fr = {
	.v = holder_v, .n = 3, .n_kernel = 1, .user_method = "fp",
	.note = "DWARF unwinding failed: frame pointers used", .digest = 0x2222,
};

static struct ls_holder holder;
static struct ls_stall st;

static void setup(void)
{
	fx_holder_reader(&holder);
	holder.frames = &holder_fr;
	fx_stall(&st, &holder, 1);
	st.waiter_frames = &waiter_fr;
}

TestSuite(sink_stacks, .init = setup);

/* Stalls through a sink, then its summary; the caller frees the text. */
static char *run(struct sink *s, struct fx_out *o, unsigned int n_stalls)
{
	struct ls_summary sum = { 0 };
	unsigned int i;

	cr_assert_not_null(s);
	for (i = 0; i < n_stalls; i++) {
		st.seq = 3 + i;
		cr_assert_eq(sink__stall(s, &st), 0);
	}
	sum.stalls = n_stalls;
	cr_assert_eq(sink__summary(s, &sum), 0);
	sink__free(s);
	return (char *)fx_out_close(o);
}

/* a appears before b in text */
static void assert_before(const char *text, const char *a, const char *b)
{
	const char *pa = strstr(text, a), *pb = strstr(text, b);

	cr_assert(pa && pb && pa < pb, "'%s' not before '%s' in:\n%s", a, b, text);
}

Test(sink_stacks, frame_text)
{
	char buf[256];

	cr_assert_str_eq(sink__frame_text(&waiter_v[0], buf, sizeof(buf)), "lock_mm_and_find_vma+0x2d");
	cr_assert_str_eq(sink__frame_text(&waiter_v[2], buf, sizeof(buf)),
			 "__memmove_avx_unaligned+0x10 [libc.so.6]");
	cr_assert_str_eq(sink__frame_text(&waiter_v[3], buf, sizeof(buf)),
			 "[unknown] 0x555500001000 (db+0x1000)");
}

Test(sink_stacks, text_innermost_first_then_same_as)
{
	struct fx_out o;
	char *out;

	fx_out_open(&o);
	out = run(sink_text__new(o.f, &opts), &o, 2);
	assert_before(out, "lock_mm_and_find_vma+0x2d", "do_user_addr_fault+0x1b2");
	assert_before(out, "do_user_addr_fault+0x1b2", "--");
	assert_before(out, "[unknown] 0x555500001000 (db+0x1000)", "db__query+0x44 [db]");
	cr_assert(strstr(out, "user frames: fp; DWARF unwinding failed"), "%s", out);
	/* the second stall has the same stacks: one line each */
	cr_assert(strstr(out, "stack    same as stall #3"), "%s", out);
	cr_assert_eq(strstr(strstr(out, "STALL #4"), "lock_mm_and_find_vma"), NULL,
		     "stall #4 printed the waiter's stack again:\n%s", out);
	fx_out_free(&o);
}

Test(sink_stacks, json_frames)
{
	struct fx_out o;
	json_t *j, *stack, *f;
	json_error_t e;
	char *out, *nl;

	fx_out_open(&o);
	out = run(sink_json__new(o.f, &opts), &o, 1);
	nl = strchr(out, '\n');
	cr_assert_not_null(nl);
	*nl = 0;
	j = json_loads(out, 0, &e);
	cr_assert_not_null(j, "%s: %s", e.text, out);
	stack = json_object_get(json_object_get(j, "waiter"), "stack");
	cr_assert_eq(json_array_size(stack), 5);
	f = json_array_get(stack, 0);
	cr_assert_str_eq(json_string_value(json_object_get(f, "sym")), "lock_mm_and_find_vma");
	cr_assert_str_eq(json_string_value(json_object_get(f, "kind")), "kernel");
	cr_assert_str_eq(json_string_value(json_object_get(f, "addr")), "0xffffffff81100000");
	cr_assert_eq(json_integer_value(json_object_get(f, "off")), 0x2d);
	f = json_array_get(stack, 3);
	cr_assert(json_is_null(json_object_get(f, "sym")), "an unknown frame got a name");
	cr_assert_str_eq(json_string_value(json_object_get(f, "module")), "/opt/db/bin/db");
	cr_assert_str_eq(json_string_value(json_object_get(f, "kind")), "user");
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "waiter"),
							   "stack_user_method")), "dwarf");
	f = json_array_get(json_object_get(json_array_get(json_object_get(j, "holders"), 0), "stack"), 2);
	cr_assert_str_eq(json_string_value(json_object_get(f, "sym")), "<script>;evil\n");
	json_decref(j);
	fx_out_free(&o);
}

/* Markdown keeps the stalls until its summary: the frames must have been copied. */
Test(sink_stacks, markdown_keeps_copies)
{
	static const struct report_meta meta = { .input = "x.lst" };
	struct ls_frame scratch[5];
	struct ls_frames fr = waiter_fr;
	struct fx_out o;
	struct sink *s;
	char *out;

	memcpy(scratch, waiter_v, sizeof(scratch));
	fr.v = scratch;
	st.waiter_frames = &fr;
	fx_out_open(&o);
	s = sink_markdown__new(o.f, &opts, &meta);
	cr_assert_not_null(s);
	cr_assert_eq(sink__stall(s, &st), 0);
	/* what the resolver does after the stall: its frames are gone */
	memset(scratch, 0, sizeof(scratch));
	st.waiter_frames = NULL;
	out = run(s, &o, 0);
	assert_before(out, "- Stack (user frames: dwarf)", "lock_mm_and_find_vma+0x2d");
	cr_assert(strstr(out, "    db__query+0x44 [db]\n"), "%s", out);
	cr_assert(strstr(out, "  - Stack (user frames: fp): DWARF unwinding failed"), "%s", out);
	fx_out_free(&o);
}

Test(sink_stacks, html_escapes_names)
{
	static const struct report_meta meta = { .input = "x.lst" };
	struct fx_out o;
	char *out;

	fx_out_open(&o);
	out = run(sink_html__new(o.f, &opts, &meta), &o, 1);
	cr_assert(strstr(out, "<details open><summary>waiter"), "%s", out);
	cr_assert_null(strstr(out, "<script>;evil"), "a frame name came through unescaped");
	cr_assert(strstr(out, "&lt;script&gt;"), "%s", out);
	fx_out_free(&o);
}

Test(sink_stacks, folded_lines)
{
	struct fx_out o;
	char *out;

	fx_out_open(&o);
	out = run(sink_folded__new(o.f, &opts), &o, 2);
	/* outermost first, kernel frames marked, time summed over both stalls (us) */
	cr_assert(strstr(out, "victim;db__query;[db];__memmove_avx_unaligned;do_user_addr_fault_[k];"
			      "lock_mm_and_find_vma_[k];[mmap_lock write wait] 46800\n"), "%s", out);
	/* ';' and newlines in names cannot split a line or a frame */
	cr_assert(strstr(out, "reader;<script>_evil\\x0a;__libc_pread;__access_remote_vm_[k];"
			      "[off CPU holding mmap_lock] 46000\n"), "%s", out);
	fx_out_free(&o);
}

Test(sink_stacks, folded_without_stacks)
{
	struct fx_out o;
	char *out;

	st.waiter_frames = NULL;
	holder.frames = NULL;
	fx_out_open(&o);
	out = run(sink_folded__new(o.f, &opts), &o, 1);
	cr_assert(strstr(out, "victim;[no stack];[mmap_lock write wait] 23400\n"), "%s", out);
	fx_out_free(&o);
}

/* A futex stall's time is the futex's, not an mmap_lock's. */
Test(sink_stacks, folded_names_the_lock_kind)
{
	struct fx_out o;
	char *out;

	st.lock.kind = LS_LOCK_FUTEX;
	fx_out_open(&o);
	out = run(sink_folded__new(o.f, &opts), &o, 1);
	cr_assert(strstr(out, ";[futex write wait] 23400\n"), "%s", out);
	cr_assert(strstr(out, ";[off CPU holding futex] 23000\n"), "%s", out);
	cr_assert_null(strstr(out, "mmap_lock"), "%s", out);
	fx_out_free(&o);
}

/* A holder's off-CPU time waiting on another lock is folded under that lock, the rest as before. */
Test(sink_stacks, folded_splits_what_the_holder_waited_for)
{
	struct fx_out o;
	char *out;

	st.lock.kind = LS_LOCK_FUTEX;
	holder.frames = NULL;
	holder.n_waited = 1;
	holder.waited[0].lock.kind = LS_LOCK_MMAP;
	holder.waited[0].ns = 20000000;
	holder.waited[0].stall_seq = 2;
	fx_out_open(&o);
	out = run(sink_folded__new(o.f, &opts), &o, 1);
	cr_assert(strstr(out, "reader;[no stack];[off CPU holding futex, waiting for mmap_lock] 20000\n"),
		  "%s", out);
	cr_assert(strstr(out, "reader;[no stack];[off CPU holding futex] 3000\n"), "%s", out);
	fx_out_free(&o);
}

/* The same in Perfetto's slice names and the HTML timeline's tips. */
Test(sink_stacks, perfetto_and_html_name_the_lock_kind)
{
	static const struct report_meta meta = { .input = "t" };
	struct fx_out o;
	char *out;

	st.lock.kind = LS_LOCK_RWSEM;
	st.lock.tgid = 0;
	fx_out_open(&o);
	out = run(sink_perfetto__new(o.f, &opts), &o, 1);
	cr_assert(strstr(out, "waiting for rwsem (write)"), "%s", out);
	cr_assert(strstr(out, "holding rwsem (read)"), "%s", out);
	cr_assert_null(strstr(out, "mmap_lock"), "%s", out);
	fx_out_free(&o);

	fx_out_open(&o);
	out = run(sink_html__new(o.f, &opts, &meta), &o, 1);
	cr_assert(strstr(out, "waiting for rwsem (write)"), "%s", out);
	cr_assert(strstr(out, "holding rwsem (read), on CPU"), "%s", out);
	fx_out_free(&o);
}

Test(sink_stacks, frames_dup_is_whole)
{
	struct ls_frames *c = ls_frames__dup(&holder_fr);

	cr_assert_not_null(c);
	cr_assert_eq(c->n, holder_fr.n);
	cr_assert_neq(c->v, holder_fr.v);
	cr_assert_str_eq(c->v[2].sym, "<script>;evil\n");
	cr_assert_neq(c->v[2].sym, holder_v[2].sym);
	cr_assert_str_eq(c->note, holder_fr.note);
	cr_assert_eq(c->digest, holder_fr.digest);
	free(c);
	cr_assert_null(ls_frames__dup(NULL));
}

Test(sink_stacks, stack_seen)
{
	struct stack_seen *s = calloc(1, sizeof(*s));

	cr_assert_eq(stack_seen__check(s, 42, 1), 0);
	cr_assert_eq(stack_seen__check(s, 42, 5), 1);
	cr_assert_eq(stack_seen__check(s, 0, 6), 0, "digest 0 is never remembered");
	cr_assert_eq(stack_seen__check(s, 0, 7), 0);
	free(s);
}

/*
 * A binary whose symbol is "evil", ESC[2J, a newline and "forged
 * line" (build/test/fixtures/sym_hostile), run from a file whose name has
 * ESC[2J too, symbolized for real, then through every sink: no sink may
 * write the ESC byte or start a line with the forged text.  (The kernel
 * writes a newline in a mapped path as "\012" in /proc/PID/maps, so the
 * newline in a file name comes by a frame of its own.)
 */
#define HOSTILE_SYM "evil\033[2J\nforged line"
#define HOSTILE_DATA "evil\033[2J\nforged data"
#define HOSTILE_FILE "evil\033[2J name"

struct hostile {
	char dir[PATH_MAX], bin[PATH_MAX + 32];
	char *maps_text;
	struct proc_maps *maps;
	struct symbolizer *sym;
	__u64 addr, data;
	char fn[256];		/* hostile_fn's name, copied: the next lookup may evict the file */
	struct ls_sym lock;	/* hostile_data, a futex's name */
	struct ls_frame v[2];
	struct ls_frames fr;
};

static void hostile_copy(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_EXCL, 0755);

	cr_assert(in >= 0 && out >= 0, "%s: build it with make test-unit", from);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		cr_assert_eq(write(out, buf, (size_t)n), n);
	close(in);
	cr_assert_eq(close(out), 0);
}

/* Run the copy and symbolize its hostile_fn from the maps it printed. */
static void hostile_run(struct hostile *h)
{
	const char *fx = getenv("LOCKSTALL_FIXTURES");
	char from[PATH_MAX], cmd[PATH_MAX + 64], line[8192];
	size_t len = 0, alloc = 1 << 20;
	struct ls_sym sym;
	bool in_maps = false;
	FILE *p;

	snprintf(h->dir, sizeof(h->dir), "/tmp/lockstall-hostile-XXXXXX");
	cr_assert_not_null(mkdtemp(h->dir));
	snprintf(from, sizeof(from), "%s/sym_hostile", fx ? fx : "build/test/fixtures");
	snprintf(h->bin, sizeof(h->bin), "%s/" HOSTILE_FILE, h->dir);
	hostile_copy(from, h->bin);
	snprintf(cmd, sizeof(cmd), "'%s'", h->bin);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	h->maps_text = calloc(1, alloc);
	while (fgets(line, sizeof(line), p)) {
		if (in_maps) {
			cr_assert_lt(len + strlen(line), alloc);
			memcpy(h->maps_text + len, line, strlen(line));
			len += strlen(line);
		} else if (!strcmp(line, "maps\n")) {
			in_maps = true;
		} else if (!strncmp(line, "data ", 5)) {
			cr_assert_eq(sscanf(line, "data hostile_data %llx",
					    (unsigned long long *)&h->data), 1);
		} else {
			cr_assert_eq(sscanf(line, "fn hostile_fn %llx", (unsigned long long *)&h->addr), 1);
		}
	}
	cr_assert_eq(pclose(p), 0);
	cr_assert_eq(proc_maps__parse(&h->maps, h->maps_text, len), 0);
	h->sym = symbolizer__new(&(struct symbolizer_opts){ .debug_root = "/nonexistent" });
	cr_assert_not_null(h->sym);
	cr_assert_eq(symbolizer__user(h->sym, h->maps, h->addr, &sym), 0);
	cr_assert_str_eq(sym.name ? sym.name : "(null)", HOSTILE_SYM, "the fixture is not hostile");
	cr_assert(strstr(sym.module, HOSTILE_FILE), "%s", sym.module);
	snprintf(h->fn, sizeof(h->fn), "%s", sym.name);
	h->v[0] = (struct ls_frame){ h->addr, h->fn, sym.off, sym.module, LS_FRAME_USER };
	/* a live process's (the copy is still there): named without a recorded build-id */
	h->maps->pid = (__u32)getpid();
	cr_assert_eq(symbolizer__data(h->sym, h->maps, h->data + 4, &h->lock), 0);
	h->maps->pid = 0;
	cr_assert_str_eq(h->lock.name ? h->lock.name : "(null)", HOSTILE_DATA,
			 "the fixture's object is not hostile");
	cr_assert_eq(h->lock.off, 4);
	h->v[1] = (struct ls_frame){ h->addr + 0x1000, NULL, 0x10, "/tmp/a\nforged line",
				     LS_FRAME_USER };
	h->fr = (struct ls_frames){ .v = h->v, .n = 2, .user_method = "dwarf", .digest = 0x3333 };
}

static void hostile_free(struct hostile *h)
{
	symbolizer__free(h->sym);
	proc_maps__free(h->maps);
	free(h->maps_text);
	unlink(h->bin);
	rmdir(h->dir);
}

#define HOSTILE_SINKS 6
static const char *const hostile_sink_names[HOSTILE_SINKS] = {
	"text", "json", "markdown", "html", "folded", "perfetto",
};

/* Sink i of hostile_sink_names, writing to f. */
static struct sink *hostile_sink(int i, FILE *f)
{
	static const struct report_meta meta = { .input = "x.lst" };

	return i == 0 ? sink_text__new(f, &opts) :
	       i == 1 ? sink_json__new(f, &opts) :
	       i == 2 ? sink_markdown__new(f, &opts, &meta) :
	       i == 3 ? sink_html__new(f, &opts, &meta) :
	       i == 4 ? sink_folded__new(f, &opts) : sink_perfetto__new(f, &opts);
}

static void assert_no_injection(const char *what, const char *out)
{
	cr_assert_null(strchr(out, '\033'), "%s wrote an ESC byte:\n%s", what, out);
	cr_assert_null(strstr(out, "\nforged line"), "%s let a frame start a line:\n%s", what, out);
}

Test(hostile, symbol_and_file_names_escaped_in_every_sink, .timeout = 30)
{
	struct hostile h = { 0 };
	struct fx_out o;
	char *out;
	json_t *j;
	int i;

	hostile_run(&h);
	for (i = 0; i < HOSTILE_SINKS; i++) {
		setup();
		st.waiter_frames = &h.fr;
		holder.frames = &h.fr;
		fx_out_open(&o);
		out = run(hostile_sink(i, o.f), &o, 1);
		assert_no_injection(hostile_sink_names[i], out);
		if (i == 0)
			cr_assert(strstr(out, "evil\\x1b[2J\\x0aforged line+0x0 [evil\\x1b[2J name]"),
				  "%s", out);
		if (i == 1) {
			/* JSON keeps the bytes, escaped the JSON way: the reader gets them back */
			*strchr(out, '\n') = 0;
			j = json_loads(out, 0, NULL);
			cr_assert_not_null(j);
			cr_assert_str_eq(json_string_value(json_object_get(json_array_get(
				json_object_get(json_object_get(j, "waiter"), "stack"), 0), "sym")),
				HOSTILE_SYM);
			json_decref(j);
		}
		fx_out_free(&o);
	}
	hostile_free(&h);
}

/* The same for a futex named by the hostile object, in the hostile file. */
Test(hostile, lock_name_and_file_escaped_in_every_sink, .timeout = 30)
{
	struct hostile h = { 0 };
	char name[128];
	struct fx_out o;
	char *out;
	json_t *j, *lock;
	int i;

	hostile_run(&h);
	snprintf(name, sizeof(name), "%s+0x4", h.lock.name);
	for (i = 0; i < HOSTILE_SINKS; i++) {
		setup();
		st.lock.kind = LS_LOCK_FUTEX;
		st.lock.id = h.data + 4;
		st.lock_name = name;
		st.lock_module = h.lock.module;
		/* and a chain across locks names the same lock in a hop */
		st.n_chain = 2;
		st.chain[1].has_lock = true;
		st.chain[1].lock = st.lock;
		st.chain[1].lock_name = name;
		st.chain[1].lock_module = h.lock.module;
		fx_out_open(&o);
		out = run(hostile_sink(i, o.f), &o, 1);
		assert_no_injection(hostile_sink_names[i], out);
		cr_assert_null(strstr(out, "\nforged data"), "a lock name started a line:\n%s", out);
		if (i == 0)
			cr_assert(strstr(out, "futex evil\\x1b[2J\\x0aforged data+0x4 [evil\\x1b[2J name] of "),
				  "%s", out);
		if (i == 1) {
			*strchr(out, '\n') = 0;
			j = json_loads(out, 0, NULL);
			cr_assert_not_null(j);
			lock = json_object_get(j, "lock_id");
			cr_assert_str_eq(json_string_value(json_object_get(lock, "name")),
					 HOSTILE_DATA "+0x4");
			cr_assert_str_eq(json_string_value(json_object_get(lock, "module")),
					 h.lock.module);
			lock = json_object_get(json_array_get(json_object_get(j, "chain"), 1), "lock");
			cr_assert_str_eq(json_string_value(json_object_get(lock, "name")),
					 HOSTILE_DATA "+0x4");
			json_decref(j);
		}
		fx_out_free(&o);
	}
	hostile_free(&h);
}
