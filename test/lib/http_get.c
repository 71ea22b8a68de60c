// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* See http_get.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "lib/http_get.h"

#define STEP_MS 10

int http_get__connect(const char *addr)
{
	struct sockaddr_in in = { .sin_family = AF_INET };
	const char *colon = strrchr(addr, ':');
	char host[64];
	int fd;

	if (!colon || (size_t)(colon - addr) >= sizeof(host))
		return -EINVAL;
	memcpy(host, addr, (size_t)(colon - addr));
	host[colon - addr] = '\0';
	if (inet_pton(AF_INET, host, &in.sin_addr) != 1)
		return -EINVAL;
	in.sin_port = htons((unsigned short)atoi(colon + 1));
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* a listening socket's backlog completes this without the server's help */
	if (connect(fd, (struct sockaddr *)&in, sizeof(in))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

int http_get__send(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void resp__parse(struct http_resp *r)
{
	const char *end;

	r->status = 0;
	r->body = NULL;
	if (r->data && !strncmp(r->data, "HTTP/1.", 7) && r->len > 12)
		r->status = atoi(r->data + 9);
	end = r->data ? strstr(r->data, "\r\n\r\n") : NULL;
	if (end)
		r->body = end + 4;
}

int http_get__read(int fd, struct http_resp *r, int timeout_ms, void (*step)(void *ctx),
		   void *ctx)
{
	long long deadline = mono_ms() + timeout_ms;
	char buf[4096];
	FILE *m;
	int rc = -ETIMEDOUT;

	memset(r, 0, sizeof(*r));
	m = open_memstream(&r->data, &r->len);
	if (!m)
		return -ENOMEM;
	while (mono_ms() < deadline) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (step)
			step(ctx);
		if (poll(&p, 1, step ? STEP_MS : (int)(deadline - mono_ms())) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0) {
			rc = 0;
			break;
		}
		fwrite(buf, 1, (size_t)n, m);
	}
	fclose(m);
	resp__parse(r);
	return rc;
}

bool http_get__header(const struct http_resp *r, const char *name, char *buf, size_t len)
{
	const char *p = r->data, *end = r->body;
	size_t n = strlen(name);

	while (p && end && p < end) {
		const char *eol = strstr(p, "\r\n");

		if (!eol)
			break;
		if (!strncasecmp(p, name, n) && p[n] == ':') {
			const char *v = p + n + 1;

			while (*v == ' ')
				v++;
			snprintf(buf, len, "%.*s", (int)(eol - v), v);
			return true;
		}
		p = eol + 2;
	}
	return false;
}

void http_resp__free(struct http_resp *r)
{
	free(r->data);
	memset(r, 0, sizeof(*r));
}
