// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * See metrics_http.h.  A connection goes READ (until the blank line that
 * ends the headers) -> WRITE (the whole response, rendered at once) ->
 * DRAIN (our side shut, what the client still sends is read and dropped
 * until its end of file: closing with unread bytes would send a reset,
 * which can destroy the response before the client has read it) -> closed.
 * The deadline set at accept covers all three.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>
#include "alert/metrics_http.h"
#include "util.h"

#define LISTEN_BACKLOG	16
#define LISTEN_TAG	UINT32_MAX	/* epoll data of the listening socket */
#define ADDR_TEXT_LEN	(INET6_ADDRSTRLEN + 8)

enum client_state {
	CLIENT_FREE = 0,
	CLIENT_READ,
	CLIENT_WRITE,
	CLIENT_DRAIN,
};

struct http_client {
	enum client_state state;
	int fd;
	__u64 deadline;
	size_t req_len;
	char *req;		/* max_request bytes, allocated once */
	char *resp;		/* the whole response, while writing */
	size_t resp_len, resp_off;
};

struct metrics_http {
	int lfd, epfd;
	unsigned int max_clients;
	size_t max_request;
	__u64 timeout_ns;
	__u64 grace_ns;
	metrics_http_render_fn render;
	void *ctx;
	struct metrics_http_stats stats;
	char addr[ADDR_TEXT_LEN];
	struct http_client *clients;
};

static int parse_port(const char *s, in_port_t *port)
{
	__u64 v;

	if (!*s || ls_parse_u64(s, 65535, &v))
		return -EINVAL;
	*port = htons((in_port_t)v);
	return 0;
}

int metrics_http__parse_addr(const char *s, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	char host[INET6_ADDRSTRLEN];
	const char *colon, *port;
	size_t hlen;

	memset(ss, 0, sizeof(*ss));
	if (!s || !*s)
		return -EINVAL;
	if (s[0] == '[') {
		const char *end = strchr(s, ']');

		if (!end || end[1] != ':')
			return -EINVAL;
		hlen = (size_t)(end - s - 1);
		if (!hlen || hlen >= sizeof(host))
			return -EINVAL;
		memcpy(host, s + 1, hlen);
		host[hlen] = '\0';
		in6->sin6_family = AF_INET6;
		if (inet_pton(AF_INET6, host, &in6->sin6_addr) != 1 ||
		    parse_port(end + 2, &in6->sin6_port))
			return -EINVAL;
		*len = sizeof(*in6);
		return 0;
	}
	colon = strrchr(s, ':');
	port = colon ? colon + 1 : s;
	hlen = colon ? (size_t)(colon - s) : 0;
	if (hlen >= sizeof(host))
		return -EINVAL;
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	in4->sin_family = AF_INET;
	/* a bare port is loopback: every interface must be asked for */
	if (!hlen || !strcmp(host, "localhost"))
		in4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	else if (inet_pton(AF_INET, host, &in4->sin_addr) != 1)
		return -EINVAL;
	if (parse_port(port, &in4->sin_port))
		return -EINVAL;
	*len = sizeof(*in4);
	return 0;
}

static void addr__text(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		snprintf(buf, len, "[%s]:%u", host, ntohs(in6->sin6_port));
	} else {
		const struct sockaddr_in *in4 = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &in4->sin_addr, host, sizeof(host));
		snprintf(buf, len, "%s:%u", host, ntohs(in4->sin_port));
	}
}

int metrics_http__new(struct metrics_http **out, const struct metrics_http_opts *o)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = LISTEN_TAG };
	struct sockaddr_storage ss;
	struct metrics_http *h;
	socklen_t len;
	unsigned int i;
	int one = 1, err;

	*out = NULL;
	err = metrics_http__parse_addr(o->addr, &ss, &len);
	if (err)
		return err;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->lfd = h->epfd = -1;
	h->max_clients = o->max_clients ? o->max_clients : METRICS_HTTP_MAX_CLIENTS;
	h->max_request = o->max_request ? o->max_request : METRICS_HTTP_MAX_REQUEST;
	h->timeout_ns = o->timeout_ns ? o->timeout_ns : METRICS_HTTP_TIMEOUT_NS;
	h->grace_ns = o->grace_ns ? o->grace_ns : METRICS_HTTP_GRACE_NS;
	h->render = o->render;
	h->ctx = o->ctx;
	h->clients = calloc(h->max_clients, sizeof(*h->clients));
	if (!h->clients)
		goto nomem;
	for (i = 0; i < h->max_clients; i++) {
		h->clients[i].fd = -1;
		h->clients[i].req = malloc(h->max_request);
		if (!h->clients[i].req)
			goto nomem;
	}
	h->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (h->lfd < 0)
		goto fail;
	/* a restart must not wait for the old connections' TIME_WAIT */
	setsockopt(h->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(h->lfd, (struct sockaddr *)&ss, len) || listen(h->lfd, LISTEN_BACKLOG))
		goto fail;
	len = sizeof(ss);
	if (getsockname(h->lfd, (struct sockaddr *)&ss, &len))
		goto fail;
	addr__text(&ss, h->addr, sizeof(h->addr));
	h->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (h->epfd < 0 || epoll_ctl(h->epfd, EPOLL_CTL_ADD, h->lfd, &ev))
		goto fail;
	*out = h;
	return 0;
