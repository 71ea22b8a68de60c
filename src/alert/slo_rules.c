// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The SLO rules' parser (see slo.h): rule lines, from the command line or
 * a rules file, into a struct slo_rules.  It takes lines from people and
 * from files that may be anything: every byte is checked, every number
 * bounded, and an error names the rule, the column and what was expected.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "alert/slo.h"
#include "util.h"

struct parse_ctx {
	const char *line;
	size_t len;
	const char *what;
	char *err;
	size_t err_len;
	const struct slo_cgroup_check *chk;	/* NULL: paths not checked */
};

/* The rule quoted for a message: printable ASCII, at most 60 bytes. */
static void quote_rule(const struct parse_ctx *c, char *buf, size_t len)
{
	size_t i, o = 0;

	for (i = 0; i < c->len && o + 5 < len; i++) {
		unsigned char b = (unsigned char)c->line[i];

		if (i == 60) {
			o += (size_t)snprintf(buf + o, len - o, "...");
			break;
		}
		if (b >= 0x20 && b < 0x7f && b != '\\')
			buf[o++] = (char)b;
		else
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", b);
	}
	buf[o < len ? o : len - 1] = '\0';
}

__attribute__((format(printf, 3, 4)))
static int parse_error(const struct parse_ctx *c, size_t col, const char *fmt, ...)
{
	char quoted[320], msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	quote_rule(c, quoted, sizeof(quoted));
	if (c->err && c->err_len)
		snprintf(c->err, c->err_len, "%s: rule '%s', column %zu: %s", c->what, quoted,
			 col + 1, msg);
	return -EINVAL;
}

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

static int parse_dur(const struct parse_ctx *c, size_t col, const char *key, const char *val,
		     __u64 *out)
{
	if (ls_parse_duration(val, 0, out) || !*out)
		return parse_error(c, col, "invalid duration '%.40s' for %s: expected a duration above zero with a unit, like 500us, 50ms, 10s",
				   val, key);
	return 0;
}

static const char *const policy_names[] = {
	[LS_POLICY_NORMAL] = "normal", [LS_POLICY_FIFO] = "fifo", [LS_POLICY_RR] = "rr",
	[LS_POLICY_BATCH] = "batch", [LS_POLICY_IDLE] = "idle", [LS_POLICY_DEADLINE] = "deadline",
};

/* "." or "..": a way to a cgroup, not its name. */
static bool cgroup_dot(const char *comp, size_t len)
{
	return (len == 1 && comp[0] == '.') || (len == 2 && comp[0] == '.' && comp[1] == '.');
}

/*
 * cgroup=PATH or holder_cgroup=PATH into sel, normalised the way the
 * resolver writes paths, so a match is a string compare: escapes decoded
 * and written again as ls_cgroup_text() does, "//" and a trailing "/"
 * dropped.  Then, when the caller checks paths, the cgroup (for a glob:
 * its fixed leading components) must exist.
 */
static int parse_cgroup(const struct parse_ctx *c, const char *key, struct slo_cgroup_sel *sel,
			const char *val, size_t col)
{
	char raw[SLO_MAX_CGROUP + 1], norm[SLO_MAX_CGROUP + 2], why[256];
	size_t len, i, comp, o = 0;
	char *text, *glob, *fixed;
	int n;

	if (sel->path)
		return parse_error(c, col, "%s= given twice", key);
	if (val[0] != '/')
		return parse_error(c, col, "expected a cgroup v2 path from the cgroup2 root, like /system.slice/db.service, got '%.40s'",
				   val);
	if (strlen(val) > SLO_MAX_CGROUP)
		return parse_error(c, col, "a cgroup path longer than %d bytes", SLO_MAX_CGROUP);
	if (ls_cgroup_raw(val, raw, sizeof(raw), &len))
		return parse_error(c, col, "a backslash not followed by xNN, or \\x00: expected \\xNN (hex) for a byte outside printable ASCII");
	for (i = 0; i < len;) {
		while (i < len && raw[i] == '/')
			i++;
		if (i == len)
			break;
		for (comp = i; i < len && raw[i] != '/'; i++)
			;
		if (cgroup_dot(raw + comp, i - comp))
			return parse_error(c, col, "'.' or '..' in a cgroup path: expected the cgroup's own path from the cgroup2 root");
		norm[o++] = '/';
		memcpy(norm + o, raw + comp, i - comp);
		o += i - comp;
	}
	if (!o)
		norm[o++] = '/';	/* the root */
	text = malloc(4 * o + 1);
	if (!text)
		return -ENOMEM;
	n = ls_cgroup_text(norm, o, text, 4 * o + 1);
	if (n < 0) {
		free(text);
		return -ENOMEM;	/* 4 bytes a byte always fit */
	}
	glob = strpbrk(text, "*?[");
	if (c->chk) {
		/* a glob: what comes before its first component with a glob character */
		fixed = strndup(text, glob ? (size_t)(glob - text) : strlen(text));
		if (!fixed) {
			free(text);
			return -ENOMEM;
		}
		if (glob)
			*(strrchr(fixed, '/') == fixed ? fixed + 1 : strrchr(fixed, '/')) = '\0';
		why[0] = '\0';
		n = c->chk->exists(c->chk->ctx, fixed, why, sizeof(why));
		free(fixed);
		if (n) {
			free(text);
			return parse_error(c, col, "%s", why[0] ? why : "no such cgroup");
		}
	}
	sel->path = text;
	sel->glob = glob != NULL;
	return 0;
}

