// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for stats/hl.c: the Hodges-Lehmann shift and its confidence interval. */
#include "stats_fixtures.h"

#include "stats/hl.h"

struct hl_case {
	double a[12], b[12];
	size_t na, nb;
	double conf, shift, lo, hi;
	size_t k;
	double achieved;
};

static void test_hl_exact_ci_matches_bruteforce_construction(void **state)
{
	/* hl_ci_exact(a, b, conf) (helper in stats_fixtures.h):
	 * (median, lo, hi, k, achieved confidence) */
	static const struct hl_case c[] = {
		{ { 10.1, 10.4, 9.8, 10.0, 10.3 }, { 9.1, 9.5, 9.7, 9.3, 9.6 },
		  5, 5, 0.95, -0.7000000000000011, -1.0999999999999996,
		  -0.3000000000000007, 3, 0.9682539682539683 },
		{ { 0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73,
		    1.46 },
		  { 1.15, 0.88, 0.90, 0.74, 1.21 }, 10, 5, 0.95,
		  -0.30500000000000005, -0.7599999999999999,
		  0.15000000000000002, 9, 0.9600399600399601 },
		/* too small for 95%: the whole range, 80% */
		{ { 1.0, 2.0 }, { 1.5, 3.0, 4.0 }, 2, 3, 0.95, 1.5, -0.5, 3.0,
		  1, 0.8 },
		{ { 5.0, 5.0, 6.0, 7.5, 8.0, 8.0, 9.0 },
		  { 6.0, 7.0, 7.0, 9.5, 10.0, 11.0 }, 7, 6, 0.90, 1.75, -1.0,
		  3.5, 9, 0.9265734265734266 },
		{ { 3.1, 4.7, 2.2, 5.9, 6.4, 1.8, 4.4, 5.0 },
		  { 7.2, 8.8, 4.1, 9.5, 6.6, 10.3, 7.7, 5.1 }, 8, 8, 0.99,
		  3.1999999999999997, 0.09999999999999964, 6.4, 8,
		  0.993006993006993 },
	};
	struct stats_hl r;
	size_t i;

	(void)state;
	for (i = 0; i < N(c); i++) {
		assert_int_equal(stats_hodges_lehmann(c[i].a, c[i].na, c[i].b,
						      c[i].nb, c[i].conf, &r),
				 0);
		assert_true(r.exact);
		assert_close(r.shift, c[i].shift, 1e-13);
		assert_close(r.lo, c[i].lo, 1e-13);
		assert_close(r.hi, c[i].hi, 1e-13);
		assert_int_equal(r.k, c[i].k);
		assert_close(r.conf, c[i].achieved, 1e-12);
	}
}

static void test_hl_normal_ci_matches_python_formula(void **state)
{
	double a[50], b[60];
	struct stats_hl r;

	(void)state;
	/* a = np.array([(i*37)%101+0.25 for i in range(50)]);
	 * b = np.array([(j*53)%97+0.75+3 for j in range(60)]); mn = 3000
	 * d = np.sort(np.subtract.outer(b, a).ravel())
	 * k = math.floor(mn/2 + 0.5 - stats.norm.ppf(1-(1-conf)/2)
	 *                * math.sqrt(mn*(50+60+1)/12))
	 * conf 0.95: np.median(d) -0.5, k 1174, d[k-1] -12.5, d[mn-k] 10.5,
	 * achieved 1-2*stats.norm.cdf((k-0.5-mn/2)/sigma) 0.9500018995160686
	 * conf 0.80: k 1287, d[k-1] -8.5, d[mn-k] 6.5, 0.800031382649653 */
	fill(a, 50, 37, 0, 101, 1, 0.25);
	fill(b, 60, 53, 0, 97, 1, 3.75);
	assert_int_equal(stats_hodges_lehmann(a, 50, b, 60, 0.95, &r), 0);
	assert_false(r.exact);
	assert_close(r.shift, -0.5, 0);
	assert_int_equal(r.k, 1174);
	assert_close(r.lo, -12.5, 0);
	assert_close(r.hi, 10.5, 0);
	assert_close(r.conf, 0.9500018995160686, 1e-9);
	assert_int_equal(stats_hodges_lehmann(a, 50, b, 60, 0.80, &r), 0);
	assert_int_equal(r.k, 1287);
	assert_close(r.lo, -8.5, 0);
	assert_close(r.hi, 6.5, 0);
	assert_close(r.conf, 0.800031382649653, 1e-9);
}

