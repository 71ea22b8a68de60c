// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * src/sinks/text.c: what the person on call reads.  Stalls built by hand
 * (test/unit/sink_fixture.h), written to a memory stream, read back.
 */
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "unit/sink_fixture.h"
#include "util.h"

static const struct sink_opts default_opts = { .top = 10, .t0_ns = FX_T0 };

/* Run one stall through a fresh text sink; the caller frees the text. */
static char *text_of_stall(const struct ls_stall *st, const struct sink_opts *opts)
{
	struct fx_out o;
	struct sink *s;

	fx_out_open(&o);
	s = sink_text__new(o.f, opts);
	cr_assert_not_null(s);
	cr_assert_eq(sink__stall(s, st), 0);
	sink__free(s);
	return (char *)fx_out_close(&o);
}

static void assert_line(const char *text, const char *line)
{
	char want[512];

	/* a whole line: preceded by the start or a newline, followed by one */
	snprintf(want, sizeof(want), "\n%s\n", line);
	cr_assert(!strncmp(text, want + 1, strlen(want + 1)) || strstr(text, want),
		  "missing line:\n%s\nin:\n%s", line, text);
}

static size_t count_of(const char *text, const char *needle)
{
	size_t n = 0;

	for (text = strstr(text, needle); text; text = strstr(text + 1, needle))
		n++;
	return n;
}

/* Nothing a terminal would act on: printable ASCII and newlines only. */
static void assert_terminal_safe(const char *text)
{
	const unsigned char *p;

	for (p = (const unsigned char *)text; *p; p++)
		cr_assert(*p == '\n' || (*p >= 0x20 && *p < 0x7f),
			  "raw byte 0x%02x at offset %zu", *p, (size_t)(p - (const unsigned char *)text));
}

Test(sink_text, stall_one_holder)
{
	struct ls_holder h;
	struct ls_stall st;
	char *text;

	fx_holder_reader(&h);
	fx_stall(&st, &h, 1);
	text = text_of_stall(&st, &default_opts);

	assert_line(text, "+1.234s STALL #3  23.4ms  mmap_lock write  of victim[1234]  verdict: PRIORITY INVERSION");
	assert_line(text, "  waiter   victim[1234/1240]     SCHED_FIFO rt 50    mmap");
	assert_line(text, "  holder   reader[2001/2001]     SCHED_IDLE          read lock in munmap  held 25.1ms  off CPU 23ms (98%)  preempted");
	assert_line(text, "           preempted by hog[3001/3001] SCHED_NORMAL nice 0 22.9ms");
	assert_line(text, "  chain    victim/1240 (waiter, write) <- reader/2001 (holder, read) <- hog/3001 (preemptor, 22.9ms)");
	/* a block ends with an empty line, and says nothing about losses it did not have */
	cr_assert(strlen(text) > 2 && !strcmp(text + strlen(text) - 2, "\n\n"));
	cr_assert_null(strstr(text, "lost"));
	cr_assert_null(strstr(text, "woken by"));
	assert_terminal_safe(text);
	free(text);
}

/* Only its TID known: no name, pid, policy or off-CPU time made up from zeroes. */
Test(sink_text, unseen_holder_is_not_made_up)
{
	struct ls_holder h;
	struct ls_stall st;
	char *text;

	fx_stall_unseen_owner(&st, &h);
	text = text_of_stall(&st, &default_opts);
	assert_line(text, "  holder   tid 2002 (not seen)   policy not known    owner  held 23.4ms  off CPU 0ns (0%)  unknown, not seen 23.4ms, found by pthread_owner");
	cr_assert(strstr(text, "<- tid 2002 (not seen) (holder"), "chain:\n%s", text);
	cr_assert_null(strstr(text, "[0/"));
	cr_assert_null(strstr(text, "SCHED_NORMAL"));
	cr_assert_null(strstr(text, "running"));
	free(text);
}

/*
 * A process that exec'd: each place that names it says its other name,
 * escaped like any comm; a task without a rename reads as before.
 */
/* A PI futex's owner the boost did not run in time: one line says so; in time, none. */
Test(sink_text, pi_owner_not_boosted_in_time)
{
	struct ls_holder h;
	struct ls_stall st;
	char *text;

	fx_stall_pi_late(&st, &h);
	text = text_of_stall(&st, &default_opts);
	assert_line(text, "           not boosted in time: 22.9ms runnable below the waiter's priority, 0ns asleep (no boost runs a sleeping owner)");
	free(text);

	st.holders = &h;
	h.pi_late = false;
	text = text_of_stall(&st, &default_opts);
	cr_assert_null(strstr(text, "boosted in time"), "%s", text);
	free(text);
}

Test(sink_text, renamed_tasks_say_their_other_name)
{
	struct ls_rename r[3];
	struct ls_holder h;
	struct ls_stall st;
	char *text;

	fx_holder_reader(&h);
	fx_stall(&st, &h, 1);
	fx_rename(&r[0], 2001, "reader", "bash", true);
	fx_rename(&r[1], 1234, "victim", "\x1b[2J", false);	/* the lock's process, by tgid */
	fx_rename(&r[2], 3001, "hog", "ps", false);
	st.renames = r;
	st.n_renames = 3;
	text = text_of_stall(&st, &default_opts);

	assert_line(text, "+1.234s STALL #3  23.4ms  mmap_lock write  of victim[1234] (now \\x1b[2J)  verdict: PRIORITY INVERSION");
	assert_line(text, "  waiter   victim[1234/1240]     SCHED_FIFO rt 50    mmap");
	cr_assert_not_null(strstr(text, "  holder   reader[2001/2001] (was bash)  SCHED_IDLE"), "%s", text);
	assert_line(text, "           preempted by hog[3001/3001] (now ps) SCHED_NORMAL nice 0 22.9ms");
	assert_line(text, "  chain    victim/1240 (waiter, write) <- reader/2001 (was bash) (holder, read) <- hog/3001 (now ps) (preemptor, 22.9ms)");
	assert_terminal_safe(text);
	free(text);
}

