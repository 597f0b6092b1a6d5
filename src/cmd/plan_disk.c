/*
 * plan_disk.c - apply's disk object, read for every plan that names a
 * disk (plan_disk.h): apply's plan (apply_plan.c) and ab run's
 * experiment levels (cmd_ab_run_plan.c) take the same keys, parsed by
 * the disk layer, so a disk written in either is the same description
 * with the same words in its errors.
 */
#include <stdio.h>
#include <string.h>

#include "xvbd/cmd/plan_disk.h"

/* Plan key -> override key (the plan spells attach's options with _). */
static const struct {
	const char *name;
	enum xvbd_ovr_id id;
	bool boolean;
} offers[] = {
	{ "ring_order", XVBD_OVR_RING_ORDER, false },
	{ "queues", XVBD_OVR_QUEUES, false },
	{ "indirect_segments", XVBD_OVR_INDIRECT, false },
	{ "discard", XVBD_OVR_DISCARD, true },
	{ "trusted", XVBD_OVR_TRUSTED, true },
};
#define NOFFERS	(sizeof(offers) / sizeof(offers[0]))

static const char *const disk_keys[] = {
	"vdev", "file", "phy", "share", "credentials", "share_opts", "size",
	"prealloc", "access", "cache", NULL,
};

const char *xvbd_plan_disk_offer_name(enum xvbd_ovr_id id)
{
	size_t i;

	for (i = 0; i < NOFFERS; i++)
		if (offers[i].id == id)
			return offers[i].name;
	return NULL;
}

static bool known_disk_key(const char *k)
{
	size_t i;

	for (i = 0; disk_keys[i]; i++)
		if (!strcmp(disk_keys[i], k))
			return true;
	for (i = 0; i < NOFFERS; i++)
		if (!strcmp(offers[i].name, k))
			return true;
	return false;
}

int xvbd_plan_disk_keys(struct xvbd_plan_err *e, const char *where,
			yajl_val obj)
{
	return xvbd_plan_check_keys(e, where, obj, known_disk_key,
				    XVBD_PLAN_DISK_KEYS);
}

/* A plan's spelling of a disk key: ring-order -> ring_order. */
static void plan_key(const char *key, char *buf, size_t len)
{
	size_t i;

	for (i = 0; key[i] && i + 1 < len; i++)
		buf[i] = key[i] == '-' ? '_' : key[i];
	buf[i] = '\0';
}

/* The plan's offer key name: 1 boolean, 0 a number, -1 not an offer. */
static int offer_kind(const char *name)
{
	size_t i;

	for (i = 0; i < NOFFERS; i++)
		if (!strcmp(offers[i].name, name))
			return offers[i].boolean;
	return -1;
}

/*
 * One key's JSON value as the text the disk layer's parser takes: a
 * string, a number (size, the numeric offers), or a boolean (prealloc,
 * the boolean offers; "on"/"off" too).
 */
static int json_word(struct xvbd_plan_err *e, const char *where,
		     const char *key, yajl_val v, char *buf, size_t len)
{
	bool on = false;
	int err;

	if (!strcmp(key, "prealloc") || offer_kind(key) == 1) {
		err = xvbd_plan_onoff(e, where, key, v, &on);
		snprintf(buf, len, "%s", on ? "on" : "off");
		return err;
	}
	if (!strcmp(key, "size") || offer_kind(key) == 0)
		return xvbd_plan_word(e, where, key, v, buf, len);
	return xvbd_plan_str(e, where, key, v, buf, len);
}

/*
 * The disk's keys through the disk layer's parser, in its order (the
 * source first), then the keys together; its errors named by the plan's
 * place and key.
 */
int xvbd_plan_disk_desc(struct xvbd_plan_err *e, const char *where,
			yajl_val obj, unsigned sources,
			struct xvbd_disk_desc *desc)
{
	struct xvbd_report rep;
	char key[32], word[XVBD_DISK_ARG_MAX];
	size_t k;
	yajl_val v;
	int err;

	xvbd_report_init(&rep, NULL, NULL);
	xvbd_disk_desc_init(desc, XVBD_DISK_WORDS_KEYS, sources);
	for (k = 0; xvbd_disk_keys[k]; k++) {
		plan_key(xvbd_disk_keys[k], key, sizeof(key));
		v = xvbd_plan_member(obj, key);
		if (!v)
			continue;
		err = json_word(e, where, key, v, word, sizeof(word));
		if (err)
			return err;
		if (xvbd_disk_desc_set(desc, key, word, &rep))
			goto refused;
	}
	if (!xvbd_disk_desc_check(desc, &rep))
		return 0;
refused:
	if (!rep.has_what)
		return xvbd_plan_fail(e, where, NULL, "%s", rep.why);
	plan_key(rep.what, key, sizeof(key));
	return xvbd_plan_fail(e, where, key, "%s", rep.why);
}
