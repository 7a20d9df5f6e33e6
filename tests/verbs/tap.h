/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * TAP lines of the verbs test programs: report() prints "ok - ..." or
 * "not ok - ..." and counts it; the program prints "# N passed, N failed"
 * at the end and exits 0 only when nothing failed.
 */
#ifndef ERI_TESTS_TAP_H
#define ERI_TESTS_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int passed, failed;

static void report(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void report(bool cond, const char *fmt, ...)
{
	va_list ap;

	if (cond)
		passed++;
	else
		failed++;
	printf("%s - ", cond ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

#endif
