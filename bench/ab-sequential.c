/*
 * ab-sequential - how many runs `xvbd ab run --until-confident` needs,
 * against a fixed-N design with the same error rates, on run summaries
 * recorded in the lab (resampled).  See bench/README.md.
 *
 *	build/bench/ab-sequential [options] FILE
 *	build/bench/ab-sequential [options] -l SD_LN
 *
 * FILE holds one run summary per line (e.g. read IOPS of the runs of one
 * configuration); '#' starts a comment.  -l instead draws run summaries
 * from a log-normal distribution with that sd of ln (a model, not
 * measurements: for the table of noise levels).  Each simulated
 * experiment draws
 * A runs from FILE's empirical distribution and B runs from it times
 * (1 + effect), one A and one B per pair (ABBA-adjacent runs of the real
 * procedure: drift cancels within a pair, and resampled runs have none).
 *
 * The fixed design: a paired t-test on d = ln(B/A) at two-sided level
 * alpha, with the number of pairs that gives power 1 - beta at the
 * minimum effect (xvbd_seq_fixed_pairs), sized with the true sd of d of
 * the resampling distribution: the best case for it, as if a perfect
 * pilot study had been free.
 *
 * The sequential design: the always-valid confidence sequence
 * (xvbd_seq_decide), looked at after every pair.  Its false-difference
 * rate is <= alpha by construction; its cap max_pairs is set so that
 * its power at the minimum effect is the fixed design's 1 - beta (the
 * (1 - beta) quantile of its stopping time there, from a calibration
 * run).  With both error rates equal, what differs is the runs spent.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/ab/ab_stat.h"

#define VALUES_MIN		5
#define CALIBRATION_CAP_MIN	400
#define NEFFECTS		4	/* 0, 1, 2, 3 x the minimum effect */
#define GOAL_RATIO		0.5
#define GOAL_EFFECT		2	/* x the minimum effect */

struct opts {
	double min_effect, alpha, beta, g;
	double sd_ln;		/* -l: log-normal model; 0: FILE */
	size_t experiments;
	unsigned long long seed;
	const char *file;
};

struct sample {
	double *log_x;		/* ln of each run summary */
	size_t n;
	double sd_ln;		/* > 0: log-normal model instead */
};

struct result {
	double runs_mean, runs_median;
	size_t different, wrong_sign, equivalent, exhausted;
	size_t fixed_different, fixed_wrong_sign;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ab-sequential [-m MIN_EFFECT] [-a ALPHA] [-b BETA] "
		"[-g G]\n"
		"                     [-n EXPERIMENTS] [-s SEED] "
		"FILE | -l SD_LN\n"
		"  FILE: one run summary per line (> 0), '#' comments\n"
		"  -l  no FILE: log-normal run summaries, sd of ln SD_LN\n"
		"  -m  minimum effect, relative (default 0.05)\n"
		"  -a  error rate alpha (default 0.05)\n"
		"  -b  miss rate beta at the minimum effect (default 0.2: "
		"power 0.8)\n"
		"  -g  mixing parameter (default %g)\n"
		"  -n  simulated experiments per effect (default 4000)\n"
		"  -s  seed (default 1)\n", XVBD_SEQ_G_DEFAULT);
}

static int parse_double(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= lo || v >= hi)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	double v;
	int c;

	o->min_effect = 0.05;
	o->alpha = 0.05;
	o->beta = 0.2;
	o->g = XVBD_SEQ_G_DEFAULT;
	o->experiments = 4000;
	o->seed = 1;
	o->sd_ln = 0;
	while ((c = getopt(argc, argv, "m:a:b:g:n:s:l:h")) != -1) {
		switch (c) {
		case 'l':
			if (parse_double(optarg, 0, 10, &o->sd_ln))
				goto bad;
			break;
		case 'm':
			if (parse_double(optarg, 0, 10, &o->min_effect))
				goto bad;
			break;
		case 'a':
			if (parse_double(optarg, 0, 0.5, &o->alpha))
				goto bad;
			break;
		case 'b':
			if (parse_double(optarg, 0, 0.5, &o->beta))
				goto bad;
			break;
		case 'g':
			if (parse_double(optarg, 0, 1e6, &o->g))
				goto bad;
			break;
		case 'n':
			if (parse_double(optarg, 9, 1e8, &v) || v != floor(v))
				goto bad;
			o->experiments = (size_t)v;
			break;
		case 's': {
			char *end;

			errno = 0;
			o->seed = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || *optarg == '-')
				goto bad;
			break;
		}
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind != argc - (o->sd_ln > 0 ? 0 : 1)) {
		usage(stderr);
		return -EINVAL;
	}
	o->file = o->sd_ln > 0 ? NULL : argv[optind];
	return 0;
