// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The hostile host (issue 14): what a traced process or an operator's
 * input can throw at lockstall, module by module.  The tests of the suite
 * live beside their module's fixtures (test_unwind.c, ...); the suite is
 * declared here.  Each has a timeout: a hang is the failure to catch.
 */
#include <criterion/criterion.h>

TestSuite(hostile, .timeout = 30);
