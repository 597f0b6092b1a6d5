/*
 * ab_fp_offer.c - how fingerprint differences hang together: the
 * backend's offer of a VBD beside the frontend's choice of it.
 *
 * blkif negotiation is two-sided: blkback offers (max-ring-page-order,
 * multi-queue-max-queues, feature-max-indirect-segments,
 * feature-persistent, feature-discard in the backend directory) and
 * blkfront chooses within its own limits (xen_blkfront.* on the guest's
 * command line).  An experiment on an offer changes the offer on one
 * side; when the choice changes with it, the two differences are one
 * variable under test.  When the choice stays the same, the change never
 * reached the I/O path, and the comparison must say so and name what
 * refused it, instead of comparing two identical set-ups.
 * Pure: no I/O (unit-tested).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "xvbd/ab/ab.h"
#include "xvbd/xen/kcmdline.h"

/* One offer: vbd.<vdev>.offer.<offer> beside vbd.<vdev>.<choice>. */
struct offer_kind {
	const char *offer;
	const char *choice;
	/* "B offered <offer_pre><value><offer_post> (A <value>)" */
	const char *offer_pre, *offer_post;
	/* "<chose_pre><value><chose_one or chose_many> on both sides" */
	const char *chose_pre, *chose_one, *chose_many;
	/* the guest's parameter: the fact guest.blkfront.<name> carries it */
	const char *parameter;
	/*
	 * ": <refused>: the change never ...", where NULL says "its limit,
	 * the guest kernel's <parameter>, refused it".
	 */
	const char *refused;
};

/* Every offer is refused by the frontend: blkback writes what it offers. */
#define REFUSED_BY	"frontend"

static const struct offer_kind kinds[] = {
	{ "ring_order", "ring_pages", "ring order ", "",
	  "the frontend chose ", " ring page", " ring pages",
	  "xen_blkfront.max_ring_page_order", NULL },
	{ "queues", "queues", "", " queues",
	  "the frontend chose ", " queue", " queues",
	  "xen_blkfront.max_queues", NULL },
	{ "indirect_segments", "indirect_segments", "", " indirect segments",
	  "the frontend used ", " indirect segment", " indirect segments",
	  "xen_blkfront.max_indirect_segments", NULL },
	{ "persistent_grants", "persistent_grants", "persistent grants ", "",
	  "persistent grants in use: ", "", "",
	  "xen_blkfront.feature_persistent",
	  "the frontend, by the guest kernel's "
	  "xen_blkfront.feature_persistent, refused it" },
	{ "discard", "discard", "discard ", "",
	  "discard in use: ", "", "", NULL,
	  "the frontend refused it (blkfront has no parameter for discard: "
	  "the guest's kernel or the device decided)" },
};

#define NKINDS	(sizeof(kinds) / sizeof(kinds[0]))
#define OFFER	".offer."
#define BLKFRONT_PREFIX	"xen_blkfront."
#define GUEST_BLKFRONT	"guest.blkfront."

/* "vbd.<vdev>." of key: its length, or 0 when key is no VBD fact. */
static size_t vbd_prefix_len(const char *key)
{
	const char *dot;

	if (strncmp(key, "vbd.", 4))
		return 0;
	dot = strchr(key + 4, '.');
	if (!dot || dot == key + 4)
		return 0;
	return (size_t)(dot + 1 - key);
}

/* The offer kind of "vbd.<vdev>.offer.<offer>", else NULL. */
static const struct offer_kind *offer_of(const char *key, size_t *plen)
{
	size_t p = vbd_prefix_len(key), i;

	/* The key's "offer." after the vdev's "." (&OFFER[1]: clang's
	 * -Wstring-plus-int takes OFFER + 1 for a concatenation). */
	if (!p || strncmp(key + p, &OFFER[1], sizeof(OFFER) - 2))
		return NULL;
	for (i = 0; i < NKINDS; i++)
		if (!strcmp(key + p + sizeof(OFFER) - 2, kinds[i].offer)) {
			*plen = p;
			return &kinds[i];
		}
	return NULL;
}

/* The offer kind whose choice is "vbd.<vdev>.<choice>", else NULL. */
static const struct offer_kind *choice_of(const char *key)
{
	size_t p = vbd_prefix_len(key), i;

	for (i = 0; p && i < NKINDS; i++)
		if (!strcmp(key + p, kinds[i].choice))
			return &kinds[i];
	return NULL;
}

static struct xvbd_ab_fpdiff *find(struct xvbd_ab_fpdiff *d, size_t n,
				   const char *key)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(d[i].key, key))
			return &d[i];
	return NULL;
}

/* A value a frontend chose: neither unknown nor only an offer. */
static bool chosen(const char *v)
{
	return v && strncmp(v, "unknown", 7) && strncmp(v, "offered", 7) &&
	       strncmp(v, "not ", 4);
}