Test(sink_text, stall_no_holder)
{
	struct ls_stall st;
	char *text;

	fx_stall(&st, NULL, 0);
	text = text_of_stall(&st, &default_opts);
	cr_assert_not_null(strstr(text, "verdict: UNKNOWN\n"));
	assert_line(text, "  holder   none seen (taken before tracing began, or its records were lost)");
	assert_line(text, "  chain    victim/1240 (waiter, write)");
	free(text);
}

Test(sink_text, stall_many_holders_are_summarized)
{
	struct ls_holder h[6];
	struct ls_stall st;
	unsigned int i;
	char *text;

	for (i = 0; i < 6; i++)
		fx_holder_reader(&h[i]);
	fx_stall(&st, h, 6);
	st.holders_dropped = 2;
	text = text_of_stall(&st, &default_opts);
	cr_assert_eq(count_of(text, "\n  holder   reader["), 4, "%s", text);
	/* 2 not shown + 2 the engine did not keep */
	assert_line(text, "  holder   and 4 more, not shown");
	free(text);
}

Test(sink_text, holder_details)
{
	struct ls_holder h;
	struct ls_stall st;
	unsigned int i;
	char *text;

	fx_holder_reader(&h);
	h.offcpu_by_state[LS_STATE_BLOCKED] = 3000000;
	h.has_waker = true;
	fx_task(&h.woken_by, 5, 6, "kworker/0:1", LS_POLICY_NORMAL, 0, 0);
	h.n_preempted_by = 5;
	for (i = 1; i < 5; i++) {
		fx_task(&h.preempted_by[i].task, 3001 + i, 3001 + i, "hog", LS_POLICY_NORMAL, 0, 0);
		h.preempted_by[i].ns = 1000000 * (5 - i);
	}
	h.preempted_other_ns = 500000;
	h.granted = true;
	h.downgraded = true;
	h.released = false;
	fx_stall(&st, &h, 1);
	text = text_of_stall(&st, &default_opts);

	cr_assert_not_null(strstr(text, "preempted, handoff, downgraded, still held\n"), "%s", text);
	assert_line(text, "           off CPU: 23ms preempted, 3ms blocked");
	assert_line(text, "           preempted by hog[3002/3002] SCHED_NORMAL nice 0 4ms");
	assert_line(text, "           preempted by hog[3003/3003] SCHED_NORMAL nice 0 3ms");
	/* the 4th and 5th (2ms + 1ms) and the rest the engine summed (0.5ms) */
	assert_line(text, "           preempted by others 3.5ms");
	cr_assert_null(strstr(text, "hog[3004/3004]"));
	assert_line(text, "           woken by kworker/0:1[5/6]");
	free(text);
}

Test(sink_text, page_fault_waiter)
{
	struct ls_holder h;
	struct ls_stall st;
	char *text;

	fx_holder_reader(&h);
	fx_stall(&st, &h, 1);
	st.write = false;
	st.op.kind = LS_OP_PAGE_FAULT;
	st.op.syscall = -1;
	st.op.addr = 0x7f1234567000ULL;
	st.op.fault_flags = LS_PF_WRITE | LS_PF_USER;
	st.vma_lock_fallback = true;
	text = text_of_stall(&st, &default_opts);
	cr_assert_not_null(strstr(text, "mmap_lock read  of victim[1234]"), "%s", text);
	cr_assert_not_null(strstr(text, "  page_fault (write) at 0x7f1234567000 (per-VMA lock fallback)\n"),
			   "%s", text);
	free(text);

	st.vma_lock_fallback = false;
	st.op.fault_flags = LS_PF_USER;
	text = text_of_stall(&st, &default_opts);
	cr_assert_not_null(strstr(text, "  page_fault at 0x7f1234567000\n"), "%s", text);
	free(text);
}

Test(sink_text, scheduling_classes)
{
	struct ls_holder h;
	struct ls_stall st;
	char *text;

	fx_holder_reader(&h);
	fx_task(&h.task, 2001, 2001, "reader", LS_POLICY_BATCH, 5, 0);
	fx_stall(&st, &h, 1);
	fx_task(&st.waiter, 1234, 1240, "victim", LS_POLICY_NORMAL, -5, 0);
	st.waiter.prio = 90;	/* PI-boosted into the RT range */
	text = text_of_stall(&st, &default_opts);
	cr_assert_not_null(strstr(text, "SCHED_NORMAL nice -5 boosted to prio 90  mmap"), "%s", text);
	cr_assert_not_null(strstr(text, "SCHED_BATCH nice 5 "), "%s", text);
	free(text);

	fx_task(&st.waiter, 1234, 1240, "victim", LS_POLICY_DEADLINE, 0, 0);
	fx_task(&h.task, 2001, 2001, "reader", 42, 0, 0);	/* no such policy */
	text = text_of_stall(&st, &default_opts);
	cr_assert_not_null(strstr(text, "SCHED_DEADLINE"), "%s", text);
	cr_assert_not_null(strstr(text, "policy 42"), "%s", text);
	free(text);
}