bad:
	fprintf(stderr, "ab-sequential: -%c %s: out of range or not a "
		"number\n", c, optarg);
	return -EINVAL;
}

static int read_sample(const char *path, struct sample *s)
{
	char line[256];
	size_t cap = 0, lineno = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "ab-sequential: %s: %s\n", path,
			strerror(errno));
		return -errno;
	}
	s->log_x = NULL;
	s->n = 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;
		double v;

		lineno++;
		if (!strchr(p, '\n') && !feof(f)) {
			fprintf(stderr, "ab-sequential: %s:%zu: line too "
				"long\n", path, lineno);
			goto fail;
		}
		p[strcspn(p, "#\n")] = '\0';
		p += strspn(p, " \t");
		if (!*p)
			continue;
		errno = 0;
		v = strtod(p, &end);
		end += strspn(end, " \t\r");
		if (errno || end == p || *end || !isfinite(v) || v <= 0) {
			fprintf(stderr, "ab-sequential: %s:%zu: not a positive "
				"number\n", path, lineno);
			goto fail;
		}
		if (s->n == cap) {
			double *nx;

			cap = cap ? 2 * cap : 64;
			nx = realloc(s->log_x, cap * sizeof(*nx));
			if (!nx) {
				fprintf(stderr, "ab-sequential: out of "
					"memory\n");
				goto fail;
			}
			s->log_x = nx;
		}
		s->log_x[s->n++] = log(v);
	}
	if (ferror(f)) {
		fprintf(stderr, "ab-sequential: %s: read error\n", path);
		goto fail;
	}
	fclose(f);
	if (s->n < VALUES_MIN) {
		fprintf(stderr, "ab-sequential: %s: %zu run summaries, need at "
			"least %d\n", path, s->n, VALUES_MIN);
		free(s->log_x);
		return -EINVAL;
	}
	return 0;
fail:
	fclose(f);
	free(s->log_x);
	return -EINVAL;
}

/* One resampled pair's d = ln(B/A) with B = A' x factor. */
static double draw_pair(struct xvbd_rng *r, const struct sample *s,
			double log_factor)
{
	size_t i, j;

	if (s->sd_ln > 0)
		return s->sd_ln * (xvbd_rng_normal(r) - xvbd_rng_normal(r)) +
		       log_factor;
	i = (size_t)(xvbd_rng_uniform(r) * (double)s->n);
	j = (size_t)(xvbd_rng_uniform(r) * (double)s->n);
	return s->log_x[j] + log_factor - s->log_x[i];
}

/*
 * One experiment: pairs drawn on demand into d (common to both
 * designs: the fixed design uses the first nfixed).  Returns the pairs
 * the sequential design used.
 */
static size_t experiment(struct xvbd_rng *r, const struct sample *s,
			 double log_factor, const struct xvbd_seq_params *p,
			 size_t nfixed, double *d,
			 struct xvbd_seq_state *st, double *t_fixed)
{
	size_t n, have = 0, need = p->max_pairs > nfixed ? p->max_pairs :
							   nfixed;
	double mean, sd;

	for (n = 1; n <= p->max_pairs; n++) {
		d[have++] = draw_pair(r, s, log_factor);
		if (xvbd_seq_decide(d, n, p, st))
			abort();	/* parameters were checked */
		if (st->decision != XVBD_SEQ_CONTINUE)
			break;
	}
	while (have < need)
		d[have++] = draw_pair(r, s, log_factor);
	mean = xvbd_stat_mean(d, nfixed);
	sd = sqrt(xvbd_stat_var(d, nfixed));
	*t_fixed = sd > 0 ? mean / (sd / sqrt((double)nfixed)) :
		   mean > 0 ? INFINITY : mean < 0 ? -INFINITY : 0;
	return st->n;
}

