// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Stacks on real stalls: proc_reader is built with -O2
 * -fomit-frame-pointer, like the distribution binaries lockstall meets, and
 * its functions have names to look for:
 *
 *   the reader's user stack   reader__read_environ below pread, in libc;
 *   the reader's kernel stack __access_remote_vm (it reads the victim's
 *                             memory under the victim's mmap_lock);
 *   the victim's user stack   victim__run below mmap or munmap.
 *
 * Only DWARF unwinding gets below libc's pread without frame pointers, so
 * finding reader__read_environ there is the proof that it ran.  Needs root
 * and BPF (see e2e_require()).
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "lib/e2e_watch.h"
#include "lib/tmpdir.h"

static struct e2e_watch w = E2E_WATCH_INIT;
static struct e2e_proc p = E2E_PROC_INIT;
static char dir[64];

static void setup(void)
{
	tmpdir__make(dir, sizeof(dir), "e2e-stacks");
}

static void teardown(void)
{
	e2e_watch__release(&w);
	e2e_proc__release(&p);
	tmpdir__remove(dir);
}

TestSuite(stacks, .init = setup, .fini = teardown, .timeout = 120);

/* No BPF program or tracepoint plumbing at the top of a kernel stack. */
static void check_no_tracing_frames(const json_t *stack)
{
	char buf[2048];

	cr_expect_eq(e2e_frame_index(stack, "kernel", "bpf_"), -1, "a BPF frame: %s",
		     e2e_stack_text(stack, buf, sizeof(buf)));
	cr_expect_eq(e2e_frame_index(stack, "kernel", "__mmap_lock_do_trace"), -1,
		     "a tracepoint frame: %s", e2e_stack_text(stack, buf, sizeof(buf)));
	cr_expect_eq(e2e_frame_index(stack, "kernel", "__bpf_trace"), -1, "a tracepoint frame: %s",
		     e2e_stack_text(stack, buf, sizeof(buf)));
}

/* The reader, as holder: the path under the victim's lock, and the code that read. */
static void check_reader_stack(const json_t *h)
{
	static const char *const frames[] = {
		"k:__access_remote_vm", "k:do_syscall_64", "u:__libc_pread", "u:reader__read_environ",
		"u:reader__run", "u:main", NULL,
	};

	cr_assert_str_eq(e2e_str(h, "stack_user_method"), "dwarf");
	e2e_check_stack(h, frames);
	check_no_tracing_frames(e2e_array(h, "stack"));
}

/* The victim, as waiter: mmap or munmap called from victim__run. */
static void check_victim_stack(const json_t *waiter)
{
	const json_t *stack = e2e_array(waiter, "stack");
	static const char *const mmap_frames[] = { "k:do_syscall_64", "u:__mmap", "u:victim__run", NULL };
	static const char *const munmap_frames[] = { "k:do_syscall_64", "u:__munmap", "u:victim__run", NULL };

	cr_assert_str_eq(e2e_str(waiter, "stack_user_method"), "dwarf");
	e2e_check_stack(waiter, e2e_frame_index(stack, "user", "__mmap") >= 0 ? mmap_frames : munmap_frames);
	check_no_tracing_frames(stack);
}

/* The first stall of the victim blamed on the reader with both stacks present. */
/*
 * A stack whose process's mappings were still being read when its stall
 * was printed (the reader thread waits on that process's mmap_lock, a
 * stall at most 50 ms) keeps its user frames unnamed, by design: the
 * first stalls of a run on a loaded machine can be like that.
 */
static bool stack_named(const json_t *who)
{
	const json_t *note = json_object_get(who, "stack_note");

	return json_object_get(who, "stack") &&
	       !(json_is_string(note) && strstr(json_string_value(note), "still being read"));
}

/* The victim's first stall held by the reader with both stacks named. */
static const json_t *victim_stall(const json_t *stalls, json_int_t victim, json_int_t reader)
{
	const json_t *st, *h;
	size_t i;

	json_array_foreach(stalls, i, st) {
		if (e2e_int(e2e_object(st, "waiter"), "tid") != victim)
			continue;
		h = e2e_holder_with_tid(st, reader);
		if (h && stack_named(h) && stack_named(e2e_object(st, "waiter")))
			return st;
	}
	return NULL;
}

Test(stacks, live_holder_and_waiter)
{
	const json_t *st;
	json_int_t victim, reader;

	e2e_watch__run(&w, "proc_reader", NULL);
	victim = e2e_int(w.truth, "victim_tid");
	reader = e2e_int(w.truth, "holder_tid");
	st = victim_stall(w.stalls, victim, reader);
	cr_assert_not_null(st, "no stall of the victim %lld with stacks for it and the reader %lld",
			   victim, reader);
	check_victim_stack(e2e_object(st, "waiter"));
	check_reader_stack(e2e_holder_with_tid(st, reader));
}