nomem:
	metrics_http__free(h);
	return -ENOMEM;
fail:
	err = -errno;
	metrics_http__free(h);
	return err;
}

int metrics_http__fd(const struct metrics_http *h)
{
	return h->epfd;
}

const char *metrics_http__addr(const struct metrics_http *h)
{
	return h->addr;
}

void metrics_http__stats(const struct metrics_http *h, struct metrics_http_stats *out)
{
	*out = h->stats;
}

static void client__close(struct metrics_http *h, struct http_client *c)
{
	epoll_ctl(h->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c->resp);
	c->resp = NULL;
	c->fd = -1;
	c->req_len = c->resp_len = c->resp_off = 0;
	c->state = CLIENT_FREE;
}

static void client__want(struct metrics_http *h, struct http_client *c, __u32 events)
{
	struct epoll_event ev = { .events = events, .data.u32 = (__u32)(c - h->clients) };

	epoll_ctl(h->epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

/*
 * All slots taken: the slot of the client that has waited longest without
 * a whole request, if it had its grace time to send one (a real scraper
 * sends it at once), so that idle and slow clients cannot keep a scrape
 * out.  Clients being answered are never cut off.  NULL: none to evict.
 */
static struct http_client *http__evict(struct metrics_http *h, __u64 now)
{
	struct http_client *old = NULL;
	unsigned int i;

	for (i = 0; i < h->max_clients; i++) {
		struct http_client *c = &h->clients[i];

		if (c->state == CLIENT_READ && c->deadline - h->timeout_ns + h->grace_ns <= now &&
		    (!old || c->deadline < old->deadline))
			old = c;
	}
	if (!old)
		return NULL;
	client__close(h, old);
	h->stats.evicted++;
	return old;
}

static void http__accept(struct metrics_http *h, __u64 now)
{
	unsigned int i;
	int fd;

	for (;;) {
		struct epoll_event ev = { .events = EPOLLIN };
		struct http_client *c = NULL;

		fd = accept4(h->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			/* EAGAIN: all taken; anything else is retried next time */
			return;
		}
		for (i = 0; i < h->max_clients && !c; i++) {
			if (h->clients[i].state == CLIENT_FREE)
				c = &h->clients[i];
		}
		if (!c)
			c = http__evict(h, now);
		ev.data.u32 = c ? (__u32)(c - h->clients) : 0;
		if (!c || epoll_ctl(h->epfd, EPOLL_CTL_ADD, fd, &ev)) {
			/* full: closing at once keeps the backlog moving */
			close(fd);
			h->stats.refused++;
			continue;
		}
		c->fd = fd;
		c->state = CLIENT_READ;
		c->deadline = now + h->timeout_ns;
		c->req_len = 0;
	}
}

/* Send what fits; done: shut our side and wait for the client's end. */
static void client__write(struct metrics_http *h, struct http_client *c)
{
	ssize_t n;

	while (c->resp_off < c->resp_len) {
		n = send(c->fd, c->resp + c->resp_off, c->resp_len - c->resp_off,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			client__want(h, c, EPOLLOUT);
			return;
		}
		if (n <= 0) {
			client__close(h, c);
			return;
		}
		c->resp_off += (size_t)n;
	}
	free(c->resp);
	c->resp = NULL;
	shutdown(c->fd, SHUT_WR);
	c->state = CLIENT_DRAIN;
	client__want(h, c, EPOLLIN);
}

static const char *status_text(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 431:
		return "Request Header Fields Too Large";
	default:
		return "Internal Server Error";
	}
}

/* The response, whole, into c->resp; then write what fits. */
static void client__respond(struct metrics_http *h, struct http_client *c, int status, bool head)
{
	char *body = NULL;
	size_t body_len = 0;
	FILE *f;

	if (status == 200) {
		bool ok = false;

		f = open_memstream(&body, &body_len);
		if (f) {
			ok = !h->render(h->ctx, f);
			ok = !fclose(f) && ok;
		}
		if (!ok) {
			free(body);
			body = NULL;
			status = 500;
		}
	}
	if (status != 200) {
		body_len = (size_t)asprintf(&body, "%d %s\n", status, status_text(status));
		if (!body || body_len == (size_t)-1) {
			client__close(h, c);
			return;
		}
	}
	f = open_memstream(&c->resp, &c->resp_len);
	if (!f) {
		free(body);
		client__close(h, c);
		return;
	}
	fprintf(f, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
		   "Connection: close\r\n",
		status, status_text(status),
		status == 200 ? METRICS_HTTP_CONTENT_TYPE : "text/plain; charset=utf-8", body_len);
	if (status == 405)
		fputs("Allow: GET, HEAD\r\n", f);
	fputs("\r\n", f);
	if (!head)
		fwrite(body, 1, body_len, f);
	free(body);
	if (fclose(f)) {
		client__close(h, c);
		return;
	}
	if (status == 200)
		h->stats.scrapes++;
	else
		h->stats.errors++;
	c->resp_off = 0;
	c->state = CLIENT_WRITE;
	client__write(h, c);
}

/* A token of A-Z only, like every method we could be sent. */
static bool http__is_method(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (s[i] < 'A' || s[i] > 'Z')
			return false;
	}
	return len > 0;
}

