/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A minimal HTTP client for the tests of --metrics-listen: connect, send
 * exactly the bytes given (hostile requests included), read the response
 * to the server's end of file.  The server may run in the same thread (the
 * unit tests): step() is called between waits so it can do its part.
 */
#ifndef LOCKSTALL_TEST_HTTP_GET_H
#define LOCKSTALL_TEST_HTTP_GET_H

#include <stdbool.h>
#include <stddef.h>

struct http_resp {
	char *data;		/* the whole response, NUL-terminated */
	size_t len;
	int status;		/* from the status line; 0: none */
	const char *body;	/* after the blank line, or NULL */
};

/* A TCP connection to "ADDR:PORT" (IPv4): an fd, or -errno. */
int http_get__connect(const char *addr);
/* Write all of buf (blocking).  0 or -errno. */
int http_get__send(int fd, const char *buf, size_t len);
/*
 * Read until the server closes (end of file or reset) or timeout_ms;
 * step(ctx) runs before each wait (may be NULL).  0, or -ETIMEDOUT with
 * what came so far in r.  Parses the status line; closes nothing.
 */
int http_get__read(int fd, struct http_resp *r, int timeout_ms, void (*step)(void *ctx),
		   void *ctx);
/* The value of header name (case-insensitive) in r, into buf; false if none. */
bool http_get__header(const struct http_resp *r, const char *name, char *buf, size_t len);
void http_resp__free(struct http_resp *r);

#endif /* LOCKSTALL_TEST_HTTP_GET_H */