static void test_hl_ci_covers_true_shift_at_its_level(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double a[8], b[8];
	struct stats_hl r;
	int rep, covered = 0, reps = 1000;
	size_t i;

	(void)state;
	gsl_rng_set(rng, 20240601);
	for (rep = 0; rep < reps; rep++) {
		for (i = 0; i < 8; i++) {
			a[i] = gsl_ran_gaussian(rng, 1.0);
			b[i] = 0.7 + gsl_ran_gaussian(rng, 1.0);
		}
		assert_int_equal(stats_hodges_lehmann(a, 8, b, 8, 0.95, &r),
				 0);
		covered += r.lo <= 0.7 && 0.7 <= r.hi;
	}
	gsl_rng_free(rng);
	/* achieved level for 8 + 8 is 1 - 2 * 0.0249 = 0.950; 1000 trials
	 * have a standard error of 0.007 */
	print_message("hl 95%% interval, 8+8 normal: coverage %.3f\n",
		      (double)covered / reps);
	assert_true(covered >= 0.93 * reps);
}

/*
 * The median of an even count of differences lies between the middle
 * two: with two differences of 3 units of the least subnormal, halving
 * each (1.5 -> 2 units) and adding gave 4, above both, and the shift
 * fell outside its own interval (tests/fuzz/corpus/stats). Near DBL_MAX
 * the midpoint stays finite.
 */
static void test_hl_midpoint_between_the_middle_two(void **state)
{
	const double tiny = 3 * 4.9406564584124654e-324;
	const double a0[] = { 0 }, b0[] = { tiny, tiny };
	const double big_b[] = { 1.6e308, 1.7e308 };
	struct stats_hl r;

	(void)state;
	assert_int_equal(stats_hodges_lehmann(a0, 1, b0, 2, 0.95, &r), 0);
	assert_true(r.shift == tiny);
	assert_true(r.lo <= r.shift && r.shift <= r.hi);
	assert_int_equal(stats_hodges_lehmann(a0, 1, big_b, 2, 0.95, &r), 0);
	assert_true(isfinite(r.shift) && r.shift >= 1.6e308 && r.shift <= 1.7e308);
}

static void test_shift_pct_works_on_logs(void **state)
{
	static const double a[] = { 100, 102, 98, 101, 99 };
	static const double b[] = { 95, 96, 94, 97, 93.5 };
	static const double z[] = { 100, 0, 98 };
	struct stats_hl r;

	(void)state;
	/* ld = np.sort(np.subtract.outer(np.log(b), np.log(a)).ravel())
	 * 100*np.expm1(np.median(ld)) -4.950495049504985,
	 * 100*np.expm1(ld[2]) -7.425742574257435 (k = 3, as for 5+5),
	 * 100*np.expm1(ld[22]) -2.0408163265305763 */
	assert_int_equal(stats_shift_pct(a, 5, b, 5, 0.95, &r), 0);
	assert_close(r.shift, -4.950495049504985, 1e-12);
	assert_close(r.lo, -7.425742574257435, 1e-12);
	assert_close(r.hi, -2.0408163265305763, 1e-12);
	assert_int_equal(stats_shift_pct(a, 5, z, 3, 0.95, &r), -EDOM);
	assert_int_equal(stats_shift_pct(a, 5, b, 5, 1.0, &r), -EINVAL);
	assert_int_equal(stats_hodges_lehmann(a, 5, b, 0, 0.95, &r), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hl_exact_ci_matches_bruteforce_construction),
		cmocka_unit_test(test_hl_normal_ci_matches_python_formula),
		cmocka_unit_test(test_hl_ci_covers_true_shift_at_its_level),
		cmocka_unit_test(test_hl_midpoint_between_the_middle_two),
		cmocka_unit_test(test_shift_pct_works_on_logs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