Test(sink_text, hostile_comm_is_escaped)
{
	struct ls_holder h;
	struct ls_stall st;
	char *text;

	fx_holder_reader(&h);
	fx_comm(h.task.comm, FX_HOSTILE_COMM);
	fx_comm(h.preempted_by[0].task.comm, "\x9b" "31m\x07\x08\x7f");
	fx_stall(&st, &h, 1);
	/* 16 bytes, no NUL: must stop at 16 */
	memcpy(st.lock.comm, "\x1b]0;pwned\x07xxxxxx", LS_COMM_LEN);
	memcpy(st.waiter.comm, "AAAAAAAAAAAAAAAA", LS_COMM_LEN);
	st.chain[0].task = st.waiter;
	text = text_of_stall(&st, &default_opts);

	assert_terminal_safe(text);
	cr_assert_not_null(strstr(text, "  holder   \\x0a\\x1b[2J<script>\\xff[2001/2001]"), "%s", text);
	cr_assert_not_null(strstr(text, "preempted by \\x9b31m\\x07\\x08\\x7f[3001/3001]"), "%s", text);
	cr_assert_not_null(strstr(text, "of \\x1b]0;pwned\\x07xxxxxx[1234]"), "%s", text);
	cr_assert_not_null(strstr(text, "  waiter   AAAAAAAAAAAAAAAA[1234/1240]"), "%s", text);
	cr_assert_not_null(strstr(text, "<- \\x0a\\x1b[2J<script>\\xff/2001 (holder, read)"), "%s", text);
	free(text);
}

Test(sink_text, not_acquired_and_lost)
{
	struct ls_holder h;
	struct ls_stall st;
	char *text;

	fx_holder_reader(&h);
	fx_stall(&st, &h, 1);
	st.acquired = false;
	st.lost_in_window = 4;
	st.verdict = LS_VERDICT_UNKNOWN;
	text = text_of_stall(&st, &default_opts);
	cr_assert_not_null(strstr(text, "verdict: UNKNOWN  (gave up without the lock)\n"), "%s", text);
	assert_line(text, "  lost     4 events during this wait: holders may be missing, so the verdict is unknown");
	cr_assert_null(strstr(text, "partial"), "%s", text);
	free(text);

	st.history_short = true;
	text = text_of_stall(&st, &default_opts);
	assert_line(text, "  partial  memory bounds overwrote part of this wait's history: time off CPU may be missing, who ran instead unnamed");
	free(text);
}

Test(sink_text, time_column)
{
	struct sink_opts opts = { .top = 10 };
	struct ls_stall a, b, c;
	struct fx_out o;
	struct sink *s;
	const char *text;

	fx_stall(&a, NULL, 0);
	fx_stall(&b, NULL, 0);
	fx_stall(&c, NULL, 0);
	b.start_ns = a.start_ns + 1500 * NSEC_PER_MSEC;
	c.start_ns = a.start_ns - 250 * NSEC_PER_MSEC;

	/* no t0: the first time the sink sees is +0 */
	fx_out_open(&o);
	s = sink_text__new(o.f, &opts);
	sink__stall(s, &a);
	sink__stall(s, &b);
	sink__stall(s, &c);
	sink__free(s);
	text = fx_out_close(&o);
	cr_assert(!strncmp(text, "+0.000s STALL", 13), "%s", text);
	cr_assert_not_null(strstr(text, "\n+1.500s STALL"), "%s", text);
	cr_assert_not_null(strstr(text, "\n-0.250s STALL"), "%s", text);
	fx_out_free(&o);

	/* t0 given (the run's BEGIN mark): counted from there, even if set late */
	fx_out_open(&o);
	s = sink_text__new(o.f, &opts);
	s->opts.t0_ns = FX_T0;
	sink__stall(s, &a);
	sink__free(s);
	text = fx_out_close(&o);
	cr_assert(!strncmp(text, "+1.234s STALL", 13), "%s", text);
	fx_out_free(&o);
}

/* Jargon is explained on its own line the first time it is printed, and only then. */
Test(sink_text, jargon_explained_once)
{
	struct sink_opts opts = { .top = 10 };
	struct ls_holder h;
	struct ls_stall st;
	struct fx_out o;
	struct sink *s;
	const char *text;

	fx_holder_reader(&h);
	h.granted = true;
	fx_stall(&st, &h, 1);
	fx_out_open(&o);
	s = sink_text__new(o.f, &opts);
	cr_assert_eq(sink__stall(s, &st), 0);
	cr_assert_eq(sink__stall(s, &st), 0);
	h.state = LS_STATE_BLOCKED;
	fx_stall(&st, &h, 1);
	cr_assert_eq(sink__stall(s, &st), 0);
	sink__free(s);
	text = fx_out_close(&o);
	cr_assert_eq(count_of(text, "\n           (preempted: runnable while holding the lock, but other tasks ran on its CPU)\n"),
		     1, "%s", text);
	cr_assert_eq(count_of(text, "\n           (handoff: "), 1, "%s", text);
	cr_assert_eq(count_of(text, "\n           (blocked: "), 1, "%s", text);
	cr_assert_eq(count_of(text, "(granted not running: "), 0, "%s", text);
	/* right under the holder line that used the word */
	cr_assert_not_null(strstr(text, "preempted, handoff\n           (preempted: "), "%s", text);
	fx_out_free(&o);
}

/* ---- histograms ---- */

static void hist_set(struct ls_hist_set *set, struct ls_hist_entry *e, size_t n)
{
	memset(set, 0, sizeof(*set));
	set->v = e;
	set->n = n;
	set->start_ns = FX_T0 + NSEC_PER_SEC;
	set->end_ns = FX_T0 + 2 * NSEC_PER_SEC;
}

static char *text_of_interval(const struct ls_hist_set *set, const struct sink_opts *opts)
{
	struct fx_out o;
	struct sink *s;

	fx_out_open(&o);
	s = sink_text__new(o.f, opts);
	cr_assert_eq(sink__interval(s, set), 0);
	sink__free(s);
	return (char *)fx_out_close(&o);
}

