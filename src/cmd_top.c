// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstall top: the watch loop (cmd_watch.c, watch__run) with the top
 * sink, refreshed at every interval mark (-i), and a front end: an ncurses
 * screen with keys, or with -b plain snapshots on stdout.
 *
 *	checks -> model, sink -> watch__run: attach -> start (the screen)
 *	-> each interval: query the model, render, draw -> keys after every
 *	wait -> stop (the terminal restored) -> the summary's messages
 *
 * What is shown is made by src/top/ (model, screen, keys), pure and unit
 * tested; this file only draws it and reads the terminal.  The terminal is
 * given back (endwin) as soon as the loop ends, for whatever reason: q,
 * Ctrl-C, SIGTERM, SIGHUP or a closed terminal, -d, -n, or an error, so
 * the messages after it land on a sane terminal.  ncurses handles SIGWINCH
 * (KEY_RESIZE) and SIGTSTP; SIGINT and SIGTERM stay main()'s.
 */
#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "commands.h"
#include "sinks/sink_common.h"
#include "top/screen.h"
#include "top/sink.h"
#include "top/ui.h"

#define TOP_ROWS_MAX	256	/* lines drawn; a taller terminal shows blank lines below */
#define TOP_BATCH_ROWS	20	/* rows per table in a batch snapshot */
#define TOP_ESCDELAY_MS	25	/* Escape at the prompt, not the start of an arrow key */

struct top {
	const struct ls_config *cfg;
	struct top_model *model;
	struct top_ui ui;
	volatile sig_atomic_t *hangup;
	FILE *out;		/* -b */
	SCREEN *screen;		/* NULL: not (or no longer) on the terminal */
	__u64 t0_ns, now_ns;	/* the run's start, the last refresh */
	__u64 lost;
	struct top_line *lines;	/* TOP_ROWS_MAX */
};

static int top__query(struct top *t, size_t max_rows, struct top_view *v)
{
	struct top_query q = {
		.now_ns = t->now_ns,
		.interval_ns = t->cfg->interval_ns,
		/* reported at each refresh while it lasts (watch__run): its end was lost */
		.stale_ns = 3 * t->cfg->interval_ns,
		.sort = t->ui.sort,
		.filter = &t->ui.filter,
		.max_rows = max_rows,
	};

	return top_model__query(t->model, &q, v);
}

static size_t top__render(struct top *t, const struct top_view *v, unsigned int cols,
			  unsigned int rows, const char *footer)
{
	struct top_screen_in in = {
		.view = v,
		.t0_ns = t->t0_ns,
		.interval_ns = t->cfg->interval_ns,
		.threshold_ns = t->cfg->threshold_ns,
		.lost = t->lost,
		.sort = t->ui.sort,
		.filter = &t->ui.filter,
		.paused = t->ui.paused,
		.help = t->ui.help,
		.batch = t->cfg->batch,
		.footer = footer,
	};

	return top_screen__render(&in, cols, rows, t->lines, TOP_ROWS_MAX);
}

static attr_t line__attr(enum top_line_kind kind)
{
	switch (kind) {
	case TOP_LINE_TITLE:
		return A_BOLD;
	case TOP_LINE_HEADER:
	case TOP_LINE_FOOTER:
		return A_REVERSE;
	case TOP_LINE_TEXT:
	case TOP_LINE_STATUS:
		break;
	}
	return A_NORMAL;
}

/* The screen as of the last refresh.  Lines are printable ASCII (screen.h). */
static void top__draw(struct top *t)
{
	unsigned int rows = LINES > TOP_ROWS_MAX ? TOP_ROWS_MAX : (unsigned int)LINES;
	unsigned int cols = COLS > 0 ? (unsigned int)COLS : 1;
	struct top_view v;
	char footer[160];
	size_t n, i;

	/* no memory: the screen keeps what it showed */
	if (top__query(t, rows, &v))
		return;
	n = top__render(t, &v, cols, rows, top_ui__footer(&t->ui, footer, sizeof(footer)));
	top_view__release(&v);
	erase();
	for (i = 0; i < n; i++) {
		attr_t a = line__attr(t->lines[i].kind);

		/* the bottom right cell would scroll the screen: one column less there */
		mvaddnstr((int)i, 0, t->lines[i].text, (int)(i + 1 == rows ? cols - 1 : cols));
		if (a != A_NORMAL)
			mvchgat((int)i, 0, -1, a, 0, NULL);
	}
	refresh();
}

