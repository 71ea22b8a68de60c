/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A struct sink for tests: deep-copies every stall, interval and summary it
 * receives, so assertions can run after the engine has moved on (the
 * engine's holders array and histogram sets are only valid during a call).
 * Set fail to a negative errno to make every op return it (and record
 * nothing).  Allocation failures abort.
 */
#ifndef LOCKSTALL_TEST_CAPTURE_SINK_H
#define LOCKSTALL_TEST_CAPTURE_SINK_H

#include <stddef.h>
#include "engine/sink.h"

struct capture_stall {
	struct ls_stall st;	/* st.holders points at holders below */
	struct ls_holder holders[LS_MAX_HOLDERS];
	struct ls_spell *spells;	/* LS_MAX_SPELLS per holder: holders[i].spells points here */
	/*
	 * The fixed part of the STACK records the stall carried (the engine
	 * frees them after the call): st.waiter_stack and holders[i].stack
	 * point here when they were set, frames are never copied (NULL).
	 */
	struct ls_rec_stack waiter_stack;
	struct ls_rec_stack holder_stacks[LS_MAX_HOLDERS];
	struct ls_throttle holder_throttles[LS_MAX_HOLDERS];
	struct ls_rename renames[LS_MAX_RENAMES];	/* st.renames points here */
};

struct capture_sink {
	struct sink sink;	/* give &cs->sink to engine__new */
	struct capture_stall *stalls;
	size_t n_stalls;
	size_t stalls_alloc;
	struct ls_hist_set *intervals;	/* each with its own copy of v */
	size_t n_intervals;
	size_t intervals_alloc;
	size_t n_summaries;
	struct ls_summary summary;	/* the latest; hists -> summary_hists */
	struct ls_hist_set summary_hists;
	int fail;
};

struct capture_sink *capture_sink__new(void);
/* Also reachable as sink__free(&cs->sink). */
void capture_sink__free(struct capture_sink *cs);
/* The i-th stall received, or NULL. */
const struct ls_stall *capture_sink__stall(const struct capture_sink *cs, size_t i);
/* The entry for a key in a set, or NULL. */
const struct ls_hist_entry *capture_sink__find(const struct ls_hist_set *set, __u32 tgid,
					       __u8 kind, __u8 write);

#endif /* LOCKSTALL_TEST_CAPTURE_SINK_H */
