// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_mpi_test: an MPI ping-pong and allreduces with every byte checked,
 * for two ranks (tests/vm/apps.sh runs them on two ERI devices through
 * Open MPI's pml ucx).
 *
 * Usage: mpirun -np 2 ... eri_mpi_test
 *
 *   a  ping-pong: rank 0 sends a pattern of 1 B to 1 MiB (eager and
 *      rendezvous sizes), rank 1 checks it and answers with its own
 *      pattern, which rank 0 checks;
 *   b  MPI_Allreduce (sum) of 16 ints and of 256 Ki ints, each rank's
 *      contribution a function of its rank and the index, checked exactly;
 *   c  MPI_Bcast of 256 KiB from rank 1, checked.
 *
 * Each check prints "ok - ..." or "not ok - ..." on rank 0; the last line
 * is "# N passed, N failed", and the exit status is 0 only if every check
 * passed on both ranks.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../verbs/tap.h"

#define ITERS		2
#define MAX_SIZE	(1 << 20)
#define LARGE_N		(1 << 18)
#define BCAST_SIZE	(1 << 18)

static int rank;

/* Byte @i of message @iter of size @len, from @who. */
static uint8_t pattern(int who, int iter, size_t len, size_t i)
{
	return (uint8_t)(i * 131 + len * 7 + iter * 17 + who * 101 +
			 (i >> 8) * 3);
}

static size_t first_bad(const uint8_t *buf, int who, int iter, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (buf[i] != pattern(who, iter, len, i))
			return i;
	return len;
}

static void fill(uint8_t *buf, int who, int iter, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = pattern(who, iter, len, i);
}

/* Rank 0 sends, rank 1 checks and answers with its own pattern. */
static bool pingpong(uint8_t *buf, size_t len)
{
	bool ok = true;
	int iter;

	for (iter = 0; iter < ITERS; iter++) {
		if (rank == 0) {
			fill(buf, 0, iter, len);
			MPI_Send(buf, (int)len, MPI_BYTE, 1, iter,
				 MPI_COMM_WORLD);
			memset(buf, 0, len);
			MPI_Recv(buf, (int)len, MPI_BYTE, 1, iter,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			ok &= first_bad(buf, 1, iter, len) == len;
		} else {
			memset(buf, 0, len);
			MPI_Recv(buf, (int)len, MPI_BYTE, 0, iter,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			ok &= first_bad(buf, 0, iter, len) == len;
			fill(buf, 1, iter, len);
			MPI_Send(buf, (int)len, MPI_BYTE, 0, iter,
				 MPI_COMM_WORLD);
		}
	}
	return ok;
}

/* Both ranks' verdicts, as rank 0 reports them. */
static void check_all(bool mine, const char *what, size_t len)
{
	int ok = mine, all;

	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
	if (rank == 0)
		report(all, "%s, %zu bytes, checked on both ranks", what, len);
}

static int contribution(int who, int i)
{
	return (who + 1) * 1000003 + i * (who ? 7 : -3);
}

static bool allreduce(int *in, int *out, int n)
{
	bool ok = true;
	int i;

	for (i = 0; i < n; i++) {
		in[i] = contribution(rank, i);
		out[i] = 0;
	}
	MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	for (i = 0; i < n; i++)
		ok &= out[i] == contribution(0, i) + contribution(1, i);
	return ok;
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 1, 64, 4096, 65536, MAX_SIZE };
	uint8_t *buf;
	int size, *in, *out;
	unsigned int s;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2) {
		if (rank == 0)
			fprintf(stderr, "eri_mpi_test: run it with 2 ranks\n");
		MPI_Finalize();
		return 2;
	}
	buf = malloc(MAX_SIZE);
	in = malloc(LARGE_N * sizeof(*in));
	out = malloc(LARGE_N * sizeof(*out));
	if (!buf || !in || !out)
		MPI_Abort(MPI_COMM_WORLD, 1);

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		check_all(pingpong(buf, sizes[s]), "ping-pong", sizes[s]);
	check_all(allreduce(in, out, 16), "MPI_Allreduce of 16 ints",
		  16 * sizeof(int));
	check_all(allreduce(in, out, LARGE_N), "MPI_Allreduce of 256 Ki ints",
		  LARGE_N * sizeof(int));
	if (rank == 1)
		fill(buf, 1, 99, BCAST_SIZE);
	else
		memset(buf, 0, BCAST_SIZE);
	MPI_Bcast(buf, BCAST_SIZE, MPI_BYTE, 1, MPI_COMM_WORLD);
	check_all(first_bad(buf, 1, 99, BCAST_SIZE) == BCAST_SIZE,
		  "MPI_Bcast from rank 1", (size_t)BCAST_SIZE);

	free(out);
	free(in);
	free(buf);
	if (rank == 0)
		printf("# %d passed, %d failed\n", passed, failed);
	MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Finalize();
	return failed ? 1 : 0;
}