/* -b: one snapshot, then a blank line.  0, or -EPIPE/-EIO from the stream. */
static int top__print(struct top *t)
{
	struct top_view v;
	size_t n, i;
	int err = top__query(t, TOP_BATCH_ROWS, &v);

	if (err)
		return err;
	n = top__render(t, &v, 0, 0, NULL);
	top_view__release(&v);
	for (i = 0; i < n; i++) {
		fputs(t->lines[i].text, t->out);
		putc('\n', t->out);
	}
	putc('\n', t->out);
	return sink__flush(t->out);
}

static int top__refresh(void *ctx, __u64 t0_ns, __u64 now_ns)
{
	struct top *t = ctx;

	t->t0_ns = t0_ns;
	t->now_ns = now_ns;
	if (t->cfg->batch)
		return top__print(t);
	if (!t->screen)
		return 0;	/* the terminal was given back */
	if (!t->ui.paused)
		top__draw(t);
	return 0;
}

static void top__progress(void *ctx, const struct watch_progress *p)
{
	((struct top *)ctx)->lost = p->lost;
}

static int top__start(void *ctx)
{
	struct top *t = ctx;
	const char *term = getenv("TERM");

	t->screen = newterm(NULL, stdout, stdin);
	if (!t->screen) {
		fprintf(stderr, "lockstall: cannot use the terminal (TERM=%s): set TERM, or use -b for plain snapshots\n",
			term ? term : "unset");
		return -ENOTTY;
	}
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(TOP_ESCDELAY_MS);
	curs_set(0);
	t->now_ns = t->t0_ns = 0;
	top__draw(t);
	return 0;
}

static void top__stop(void *ctx)
{
	struct top *t = ctx;

	if (!t->screen)
		return;
	endwin();
	delscreen(t->screen);
	t->screen = NULL;
}

static int top__key_code(int ch)
{
	switch (ch) {
	case '\n':
	case '\r':
	case KEY_ENTER:
		return TOP_KEY_ENTER;
	case KEY_BACKSPACE:
	case 127:
	case '\b':
		return TOP_KEY_BACKSPACE;
	case 27:
		return TOP_KEY_ESCAPE;
	}
	/* other function keys mean nothing here */
	return ch > 255 ? 0 : ch;
}

/* Keys, a resize, a hangup.  Non-zero: stop. */
static int top__input(void *ctx)
{
	struct top *t = ctx;
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	bool redraw = false;
	int ch;

	if (*t->hangup)
		return 1;
	/* a closed terminal: nothing will ever be read, and nobody looks */
	if (poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL)))
		return 1;
	while ((ch = getch()) != ERR) {
		if (ch == KEY_RESIZE || ch == 12) {	/* Ctrl-L: draw it all again */
			clearok(curscr, TRUE);
			redraw = true;
			continue;
		}
		switch (top_ui__key(&t->ui, top__key_code(ch))) {
		case TOP_UI_QUIT:
			return 1;
		case TOP_UI_REDRAW:
			redraw = true;
			break;
		case TOP_UI_NOTHING:
			break;
		}
	}
	if (redraw)
		top__draw(t);
	return 0;
}

int cmd_top(const struct ls_config *cfg, volatile sig_atomic_t *stop,
	    volatile sig_atomic_t *hangup, FILE *out)
{
	struct top t = { .cfg = cfg, .hangup = hangup, .out = out };
	struct watch_front front = {
		.fd = cfg->batch ? -1 : STDIN_FILENO,
		.progress = top__progress,
		/*
		 * a wait is a stall in progress once it passes the threshold,
		 * and is shown anew at every refresh
		 */
		.pending_after_ns = cfg->threshold_ns,
		.pending_every_ns = cfg->interval_ns,
		.ctx = &t,
	};
	int ret;

	/* before anything is loaded: the screen needs a terminal both ways */
	if (!cfg->batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		fprintf(stderr, "lockstall: top needs a terminal on stdin and stdout: use -b (--batch) for plain snapshots in a pipe or a file\n");
		return LS_EXIT_USAGE;
	}
	if (!cfg->batch) {
		front.start = top__start;
		front.input = top__input;
		front.stop = top__stop;
	}
	t.model = top_model__new(TOP_HISTORY_DEFAULT);
	t.lines = calloc(TOP_ROWS_MAX, sizeof(*t.lines));
	front.sink = t.model ? sink_top__new(t.model, NULL, top__refresh, &t) : NULL;
	if (!t.lines || !front.sink) {
		fprintf(stderr, "lockstall: cannot set up top: %s\n", strerror(ENOMEM));
		sink__free(front.sink);
		ret = LS_EXIT_FAILURE;
		goto out;
	}
	ret = watch__run(cfg, stop, NULL, out, &front);
out:
	top__stop(&t);
	top_model__free(t.model);
	free(t.lines);
	return ret;
}