Test(sink_text, histogram_bcc_format)
{
	struct ls_hist_entry e;
	struct ls_hist_set set;
	char *text;

	fx_hist(&e, 1234, LS_HIST_WAIT, 1, "victim", 5000000);
	hist_set(&set, &e, 1);
	text = text_of_interval(&set, &default_opts);
	cr_assert_str_eq(text,
		"+2.000s INTERVAL  since +1.000s (1s)\n"
		"wait time, mmap_lock write, victim[1234]:\n"
		"     usecs               : count    distribution (log scale)\n"
		"         0 -> 1          : 3        |*****************************           |\n"
		"         1 -> 2          : 0        |                                        |\n"
		"         2 -> 4          : 0        |                                        |\n"
		"         4 -> 8          : 6        |****************************************|\n"
		"           9 lock operations  total 5ms  avg 556us\n"
		"\n");
	free(text);
}

/* The text of process x[7]'s histogram of kind with counts[i] in slot slots[i] only. */
static char *text_of_slots(unsigned int kind, const unsigned int slots[], const __u64 counts[],
			   size_t n)
{
	struct ls_hist_entry e;
	struct ls_hist_set set;
	size_t i;

	fx_hist(&e, 7, kind, LS_HIST_ANY_MODE, "x", 1);
	memset(e.hist.slots, 0, sizeof(e.hist.slots));
	e.hist.count = 0;
	for (i = 0; i < n; i++) {
		e.hist.slots[slots[i]] = counts[i];
		e.hist.count += counts[i];
	}
	hist_set(&set, &e, 1);
	return text_of_interval(&set, &default_opts);
}

/* Log-scaled bars: a tail of one sample next to a million still shows. */
Test(sink_text, histogram_bars_log_scaled)
{
	static const unsigned int slots[] = { 0, 10, 20 };
	static const __u64 counts[] = { 1000000, 1000, 1 };
	char *text = text_of_slots(LS_HIST_HOLD, slots, counts, 3);

	cr_assert_not_null(strstr(text, "\n         0 -> 1          : 1000000  |****************************************|\n"),
			   "%s", text);
	/* log2(1001) is half of log2(1000001) */
	cr_assert_not_null(strstr(text, "\n       512 -> 1024       : 1000     |********************                    |\n"),
			   "%s", text);
	cr_assert_not_null(strstr(text, "\n    524288 -> 1048576    : 1        |**                                      |\n"),
			   "%s", text);
	cr_assert_not_null(strstr(text, "\n           1001001 holds  total "), "%s", text);
	free(text);
}

Test(sink_text, histogram_slot_range)
{
	static const unsigned int slots[] = { 5, 31 };
	static const __u64 counts[] = { 1, 2 };
	/* only the first to the last non-empty slot; the top slot's bounds */
	char *text = text_of_slots(LS_HIST_OFFCPU, slots, counts, 2);

	cr_assert_not_null(strstr(text, "off-CPU time while holding, mmap_lock, x[7]:\n"), "%s", text);
	cr_assert_null(strstr(text, " 8 -> 16 "), "slots before the first non-empty one:\n%s", text);
	cr_assert_not_null(strstr(text, "\n        16 -> 32         : 1        |********************"),
			   "%s", text);
	cr_assert_not_null(strstr(text, "\n1073741824 -> 2147483648 : 2        |****************************************|\n"),
			   "%s", text);
	cr_assert_eq(count_of(text, " -> "), 27);
	free(text);
}

Test(sink_text, histograms_ordered_by_total_time_and_capped)
{
	struct sink_opts opts = { .top = 2, .t0_ns = FX_T0 };
	struct ls_hist_entry e[7];
	struct ls_hist_set set;
	const char *a, *b, *c;
	char *text;

	fx_hist(&e[0], 1, LS_HIST_WAIT, 0, "small", 1000);
	fx_hist(&e[1], 2, LS_HIST_WAIT, 1, "big", 9000000);
	fx_hist(&e[2], 3, LS_HIST_WAIT, 0, "middle", 5000000);
	fx_hist(&e[3], 4, LS_HIST_HOLD, LS_HIST_ANY_MODE, "holder", 7000000);
	fx_hist(&e[4], 5, LS_HIST_WAIT, 0, "empty", 0);
	e[4].hist.count = 0;
	memset(e[4].hist.slots, 0, sizeof(e[4].hist.slots));
	fx_hist(&e[5], 6, LS_HIST_WAIT, 0, "tiny", 10);
	fx_hist(&e[6], 7, LS_HIST_OFFCPU, LS_HIST_ANY_MODE, "never-off", 0);
	hist_set(&set, e, 7);
	text = text_of_interval(&set, &opts);

	a = strstr(text, "wait time, mmap_lock write, big[2]:");
	b = strstr(text, "wait time, mmap_lock read, middle[3]:");
	c = strstr(text, "hold time, mmap_lock, holder[4]:");
	cr_assert(a && b && c, "%s", text);
	cr_assert(a < b && b < c, "not most total time first:\n%s", text);
	cr_assert_null(strstr(text, "small[1]"), "--top 2 not applied:\n%s", text);
	cr_assert_null(strstr(text, "tiny[6]"));
	cr_assert_null(strstr(text, "empty[5]"), "empty histogram printed");
	cr_assert_null(strstr(text, "never-off[7]"), "histogram without time printed");
	cr_assert_null(strstr(text, "off-CPU"), "%s", text);
	/* small and tiny were cut; empty ones do not count */
	assert_line(text, "(not shown: 2 more wait histograms (--top 0 shows all))");
	free(text);

	opts.top = 0;
	text = text_of_interval(&set, &opts);
	cr_assert_not_null(strstr(text, "tiny[6]"));
	cr_assert(strstr(text, "small[1]") < strstr(text, "tiny[6]"));
	cr_assert_null(strstr(text, "not shown"));
	cr_assert_null(strstr(text, "never-off[7]"));
	free(text);
}

/*
 * Futex and kernel-lock waits: their own histograms, named by lock kind,
 * counted as contended waits, shown by their own --hist-min floor (holds
 * and off-CPU spells are mmap_lock's and follow mmap_lock's waits).
 */
