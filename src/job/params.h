/* SPDX-License-Identifier: GPL-2.0-only */
/* The table of test parameters: CLI option, YAML key, range, key and wire rules, help. */
#ifndef NR_JOB_PARAMS_H
#define NR_JOB_PARAMS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "job/config.h"

/*
 * Every workload parameter of struct job_config is one row of
 * job_pdefs[] (params.c). A row says where the value lives in the
 * struct, how text becomes a value (its kind and range), and under which
 * names it appears: the CLI option, the job file's key, the canonical
 * key's name=value pair, the JSON field of the control protocol, and
 * the help text that --help and the man page print. Code elsewhere walks
 * the table; adding a parameter is a row here plus the engine code that
 * uses the value (docs/params.md).
 */

/* How a value is written: parsing, the messages about it, the YAML
 * kinds of docs/jobs.md. */
enum job_pkind {
	JOB_PK_TEST,
	JOB_PK_DIR,
	JOB_PK_INT,      /* an integer from min to max */
	JOB_PK_SIZE,     /* a size like 8K, from min to max bytes */
	JOB_PK_BUF,      /* a socket buffer size, 0 to max, auto = 0 */
	JOB_PK_BOOL,     /* a flag on the CLI, true/false in a file */
	JOB_PK_CC,
	JOB_PK_IPV,
	JOB_PK_CPUS,
	JOB_PK_TPS,      /* transactions/s: CLI min to max, file 0 to max */
	JOB_PK_TIMEOUT,  /* a duration; in a file from min to max ns */
	JOB_PK_TOPOLOGY,
	JOB_PK_PLACEMENT,
	JOB_PK_TOGGLE,   /* -1 default, 0 off, 1 on */
	JOB_PK_BPS,      /* bits/s like 1gbit */
	JOB_PK_PCT,      /* a percentage: "50" or "50%" */
	JOB_PK_STREAMS,  /* a count, or "200%" of the cpus */
	JOB_PK_SENDFILE,
	JOB_PK_NS,       /* nanoseconds, on the wire only */
};

/* When the parameter is in the canonical key. Changing a row's rule
 * changes keys, and samples stored before stop pooling with new ones. */
enum job_pkey {
	JOB_KEY_NONE = 0,  /* never (run control, or resolved into others) */
	JOB_KEY_ALWAYS,
	JOB_KEY_SET,       /* only when set: keys of samples without it stay */
	JOB_KEY_STREAM,    /* stream tests */
	JOB_KEY_RR,        /* request/response and connect tests */
	JOB_KEY_UDP_STREAM,
	JOB_KEY_TCP_STREAM, /* tcp_stream and tcp_sendfile */
	JOB_KEY_SENDFILE,
	JOB_KEY_VETH,
};

/* Whether the JSON form carries it. */
enum job_pwire {
	JOB_WIRE_NONE = 0,
	JOB_WIRE_ALWAYS,  /* required when read */
	JOB_WIRE_OPTIONAL, /* always sent; absent when read: the row's unset */
	/* sent only when set: a peer that predates it refuses the field
	 * rather than run something else under the key; absent when read:
	 * the row's unset value */
	JOB_WIRE_SET,
};

/* How the value is stored in struct job_config. */
enum job_ptype {
	JOB_PT_UINT,   /* unsigned of `size` bytes */
	JOB_PT_INT,    /* signed of `size` bytes (enums too) */
	JOB_PT_BOOL,
	JOB_PT_DOUBLE,
	JOB_PT_STR,    /* char[size] */
	JOB_PT_CPUS,   /* struct base_cpulist */
};

/* A parsed value: the member of its kind set, the others zero. */
struct job_pval {
	uint64_t u;  /* counts, sizes, ns, bits/s, percent */
	int64_t i;   /* enums, ip version, booleans, toggles; -1 a zero word */
	double d;    /* transactions/s */
	struct base_cpulist *cpus; /* owned; NULL: not pinned */
	char s[16];  /* congestion control, topology */
};