static int cmp_size(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;

	return (a > b) - (a < b);
}

/*
 * The cap that gives the sequential design power 1 - beta at the
 * minimum effect: the (1 - beta) quantile of the pairs at which it finds
 * the difference (right sign), misses counting as never.
 */
static size_t calibrate_cap(struct xvbd_rng *r, const struct sample *s,
			    const struct opts *o, size_t nfixed)
{
	struct xvbd_seq_params p = {
		.alpha = o->alpha, .g = o->g, .min_effect = o->min_effect,
	};
	size_t cap = 50 * nfixed, i, k, *when;
	double *d, tf;

	if (cap < CALIBRATION_CAP_MIN)
		cap = CALIBRATION_CAP_MIN;
	p.max_pairs = cap;
	when = malloc(o->experiments * sizeof(*when));
	d = malloc(cap * sizeof(*d) + nfixed * sizeof(*d));
	if (!when || !d) {
		free(when);
		free(d);
		return 0;
	}
	for (i = 0; i < o->experiments; i++) {
		struct xvbd_seq_state st;

		experiment(r, s, log1p(o->min_effect), &p, nfixed, d, &st,
			   &tf);
		when[i] = st.decision == XVBD_SEQ_DIFFERENT && st.lo > 0 ?
			  st.n : SIZE_MAX;
	}
	qsort(when, o->experiments, sizeof(*when), cmp_size);
	k = (size_t)ceil((1 - o->beta) * (double)o->experiments);
	cap = when[k > 0 ? k - 1 : 0];
	free(when);
	free(d);
	return cap == SIZE_MAX ? 0 : cap;
}

static int run_effect(struct xvbd_rng *r, const struct sample *s,
		      const struct opts *o, const struct xvbd_seq_params *p,
		      size_t nfixed, double effect, struct result *res)
{
	double log_factor = log1p(effect), crit, *d, sum = 0;
	size_t i, *used;

	memset(res, 0, sizeof(*res));
	crit = xvbd_stat_t_quantile(1 - o->alpha / 2, (double)nfixed - 1);
	used = malloc(o->experiments * sizeof(*used));
	d = malloc((p->max_pairs + nfixed) * sizeof(*d));
	if (!used || !d) {
		free(used);
		free(d);
		return -ENOMEM;
	}
	for (i = 0; i < o->experiments; i++) {
		struct xvbd_seq_state st;
		double tf;

		used[i] = experiment(r, s, log_factor, p, nfixed, d, &st, &tf);
		sum += (double)used[i];
		if (st.decision == XVBD_SEQ_DIFFERENT) {
			/* at effect 0 either sign is a false difference */
			if (effect == 0 || st.lo > 0)
				res->different++;
			else
				res->wrong_sign++;
		}
		res->equivalent += st.decision == XVBD_SEQ_EQUIVALENT;
		res->exhausted += st.decision == XVBD_SEQ_EXHAUSTED;
		if (fabs(tf) > crit) {
			if (effect == 0 || tf > 0)
				res->fixed_different++;
			else
				res->fixed_wrong_sign++;
		}
	}
	qsort(used, o->experiments, sizeof(*used), cmp_size);
	res->runs_mean = 2 * sum / (double)o->experiments;
	res->runs_median = 2 * (double)used[o->experiments / 2];
	free(used);
	free(d);
	return 0;
}