static const char *cause_name(unsigned int i)
{
	return ls_cause_name(i);
}

static const char *verdict_name(unsigned int i)
{
	return ls_verdict_name(i);
}

/*
 * key=NAME, NAME one of the n that name() gives: its index into *out and
 * *has set, else an error at col that lists them (and "any" when any is
 * true: *out = n).
 */
static int parse_name(const struct parse_ctx *c, size_t col, const char *key, const char *val,
		      const char *(*name)(unsigned int), unsigned int n, bool any,
		      unsigned int *out, bool *has)
{
	char names[160];
	size_t off = 0;
	unsigned int i;

	if (*has)
		return parse_error(c, col, "%s= given twice", key);
	for (i = 0; i < n && strcmp(val, name(i)); i++)
		;
	if (i == n && !(any && !strcmp(val, "any"))) {
		for (i = 0; i < n && off < sizeof(names); i++)
			off += snprintf(names + off, sizeof(names) - off, "%s%s", i ? ", " : "",
					name(i));
		return parse_error(c, col, "unknown %s '%.40s': expected one of %s%s", key, val,
				   names, any ? ", or any" : "");
	}
	*out = i;
	*has = true;
	return 0;
}

/* One word, NUL-terminated, starting at column col. */
/* The condition: wait>=DURATION or stalled>=DURATION/WINDOW; eq is at its '='. */
static int parse_cond(const struct parse_ctx *c, struct slo_rule *r, char *word, char *eq,
		      size_t col)
{
	size_t klen = (size_t)(eq - 1 - word);
	char *val = eq + 1, *slash;

	if (klen == 4 && !strncmp(word, "wait", 4)) {
		r->kind = SLO_WAIT;
		return parse_dur(c, col + 6, "wait>=", val, &r->limit_ns) ? -EINVAL : 0;
	}
	if (klen != 7 || strncmp(word, "stalled", 7))
		return parse_error(c, col, "unknown condition '%.*s>=': expected wait>= or stalled>=",
				   (int)(klen > 40 ? 40 : klen), word);
	slash = strchr(val, '/');
	if (!slash)
		return parse_error(c, col + 9, "expected stalled>=DURATION/WINDOW, like stalled>=200ms/10s");
	*slash = '\0';
	r->kind = SLO_STALLED;
	if (parse_dur(c, col + 9, "stalled>=", val, &r->limit_ns) ||
	    parse_dur(c, col + 9 + (size_t)(slash + 1 - val), "the window", slash + 1, &r->window_ns))
		return -EINVAL;
	if (r->limit_ns > r->window_ns)
		return parse_error(c, col + 9, "the budget is longer than its window: it could never be broken");
	return 0;
}

/* comm=GLOB, holder_comm=GLOB: into glob (SLO_MAX_GLOB + 1 bytes). */
static int parse_glob(const struct parse_ctx *c, size_t col, const char *key, const char *val,
		      char *glob, bool *has)
{
	if (*has)
		return parse_error(c, col, "%s= given twice", key);
	if (!*val || strlen(val) > SLO_MAX_GLOB)
		return parse_error(c, col, "expected a comm or a glob of 1 to %d bytes", SLO_MAX_GLOB);
	strcpy(glob, val);
	*has = true;
	return 0;
}

/* policy=NAME: a scheduling policy by its name. */
static int parse_policy(const struct parse_ctx *c, struct slo_rule *r, const char *val, size_t col)
{
	size_t i;

	if (r->has_policy)
		return parse_error(c, col, "policy= given twice");
	for (i = 0; i < ARRAY_SIZE(policy_names); i++) {
		if (policy_names[i] && !strcmp(val, policy_names[i]))
			break;
	}
	if (i == ARRAY_SIZE(policy_names))
		return parse_error(c, col, "unknown policy '%.40s': expected normal, batch, idle, fifo, rr or deadline",
				   val);
	r->policy = (unsigned int)i;
	r->has_policy = true;
	return 0;
}