/*
 * The status for a request whose headers are complete: only the request
 * line matters ("METHOD TARGET HTTP/1.x").  *head: a HEAD request.
 */
static int http__route(const char *req, size_t len, bool *head)
{
	const char *eol = memchr(req, '\n', len), *sp1, *sp2, *target;
	size_t line, mlen, tlen;

	*head = false;
	if (!eol || memchr(req, '\0', len))
		return 400;
	line = (size_t)(eol - req);
	if (line && req[line - 1] == '\r')
		line--;
	sp1 = memchr(req, ' ', line);
	if (!sp1)
		return 400;
	target = sp1 + 1;
	sp2 = memchr(target, ' ', line - (size_t)(target - req));
	if (!sp2)
		return 400;
	mlen = (size_t)(sp1 - req);
	tlen = (size_t)(sp2 - target);
	if (!http__is_method(req, mlen) || !tlen ||
	    line - (size_t)(sp2 + 1 - req) != 8 || strncmp(sp2 + 1, "HTTP/1.", 7) ||
	    memchr(target, ' ', tlen))
		return 400;
	if (!(mlen == 3 && !memcmp(req, "GET", 3)) && !(mlen == 4 && !memcmp(req, "HEAD", 4)))
		return 405;
	*head = mlen == 4;
	/* a query string changes nothing */
	if ((tlen == 8 || (tlen > 8 && target[8] == '?')) && !memcmp(target, "/metrics", 8))
		return 200;
	return 404;
}

/* The headers end at the first empty line: "\r\n\r\n" (or bare "\n\n"). */
static bool http__complete(const char *req, size_t len)
{
	size_t i;

	for (i = 1; i < len; i++) {
		if (req[i] != '\n')
			continue;
		if (req[i - 1] == '\n' || (i >= 2 && req[i - 1] == '\r' && req[i - 2] == '\n'))
			return true;
	}
	return false;
}

static void client__read(struct metrics_http *h, struct http_client *c)
{
	char drop[512];
	bool head = false;
	ssize_t n;

	for (;;) {
		if (c->state == CLIENT_DRAIN)
			n = recv(c->fd, drop, sizeof(drop), MSG_DONTWAIT);
		else
			n = recv(c->fd, c->req + c->req_len, h->max_request - c->req_len,
				 MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			/* end of file or an error: a half request gets no answer */
			client__close(h, c);
			return;
		}
		if (c->state == CLIENT_DRAIN)
			continue;
		c->req_len += (size_t)n;
		if (http__complete(c->req, c->req_len)) {
			int status = http__route(c->req, c->req_len, &head);

			client__respond(h, c, status, head);
			return;
		}
		if (c->req_len == h->max_request) {
			client__respond(h, c, 431, false);
			return;
		}
	}
}

void metrics_http__service(struct metrics_http *h, __u64 now)
{
	struct epoll_event evs[METRICS_HTTP_MAX_CLIENTS + 1];
	unsigned int i;
	int n, k;

	bool listen = false;

	n = epoll_wait(h->epfd, evs, (int)ARRAY_SIZE(evs), 0);
	for (k = 0; k < n; k++) {
		struct http_client *c;

		if (evs[k].data.u32 == LISTEN_TAG) {
			listen = true;
			continue;
		}
		if (evs[k].data.u32 >= h->max_clients)
			continue;
		c = &h->clients[evs[k].data.u32];
		if (c->state == CLIENT_WRITE)
			client__write(h, c);
		else if (c->state == CLIENT_READ || c->state == CLIENT_DRAIN)
			client__read(h, c);
	}
	/* after the clients: what they sent is read before one of them may be evicted */
	if (listen)
		http__accept(h, now);
	for (i = 0; i < h->max_clients; i++) {
		struct http_client *c = &h->clients[i];

		if (c->state != CLIENT_FREE && now >= c->deadline) {
			client__close(h, c);
			h->stats.timeouts++;
		}
	}
}

void metrics_http__close_fds(const struct metrics_http *h)
{
	unsigned int i;

	for (i = 0; i < h->max_clients; i++) {
		if (h->clients[i].state != CLIENT_FREE)
			close(h->clients[i].fd);
	}
	close(h->epfd);
	close(h->lfd);
}

void metrics_http__free(struct metrics_http *h)
{
	unsigned int i;

	if (!h)
		return;
	for (i = 0; h->clients && i < h->max_clients; i++) {
		if (h->clients[i].state != CLIENT_FREE)
			client__close(h, &h->clients[i]);
		free(h->clients[i].req);
	}
	free(h->clients);
	if (h->epfd >= 0)
		close(h->epfd);
	if (h->lfd >= 0)
		close(h->lfd);
	free(h);
}
