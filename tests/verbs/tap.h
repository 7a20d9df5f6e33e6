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

/* "ok - ..." or "not ok - ...", without the newline (a directive may follow). */
static void tap_line(bool cond, const char *fmt, va_list ap)
{
	printf("%s - ", cond ? "ok" : "not ok");
	vprintf(fmt, ap);
}

static void report(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void report(bool cond, const char *fmt, ...)
{
	va_list ap;

	if (cond)
		passed++;
	else
		failed++;
	va_start(ap, fmt);
	tap_line(cond, fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

#endif
