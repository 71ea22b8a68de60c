/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * lockstall top's keys: what each does to the display's state (pause,
 * sort, filters, help) and the one-line prompt of the filters.  Pure: the
 * terminal front (src/cmd_top.c) turns ncurses keys into TOP_KEY_* and
 * characters, feeds them here and redraws.
 */
#ifndef LOCKSTALL_TOP_UI_H
#define LOCKSTALL_TOP_UI_H

#include <stdbool.h>
#include "top/model.h"

/* Keys beyond ASCII, as the front maps them (away from any byte value). */
enum top_key {
	TOP_KEY_ENTER = 0x1000,
	TOP_KEY_BACKSPACE,
	TOP_KEY_ESCAPE,
};

enum top_prompt {
	TOP_PROMPT_NONE = 0,
	TOP_PROMPT_PROC,	/* 'f' */
	TOP_PROMPT_CGROUP,	/* 'c' */
};

struct top_ui {
	bool paused;
	bool help;
	enum top_sort sort;
	struct top_filter filter;
	enum top_prompt prompt;
	char input[TOP_FILTER_MAX];	/* what was typed at the prompt: printable ASCII only */
	char message[96];	/* the last filter's error; "" none */
};

enum top_ui_result {
	TOP_UI_NOTHING = 0,	/* nothing to redraw */
	TOP_UI_REDRAW,		/* the state changed */
	TOP_UI_QUIT,
};

/* One key: a character (0-255) or a TOP_KEY_*. */
enum top_ui_result top_ui__key(struct top_ui *ui, int key);
/* The footer: the prompt with what was typed, the message, or NULL (the keys). */
const char *top_ui__footer(const struct top_ui *ui, char *buf, size_t len);

#endif /* LOCKSTALL_TOP_UI_H */
