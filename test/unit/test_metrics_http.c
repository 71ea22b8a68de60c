// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * src/alert/metrics_http.c over real sockets on 127.0.0.1, server and clients in
 * this one thread: the client side waits in short polls and lets the server
 * do its part in between (http_get.h).  Every wait is for an event (data,
 * end of file), with a deadline that only turns a hang into a failure.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "alert/metrics_http.h"
#include "util.h"
#include "lib/http_get.h"

#define DEADLINE_MS 10000
#define BODY "# HELP x_total A test.\n# TYPE x_total counter\nx_total 42\n"

struct server {
	struct metrics_http *h;
	int renders;
	int fail;		/* render returns this */
};

static int render(void *ctx, FILE *f)
{
	struct server *s = ctx;

	s->renders++;
	fputs(BODY, f);
	return s->fail;
}

static void step(void *ctx)
{
	struct server *s = ctx;

	metrics_http__service(s->h, ls_now_ns());
}

static void server__start(struct server *s, const struct metrics_http_opts *extra)
{
	struct metrics_http_opts o = { .addr = "127.0.0.1:0", .render = render, .ctx = s };
	int rc;

	if (extra) {
		o.max_clients = extra->max_clients;
		o.max_request = extra->max_request;
		o.timeout_ns = extra->timeout_ns;
		o.grace_ns = extra->grace_ns;
	}
	memset(s, 0, sizeof(*s));
	rc = metrics_http__new(&s->h, &o);
	cr_assert_eq(rc, 0, "metrics_http__new: %s", strerror(-rc));
	cr_assert(!strncmp(metrics_http__addr(s->h), "127.0.0.1:", 10), "%s",
		  metrics_http__addr(s->h));
	cr_assert_neq(strcmp(metrics_http__addr(s->h), "127.0.0.1:0"), 0, "the real port is told");
}

/* One request, its whole response. */
static void exchange(struct server *s, const char *req, size_t len, struct http_resp *r)
{
	int fd = http_get__connect(metrics_http__addr(s->h)), rc;

	cr_assert_geq(fd, 0, "connect: %s", strerror(-fd));
	cr_assert_eq(http_get__send(fd, req, len), 0);
	rc = http_get__read(fd, r, DEADLINE_MS, step, s);
	cr_assert_eq(rc, 0, "no end of the response; so far: %s", r->data);
	close(fd);
}

static void get(struct server *s, const char *req, struct http_resp *r)
{
	exchange(s, req, strlen(req), r);
}

Test(metrics_http, get_metrics)
{
	struct server s;
	struct http_resp r;
	char v[128];

	server__start(&s, NULL);
	get(&s, "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n", &r);
	cr_assert_eq(r.status, 200, "%s", r.data);
	cr_assert(http_get__header(&r, "Content-Type", v, sizeof(v)));
	cr_assert_str_eq(v, "text/plain; version=0.0.4; charset=utf-8");
	cr_assert(http_get__header(&r, "Content-Length", v, sizeof(v)));
	cr_assert_eq(atoi(v), (int)strlen(BODY));
	cr_assert_str_eq(r.body, BODY);
	http_resp__free(&r);

	/* bare newlines, HTTP/1.0 and a query string are all fine */
	get(&s, "GET /metrics?x=1 HTTP/1.0\n\n", &r);
	cr_assert_eq(r.status, 200, "%s", r.data);
	http_resp__free(&r);

	/* HEAD: the headers of a GET, no body */
	get(&s, "HEAD /metrics HTTP/1.1\r\n\r\n", &r);
	cr_assert_eq(r.status, 200);
	cr_assert_str_eq(r.body, "");
	http_resp__free(&r);

	cr_assert_eq(s.renders, 3);
	metrics_http__free(s.h);
}

Test(metrics_http, not_found_and_not_allowed)
{
	struct metrics_http_stats st;
	struct server s;
	struct http_resp r;
	char v[64];

	server__start(&s, NULL);
	get(&s, "GET / HTTP/1.1\r\n\r\n", &r);
	cr_assert_eq(r.status, 404);
	http_resp__free(&r);
	get(&s, "GET /metricsx HTTP/1.1\r\n\r\n", &r);
	cr_assert_eq(r.status, 404);
	http_resp__free(&r);
	get(&s, "POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc", &r);
	cr_assert_eq(r.status, 405);
	cr_assert(http_get__header(&r, "Allow", v, sizeof(v)));
	cr_assert_str_eq(v, "GET, HEAD");
	http_resp__free(&r);
	cr_assert_eq(s.renders, 0, "only a scrape renders");
	metrics_http__stats(s.h, &st);
	cr_assert_eq(st.errors, 3);
	cr_assert_eq(st.scrapes, 0);
	metrics_http__free(s.h);
}

