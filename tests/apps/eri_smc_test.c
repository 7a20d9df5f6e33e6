// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_smc_test: SMC-R sockets (AF_SMC) moving checked bytes, and the one
 * piece of SMC configuration SMC-R version 2 needs, without smc-tools.
 *
 * Usage:
 *   eri_smc_test ueid NAME               add the user-defined EID NAME
 *                                        (SMC_NETLINK_ADD_UEID); an EID
 *                                        already there is no error
 *   eri_smc_test server PORT BYTES       accept one connection on PORT
 *   eri_smc_test client ADDR PORT BYTES  connect to ADDR (IPv4) PORT
 *
 * The client sends BYTES of a pattern, the server checks every byte and
 * sends BYTES of another pattern back, which the client checks.  Each side
 * prints "ok - ..." or "not ok - ..." per check and "# N passed, N failed",
 * and exits 0 only if every check passed.  Whether the bytes went over
 * RDMA or SMC fell back to TCP is for the caller to see (the RDMA device's
 * counters, tests/vm/apps.sh): a fallback is silent here as for any SMC
 * application.  Every call gives up after 60 seconds.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/smc.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../verbs/tap.h"

#ifndef AF_SMC
#define AF_SMC		43
#endif
#define SMCPROTO_SMC	0	/* SMC over IPv4 */

#define CHUNK		(64 * 1024)

/* Byte @i of what @who sends. */
static uint8_t pattern(int who, uint64_t i)
{
	return (uint8_t)(i * 29 + (i >> 10) * 7 + who * 113);
}

/* A netlink attribute: header, payload, padding. */
static size_t put_attr(void *at, uint16_t type, const void *data,
		       size_t len)
{
	struct nlattr *a = at;

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)at + NLA_HDRLEN, data, len);
	return NLA_ALIGN(a->nla_len);
}

/* Send one generic netlink request; return its error (0: acknowledged). */
static int genl_call(int fd, uint16_t family, uint8_t cmd, uint16_t atype,
		     const void *data, size_t len, void *reply, size_t rlen)
{
	char buf[256] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct nlmsghdr *nh = (void *)buf;
	struct genlmsghdr *gh = NLMSG_DATA(nh);
	struct nlmsgerr *err;
	ssize_t n;

	memset(buf, 0, sizeof(buf));
	nh->nlmsg_type = family;
	nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nh->nlmsg_seq = 1;
	gh->cmd = cmd;
	gh->version = 1;
	nh->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) +
			put_attr((char *)gh + GENL_HDRLEN, atype, data, len);
	if (send(fd, buf, nh->nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		n = recv(fd, reply, rlen, 0);
		if (n < 0)
			return -errno;
		nh = reply;
		if (!NLMSG_OK(nh, (size_t)n))
			return -EPROTO;
		if (nh->nlmsg_type != NLMSG_ERROR)
			continue;	/* the family's answer; its ack follows */
		err = NLMSG_DATA(nh);
		return err->error;
	}
}

/* The id of generic netlink family @name, found in the controller's reply. */
static int genl_family(int fd, const char *name)
{
	char reply[4096] __attribute__((aligned(NLMSG_ALIGNTO)));
	char buf[128] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct nlmsghdr *nh = (void *)buf;
	struct genlmsghdr *gh = NLMSG_DATA(nh);
	struct nlattr *a;
	ssize_t n;
	int left;

	memset(buf, 0, sizeof(buf));
	nh->nlmsg_type = GENL_ID_CTRL;
	nh->nlmsg_flags = NLM_F_REQUEST;
	gh->cmd = CTRL_CMD_GETFAMILY;
	gh->version = 1;
	nh->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) +
			put_attr((char *)gh + GENL_HDRLEN,
				 CTRL_ATTR_FAMILY_NAME, name, strlen(name) + 1);
	if (send(fd, buf, nh->nlmsg_len, 0) < 0)
		return -errno;
	n = recv(fd, reply, sizeof(reply), 0);
	if (n < 0)
		return -errno;
	nh = (void *)reply;
	if (!NLMSG_OK(nh, (size_t)n) || nh->nlmsg_type == NLMSG_ERROR)
		return -ENOENT;
	gh = NLMSG_DATA(nh);
	a = (void *)((char *)gh + GENL_HDRLEN);
	left = nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	while (left >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	       a->nla_len <= left) {
		if (a->nla_type == CTRL_ATTR_FAMILY_ID)
			return *(uint16_t *)((char *)a + NLA_HDRLEN);
		left -= NLA_ALIGN(a->nla_len);
		a = (void *)((char *)a + NLA_ALIGN(a->nla_len));
	}
	return -ENOENT;
}