static int parse_word(const struct parse_ctx *c, struct slo_rule *r, char *word, size_t col,
		      bool *has_cond, bool *has_every)
{
	char *eq = strchr(word, '='), *val;
	__u64 v;

	if (!eq || eq == word)
		return parse_error(c, col, "expected key=value or a condition (wait>=DURATION, stalled>=DURATION/WINDOW), got '%.40s'",
				   word);
	val = eq + 1;
	/* "wait>=..." has its '>' before the '=' */
	if (eq[-1] == '>') {
		if (*has_cond)
			return parse_error(c, col, "a second condition: a rule has one (wait>= or stalled>=)");
		if (parse_cond(c, r, word, eq, col))
			return -EINVAL;
		*has_cond = true;
		return 0;
	}
	*eq = '\0';
	col += (size_t)(val - word);
	if (!strcmp(word, "pid")) {
		if (r->has_pid)
			return parse_error(c, col, "pid= given twice");
		if (ls_parse_u64(val, LS_PID_MAX, &v) || !v)
			return parse_error(c, col, "invalid pid '%.40s': expected a process ID from 1 to %u",
					   val, LS_PID_MAX);
		r->pid = (__u32)v;
		r->has_pid = true;
	} else if (!strcmp(word, "comm")) {
		return parse_glob(c, col, word, val, r->comm, &r->has_comm);
	} else if (!strcmp(word, "holder_comm")) {
		return parse_glob(c, col, word, val, r->holder_comm, &r->has_holder_comm);
	} else if (!strcmp(word, "policy")) {
		return parse_policy(c, r, val, col);
	} else if (!strcmp(word, "verdict")) {
		/* any: LS_VERDICT_N, which no stall has; rule__matches() lets it by */
		return parse_name(c, col, word, val, verdict_name, LS_VERDICT_N, true, &r->verdict,
				  &r->has_verdict);
	} else if (!strcmp(word, "every")) {
		if (*has_every)
			return parse_error(c, col, "every= given twice");
		if (parse_dur(c, col, "every=", val, &r->every_ns))
			return -EINVAL;
		*has_every = true;
	} else if (!strcmp(word, "cgroup")) {
		return parse_cgroup(c, word, &r->cgroup, val, col);
	} else if (!strcmp(word, "holder_cgroup")) {
		return parse_cgroup(c, word, &r->holder_cgroup, val, col);
	} else if (!strcmp(word, "cause")) {
		return parse_name(c, col, word, val, cause_name, LS_CAUSE_N, false, &r->cause,
				  &r->has_cause);
	} else if (!strcmp(word, "lock")) {
		return parse_name(c, col, word, val, ls_lock_kind_name, LS_LOCK_KIND_N, false,
				  &r->lock_kind, &r->has_lock);
	} else {
		return parse_error(c, col - strlen(word) - 1, "unknown key '%.40s': expected pid, comm, holder_comm, cgroup, holder_cgroup, policy, verdict, cause, lock, every, wait>= or stalled>=",
				   word);
	}
	return 0;
}

