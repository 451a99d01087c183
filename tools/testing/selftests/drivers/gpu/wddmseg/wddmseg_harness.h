/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What differs between the kselftest_harness.h versions the tests are
 * built with (Debian's linux-source-6.1 and -6.12). Include after
 * kselftest_harness.h.
 */
#ifndef WDDMSEG_HARNESS_H
#define WDDMSEG_HARNESS_H

/*
 * HARNESS_SETUP_SKIPPED(): the fixture setup called SKIP(). The 6.1
 * harness still runs the test body then, and says so in ->skip; newer
 * ones (XFAIL_ADD exists since 6.9) do not run it and keep the outcome in
 * ->exit_code.
 */
#ifdef XFAIL_ADD
#define HARNESS_SETUP_SKIPPED(m)	((m)->exit_code == KSFT_SKIP)
#else
#define HARNESS_SETUP_SKIPPED(m)	((m)->skip)
#endif

#endif /* WDDMSEG_HARNESS_H */