Test(sink_text, lock_wait_histograms_by_kind)
{
	struct sink_opts opts = { .top = 10, .t0_ns = FX_T0, .hist_min_ns = 1000000 };
	struct ls_hist_entry e[4];
	struct ls_hist_set set;
	char *text;

	fx_hist(&e[0], 21, LS_HIST_WAIT_FUTEX, 1, "app", 3000000);
	e[0].hist.slots[12] = 1;
	e[0].hist.count++;
	fx_hist(&e[1], 22, LS_HIST_WAIT_RWSEM, 0, "kdamond", 2000000);
	e[1].hist.slots[11] = 1;
	e[1].hist.count++;
	fx_hist(&e[2], 23, LS_HIST_WAIT_MUTEX, 1, "quiet", 1000);
	fx_hist(&e[3], 24, LS_HIST_HOLD, LS_HIST_ANY_MODE, "holder", 2000000);
	e[3].hist.slots[11] = 1;
	hist_set(&set, e, 4);
	text = text_of_interval(&set, &opts);
	assert_line(text, "wait time, futex write, app[21]:");
	assert_line(text, "wait time, rwsem read, kdamond[22]:");
	cr_assert_not_null(strstr(text, " 10 contended waits  total 3ms  avg 300us\n"), "%s", text);
	assert_line(text, "(not shown: 1 wait histogram with every wait under 1ms (--hist-min 0 shows it))");
	/* no mmap_lock wait reached the floor: its holds stay hidden */
	assert_line(text, "(not shown: 1 hold histogram, as no mmap_lock wait reached 1ms (--hist-min 0 shows it))");
	cr_assert_null(strstr(text, "mmap_lock read"), "%s", text);
	cr_assert_null(strstr(text, "mmap_lock write"), "%s", text);
	free(text);
}

/* A churn of short-lived processes reads as one histogram per name, with the quiet ones counted. */
Test(sink_text, histograms_by_name_with_a_floor)
{
	struct sink_opts opts = { .top = 10, .t0_ns = FX_T0, .hist_min_ns = 1000000 };
	struct ls_hist_entry e[5];
	struct ls_hist_set set;
	char *text;

	fx_hist(&e[0], 11, LS_HIST_WAIT, 0, "ps", 3000000);
	e[0].hist.slots[12] = 1;	/* [2.048ms, 4.096ms) */
	e[0].hist.count++;
	fx_hist(&e[1], 12, LS_HIST_WAIT, 0, "ps", 1000);
	fx_hist(&e[2], 13, LS_HIST_WAIT, 0, "ps", 1000);
	fx_hist(&e[3], 14, LS_HIST_WAIT, 0, "quiet", 1000);
	fx_hist(&e[4], 15, LS_HIST_HOLD, LS_HIST_ANY_MODE, "solo", 2000000);
	e[4].hist.slots[11] = 1;
	hist_set(&set, e, 5);
	text = text_of_interval(&set, &opts);
	assert_line(text, "wait time, mmap_lock read, ps (3 processes):");
	/* the three summed: 9 + 9 + 10 operations */
	cr_assert_not_null(strstr(text, " 28 lock operations  total 3.00ms  avg 107us\n"), "%s", text);
	assert_line(text, "hold time, mmap_lock, solo[15]:");
	assert_line(text, "(not shown: 1 wait histogram with every wait under 1ms (--hist-min 0 shows it))");
	cr_assert_null(strstr(text, "quiet"), "%s", text);
	free(text);

	/* no wait at the floor: one line per kind says what is hidden, and why */
	e[0].hist.slots[12] = 0;
	text = text_of_interval(&set, &opts);
	assert_line(text, "(not shown: 2 wait histograms with every wait under 1ms (--hist-min 0 shows them))");
	assert_line(text, "(not shown: 1 hold histogram, as no mmap_lock wait reached 1ms (--hist-min 0 shows it))");
	cr_assert_null(strstr(text, "no lock activity"), "%s", text);
	cr_assert_null(strstr(text, "distribution"), "%s", text);
	free(text);

	opts.per_pid = true;
	opts.hist_min_ns = 0;
	text = text_of_interval(&set, &opts);
	assert_line(text, "wait time, mmap_lock read, ps[11]:");
	assert_line(text, "wait time, mmap_lock read, ps[13]:");
	cr_assert_null(strstr(text, "processes"), "%s", text);
	cr_assert_null(strstr(text, "not shown"), "%s", text);
	free(text);
}

Test(sink_text, histograms_filtered_by_pid)
{
	struct sink_opts opts = { .top = 10, .filter_pid = 3, .t0_ns = FX_T0 };
	struct ls_hist_entry e[3];
	struct ls_hist_set set;
	char *text;

	fx_hist(&e[0], 1, LS_HIST_WAIT, 0, "a", 1000);
	fx_hist(&e[1], 3, LS_HIST_WAIT, 0, "b", 900);
	fx_hist(&e[2], 3, LS_HIST_HOLD, LS_HIST_ANY_MODE, "b", 800);
	hist_set(&set, e, 3);
	text = text_of_interval(&set, &opts);
	cr_assert_null(strstr(text, "a[1]"), "%s", text);
	cr_assert_eq(count_of(text, "b[3]:"), 2, "%s", text);
	free(text);
}

Test(sink_text, empty_interval_says_so)
{
	struct ls_hist_set set;
	char *text;

	hist_set(&set, NULL, 0);
	text = text_of_interval(&set, &default_opts);
	cr_assert_str_eq(text, "+2.000s INTERVAL  since +1.000s (1s)\n  no lock activity recorded\n\n");
	free(text);
}

/* ---- summary ---- */

