/* SPDX-License-Identifier: GPL-2.0-only */
/* Which build of netregress this is: recorded with every sample. */
#ifndef NR_BASE_BUILD_H
#define NR_BASE_BUILD_H

/*
 * The git revision the binary was built from ("git 1a2b3c4d5e6f", with
 * "-dirty" when the tree had uncommitted changes), or "unknown" when it
 * was built outside a git checkout. Two samples measured by different
 * builds may differ because netregress changed, not the kernel: compare
 * names it with the environment. Any thread.
 */
const char *base_build_id(void);

#endif
