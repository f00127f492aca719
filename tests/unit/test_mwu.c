// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for stats/mwu.c: the Mann-Whitney U test, exact and asymptotic. */
#include "stats_fixtures.h"

#include "stats/mwu.h"
#include "mwu_splits.h"

struct mwu_case {
	double a[12], b[12];
	size_t na, nb;
	double u, p;
};

static void check_mwu(const struct mwu_case *c, size_t n, bool exact)
{
	struct stats_mwu r;
	size_t i;

	for (i = 0; i < n; i++) {
		assert_int_equal(stats_mann_whitney(c[i].a, c[i].na, c[i].b,
						    c[i].nb, &r),
				 0);
		assert_close(r.u, c[i].u, 0);
		assert_close(r.p, c[i].p, 1e-12);
		assert_true(r.exact == exact);
	}
}

static void test_mwu_exact_p_without_ties_matches_scipy(void **state)
{
	/* stats.mannwhitneyu(a, b, method='exact'): .statistic, .pvalue */
	static const struct mwu_case c[] = {
		{ { 1.1, 2.3, 3.5 }, { 0.4, 4.2, 5.0, 6.1 }, 3, 4, 3.0, 0.4 },
		{ { 10.1, 10.4, 9.8, 10.0, 10.3 },
		  { 9.1, 9.5, 9.7, 9.3, 9.6 }, 5, 5, 25.0,
		  0.007936507936507936 },
		{ { 3.1, 4.7, 2.2, 5.9, 6.4, 1.8 },
		  { 7.2, 8.8, 4.1, 9.5, 6.6, 10.3, 7.7, 5.1 }, 6, 8, 5.0,
		  0.012654012654012654 },
		/* R's ?wilcox.test depression data: W = 35, p = 0.2544 */
		{ { 0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73,
		    1.46 },
		  { 1.15, 0.88, 0.90, 0.74, 1.21 }, 10, 5, 35.0,
		  0.2544122544122544 },
	};

	(void)state;
	check_mwu(c, N(c), true);
}

static void test_mwu_exact_p_with_ties_matches_bruteforce(void **state)
{
	/* brute_tied(a, b) (helper in stats_fixtures.h): (U, p) */
	static const struct mwu_case c[] = {
		{ { 1, 2, 2, 3, 5 }, { 2, 3, 3, 4, 6, 6 }, 5, 6, 7.0,
		  0.17316017316017315 },
		{ { 0, 0, 0, 1, 0 }, { 0, 1, 1, 2, 1 }, 5, 5, 4.5,
		  0.16666666666666666 },
		/* na > nb: the enumeration runs over the smaller side */
		{ { 7, 7, 8, 9, 9, 9, 10 }, { 6, 7, 7, 8 }, 7, 4, 23.5,
		  0.10303030303030303 },
		{ { 3, 3, 3, 3 }, { 3, 3, 3, 4 }, 4, 4, 6.0, 1.0 },
		{ { 1.5, 2.5, 2.5, 4.0, 4.0, 4.0 },
		  { 4.0, 5.5, 5.5, 6.0, 2.5, 7.0, 7.0 }, 6, 7, 5.5,
		  0.030303030303030304 },
	};

	(void)state;
	check_mwu(c, N(c), true);
}

static void test_mwu_exact_with_ties_at_larger_n_matches_python_dp(void **state)
{
	double a[49], b[49];
	struct stats_mwu r;

	(void)state;
	/* a = [(i*7)%5 for i in range(15)]; b = [(j*5+2)%7 for j in range(18)]
	 * dp_tied(a, b) -> (100.5, 0.21685898253219432) */
	fill(a, 15, 7, 0, 5, 1, 0);
	fill(b, 18, 5, 2, 7, 1, 0);
	assert_int_equal(stats_mann_whitney(a, 15, b, 18, &r), 0);
	assert_true(r.exact);
	assert_close(r.u, 100.5, 0);
	assert_close(r.p, 0.21685898253219432, 1e-12);

	/* a = [(i*11+3)%9 for i in range(49)]; b = [(j*13+1)%10 for j in
	 * range(40)]; dp_tied(a, b) -> (878.0, 0.398408044860534): the
	 * largest exact case, 89 values in 10 tie groups */
	fill(a, 49, 11, 3, 9, 1, 0);
	fill(b, 40, 13, 1, 10, 1, 0);
	assert_int_equal(stats_mann_whitney(a, 49, b, 40, &r), 0);
	assert_true(r.exact);
	assert_close(r.u, 878.0, 0);
	assert_close(r.p, 0.398408044860534, 1e-12);

	/* a = [(i*11+3)%9 for i in range(12)]; b = [(j*13+1)%10 for j in
	 * range(45)]; dp_tied(a, b) -> (266.5, 0.9616499792346138) */
	fill(a, 12, 11, 3, 9, 1, 0);
	fill(b, 45, 13, 1, 10, 1, 0);
	assert_int_equal(stats_mann_whitney(a, 12, b, 45, &r), 0);
	assert_close(r.u, 266.5, 0);
	assert_close(r.p, 0.9616499792346138, 1e-12);
}

