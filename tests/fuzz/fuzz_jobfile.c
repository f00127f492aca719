// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: job files (YAML), parsed and expanded into their matrix. */
#include <string.h>

#include "base/parse.h"
#include "fuzz.h"
#include "job/jobfile.h"

/*
 * The input is a job file (docs/jobs.md). Promised (job/jobfile.h): a file
 * is read or refused with a message that names it; one that is read
 * expands into its cells or is refused the same way, never into more than
 * JOB_MAX_CELLS, each cell finalized (one flow at least).
 */
#define FUZZ_JOB_NAME "fuzz.yaml"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct base_cpulist allowed = { .n = 2, .cpu = { 0, 1 } };
	struct base_err err = { { 0 } };
	struct job_file *jf = NULL;
	struct job_cell *cells = NULL;
	size_t ncells = 0;
	int ret;

	ret = job_file_parse((const char *)data, size, FUZZ_JOB_NAME, &jf, &err);
	FUZZ_CHECK_ERR(ret, err);
	if (ret) {
		FUZZ_CHECK(!jf);
		FUZZ_CHECK(ret == -ENOMEM || ret == -EFBIG ||
			   !strncmp(err.msg, FUZZ_JOB_NAME, strlen(FUZZ_JOB_NAME)));
		return 0;
	}
	FUZZ_CHECK(jf && jf->reps >= 1 && jf->reps <= JOB_MAX_REPS);
	err.msg[0] = '\0';
	ret = job_file_expand(jf, &allowed, &cells, &ncells, &err);
	FUZZ_CHECK_ERR(ret, err);
	if (ret) {
		FUZZ_CHECK(!cells && !ncells);
		FUZZ_CHECK(ret == -ENOMEM ||
			   !strncmp(err.msg, FUZZ_JOB_NAME, strlen(FUZZ_JOB_NAME)));
	} else {
		FUZZ_CHECK(ncells >= 1 && ncells <= JOB_MAX_CELLS);
		for (size_t i = 0; i < ncells; i++)
			FUZZ_CHECK(job_config_nflows(&cells[i].cfg) >= 1 &&
				   cells[i].desc);
	}
	job_cells_free(cells, ncells);
	job_file_free(jf);
	return 0;
}
