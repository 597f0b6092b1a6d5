/*
 * ab_testrec.h - in-memory A/B records for the unit tests, built by hand
 * (fixed arrays: nothing to free), and fingerprints from literal facts.
 */
#ifndef AB_TESTREC_H
#define AB_TESTREC_H

#include <stdint.h>
#include <string.h>

#include "xvbd/ab/ab.h"

#define T_NS		1000000000ull
#define T_SAMPLES	32
#define T_VDEVS		2
#define T_FACTS		16

struct trec {
	struct xvbd_ab_record r;
	struct xvbd_ab_sample s[T_SAMPLES];
	struct xvbd_ab_vbd_sample v[T_SAMPLES][T_VDEVS];
	struct xvbd_ab_fact facts[T_FACTS];
	char *vdevs[T_VDEVS];
};

static inline void trec_init(struct trec *t, const char *label,
			     const char *id, size_t nvdevs)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	t->r.id = (char *)id;
	t->r.label = (char *)label;
	t->r.domain = (char *)"guest";
	t->vdevs[0] = (char *)"xvdb";
	t->vdevs[1] = (char *)"xvdc";
	t->r.vdevs = t->vdevs;
	t->r.nvdevs = nvdevs;
	t->r.mode = XVBD_AB_MODE_DURATION;
	t->r.workload = (char *)"duration 10s";
	t->r.interval_ns = T_NS;
	t->r.complete = true;
	t->r.samples = t->s;
	t->r.fp.facts = t->facts;
	for (i = 0; i < T_SAMPLES; i++)
		t->s[i].vbds = t->v[i];
}

/* Append a sample: time in ms, one VBD's blkback counters, CPU in ms. */
static inline struct xvbd_ab_sample *trec_add(struct trec *t, uint64_t t_ms,
					      uint64_t rd_req,
					      uint64_t wr_req,
					      uint64_t rd_sect,
					      uint64_t wr_sect,
					      uint64_t guest_cpu_ms,
					      uint64_t dom0_cpu_ms)
{
	struct xvbd_ab_sample *s = &t->s[t->r.nsamples++];

	s->t_ns = t_ms * 1000000ull;
	s->guest_cpu_ns = guest_cpu_ms * 1000000ull;
	s->dom0_cpu_ns = dom0_cpu_ms * 1000000ull;
	s->guest_vcpus = 1;
	s->dom0_vcpus = 1;
	s->vbds[0].c.rd_req = rd_req;
	s->vbds[0].c.wr_req = wr_req;
	s->vbds[0].c.rd_sect = rd_sect;
	s->vbds[0].c.wr_sect = wr_sect;
	return s;
}

/* Facts must be added in key order (the model keeps them sorted). */
static inline void trec_fact(struct trec *t, const char *key,
			     const char *value)
{
	t->facts[t->r.fp.n].key = (char *)key;
	t->facts[t->r.fp.n].value = (char *)value;
	t->r.fp.n++;
}

#endif /* AB_TESTREC_H */