static void test_mwu_exact_p_at_49_per_side_matches_scipy(void **state)
{
	double a[49], b[49];
	struct stats_mwu r;

	(void)state;
	/* a = [(i*37)%101+0.25 for i in range(49)];
	 * b = [(j*53)%97+0.75+20 for j in range(49)]  (no ties)
	 * r = stats.mannwhitneyu(a, b, method='exact')
	 * -> statistic 841.0, pvalue 0.010315756261170565 */
	fill(a, 49, 37, 0, 101, 1, 0.25);
	fill(b, 49, 53, 0, 97, 1, 20.75);
	assert_int_equal(stats_mann_whitney(a, 49, b, 49, &r), 0);
	assert_true(r.exact);
	assert_close(r.u, 841.0, 0);
	assert_close(r.p, 0.010315756261170565, 1e-11);
}

static void test_mwu_normal_approx_matches_scipy_asymptotic(void **state)
{
	double a[200], b[200];
	struct stats_mwu r;

	(void)state;
	/* a = [(i*37)%101/10 for i in range(200)];
	 * b = [(j*53)%97/10+1.0 for j in range(200)]  (many ties)
	 * stats.mannwhitneyu(a, b, method='asymptotic', use_continuity=True)
	 * -> statistic 17072.0, pvalue 0.01133358043954331 */
	fill(a, 200, 37, 0, 101, 10, 0);
	fill(b, 200, 53, 0, 97, 10, 1.0);
	assert_int_equal(stats_mann_whitney(a, 200, b, 200, &r), 0);
	assert_false(r.exact);
	assert_close(r.u, 17072.0, 0);
	assert_close(r.p, 0.01133358043954331, 1e-9);
	assert_true(r.z < 0); /* a tends to be smaller */

	/* b + 1.5 instead of 1.0: pvalue 4.1855537893634424e-05 */
	fill(b, 200, 53, 0, 97, 10, 1.5);
	assert_int_equal(stats_mann_whitney(a, 200, b, 200, &r), 0);
	assert_close(r.u, 15263.0, 0);
	assert_close(r.p, 4.1855537893634424e-05, 1e-9);

	/* a = [(i*37)%101+0.25 for i in range(50)];
	 * b = [(j*53)%97+0.75+3 for j in range(60)]: 50 > the exact limit
	 * -> statistic 1525.0, pvalue 0.883073962786097 */
	fill(a, 50, 37, 0, 101, 1, 0.25);
	fill(b, 60, 53, 0, 97, 1, 3.75);
	assert_int_equal(stats_mann_whitney(a, 50, b, 60, &r), 0);
	assert_false(r.exact);
	assert_close(r.u, 1525.0, 0);
	assert_close(r.p, 0.883073962786097, 1e-9);
}

static void test_mwu_edge_cases(void **state)
{
	static const double five[] = { 5, 5, 5 };
	static const double x1[] = { 1.0 }, y1[] = { 2.0 };
	struct stats_mwu r;
	double bad[] = { 1.0, NAN };

	(void)state;
	/* every value tied: p = 1, z = 0 (brute_tied([5]*3, [5]*3)) */
	assert_int_equal(stats_mann_whitney(five, 3, five, 3, &r), 0);
	assert_close(r.u, 4.5, 0);
	assert_close(r.p, 1.0, 0);
	assert_close(r.z, 0.0, 0);
	/* one value each: two equally likely orders, p = 1 */
	assert_int_equal(stats_mann_whitney(x1, 1, y1, 1, &r), 0);
	assert_close(r.u, 0.0, 0);
	assert_close(r.p, 1.0, 0);
	assert_true(r.exact);

	assert_int_equal(stats_mann_whitney(x1, 0, y1, 1, &r), -EINVAL);
	assert_int_equal(stats_mann_whitney(x1, 1, NULL, 1, &r), -EINVAL);
	assert_int_equal(stats_mann_whitney(x1, 1, y1, 1, NULL), -EINVAL);
	assert_int_equal(stats_mann_whitney(bad, 2, y1, 1, &r), -EINVAL);
}

