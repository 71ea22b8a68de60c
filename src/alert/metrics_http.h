/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * watch --metrics-listen: a tiny HTTP/1.x server for GET /metrics, run from
 * the tracing loop.  No thread: the listening socket and every client sit
 * in one epoll fd, which the loop polls next to the ring buffer; each call
 * to metrics_http__service() does only what needs no waiting (accept, read
 * what came, write what fits) and returns.
 *
 * Bounded whatever the clients do: at most max_clients connections (when
 * all are taken, the oldest one still without a whole request after its
 * grace time is closed for the newcomer, so idle or slow clients cannot
 * keep a scrape out; else the newcomer is closed at once, so the backlog
 * never fills), a request
 * of at most max_request bytes (beyond: 431), and one deadline per
 * connection from its accept (a slow or silent client is closed at it).
 * Responses are "Connection: close": one request per connection.
 *
 *	GET|HEAD /metrics	200, the render callback's text (0.0.4)
 *	other paths		404
 *	other methods		405 (Allow: GET, HEAD)
 *	anything unparsable	400
 */
#ifndef LOCKSTALL_METRICS_HTTP_H
#define LOCKSTALL_METRICS_HTTP_H

#include <stdio.h>
#include <sys/socket.h>
#include <linux/types.h>

#define METRICS_HTTP_MAX_CLIENTS	8
#define METRICS_HTTP_MAX_REQUEST	8192		/* request line and headers */
#define METRICS_HTTP_TIMEOUT_NS		(5 * 1000000000ULL)	/* accept to last byte sent */
#define METRICS_HTTP_GRACE_NS		(100 * 1000000ULL)	/* to send a request, safe from eviction */
#define METRICS_HTTP_CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"

/*
 * The text of one scrape, written to f; 0 or a negative errno (the client
 * gets a 500).
 */
typedef int (*metrics_http_render_fn)(void *ctx, FILE *f);

struct metrics_http_opts {
	const char *addr;	/* as metrics_http__parse_addr() takes it */
	unsigned int max_clients;	/* 0: METRICS_HTTP_MAX_CLIENTS */
	size_t max_request;	/* 0: METRICS_HTTP_MAX_REQUEST */
	__u64 timeout_ns;	/* 0: METRICS_HTTP_TIMEOUT_NS */
	__u64 grace_ns;		/* 0: METRICS_HTTP_GRACE_NS */
	metrics_http_render_fn render;
	void *ctx;
};

struct metrics_http_stats {
	__u64 scrapes;		/* 200 responses */
	__u64 errors;		/* 4xx and 5xx responses */
	__u64 refused;		/* closed at once: max_clients connections open */
	__u64 timeouts;		/* closed at their deadline */
	__u64 evicted;		/* closed without a whole request, for a newcomer */
};

struct metrics_http;

/*
 * "ADDR:PORT" into a socket address: "127.0.0.1:9464", "[::1]:9464",
 * "0.0.0.0:9464", "[::]:9464"; a bare ":9464" or "9464" is loopback
 * (127.0.0.1): listening on every interface must be asked for.  Numeric
 * addresses only (no name lookups); port 0 picks a free port.  0 or -EINVAL.
 */
int metrics_http__parse_addr(const char *s, struct sockaddr_storage *ss, socklen_t *len);

/*
 * Bind and listen (non-blocking, close-on-exec).  0 or a negative errno
 * (-EADDRINUSE, -EACCES, -EADDRNOTAVAIL...); prints nothing.
 */
int metrics_http__new(struct metrics_http **out, const struct metrics_http_opts *opts);
/* The fd to poll for POLLIN: ready when service has work. */
int metrics_http__fd(const struct metrics_http *h);
/* The address bound, as "ADDR:PORT" (the real port when 0 was asked). */
const char *metrics_http__addr(const struct metrics_http *h);
/* Do what can be done now without waiting; now is CLOCK_MONOTONIC ns. */
void metrics_http__service(struct metrics_http *h, __u64 now);
void metrics_http__stats(const struct metrics_http *h, struct metrics_http_stats *out);
void metrics_http__free(struct metrics_http *h);
/*
 * In a child of fork(): close every fd, touching neither the epoll set
 * (which the parent shares) nor the memory.  Else a client's connection
 * would stay open, its response unended, until the child exits.
 */
void metrics_http__close_fds(const struct metrics_http *h);

#endif /* LOCKSTALL_METRICS_HTTP_H */