int main(int argc, char **argv)
{
	struct result res[NEFFECTS];
	struct xvbd_seq_params p;
	struct sample s;
	struct opts o;
	struct xvbd_rng r;
	double mean_log, sd_log, sd_d, ratio_goal = 0, e;
	size_t nfixed, cap, k;

	if (parse_opts(argc, argv, &o))
		return 2;
	if (o.file) {
		if (read_sample(o.file, &s))
			return 1;
		s.sd_ln = 0;
		mean_log = xvbd_stat_mean(s.log_x, s.n);
		/* the resampling distribution's own sd (population form) */
		sd_log = sqrt(xvbd_stat_var(s.log_x, s.n) *
			      (double)(s.n - 1) / (double)s.n);
	} else {
		s = (struct sample){ .log_x = NULL, .n = 0, .sd_ln = o.sd_ln };
		mean_log = 0;
		sd_log = o.sd_ln;
		o.file = "log-normal model";
	}
	/* ln(B/A) of two independent draws: sqrt(2) times that sd */
	sd_d = M_SQRT2 * sd_log;
	nfixed = xvbd_seq_fixed_pairs(o.alpha, o.beta, sd_d, o.min_effect);
	if (nfixed < 2 || nfixed > 100000) {
		fprintf(stderr, "ab-sequential: %s: the fixed design would "
			"need %zu pairs (sd of ln(B/A) %.4g): nothing to "
			"compare\n", o.file, nfixed, sd_d);
		free(s.log_x);
		return 1;
	}
	xvbd_rng_seed(&r, o.seed);
	cap = calibrate_cap(&r, &s, &o, nfixed);
	if (cap < 2) {
		fprintf(stderr, "ab-sequential: calibration failed (power "
			"%.2f not reached)\n", 1 - o.beta);
		free(s.log_x);
		return 1;
	}
	p = (struct xvbd_seq_params){
		.alpha = o.alpha, .g = o.g, .min_effect = o.min_effect,
		.max_pairs = cap,
	};

	if (s.sd_ln > 0)
		printf("data: log-normal model (not measurements), sd of ln "
		       "%.4f (sd of ln(B/A) %.4f)\n", sd_log, sd_d);
	else
		printf("data: %s: %zu run summaries resampled, geometric mean "
		       "%.6g, sd of ln %.4f (sd of ln(B/A) %.4f)\n", o.file,
		       s.n, exp(mean_log), sd_log, sd_d);
	printf("design: alpha %.3g, power %.3g at min effect %.3g %%, g "
	       "%.3g, %zu experiments, seed %llu\n", o.alpha, 1 - o.beta,
	       100 * o.min_effect, o.g, o.experiments, o.seed);
	printf("fixed: %zu pairs = %zu runs (paired t-test, sized with the "
	       "true sd)\n", nfixed, 2 * nfixed);
	printf("sequential: at most %zu pairs = %zu runs (calibrated: power "
	       "%.3g at min effect)\n\n", cap, 2 * cap, 1 - o.beta);
	printf("%-7s | %-11s %-7s %-9s %-9s %-9s %-9s | %-5s %-9s | %s\n",
	       "effect", "seq runs", "median", "different", "wrong", "equiv",
	       "exhaust", "fixed", "different", "seq/fixed");
	for (k = 0; k < NEFFECTS; k++) {
		struct result *q = &res[k];
		double n = (double)o.experiments, ratio;

		e = (double)k * o.min_effect;
		if (run_effect(&r, &s, &o, &p, nfixed, e, q)) {
			fprintf(stderr, "ab-sequential: out of memory\n");
			free(s.log_x);
			return 1;
		}
		ratio = q->runs_mean / (2.0 * (double)nfixed);
		if (k >= GOAL_EFFECT && ratio > ratio_goal)
			ratio_goal = ratio;
		printf("%zux %4.1f%% | %11.2f %7.0f %9.4f %9.4f %9.4f %9.4f | "
		       "%5zu %9.4f | %.3f\n", k, 100 * e, q->runs_mean,
		       q->runs_median, q->different / n, q->wrong_sign / n,
		       q->equivalent / n, q->exhausted / n, 2 * nfixed,
		       q->fixed_different / n, ratio);
	}
	printf("\n(different at 0x: false-difference rate, +- %.4f; at "
	       "1x-3x: power, misses = 1 - it)\n",
	       sqrt(o.alpha * (1 - o.alpha) / (double)o.experiments));
	printf("goal: sequential/fixed = %.2f at >= %dx min effect <= %.1f: "
	       "%s\n", ratio_goal, GOAL_EFFECT, GOAL_RATIO,
	       ratio_goal <= GOAL_RATIO ? "met" : "missed");
	free(s.log_x);
	return ratio_goal <= GOAL_RATIO ? 0 : 1;
}