static int rules__push(struct slo_rules *rules, struct slo_rule *r)
{
	struct slo_rule *v;

	if (rules->n >= SLO_MAX_RULES)
		return -E2BIG;
	v = realloc(rules->v, (rules->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	rules->v = v;
	v[rules->n++] = *r;
	return 0;
}

static int parse_line(struct slo_rules *rules, const char *line, size_t len, const char *what,
		      const struct slo_cgroup_check *chk, char *err, size_t err_len)
{
	struct parse_ctx c = { line, len, what, err, err_len, chk };
	struct slo_rule r = { 0 };
	bool has_cond = false, has_every = false;
	size_t i, start, end, text_end = 0;
	char *buf = NULL;
	int rc;

	if (err && err_len)
		err[0] = '\0';
	if (len > SLO_MAX_LINE) {
		c.len = 60;
		return parse_error(&c, SLO_MAX_LINE, "the rule is longer than %d bytes", SLO_MAX_LINE);
	}
	for (i = 0; i < len; i++) {
		unsigned char b = (unsigned char)line[i];

		if (b == '#' && (i == 0 || is_blank(line[i - 1])))
			break;
		if (!b)
			return parse_error(&c, i, "a NUL byte: expected printable ASCII");
		if (!is_blank((char)b) && (b < 0x20 || b >= 0x7f))
			return parse_error(&c, i, "byte 0x%02x: expected printable ASCII (a comm with other bytes is matched as \\xNN)",
					   b);
	}
	len = i;	/* the comment goes */
	for (start = 0; start < len && is_blank(line[start]); start++)
		;
	if (start == len)
		return 0;
	buf = malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, line, len);
	buf[len] = '\0';
	r.verdict = LS_VERDICT_N;
	for (i = start; i < len; i = end) {
		while (i < len && is_blank(buf[i]))
			i++;
		if (i == len)
			break;
		for (end = i; end < len && !is_blank(buf[end]); end++)
			;
		text_end = end;
		buf[end] = '\0';
		rc = parse_word(&c, &r, buf + i, i, &has_cond, &has_every);
		if (rc)
			goto fail;
		if (end < len)
			end++;
	}
	if (!has_cond) {
		rc = parse_error(&c, text_end, "no condition: expected wait>=DURATION or stalled>=DURATION/WINDOW");
		goto fail;
	}
	if (!has_every)
		r.every_ns = r.kind == SLO_STALLED ? r.window_ns : SLO_DEFAULT_EVERY_NS;
	if (r.verdict == LS_VERDICT_N)
		r.has_verdict = false;
	r.text = strndup(line + start, text_end - start);
	if (!r.text) {
		rc = -ENOMEM;
		goto fail;
	}
	rc = rules__push(rules, &r);
	if (rc) {
		free(r.text);
		if (rc == -E2BIG)
			parse_error(&c, 0, "more than %d rules", SLO_MAX_RULES);
	}
fail:
	if (rc) {
		free(r.cgroup.path);
		free(r.holder_cgroup.path);
	}
	free(buf);
	return rc;
}

int slo_rules__parse_line(struct slo_rules *rules, const char *line, size_t len, const char *what,
			  char *err, size_t err_len)
{
	return parse_line(rules, line, len, what, NULL, err, err_len);
}

struct rules_file {
	struct slo_rules got;
	const char *path;
	size_t lineno;
	const struct slo_cgroup_check *chk;
	char *err;
	size_t err_len;
};

static int rules_file__line(void *ctx, char *line, size_t n)
{
	struct rules_file *rf = ctx;
	char what[300];

	rf->lineno++;
	/* the line's end is no part of the rule (nor of its quote in an error) */
	if (n && line[n - 1] == '\r')
		n--;
	snprintf(what, sizeof(what), "%s:%zu", rf->path, rf->lineno);
	return parse_line(&rf->got, line, n, what, rf->chk, rf->err, rf->err_len);
}

static int parse_file(struct slo_rules *rules, const char *path,
		      const struct slo_cgroup_check *chk, char *err, size_t err_len)
{
	struct rules_file rf = { .path = path, .chk = chk, .err = err, .err_len = err_len };
	int rc;

	rc = ls_read_lines(path, SLO_MAX_FILE, rules_file__line, &rf, err, err_len);
	if (!rc) {
		rc = slo_rules__append(rules, &rf.got);
		if (rc == -E2BIG)
			snprintf(err, err_len, "%s: more than %d rules", path, SLO_MAX_RULES);
	}
	slo_rules__free(&rf.got);
	return rc;
}

int slo_rules__parse_file(struct slo_rules *rules, const char *path, char *err, size_t err_len)
{
	return parse_file(rules, path, NULL, err, err_len);
}

int slo_rules__read(struct slo_rules *rules, const char *const lines[], size_t n,
		    const char *file, const struct slo_cgroup_check *chk, char *err,
		    size_t err_len)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < n && !rc; i++)
		rc = parse_line(rules, lines[i], strlen(lines[i]), "--slo", chk, err, err_len);
	if (!rc && file)
		rc = parse_file(rules, file, chk, err, err_len);
	if (rc == -ENOMEM)
		snprintf(err, err_len, "cannot read the rules: %s", strerror(ENOMEM));
	if (rc)
		slo_rules__free(rules);
	return rc;
}

int slo_rules__append(struct slo_rules *dst, struct slo_rules *src)
{
	struct slo_rule *v;

	if (!src->n)
		return 0;
	if (dst->n + src->n > SLO_MAX_RULES)
		return -E2BIG;
	v = realloc(dst->v, (dst->n + src->n) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memcpy(v + dst->n, src->v, src->n * sizeof(*v));
	dst->v = v;
	dst->n += src->n;
	free(src->v);
	src->v = NULL;
	src->n = 0;
	return 0;
}

void slo_rules__free(struct slo_rules *rules)
{
	size_t i;

	for (i = 0; i < rules->n; i++) {
		free(rules->v[i].text);
		free(rules->v[i].cgroup.path);
		free(rules->v[i].holder_cgroup.path);
	}
	free(rules->v);
	rules->v = NULL;
	rules->n = 0;
}