Test(metrics_http, garbage_is_a_bad_request)
{
	static const char *const bad[] = {
		"\r\n\r\n",
		"GET\r\n\r\n",
		"GET /metrics\r\n\r\n",
		"GET /metrics HTTP/2.0\r\n\r\n",
		"GET  /metrics HTTP/1.1\r\n\r\n",
		"get /metrics HTTP/1.1\r\n\r\n",
		"\x16\x03\x01\x02\x01\x01\x01\x01\xfc\x03\x03\n\n",	/* a TLS hello, roughly */
	};
	static const char nul[] = "GET /metrics\0 HTTP/1.1\r\n\r\n";
	struct server s;
	struct http_resp r;
	size_t i;

	server__start(&s, NULL);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		get(&s, bad[i], &r);
		cr_assert_eq(r.status, 400, "request %zu: %s", i, r.data);
		http_resp__free(&r);
	}
	exchange(&s, nul, sizeof(nul) - 1, &r);
	cr_assert_eq(r.status, 400, "a NUL in the request");
	http_resp__free(&r);
	cr_assert_eq(s.renders, 0);
	metrics_http__free(s.h);
}

/* Headers past the cap: 431, and the server is none the worse. */
Test(metrics_http, huge_headers)
{
	const struct metrics_http_opts o = { .max_request = 1024 };
	struct server s;
	struct http_resp r;
	char *req = malloc(64 * 1024);
	size_t n;

	cr_assert_not_null(req);
	n = (size_t)sprintf(req, "GET /metrics HTTP/1.1\r\nX-Big: ");
	memset(req + n, 'a', 64 * 1024 - n - 5);
	memcpy(req + 64 * 1024 - 5, "\r\n\r\n", 5);
	server__start(&s, &o);
	/* more than the socket buffers hold unread: the server must read and answer */
	exchange(&s, req, 64 * 1024 - 1, &r);
	cr_assert_eq(r.status, 431, "%s", r.data);
	http_resp__free(&r);
	get(&s, "GET /metrics HTTP/1.1\r\n\r\n", &r);
	cr_assert_eq(r.status, 200);
	http_resp__free(&r);
	free(req);
	metrics_http__free(s.h);
}

Test(metrics_http, render_failure_is_500)
{
	struct server s;
	struct http_resp r;

	server__start(&s, NULL);
	s.fail = -EIO;
	get(&s, "GET /metrics HTTP/1.1\r\n\r\n", &r);
	cr_assert_eq(r.status, 500);
	http_resp__free(&r);
	metrics_http__free(s.h);
}

/*
 * Slowloris: clients that send half a request and wait hold a slot each
 * until their deadline, never the loop.  With every slot taken, a new
 * client is closed at once; each half-open one is closed at its deadline,
 * and then scrapes are served again.
 */
