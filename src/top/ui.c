// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* See ui.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "top/ui.h"

/* Enter at the prompt: the filter, or why not (the old one stays). */
static void ui__apply(struct top_ui *ui)
{
	int err;

	if (ui->prompt == TOP_PROMPT_PROC)
		err = top_filter__set_proc(&ui->filter, ui->input);
	else
		err = top_filter__set_cgroup(&ui->filter, ui->input);
	if (err == -EINVAL && ui->prompt == TOP_PROMPT_PROC)
		snprintf(ui->message, sizeof(ui->message), "not a process ID: %.40s", ui->input);
	else if (err == -EINVAL)
		snprintf(ui->message, sizeof(ui->message),
			 "not a cgroup path (it starts with '/'): %.40s", ui->input);
	else if (err)
		snprintf(ui->message, sizeof(ui->message), "too long: at most %d characters",
			 TOP_FILTER_MAX - 1);
	ui->prompt = TOP_PROMPT_NONE;
	ui->input[0] = '\0';
}

static enum top_ui_result ui__prompt_key(struct top_ui *ui, int key)
{
	size_t n = strlen(ui->input);

	switch (key) {
	case TOP_KEY_ENTER:
		ui__apply(ui);
		return TOP_UI_REDRAW;
	case TOP_KEY_ESCAPE:
		ui->prompt = TOP_PROMPT_NONE;
		ui->input[0] = '\0';
		return TOP_UI_REDRAW;
	case TOP_KEY_BACKSPACE:
		if (!n)
			return TOP_UI_NOTHING;
		ui->input[n - 1] = '\0';
		return TOP_UI_REDRAW;
	}
	/* the prompt shows what it holds: printable ASCII only, never a control byte */
	if (key < 0x20 || key > 0x7e || n + 1 >= sizeof(ui->input))
		return TOP_UI_NOTHING;
	ui->input[n] = (char)key;
	ui->input[n + 1] = '\0';
	return TOP_UI_REDRAW;
}

enum top_ui_result top_ui__key(struct top_ui *ui, int key)
{
	if (ui->prompt)
		return ui__prompt_key(ui, key);
	ui->message[0] = '\0';
	if (ui->help) {
		/* any key leaves the help; q still quits */
		ui->help = false;
		return key == 'q' ? TOP_UI_QUIT : TOP_UI_REDRAW;
	}
	switch (key) {
	case 'q':
	case 'Q':
		return TOP_UI_QUIT;
	case 'p':
	case ' ':
		ui->paused = !ui->paused;
		return TOP_UI_REDRAW;
	case 's':
		ui->sort = (ui->sort + 1) % TOP_SORT_N;
		return TOP_UI_REDRAW;
	case 'f':
		ui->prompt = TOP_PROMPT_PROC;
		return TOP_UI_REDRAW;
	case 'c':
		ui->prompt = TOP_PROMPT_CGROUP;
		return TOP_UI_REDRAW;
	case 'h':
	case '?':
		ui->help = true;
		return TOP_UI_REDRAW;
	}
	return TOP_UI_NOTHING;
}

const char *top_ui__footer(const struct top_ui *ui, char *buf, size_t len)
{
	if (ui->prompt == TOP_PROMPT_PROC)
		snprintf(buf, len, "filter by process (PID or part of a name; empty: none): %s_",
			 ui->input);
	else if (ui->prompt == TOP_PROMPT_CGROUP)
		snprintf(buf, len, "filter by cgroup (a path like /system.slice; empty: none): %s_",
			 ui->input);
	else if (ui->message[0])
		snprintf(buf, len, "%s", ui->message);
	else
		return NULL;
	return buf;
}