/*
 * stats_mwu_min_p(): 2 / C(n, na) without ties, 1 when every value is the
 * same or a counter read 0 in all but one of 6 + 6, and in 300 random
 * tie patterns (1 to 8 a side, values from 0 to 3 or 0 to 9) the smallest
 * p of every split, enumerated. Above the exact limit, the extreme split's
 * normal p, whichever way the values came; never above the data's p.
 */
static void test_mwu_min_p_is_the_smallest_p_of_any_split(void **state)
{
	static const double three_a[] = { 1, 2, 3 }, three_b[] = { 4, 5, 6 };
	static const double four_a[] = { 8, 1, 6, 3 }, four_b[] = { 2, 7, 4, 5 };
	double a[80], b[80], p, q;
	unsigned int seed = 12345;
	struct stats_mwu r;

	(void)state;
	assert_int_equal(stats_mwu_min_p(three_a, 3, three_b, 3, &p), 0);
	assert_close(p, 0.1, 1e-12);
	assert_int_equal(stats_mwu_min_p(four_a, 4, four_b, 4, &p), 0);
	assert_close(p, 2.0 / 70, 1e-12);
	for (size_t i = 0; i < 6; i++)
		a[i] = b[i] = 0;
	assert_int_equal(stats_mwu_min_p(a, 6, b, 6, &p), 0);
	assert_close(p, 1, 0);
	b[5] = 1;
	assert_int_equal(stats_mwu_min_p(a, 6, b, 6, &p), 0);
	assert_close(p, 1, 0);
	/* two of 12 moved: C(10, 4) / C(12, 6) ways to the extreme, p = 0.45 */
	b[4] = 1;
	assert_int_equal(stats_mwu_min_p(a, 6, b, 6, &p), 0);
	assert_close(p, 2.0 * 210 / 924, 1e-12);
	assert_int_equal(mwu_min_p_enumerated(a, 6, b, 6, &q), 0);
	assert_close(p, q, 1e-12);

	for (int k = 0; k < 300; k++) {
		size_t na, nb;
		unsigned int span;

		seed = seed * 1103515245u + 12345u;
		na = 1 + (seed >> 16) % 8;
		seed = seed * 1103515245u + 12345u;
		nb = 1 + (seed >> 16) % 8;
		span = k % 2 ? 4 : 10;
		for (size_t i = 0; i < na + nb; i++) {
			seed = seed * 1103515245u + 12345u;
			(i < na ? a : b)[i < na ? i : i - na] = (double)((seed >> 16) % span);
		}
		assert_int_equal(stats_mwu_min_p(a, na, b, nb, &p), 0);
		assert_int_equal(mwu_min_p_enumerated(a, na, b, nb, &q), 0);
		if (fabs(p - q) > 1e-12)
			fail_msg("case %d (%zu + %zu): %.17g, enumerated %.17g", k, na, nb, p, q);
	}

	/* 60 + 60, 12 tie groups: the split a = the 60 smallest gives the floor,
	 * and interleaving the same values leaves it */
	for (size_t i = 0; i < 60; i++) {
		a[i] = (double)(i / 10);
		b[i] = (double)(6 + i / 10);
	}
	assert_int_equal(stats_mann_whitney(a, 60, b, 60, &r), 0);
	assert_false(r.exact);
	assert_int_equal(stats_mwu_min_p(a, 60, b, 60, &p), 0);
	assert_close(p, r.p, 0);
	for (size_t i = 0; i < 60; i += 2) {
		double t = a[i];

		a[i] = b[i];
		b[i] = t;
	}
	assert_int_equal(stats_mwu_min_p(b, 60, a, 60, &q), 0);
	assert_close(q, p, 0);
	assert_int_equal(stats_mann_whitney(a, 60, b, 60, &r), 0);
	assert_true(q < r.p);

	assert_int_equal(stats_mwu_min_p(a, 0, b, 1, &p), -EINVAL);
	assert_int_equal(stats_mwu_min_p(a, 1, b, 1, NULL), -EINVAL);
	a[0] = NAN;
	assert_int_equal(stats_mwu_min_p(a, 1, b, 1, &p), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mwu_exact_p_without_ties_matches_scipy),
		cmocka_unit_test(test_mwu_exact_p_with_ties_matches_bruteforce),
		cmocka_unit_test(test_mwu_min_p_is_the_smallest_p_of_any_split),
		cmocka_unit_test(test_mwu_exact_with_ties_at_larger_n_matches_python_dp),
		cmocka_unit_test(test_mwu_exact_p_at_49_per_side_matches_scipy),
		cmocka_unit_test(test_mwu_normal_approx_matches_scipy_asymptotic),
		cmocka_unit_test(test_mwu_edge_cases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