/* An offer difference: its choice follows it, or it was not taken. */
static void relate_offer(const struct xvbd_ab_fp *a,
			 const struct xvbd_ab_fp *b,
			 struct xvbd_ab_fpdiff *d, size_t n,
			 struct xvbd_ab_fpdiff *od,
			 const struct offer_kind *k, size_t plen)
{
	struct xvbd_ab_fpdiff *cd;
	const char *ca, *cb;
	char key[256];

	if (plen + strlen(k->choice) >= sizeof(key))
		return;
	memcpy(key, od->key, plen);
	strcpy(key + plen, k->choice);
	cd = find(d, n, key);
	if (cd) {
		cd->follows = od->key;
		return;
	}
	ca = xvbd_ab_fp_get(a, key);
	cb = xvbd_ab_fp_get(b, key);
	if (!chosen(ca) || !chosen(cb) || strcmp(ca, cb) || !od->a || !od->b)
		return;
	od->not_taken = true;
	od->choice = ca;
	od->refused_by = REFUSED_BY;
	od->parameter = k->parameter;
}

/*
 * A choice that changed with the guest's own limit (guest.blkfront.*
 * differs, no offer of it did): the limit is what changed.
 */
static void relate_guest_limit(struct xvbd_ab_fpdiff *d, size_t n,
			       struct xvbd_ab_fpdiff *cd,
			       const struct offer_kind *k)
{
	struct xvbd_ab_fpdiff *gd;
	char key[128];

	if (!k->parameter)
		return;
	snprintf(key, sizeof(key), GUEST_BLKFRONT "%s",
		 k->parameter + sizeof(BLKFRONT_PREFIX) - 1);
	gd = find(d, n, key);
	if (gd)
		cd->follows = gd->key;
}

/* vbd.<vdev>.offer.overridden follows any other offer of the vdev. */
static void relate_overridden(struct xvbd_ab_fpdiff *d, size_t n,
			      struct xvbd_ab_fpdiff *xd, size_t plen)
{
	size_t i;

	for (i = 0; i < n; i++) {
		size_t p;

		if (&d[i] != xd && offer_of(d[i].key, &p) && p == plen &&
		    !strncmp(d[i].key, xd->key, plen)) {
			xd->follows = d[i].key;
			return;
		}
	}
}

/*
 * guest.cmdline follows a guest.blkfront.* difference when nothing but
 * xen_blkfront.* words differ between the two command lines.
 */
static void relate_cmdline(struct xvbd_ab_fpdiff *d, size_t n,
			   struct xvbd_ab_fpdiff *cd)
{
	size_t i;

	if (!cd->a || !cd->b ||
	    !xvbd_kcmdline_same_except(cd->a, cd->b, XVBD_BLKFRONT_MODULE))
		return;
	for (i = 0; i < n; i++)
		if (!strncmp(d[i].key, GUEST_BLKFRONT,
			     sizeof(GUEST_BLKFRONT) - 1)) {
			cd->follows = d[i].key;
			return;
		}
}

static bool is_workload(const char *key)
{
	return !strncmp(key, XVBD_AB_FP_WORKLOAD_PREFIX,
			strlen(XVBD_AB_FP_WORKLOAD_PREFIX));
}

/* The workload's own facts are one difference: the first one's. */
static void relate_workload(struct xvbd_ab_fpdiff *d, size_t n,
			    struct xvbd_ab_fpdiff *w)
{
	size_t i;

	for (i = 0; i < n && &d[i] != w; i++) {
		if (is_workload(d[i].key)) {
			w->follows = d[i].key;
			return;
		}
	}
}

size_t xvbd_ab_fp_relate(const struct xvbd_ab_fp *a,
			 const struct xvbd_ab_fp *b,
			 struct xvbd_ab_fpdiff *d, size_t n)
{
	const struct offer_kind *k;
	size_t i, plen, alone = 0;

	for (i = 0; i < n; i++) {
		d[i].follows = NULL;
		d[i].not_taken = false;
		d[i].choice = d[i].refused_by = d[i].parameter = NULL;
	}
	for (i = 0; i < n; i++) {
		k = offer_of(d[i].key, &plen);
		if (k)
			relate_offer(a, b, d, n, &d[i], k, plen);
	}
	for (i = 0; i < n; i++) {
		plen = vbd_prefix_len(d[i].key);
		k = choice_of(d[i].key);
		if (k && !d[i].follows)
			relate_guest_limit(d, n, &d[i], k);
		else if (plen && !strcmp(d[i].key + plen, "offer.overridden"))
			relate_overridden(d, n, &d[i], plen);
		else if (!strcmp(d[i].key, "guest.cmdline"))
			relate_cmdline(d, n, &d[i]);
		else if (is_workload(d[i].key))
			relate_workload(d, n, &d[i]);
	}
	for (i = 0; i < n; i++)
		alone += !d[i].follows;
	return alone;
}

int xvbd_ab_fp_not_taken_text(const struct xvbd_ab_fpdiff *d, char *buf,
			      size_t len)
{
	const struct offer_kind *k;
	size_t plen;
	int n;

	if (!d->not_taken || !(k = offer_of(d->key, &plen)) || !len)
		return -EINVAL;
	n = snprintf(buf, len, "%s: B offered %s%s%s (A %s); %s%s%s on both "
		     "sides: %s%s%s: the change never took effect", d->key,
		     k->offer_pre, d->b, k->offer_post, d->a, k->chose_pre,
		     d->choice, strcmp(d->choice, "1") ? k->chose_many :
		     k->chose_one, k->refused ? k->refused :
		     "its limit, the guest kernel's ",
		     k->refused ? "" : k->parameter,
		     k->refused ? "" : ", refused it");
	if (n < 0)
		return -EINVAL;
	return (size_t)n >= len ? -ENOSPC : 0;
}
