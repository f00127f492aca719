// SPDX-License-Identifier: GPL-2.0-only
/* The build id, set by the Makefile (NR_BUILD); see build.h. */
#include "base/build.h"

#ifndef NR_BUILD
#define NR_BUILD ""
#endif

const char *base_build_id(void)
{
	return NR_BUILD[0] ? "git " NR_BUILD : "unknown";
}