static char *text_of_summary(const struct ls_summary *sum)
{
	struct fx_out o;
	struct sink *s;

	fx_out_open(&o);
	s = sink_text__new(o.f, &default_opts);
	cr_assert_eq(sink__summary(s, sum), 0);
	sink__free(s);
	return (char *)fx_out_close(&o);
}

Test(sink_text, summary)
{
	struct ls_hist_entry e;
	struct ls_hist_set set;
	struct ls_summary sum = {
		.start_ns = FX_T0,
		.end_ns = FX_T0 + 10020 * NSEC_PER_MSEC,
		.duration_ns = 10020 * NSEC_PER_MSEC,
		.stalls = 6,
		.stalls_by_verdict = { 1, 2, 3, 0 },
		.events = 12345,
		.bad_records = 2,
		.hists = &set,
	};
	char *text;

	fx_hist(&e, 1234, LS_HIST_WAIT, 1, "victim", 5000000);
	hist_set(&set, &e, 1);
	text = text_of_summary(&sum);
	assert_line(text, "+10.020s SUMMARY  traced 10.0s");
	cr_assert_not_null(strstr(text, "wait time, mmap_lock write, victim[1234]:"));
	assert_line(text, "  stalls   6: priority_inversion 1, holder_off_cpu 2, contention 3, unknown 0");
	assert_line(text, "  records  12345 received, 0 lost, 2 malformed");
	cr_assert_null(strstr(text, "WARNING"), "%s", text);
	/* the totals are the last thing on the screen */
	cr_assert(strstr(text, "victim[1234]") < strstr(text, "  stalls   "));
	free(text);

	sum.lost_events = 77;
	sum.evicted = 3;
	sum.hists = NULL;
	text = text_of_summary(&sum);
	assert_line(text, "  records  12345 received, 77 lost, 2 malformed");
	assert_line(text, "  WARNING  77 records lost (ring buffer full, or runs the kernel skipped): findings in those spans are marked unknown");
	/* state dropped that no reported stall is known to miss: said, not a warning */
	assert_line(text, "  memory   3 entries dropped at the engine's bounds");
	cr_assert_null(strstr(text, "memory bounds"), "%s", text);
	free(text);

	sum.stalls_short = 2;
	text = text_of_summary(&sum);
	assert_line(text, "  WARNING  2 stalls lost detail to memory bounds: see \"partial\" in each");
	free(text);
}

/* The summary ranks the culprits of the stalls the sink printed, and only those. */
Test(sink_text, summary_ranks_culprits)
{
	struct ls_summary sum = { .start_ns = FX_T0, .end_ns = FX_T0 + NSEC_PER_SEC };
	struct ls_holder h;
	struct ls_stall st;
	struct fx_out o;
	struct sink *s;
	char *text;

	text = text_of_summary(&sum);
	cr_assert_null(strstr(text, "top culprits"), "no stalls, no ranking:\n%s", text);
	free(text);

	fx_holder_reader(&h);
	fx_stall(&st, &h, 1);
	fx_out_open(&o);
	s = sink_text__new(o.f, &default_opts);
	cr_assert_eq(sink__stall(s, &st), 0);
	st.seq++;
	cr_assert_eq(sink__stall(s, &st), 0);
	sum.stalls = 2;
	cr_assert_eq(sink__summary(s, &sum), 0);
	sink__free(s);
	text = (char *)fx_out_close(&o);
	cr_assert_not_null(strstr(text, "\ntop culprits\n  holders, by the lock wait they caused:\n"
				   "     1. reader[2001/2001]"), "%s", text);
	cr_assert_not_null(strstr(text, "2 stalls  46.8ms\n"), "%s", text);
	cr_assert_not_null(strstr(text, "  preemptors, by the holder off-CPU time they caused:\n"
				   "     1. hog[3001/3001]"), "%s", text);
	free(text);
}

/* ---- failures of the output stream ---- */

Test(sink_text, full_disk_is_enospc)
{
	struct ls_stall st;
	struct sink *s;
	FILE *f = fopen("/dev/full", "w");

	cr_assert_not_null(f);
	fx_stall(&st, NULL, 0);
	s = sink_text__new(f, &default_opts);
	cr_assert_eq(sink__stall(s, &st), -ENOSPC);
	sink__free(s);
	fclose(f);
}

Test(sink_text, closed_pipe_is_epipe)
{
	struct ls_stall st;
	struct sink *s;
	int fds[2];
	FILE *f;

	signal(SIGPIPE, SIG_IGN);	/* as main() does */
	cr_assert_eq(pipe(fds), 0);
	close(fds[0]);
	f = fdopen(fds[1], "w");
	fx_stall(&st, NULL, 0);
	s = sink_text__new(f, &default_opts);
	cr_assert_eq(sink__stall(s, &st), -EPIPE);
	sink__free(s);
	fclose(f);
}

/*
 * The handoff line says the waiter's own run delay after the lock was
 * handed over; it is there only when that delay is a real part of the stall.
 */
struct handoff_case {
	__u64 wait_ns;
	__u64 run_delay_ns;
	bool shown;
};

ParameterizedTestParameters(sink_text, handoff_line)
{
	static struct handoff_case cases[] = {
		{ 16000000, 15900, false },	/* a victim that ran at once */
		{ 27000000, 2000000, true },	/* >= 1 ms */
		{ 2000000, 300000, true },	/* >= 10% of a short stall */
		{ 2000000, 150000, false },
		{ 23400000, 0, false },		/* not handed over */
	};

	return cr_make_param_array(struct handoff_case, cases, ARRAY_SIZE(cases));
}

