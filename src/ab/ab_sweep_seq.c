/*
 * ab_sweep_seq.c - `ab run --until-confident` over k levels: k - 1
 * always-valid confidence sequences, one per level against the
 * baseline, each at alpha / (k - 1) (see ab_sweep.h).
 *
 * Each sequence covers its level's true mean log-ratio at every block
 * at once with probability >= 1 - alpha / (k - 1) (ab_seq.c, Ville's
 * inequality); by the union bound all k - 1 do so with probability >=
 * 1 - alpha.  Any rule for stopping, and for keeping a level's first
 * decision, is then safe: a decision is wrong only where its sequence
 * missed.  Holm would reject more, but Holm's steps are not valid for
 * sequences looked at after every block (its later levels depend on
 * which others were rejected by then), Bonferroni's are.  Pure
 * (unit-tested by simulation).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "xvbd/ab/ab_sweep.h"

/* Before 3 blocks the noise is not known well enough to give up. */
#define FUTILE_MIN_BLOCKS	3

const char *xvbd_ab_sweep_stop_name(enum xvbd_ab_sweep_stop s)
{
	switch (s) {
	case XVBD_AB_SWEEP_SETTLED:
		return "settled";
	case XVBD_AB_SWEEP_FUTILE:
		return "futile";
	case XVBD_AB_SWEEP_CAP:
		return "exhausted";
	default:
		return "continue";
	}
}

int xvbd_ab_sweep_seq_init(struct xvbd_ab_sweep_seq *s, size_t k,
			   size_t baseline, const struct xvbd_seq_params *p)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	if (!p || k < 2 || k > XVBD_AB_LEVELS_MAX || baseline >= k ||
	    !(p->alpha > 0 && p->alpha < 1) || p->max_pairs < 2)
		return -EINVAL;
	s->nlevels = k;
	s->baseline = baseline;
	s->each = *p;
	s->each.alpha = p->alpha / (double)(k - 1);
	for (i = 0; i < k; i++)
		s->st[i].decision = XVBD_SEQ_CONTINUE;
	s->stop = XVBD_AB_SWEEP_GO_ON;
	return 0;
}

/*
 * Whether level i's sequence can still settle by the cap, at its noise
 * and its mean so far: "different" needs the radius at the cap below
 * |mean|, "equivalent" below ln(1 + margin) - |mean|.
 */
static bool can_settle(const struct xvbd_ab_sweep_seq *s, size_t i)
{
	const struct xvbd_seq_state *st = &s->st[i];
	double r = xvbd_seq_radius_at_cap(&s->each, st->sd);
	double margin = s->each.equivalence > 0 ?
			-log1p(-s->each.equivalence) :
			log1p(s->each.min_effect);

	if (!isfinite(st->sd) || isnan(r))
		return true;
	return r < fabs(st->mean) || r < margin - fabs(st->mean);
}

int xvbd_ab_sweep_seq_step(struct xvbd_ab_sweep_seq *s,
			   const double *const *d, size_t n)
{
	size_t i, open = 0, hopeful = 0;
	int rc;

	if (!d || n != s->blocks + 1)
		return -EINVAL;
	s->blocks = n;
	for (i = 0; i < s->nlevels; i++) {
		struct xvbd_seq_state st;

		if (i == s->baseline || s->decided[i])
			continue;
		if (!d[i])
			return -EINVAL;
		rc = xvbd_seq_decide(d[i], n, &s->each, &st);
		if (rc)
			return rc;
		s->st[i] = st;
		if (st.decision == XVBD_SEQ_DIFFERENT ||
		    st.decision == XVBD_SEQ_EQUIVALENT) {
			s->decided[i] = true;
			s->decided_at[i] = n;
			continue;
		}
		open++;
		hopeful += n < FUTILE_MIN_BLOCKS || can_settle(s, i);
	}
	if (!open)
		s->stop = XVBD_AB_SWEEP_SETTLED;
	else if (n >= s->each.max_pairs)
		s->stop = XVBD_AB_SWEEP_CAP;
	else if (!hopeful)
		s->stop = XVBD_AB_SWEEP_FUTILE;
	else
		s->stop = XVBD_AB_SWEEP_GO_ON;
	return 0;
}