/* SMC_NETLINK_ADD_UEID: the EID is 32 characters, blank padded. */
static int add_ueid(const char *name)
{
	char reply[4096] __attribute__((aligned(NLMSG_ALIGNTO)));
	char eid[SMC_MAX_EID_LEN + 1];
	int fd, family, ret;

	if (strlen(name) > SMC_MAX_EID_LEN)
		return 2;
	memset(eid, ' ', SMC_MAX_EID_LEN);
	memcpy(eid, name, strlen(name));
	eid[SMC_MAX_EID_LEN] = 0;
	fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	if (fd < 0)
		return 1;
	family = genl_family(fd, SMC_GENL_FAMILY_NAME);
	ret = family < 0 ? family :
	      genl_call(fd, family, SMC_NETLINK_ADD_UEID,
			SMC_NLA_EID_TABLE_ENTRY, eid, sizeof(eid), reply,
			sizeof(reply));
	close(fd);
	report(ret == 0 || ret == -EEXIST, "UEID %s added (%s)", name,
	       strerror(-ret));
	return failed ? 1 : 0;
}

/* Send @bytes of @who's pattern. */
static bool send_all(int fd, int who, uint64_t bytes)
{
	static uint8_t buf[CHUNK];
	uint64_t off = 0, i;

	while (off < bytes) {
		size_t len = bytes - off < CHUNK ? bytes - off : CHUNK;
		ssize_t n;

		for (i = 0; i < len; i++)
			buf[i] = pattern(who, off + i);
		n = send(fd, buf, len, 0);
		if (n <= 0)
			return false;
		/* A short send: the rest goes again with the next chunk. */
		off += n;
	}
	return true;
}

/* Receive @bytes, which must be @who's pattern. */
static bool recv_check(int fd, int who, uint64_t bytes, uint64_t *bad)
{
	static uint8_t buf[CHUNK];
	uint64_t off = 0;
	ssize_t n, i;

	*bad = bytes;
	while (off < bytes) {
		size_t want = bytes - off < CHUNK ? bytes - off : CHUNK;

		n = recv(fd, buf, want, 0);
		if (n <= 0)
			return false;
		for (i = 0; i < n; i++)
			if (buf[i] != pattern(who, off + i) && *bad == bytes)
				*bad = off + i;
		off += n;
	}
	return *bad == bytes;
}

static int serve(int port, uint64_t bytes)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	int one = 1, lfd, fd;
	uint64_t bad;
	bool ok;

	lfd = socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC);
	report(lfd >= 0, "AF_SMC socket (%s)", lfd < 0 ? strerror(errno) : "");
	if (lfd < 0)
		return 1;
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) ||
	    listen(lfd, 1)) {
		report(false, "listen on port %d (%s)", port, strerror(errno));
		return 1;
	}
	fd = accept(lfd, NULL, NULL);
	report(fd >= 0, "a connection accepted");
	if (fd < 0)
		return 1;
	ok = recv_check(fd, 0, bytes, &bad);
	report(ok, "server: %llu bytes received, each as sent (first bad: %llu)",
	       (unsigned long long)bytes, (unsigned long long)bad);
	report(send_all(fd, 1, bytes), "server: %llu bytes sent back",
	       (unsigned long long)bytes);
	/* The client closes first, once it has everything. */
	recv(fd, &one, 1, 0);
	close(fd);
	close(lfd);
	printf("# %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

static int client(const char *addr, int port, uint64_t bytes)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
	};
	uint64_t bad;
	bool ok;
	int fd;

	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1)
		return 2;
	fd = socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC);
	report(fd >= 0, "AF_SMC socket (%s)", fd < 0 ? strerror(errno) : "");
	if (fd < 0)
		return 1;
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		report(false, "connect to %s:%d (%s)", addr, port,
		       strerror(errno));
		return 1;
	}
	report(true, "connected to %s:%d", addr, port);
	report(send_all(fd, 0, bytes), "client: %llu bytes sent",
	       (unsigned long long)bytes);
	ok = recv_check(fd, 1, bytes, &bad);
	report(ok, "client: %llu bytes received, each as sent (first bad: %llu)",
	       (unsigned long long)bytes, (unsigned long long)bad);
	close(fd);
	printf("# %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	alarm(60);
	if (argc == 3 && !strcmp(argv[1], "ueid"))
		return add_ueid(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "server"))
		return serve(atoi(argv[2]), strtoull(argv[3], NULL, 0));
	if (argc == 5 && !strcmp(argv[1], "client"))
		return client(argv[2], atoi(argv[3]),
			      strtoull(argv[4], NULL, 0));
	fprintf(stderr, "usage: %s ueid NAME | server PORT BYTES | client ADDR PORT BYTES\n",
		argv[0]);
	return 2;
}
