/* esc_net.h — network helpers for the escape corpus (loopback targets only; the runner's listener
 * answers every TCP connection with a banner line and echoes every UDP datagram). */
#ifndef ESC_NET_H
#define ESC_NET_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "esc.h"

static inline socklen_t esc_sa(struct sockaddr_storage *ss, const char *ip, int port)
{
	memset(ss, 0, sizeof *ss);
	if (strchr(ip, ':')) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		inet_pton(AF_INET6, ip, &s6->sin6_addr);
		return sizeof *s6;
	}
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	s4->sin_family = AF_INET;
	s4->sin_port = htons((uint16_t)port);
	inet_pton(AF_INET, ip, &s4->sin_addr);
	return sizeof *s4;
}

/* Wait up to 2 s for data on fd; 1 when something arrived. */
static inline int esc_got_reply(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	if (poll(&p, 1, 2000) != 1)
		return 0;
	char buf[256];
	ssize_t n = recv(fd, buf, sizeof buf, 0);
	if (n > 0)
		fprintf(stderr, "attack: got %zd bytes from the peer\n", n);
	return n > 0;
}

/* TCP connect with the libc wrapper; success = the listener's banner arrived. */
static inline int esc_tcp(const char *ip, int port)
{
	struct sockaddr_storage ss;
	socklen_t l = esc_sa(&ss, ip, port);
	int s = socket(ss.ss_family, SOCK_STREAM, 0);
	if (s < 0)
		return esc_result(0, "socket");
	if (connect(s, (struct sockaddr *)&ss, l) < 0)
		return esc_result(0, "connect");
	return esc_result(esc_got_reply(s), "connect + banner");
}

/* UDP sendto; success = the echo came back. */
static inline int esc_udp(const char *ip, int port)
{
	struct sockaddr_storage ss;
	socklen_t l = esc_sa(&ss, ip, port);
	int s = socket(ss.ss_family, SOCK_DGRAM, 0);
	if (s < 0)
		return esc_result(0, "socket");
	if (sendto(s, "sbxesc", 6, 0, (struct sockaddr *)&ss, l) < 0)
		return esc_result(0, "sendto");
	return esc_result(esc_got_reply(s), "sendto + echo");
}

#endif