/*
 * --stack-interval, 1 s by default: the victim sends a stack for its
 * mmap() and one for its munmap() at most once a second each.  Every
 * other stall of it shows the earlier stack of its own call, and says so.
 */
Test(stacks, one_stack_a_second_per_call)
{
	const json_t *st, *waiter, *stack, *note;
	json_int_t victim, secs;
	size_t i, n = 0, earlier = 0;
	bool mmap_call;
	char buf[2048];

	e2e_watch__run(&w, "proc_reader", NULL);
	victim = e2e_int(w.truth, "victim_tid");
	secs = (e2e_int(w.truth, "end_ns") - e2e_int(w.truth, "start_ns")) / 1000000000 + 1;
	json_array_foreach(w.stalls, i, st) {
		waiter = e2e_object(st, "waiter");
		if (e2e_int(waiter, "tid") != victim || !stack_named(waiter))
			continue;
		n++;
		stack = e2e_array(waiter, "stack");
		mmap_call = !strcmp(e2e_str(waiter, "op"), "mmap");
		cr_assert(mmap_call || !strcmp(e2e_str(waiter, "op"), "munmap"), "%s",
			  e2e_str(waiter, "op"));
		cr_assert_geq(e2e_frame_index(stack, "user", mmap_call ? "__mmap" : "__munmap"), 0,
			      "a stall in %s shows the stack of another call: %s",
			      e2e_str(waiter, "op"), e2e_stack_text(stack, buf, sizeof(buf)));
		note = json_object_get(waiter, "stack_note");
		if (json_is_string(note) &&
		    !strncmp(json_string_value(note), "taken earlier: ", 15))
			earlier++;
	}
	cr_assert_gt(n, 0, "no stall of the victim with a named stack");
	/* two calls, a new stack each second of the run at most (a second begun counts) */
	cr_assert_geq(earlier + 2 * (secs + 1), n, "%zu of %zu stalls in %lld s took a new stack",
		      n - earlier, n, secs);
}

/*
 * A process that maps more executable file bytes than the symbol memory
 * holds (eight libbulkN.so of 3 MiB preloaded, 8M of symbol memory, as a
 * postgres backend maps 67 MB of libraries against the default 64M): the
 * build-ids of its mappings are read from their notes alone, and the
 * files that hold its frames are still read and named.
 */
Test(stacks, named_when_the_process_maps_more_than_symbol_memory)
{
	const char *const watch_args[] = { "--symbol-memory", "8M", NULL };
	struct e2e_watch_opts o = { .watch_args = watch_args };
	char preload[8 * (PATH_MAX + 1)];
	const char *wl_dir = getenv("LOCKSTALL_WORKLOADS");
	json_int_t victim, reader;
	size_t n = 0;
	int i;

	cr_assert_not_null(wl_dir, "LOCKSTALL_WORKLOADS is not set");
	for (i = 0; i < 8; i++)
		n += (size_t)snprintf(preload + n, sizeof(preload) - n, "%s%s/libbulk%d.so",
				      i ? ":" : "", wl_dir, i);
	o.preload = preload;
	e2e_watch__run_opts(&w, "proc_reader", NULL, &o);
	victim = e2e_int(w.truth, "victim_tid");
	reader = e2e_int(w.truth, "holder_tid");
	cr_assert_not_null(victim_stall(w.stalls, victim, reader),
			   "no stall of the victim with both stacks named; stderr:\n%s",
			   w.lockstall.err.data);
	cr_assert_null(strstr(w.lockstall.err.data ?: "", "deferred by its rate"),
		       "files were left for later: %s", w.lockstall.err.data);
}

/*
 * A stack through a file larger than half of the symbol memory (the
 * victim's mmap() and munmap() taken by libbulkbig.so, 6 MiB, against 8M):
 * only its tables are read, so it is named and unwound through, as a
 * stack through a 70 MB libduckdb is against the default 64M.
 */