Test(metrics_http, slow_and_half_open_clients)
{
	const struct metrics_http_opts o = { .max_clients = 2, .timeout_ns = 200 * NSEC_PER_MSEC };
	struct metrics_http_stats st;
	struct server s;
	struct http_resp r;
	int slow[2], fd, i;

	server__start(&s, &o);
	for (i = 0; i < 2; i++) {
		slow[i] = http_get__connect(metrics_http__addr(s.h));
		cr_assert_geq(slow[i], 0);
		cr_assert_eq(http_get__send(slow[i], "GET /metr", 9), 0);
	}
	/* one half-closes its side too: no request will ever complete */
	shutdown(slow[1], SHUT_WR);
	fd = http_get__connect(metrics_http__addr(s.h));
	cr_assert_geq(fd, 0);
	cr_assert_eq(http_get__send(fd, "GET /metrics HTTP/1.1\r\n\r\n", 25), 0);
	/* refused while the slow ones hold both slots: closed, no answer */
	cr_assert_eq(http_get__read(fd, &r, DEADLINE_MS, step, &s), 0);
	metrics_http__stats(s.h, &st);
	if (r.len == 0) {
		cr_assert_eq(st.refused, 1);
	} else {
		/* the half-closed one was seen to end first: its slot went to us */
		cr_assert_eq(r.status, 200, "%s", r.data);
	}
	http_resp__free(&r);
	close(fd);
	/* the slow one is closed by the server at its deadline: end of file here */
	cr_assert_eq(http_get__read(slow[0], &r, DEADLINE_MS, step, &s), 0, "slow client never closed");
	cr_assert_eq(r.len, 0, "a half request got an answer: %s", r.data);
	http_resp__free(&r);
	metrics_http__stats(s.h, &st);
	cr_assert_geq(st.timeouts, 1);
	get(&s, "GET /metrics HTTP/1.1\r\n\r\n", &r);
	cr_assert_eq(r.status, 200);
	http_resp__free(&r);
	close(slow[0]);
	close(slow[1]);
	metrics_http__free(s.h);
}

Test(metrics_http, addresses)
{
	static const char *const good[] = {
		"127.0.0.1:9464", ":9464", "9464", "localhost:9464", "0.0.0.0:9464",
		"[::]:9464", "[::1]:1", "10.1.2.3:65535", ":0",
	};
	static const char *const bad[] = {
		"", ":", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", "::1:9464",
		"[::1]9464", "[::1]:", "[]:1", "example.com:9464", "1.2.3:9464", "127.0.0.1:94x",
		"127.0.0.1: 9464",
	};
	struct sockaddr_storage ss;
	socklen_t len;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good); i++)
		cr_assert_eq(metrics_http__parse_addr(good[i], &ss, &len), 0, "%s", good[i]);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		cr_assert_eq(metrics_http__parse_addr(bad[i], &ss, &len), -EINVAL, "%s", bad[i]);
	/* a bare port is loopback */
	cr_assert_eq(metrics_http__parse_addr(":9464", &ss, &len), 0);
	cr_assert_eq(ss.ss_family, AF_INET);
	cr_assert_eq(((struct sockaddr_in *)&ss)->sin_addr.s_addr, htonl(INADDR_LOOPBACK));
	cr_assert_eq(ntohs(((struct sockaddr_in *)&ss)->sin_port), 9464);
}

Test(metrics_http, address_in_use)
{
	struct metrics_http_opts o = { .render = render };
	struct server s;
	struct metrics_http *h2;

	server__start(&s, NULL);
	o.addr = metrics_http__addr(s.h);
	cr_assert_eq(metrics_http__new(&h2, &o), -EADDRINUSE);
	cr_assert_null(h2);
	metrics_http__free(s.h);
}

/*
 * Clients that send a byte now and then and idle ones must not keep a real
 * scrape out until their deadlines.  With deadlines far away (they do not
 * come to the rescue here), the scrape is served: the oldest client
 * without a whole request gives up its slot.
 */
Test(hostile, metrics_scrape_gets_past_slow_and_idle_clients, .timeout = 60)
{
	const struct metrics_http_opts o = { .timeout_ns = 3600 * NSEC_PER_SEC, .grace_ns = 1 };
	static int fds[8 + 500];
	struct metrics_http_stats st;
	struct server s;
	struct http_resp r;
	size_t i;

	server__start(&s, &o);
	for (i = 0; i < ARRAY_SIZE(fds); i++) {
		fds[i] = http_get__connect(metrics_http__addr(s.h));
		cr_assert_geq(fds[i], 0, "connect %zu: %s", i, strerror(-fds[i]));
		/* the first 8 are slow: a byte of a request, never the rest */
		if (i < 8)
			cr_assert_eq(http_get__send(fds[i], "G", 1), 0);
		step(&s);
	}
	get(&s, "GET /metrics HTTP/1.1\r\n\r\n", &r);
	cr_assert_eq(r.status, 200, "the scrape was kept out: %s", r.data ? r.data : "(closed)");
	metrics_http__stats(s.h, &st);
	cr_assert_gt(st.evicted, 0);
	http_resp__free(&r);
	for (i = 0; i < ARRAY_SIZE(fds); i++)
		close(fds[i]);
	metrics_http__free(s.h);
}
