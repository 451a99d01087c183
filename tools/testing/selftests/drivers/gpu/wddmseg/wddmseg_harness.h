/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one thing the wddmseg tests need beyond the API that every
 * kselftest_harness.h they build with has in common (Linux 6.1, 6.12,
 * 7.3: each kernel tree's own). Include after kselftest_harness.h.
 *
 * A fixture setup that calls SKIP() must keep its test body from using
 * what it did not set up. The harnesses differ there: 6.1's still runs
 * the body and records the skip in _metadata->skip; 6.9 and later do not
 * run it and have no such member (the outcome is in ->exit_code, which
 * 6.1 lacks). No member of struct __test_metadata says "skipped" in all
 * of them, so the tests record it themselves: WSKIP() is SKIP() that also
 * sets wddmseg_skipped, and SETUP_SKIPPED() reads it. Each test (setup,
 * body, teardown) runs in a process forked for it from a parent that
 * never runs a setup, so the flag starts false in every test.
 */
#ifndef WDDMSEG_HARNESS_H
#define WDDMSEG_HARNESS_H

#include <stdbool.h>

static bool wddmseg_skipped __attribute__((unused));

/* SKIP(), remembered for SETUP_SKIPPED(). */
#define WSKIP(statement, fmt, ...) do {					\
	wddmseg_skipped = true;						\
	SKIP(statement, fmt, ##__VA_ARGS__);				\
} while (0)

/* The fixture setup (or a helper it called) skipped the test. */
#define SETUP_SKIPPED()		(wddmseg_skipped)

#endif /* WDDMSEG_HARNESS_H */