struct job_pdef {
	const char *name;    /* canonical key name (NULL: not in the key) */
	const char *yaml;    /* job file key (NULL: none) */
	const char *json;    /* wire field (NULL: not sent) */
	const char *lopt;    /* CLI long option without "--" (NULL: none) */
	int sopt;            /* CLI short letter (0: none) */
	const char *metavar; /* the CLI value's name; NULL: a flag */
	enum job_pkind kind;
	enum job_ptype type;
	size_t off, size;    /* of the field in struct job_config */
	uint64_t min, max;   /* the range a file and the CLI accept */
	int64_t wmin, wmax;  /* the range the wire accepts */
	int64_t unset;       /* the field's value when not set */
	const char *zero_word; /* a file's word for unset: auto, none... */
	const char *key_zero;  /* the key's word for unset (NULL: the number) */
	enum job_pkey key;
	enum job_pwire wire;
	/* finalize's range check of a set value: "invalid NAME V: expected
	 * MIN to MAX<check>" (NULL: checked elsewhere, or not at all) */
	const char *check;
	/* the CLI's message for a value out of its kind's reach, after
	 * "invalid --opt 'V': " (NULL: the kind's) */
	const char *cli_expect;
	int flag_val;        /* a flag's value (type INT); 0: true */
	const char *help;    /* lines joined by '\n', the first the summary */
	/* for the odd ones: set the config from a parsed value (NULL: the
	 * field from the kind's member), parse a CLI value (NULL: by kind),
	 * whether set (NULL: field != unset) */
	void (*set)(struct job_config *c, const struct job_pval *v);
	int (*cli)(const struct job_pdef *p, const char *flag, const char *arg,
		   struct job_config *c, struct base_err *err);
	bool (*is_set)(const struct job_config *c);
};

extern const struct job_pdef job_pdefs[];
extern const size_t job_npdefs;

/* The row whose yaml key, or long option, is name; NULL if none. */
const struct job_pdef *job_pdef_by_yaml(const char *name);
const struct job_pdef *job_pdef_by_lopt(const char *name);
const struct job_pdef *job_pdef_by_sopt(int letter);

/* Set c's field(s) from v (v->cpus is copied, not taken). */
void job_pdef_set(const struct job_pdef *p, struct job_config *c,
		   const struct job_pval *v);
/* Whether c has the parameter set (not at its unset value). */
bool job_pdef_is_set(const struct job_pdef *p, const struct job_config *c);

/*
 * Apply a CLI value (arg NULL for a flag) to c. flag is the option as
 * written ("--msg" or "-s"), for messages. Returns 0, or -EINVAL with err
 * "invalid --msg '0': expected at least 1 byte" and the like.
 */
int job_pdef_cli(const struct job_pdef *p, const char *flag, const char *arg,
		  struct job_config *c, struct base_err *err);

/* Format the value as the canonical key writes it. */
void job_pdef_key_value(const struct job_pdef *p, const struct job_config *c,
			 char *buf, size_t len);
/* Whether the parameter goes into c's key. */
bool job_pdef_in_key(const struct job_pdef *p, const struct job_config *c);

/* Add the wire fields of c to the object j; -ENOMEM. */
int job_params_to_json(const struct job_config *c, json_t *j);
/* Read every wire field from obj into c (initialized); 0 or -EINVAL
 * with err naming the field. Unknown fields: job_params_known(). */
int job_params_from_json(const json_t *obj, struct job_config *c,
			 struct base_err *err);
/* Whether key is a wire field of some row. */
bool job_params_known(const char *key);

/* finalize's range checks of the rows that have one; 0 or -EINVAL. */
int job_params_check(const struct job_config *c, struct base_err *err);

/* Whether a valid congestion control name: letters, digits, '_', '-'. */
bool job_valid_cc(const char *cc);

#endif