ParameterizedTest(struct handoff_case *c, sink_text, handoff_line)
{
	struct ls_holder h;
	struct ls_stall st;
	char *text;

	fx_holder_reader(&h);
	fx_stall(&st, &h, 1);
	st.wait_ns = c->wait_ns;
	st.end_ns = st.start_ns + c->wait_ns;
	st.run_delay_ns = c->run_delay_ns;
	st.lock_wait_ns = c->wait_ns - c->run_delay_ns;
	st.granted_ns = c->run_delay_ns ? st.start_ns + st.lock_wait_ns : 0;
	text = text_of_stall(&st, &default_opts);
	cr_assert_eq(count_of(text, "\n  handoff  lock handed over after "), c->shown ? 1 : 0,
		     "wait %llu run delay %llu:\n%s", (unsigned long long)c->wait_ns,
		     (unsigned long long)c->run_delay_ns, text);
	free(text);
}

/* A pending report at +4.234s of a wait open 3 s, its second. */
static char *text_pending(struct ls_stall *st, struct ls_holder *h, bool began_before)
{
	fx_stall_pending(st, h);
	st->end_ns = FX_T0 + FX_MS(4234);
	st->wait_ns = st->lock_wait_ns = FX_MS(3000);
	st->began_before = began_before;
	return text_of_stall(st, &default_opts);
}

Test(sink_text, pending)
{
	struct ls_holder h;
	struct ls_stall st;
	char *text;

	text = text_pending(&st, &h, false);
	assert_line(text, "+1.234s PENDING  3s so far  mmap_lock write  of victim[1234]  verdict so far: PRIORITY INVERSION");
	assert_line(text, "  pending  report 2 at +4.234s, first at +2.234s");
	assert_line(text, "           now      preempted since +1.000s (3.23s)");
	cr_assert(strstr(text, "still held (an mmap_lock: which one, not known yet)"), "%s", text);
	/* its mode is a guess: not printed */
	cr_assert(strstr(text, "holds an mmap_lock  held"), "%s", text);
	cr_assert_null(strstr(text, "gave up"), "%s", text);
	free(text);

	st.at_exit = true;
	st.pending_reports = 1;
	text = text_of_stall(&st, &default_opts);
	assert_line(text, "+1.234s PENDING AT EXIT  3s so far  mmap_lock write  of victim[1234]  verdict so far: PRIORITY INVERSION");
	assert_line(text, "  pending  report 1 at +4.234s, the run ended while it waited");
	free(text);

	st.pending = st.at_exit = false;
	st.seq = 4;
	st.pending_reports = 3;
	text = text_of_stall(&st, &default_opts);
	assert_line(text, "  pending  reported 3 times while it lasted, first at +2.234s");
	free(text);
}

/* A wait that began before tracing: at least its length, and why, in both headlines. */
Test(sink_text, began_before_tracing)
{
	struct ls_holder h;
	struct ls_stall st;
	char *text;

	text = text_pending(&st, &h, true);
	assert_line(text, "+1.234s PENDING  >= 3s so far (began before tracing)  mmap_lock write  of victim[1234]  verdict so far: PRIORITY INVERSION");
	assert_terminal_safe(text);
	free(text);

	st.pending = false;
	st.seq = 4;
	text = text_of_stall(&st, &default_opts);
	cr_assert(strstr(text, "+1.234s STALL #4  >= 3s (began before tracing)  mmap_lock write"),
		  "%s", text);
	free(text);

	st.found_late = true;
	text = text_of_stall(&st, &default_opts);
	cr_assert(strstr(text, "+1.234s STALL #4  >= 3s (found late)  mmap_lock write"), "%s", text);
	free(text);
	st.found_late = false;

	st.began_before = false;
	text = text_of_stall(&st, &default_opts);
	cr_assert_null(strstr(text, "before tracing"), "%s", text);
	cr_assert_null(strstr(text, ">="), "%s", text);
	free(text);
}

/* A throttled holder: its time, cgroup (escaped), quota and period; the stall's advice. */
Test(sink_text, throttled_holder_and_advice)
{
	struct ls_throttle thr = { .cgroup_id = 77, .hierarchy_id = 4, .quota_ns = FX_MS(10),
				   .period_ns = FX_MS(100) };
	struct ls_holder h;
	struct ls_stall st;
	char *text;

	strcpy(thr.path, "/batch/evil \x1b[2J");
	fx_holder_reader(&h);
	h.cause_ns[LS_CAUSE_THROTTLED] = FX_MS(18);
	h.cause = LS_CAUSE_THROTTLED;
	h.throttle = &thr;
	fx_stall(&st, &h, 1);
	st.cause = LS_CAUSE_THROTTLED;
	st.advice = ls_advice(&st);
	text = text_of_stall(&st, &default_opts);

	assert_line(text, "           throttled 18ms: /batch/evil\\x20\\x1b[2J (cgroup v1) quota 10ms per 100ms");
	assert_line(text, "  advice   the holder's cgroup ran out of CPU quota while it held the lock: raise the quota, or move the reader out of the limited container");
	assert_terminal_safe(text);
	free(text);
}

/*
 * A kernel lock by its names: the static symbol, else the address and the
 * first caller outside the locking code; both are kernel text, escaped.
 */
Test(sink_text, kernel_lock_names)
{
	struct ls_holder h;
	struct ls_stall st;
	char *text;

	fx_holder_reader(&h);
	h.how = LS_OWNER_HINT;
	fx_stall(&st, &h, 1);
	st.lock.kind = LS_LOCK_RWSEM;
	st.lock.id = 0xffff8881cbd564e8ULL;
	st.lock.tgid = 0;
	st.lock_caller = "path_openat";
	text = text_of_stall(&st, &default_opts);
	cr_assert_not_null(strstr(text, "STALL #3  23.4ms  rwsem 0xffff8881cbd564e8 in path_openat  verdict"),
			   "%s", text);
	cr_assert_not_null(strstr(text, "found by reader_hint (the last reader to take it"), "%s", text);
	free(text);

	st.lock.kind = LS_LOCK_MUTEX;
	st.lock_name = "cgroup_mutex";
	text = text_of_stall(&st, &default_opts);
	cr_assert_not_null(strstr(text, "STALL #3  23.4ms  mutex cgroup_mutex  verdict"), "%s", text);
	free(text);

	st.lock_name = "evil\n\x1b[2J";
	text = text_of_stall(&st, &default_opts);
	assert_terminal_safe(text);
	cr_assert_not_null(strstr(text, "mutex evil\\x0a\\x1b[2J  verdict"), "%s", text);
	free(text);
}