Test(stacks, through_a_file_over_half_the_symbol_memory)
{
	const char *const watch_args[] = { "--symbol-memory", "8M", NULL };
	const char *frames[] = { "u:syscall", NULL, "u:victim__run", NULL };
	struct e2e_watch_opts o = { .watch_args = watch_args };
	const char *wl_dir = getenv("LOCKSTALL_WORKLOADS");
	const json_t *st = NULL, *waiter, *stack, *f;
	char preload[PATH_MAX], buf[2048], op[32];
	json_int_t victim;
	size_t i;
	int at;

	cr_assert_not_null(wl_dir, "LOCKSTALL_WORKLOADS is not set");
	snprintf(preload, sizeof(preload), "%s/libbulkbig.so", wl_dir);
	o.preload = preload;
	e2e_watch__run_opts(&w, "proc_reader", NULL, &o);
	victim = e2e_int(w.truth, "victim_tid");
	json_array_foreach(w.stalls, i, st) {
		waiter = e2e_object(st, "waiter");
		if (e2e_int(waiter, "tid") == victim && stack_named(waiter))
			break;
	}
	cr_assert_lt(i, json_array_size(w.stalls), "no stall of the victim with a stack; stderr:\n%s",
		     w.lockstall.err.data);
	stack = e2e_array(waiter, "stack");
	at = e2e_frame_index(stack, "user", e2e_str(waiter, "op"));
	cr_assert_geq(at, 0, "no %s frame: %s", e2e_str(waiter, "op"),
		      e2e_stack_text(stack, buf, sizeof(buf)));
	f = json_array_get(stack, (size_t)at);
	cr_assert(strstr(e2e_str(f, "module"), "/libbulkbig.so"), "%s is in %s", e2e_str(waiter, "op"),
		  e2e_str(f, "module"));
	cr_assert_str_eq(e2e_str(waiter, "stack_user_method"), "dwarf");
	/* libc's syscall() below it, the workload's own function above: unwound through it */
	snprintf(op, sizeof(op), "u:%s", e2e_str(waiter, "op"));
	frames[1] = op;
	e2e_check_stack(waiter, frames);
}

/*
 * The workload has exited long before the report: its frames are named
 * from the mappings the recording kept, and folded stacks come out too.
 */
Test(stacks, report_after_the_process_exited)
{
	char file[128];
	const char *const watch_args[] = { "-o", file, NULL };
	const char *const report[] = { "report", file, "--format", "json", NULL };
	const char *const folded[] = { "report", file, "--folded", NULL };
	json_int_t victim, reader;
	const json_t *st;
	json_t *stalls, *j;
	char *line, *save = NULL, *want;
	bool found = false;

	snprintf(file, sizeof(file), "%s/run.lst", dir);
	e2e_watch__run_with(&w, "proc_reader", NULL, watch_args);
	victim = e2e_int(w.truth, "victim_tid");
	reader = e2e_int(w.truth, "holder_tid");
	cr_assert_neq(kill((pid_t)e2e_int(w.truth, "victim_pid"), 0), 0,
		      "the workload is still running");

	e2e_run_cli(&p, report);
	cr_assert_eq(e2e_proc__exit_code(&p), 0, "report: stderr:\n%s", p.err.data);
	e2e_json_log(p.out.data);
	stalls = json_array();
	for (line = strtok_r(p.out.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		j = json_loads(line, 0, NULL);
		if (j && !strcmp(json_string_value(json_object_get(j, "type")) ?: "", "stall"))
			json_array_append(stalls, j);
		json_decref(j);
	}
	st = victim_stall(stalls, victim, reader);
	cr_assert_not_null(st, "no stall of the victim %lld with stacks in the report", victim);
	check_victim_stack(e2e_object(st, "waiter"));
	check_reader_stack(e2e_holder_with_tid(st, reader));
	json_decref(stalls);
	e2e_proc__release(&p);

	/* "wl-reader;...;reader__read_environ;...;[off CPU holding mmap_lock] N" */
	e2e_run_cli(&p, folded);
	cr_assert_eq(e2e_proc__exit_code(&p), 0, "report --folded: stderr:\n%s", p.err.data);
	want = "[off CPU holding mmap_lock] ";
	for (line = strtok_r(p.out.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "wl-reader;", 10) && strstr(line, ";reader__read_environ;") &&
		    strstr(line, ";__access_remote_vm_[k];") && strstr(line, want))
			found = true;
		cr_assert(strrchr(line, ' ') && atoll(strrchr(line, ' ') + 1) >= 0,
			  "not a folded line: %s", line);
	}
	cr_assert(found, "no folded line of the reader's off-CPU time under the lock");
}

/* --user-stacks=none: kernel frames only, and the output says why. */
Test(stacks, user_stacks_none)
{
	const char *const watch_args[] = { "--user-stacks=none", NULL };
	const json_t *st, *waiter, *f;
	size_t i, j, n = 0;

	e2e_watch__run_with(&w, "proc_reader", NULL, watch_args);
	json_array_foreach(w.stalls, i, st) {
		waiter = e2e_object(st, "waiter");
		if (!json_object_get(waiter, "stack"))
			continue;
		n++;
		json_array_foreach(e2e_array(waiter, "stack"), j, f)
			cr_assert_str_eq(e2e_str(f, "kind"), "kernel");
		cr_assert_str_eq(e2e_str(waiter, "stack_user_method"), "none");
		cr_assert(strstr(e2e_str(waiter, "stack_note"), "--user-stacks=none"));
		break;
	}
	cr_assert_gt(n, 0, "no stall with a stack");
}
