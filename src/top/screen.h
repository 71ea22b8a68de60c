/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * lockstall top's screen as lines of text: a view (src/top/model.h) and the
 * state around it in, at most `rows` lines of at most `cols` bytes out.
 * Pure: the terminal front (src/cmd_top.c) draws them with ncurses, batch
 * mode prints them.
 *
 * Every byte of a line is printable ASCII (0x20-0x7e): comms and cgroup
 * paths come escaped (ls_comm_text, the cgroup resolver), and whatever
 * else slipped through becomes '?', so no traced process can drive the
 * terminal through its name.
 */
#ifndef LOCKSTALL_TOP_SCREEN_H
#define LOCKSTALL_TOP_SCREEN_H

#include <stdbool.h>
#include <stddef.h>
#include "top/model.h"

#define TOP_LINE_MAX	512	/* bytes of a line, NUL included: the widest terminal's */
#define TOP_WIDE_COLS	120	/* from here on, wider columns and more of them */

enum top_line_kind {
	TOP_LINE_TEXT = 0,
	TOP_LINE_TITLE,		/* a section's title */
	TOP_LINE_HEADER,	/* a table's column names */
	TOP_LINE_STATUS,	/* the first lines: time, counts, filter */
	TOP_LINE_FOOTER,	/* the keys, a prompt or a message */
};

struct top_line {
	enum top_line_kind kind;
	char text[TOP_LINE_MAX];
};

struct top_screen_in {
	const struct top_view *view;
	__u64 t0_ns;		/* the run's start */
	__u64 interval_ns;
	__u64 threshold_ns;
	__u64 lost;		/* events lost so far */
	enum top_sort sort;
	const struct top_filter *filter;	/* NULL: none */
	bool paused;
	bool help;		/* the keys' help instead of the tables */
	bool batch;		/* no footer (batch mode prints snapshots) */
	const char *footer;	/* a prompt or a message; NULL: the keys */
};

/*
 * The screen into out (room for max lines); rows 0: as many lines as the
 * view needs, cols 0: lines as long as TOP_LINE_MAX allows.  Returns the
 * number of lines.
 */
size_t top_screen__render(const struct top_screen_in *in, unsigned int cols, unsigned int rows,
			  struct top_line *out, size_t max);

#endif /* LOCKSTALL_TOP_SCREEN_H */