/*
 * A chain across locks names each lock as the stall's own lock is named:
 * a futex by its variable and file, a kernel lock by its symbol; escaped.
 */
Test(sink_text, chain_hops_name_their_locks)
{
	struct ls_holder h;
	struct ls_stall st;
	char *text;

	fx_stall_hop_lock(&st, &h, "g_queue\x1b[2J", "/usr/lib/app");
	st.n_chain = 3;
	st.chain[2].task = st.waiter;
	st.chain[2].role = LS_ROLE_HOLDER;
	st.chain[2].has_lock = true;
	st.chain[2].lock.kind = LS_LOCK_MUTEX;
	st.chain[2].lock.id = 0xffffffff83a0c2e0ULL;
	st.chain[2].lock_name = "cgroup_mutex";
	text = text_of_stall(&st, &default_opts);
	assert_terminal_safe(text);
	cr_assert_not_null(strstr(text, "(holder, of futex g_queue\\x1b[2J [app] of "), "%s", text);
	cr_assert_not_null(strstr(text, "(holder, of mutex cgroup_mutex)"), "%s", text);
	free(text);
}

/* A holder in memcg reclaim: the time, the cgroup at its limit (escaped), and the advice. */
Test(sink_text, reclaim_holder_and_advice)
{
	struct ls_reclaim rc = { .kind = LS_RECLAIM_MEMCG, .limit = LS_MEMCG_LIMIT_MAX,
				 .hierarchy_id = 4, .cgroup_id = 88, .usage_bytes = 16769024,
				 .limit_bytes = 16777216 };
	struct ls_holder h;
	struct ls_stall st;
	char *text;

	strcpy(rc.path, "/lsr \x1b[2J");
	fx_holder_reader(&h);
	h.cause_ns[LS_CAUSE_RECLAIM] = FX_MS(30);
	h.cause = LS_CAUSE_RECLAIM;
	h.reclaim = &rc;
	fx_stall(&st, &h, 1);
	st.cause = LS_CAUSE_RECLAIM;
	st.advice = ls_advice(&st);
	text = text_of_stall(&st, &default_opts);
	assert_line(text, "           reclaim 30ms: memcg reclaim: /lsr\\x20\\x1b[2J (cgroup v1) at its max 16.0MiB, usage 16.0MiB");
	assert_line(text, "  advice   the holder reclaimed or compacted memory while it held the lock: raise its memory cgroup's limit (memory.max, memory.limit_in_bytes) or keep more memory free (vm.min_free_kbytes)");
	assert_terminal_safe(text);
	free(text);

	/* Direct reclaim: the system's memory, no cgroup. */
	rc.kind = LS_RECLAIM_DIRECT;
	rc.limit = LS_MEMCG_LIMIT_NONE;
	text = text_of_stall(&st, &default_opts);
	assert_line(text, "           reclaim 30ms: direct reclaim");
	free(text);
}

/* A holder asleep on I/O: the time, the device when the kernel named it, and the advice. */
Test(sink_text, io_holder_and_advice)
{
	struct ls_holder h;
	struct ls_stall st;
	char *text;

	fx_holder_reader(&h);
	h.cause_ns[LS_CAUSE_IO] = FX_MS(30);
	h.cause = LS_CAUSE_IO;
	h.io_dev = 259U << 20 | 65537;
	memcpy(h.io_disk, "nvme0n1\x1b[2J", 12);
	fx_stall(&st, &h, 1);
	st.cause = LS_CAUSE_IO;
	st.advice = ls_advice(&st);
	text = text_of_stall(&st, &default_opts);
	assert_line(text, "           io 30ms: device 259:65537 (disk nvme0n1\\x1b[2J)");
	assert_terminal_safe(text);
	assert_line(text, "  advice   the holder waited on I/O while it held the lock: look at the device's latency, or do the I/O outside the lock");
	free(text);

	/* Someone else's I/O: no device. */
	h.io_dev = 0;
	text = text_of_stall(&st, &default_opts);
	assert_line(text, "           io 30ms");
	free(text);
}

/* A pinned holder: its time, the CPUs it may use and those that idled, and the advice. */
Test(sink_text, runnable_holder_and_advice)
{
	struct ls_holder h;
	struct ls_stall st;
	char *text;

	fx_holder_reader(&h);
	h.cause_ns[LS_CAUSE_RUNNABLE] = FX_MS(25);
	h.cause_ns[LS_CAUSE_STEAL] = FX_MS(2);
	h.cause = LS_CAUSE_RUNNABLE;
	h.pinned = (struct ls_pinned){ .allowed = 0x1eULL | 1ULL << 63, .idle_cpus = 0x1,
				       .nr_cpus_allowed = 5, .nr_cpus = 64 };
	fx_stall(&st, &h, 1);
	st.cause = LS_CAUSE_RUNNABLE;
	st.advice = ls_advice(&st);
	text = text_of_stall(&st, &default_opts);
	assert_line(text, "           runnable 25ms: allowed CPUs 1-4,63 (5 of 64), idle meanwhile: CPUs 0");
	assert_line(text, "           steal 2ms");
	assert_line(text, "  advice   the holder waited for a CPU its affinity or cpuset allows while another CPU idled: widen its affinity (taskset, sched_setaffinity) or its cpuset (cpuset.cpus)");
	free(text);
}
