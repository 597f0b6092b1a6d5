/*
 * trace_hist.c - read a hist trigger's "hist" file (trace_hist.h).
 *
 * The layout is hist_trigger_print_key() and hist_trigger_entry_print()
 * of kernel/trace/trace_events_hist.c: keys between braces separated by
 * ", ", then "hitcount:" and each value as "name: %10llu", the onmax
 * line indented below, and the "Totals:" block after each trigger.
 */
#include <errno.h>
#include <string.h>

#include "xvbd/dom0/trace_hist.h"

#define LINE_MAX_BYTES	4096

struct cursor {
	const char *p, *end;
};

static void skip_blanks(struct cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

static bool eat(struct cursor *c, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, lit, n))
		return false;
	c->p += n;
	return true;
}

/* A plain decimal of at most 20 digits that fits 64 bits. */
static int number(struct cursor *c, uint64_t *v)
{
	uint64_t x = 0;
	int digits = 0;

	skip_blanks(c);
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		unsigned d = (unsigned)(*c->p - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -EINVAL;
		x = x * 10 + d;
		c->p++;
		digits++;
	}
	if (!digits)
		return -EINVAL;
	*v = x;
	return 0;
}

/* "name:" (a field name or a key expression: no blank, no colon). */
static int name(struct cursor *c, char *buf)
{
	const char *start;
	size_t n;

	skip_blanks(c);
	start = c->p;
	while (c->p < c->end && *c->p != ':' && *c->p != ' ' &&
	       *c->p != ',' && *c->p != '}')
		c->p++;
	n = (size_t)(c->p - start);
	if (!n || n >= XVBD_HIST_NAME_MAX || !eat(c, ":"))
		return -EINVAL;
	memcpy(buf, start, n);
	buf[n] = '\0';
	return 0;
}

/* "{ k: v, k: ~ lo-hi }": keys, then "hitcount:" and the values. */
static int entry_line(struct cursor *c, struct xvbd_hist_entry *e)
{
	uint64_t hi;

	c->p++;		/* '{' */
	for (;;) {
		if (e->nkeys == XVBD_HIST_KEYS_MAX ||
		    name(c, e->key_name[e->nkeys]))
			return -EINVAL;
		skip_blanks(c);
		if (eat(c, "~")) {
			if (number(c, &e->key[e->nkeys]) || !eat(c, "-") ||
			    number(c, &hi) || hi < e->key[e->nkeys])
				return -EINVAL;
		} else if (number(c, &e->key[e->nkeys])) {
			return -EINVAL;
		}
		e->nkeys++;
		skip_blanks(c);
		if (eat(c, "}"))
			break;
		if (!eat(c, ","))
			return -EINVAL;
	}
	skip_blanks(c);
	if (!eat(c, "hitcount:") || number(c, &e->hitcount))
		return -EINVAL;
	for (;;) {
		skip_blanks(c);
		if (c->p == c->end)
			return 0;
		if (e->nvals == XVBD_HIST_VALS_MAX ||
		    name(c, e->val_name[e->nvals]) ||
		    number(c, &e->val[e->nvals]))
			return -EINVAL;
		e->nvals++;
	}
}

/* "max: N" and the saved fields (ignored) below an entry. */
static int max_line(struct cursor *c, struct xvbd_hist_entry *e)
{
	if (!eat(c, "max:") || number(c, &e->max))
		return -EINVAL;
	e->has_max = true;
	return 0;
}

/* "Hits: N", "Entries: N", "Dropped: N" of a Totals block. */
static int totals_line(struct cursor *c, struct xvbd_hist_totals *t)
{
	uint64_t v;

	if (eat(c, "Hits:")) {
		if (number(c, &v))
			return -EINVAL;
		t->hits += v;
	} else if (eat(c, "Entries:")) {
		if (number(c, &v))
			return -EINVAL;
		t->entries += v;
	} else if (eat(c, "Dropped:")) {
		if (number(c, &v))
			return -EINVAL;
		t->dropped += v;
	} else {
		return -EINVAL;
	}
	skip_blanks(c);
	return c->p == c->end ? 0 : -EINVAL;
}

struct parse {
	int (*fn)(void *arg, const struct xvbd_hist_entry *e);
	void *arg;
	struct xvbd_hist_entry e;
	bool pending, in_totals;
	size_t section;
	const char *info;
	size_t info_len;
	struct xvbd_hist_totals tot;
};

static int flush(struct parse *ps)
{
	if (!ps->pending)
		return 0;
	ps->pending = false;
	return ps->fn ? ps->fn(ps->arg, &ps->e) : 0;
}

static int one_line(struct parse *ps, struct cursor *c)
{
	bool indented = c->p < c->end && (*c->p == ' ' || *c->p == '\t');
	int rc;

	skip_blanks(c);
	if (c->p == c->end)
		return flush(ps);
	if (*c->p == '#') {
		if (eat(c, "# trigger info:")) {
			if (ps->tot.sections++)
				ps->section++;
			ps->in_totals = false;
			skip_blanks(c);
			ps->info = c->p;
			ps->info_len = (size_t)(c->end - c->p);
		}
		return flush(ps);
	}
	if (*c->p == '{') {
		rc = flush(ps);
		if (rc)
			return rc;
		memset(&ps->e, 0, sizeof(ps->e));
		ps->e.section = ps->section;
		ps->e.info = ps->info;
		ps->e.info_len = ps->info_len;
		rc = entry_line(c, &ps->e);
		ps->pending = !rc;
		return rc;
	}
	if (indented && ps->pending && !ps->e.has_max)
		return max_line(c, &ps->e);
	rc = flush(ps);
	if (rc)
		return rc;
	if (eat(c, "Totals:")) {
		ps->in_totals = true;
		return 0;
	}
	return ps->in_totals ? totals_line(c, &ps->tot) : -EINVAL;
}

int xvbd_hist_parse(const char *text, size_t len,
		    int (*fn)(void *arg, const struct xvbd_hist_entry *e),
		    void *arg, struct xvbd_hist_totals *totals)
{
	struct parse ps = { .fn = fn, .arg = arg };
	const char *p = text, *end = text + len, *nl;
	int rc = 0;

	while (p < end && !rc) {
		struct cursor c;

		nl = memchr(p, '\n', (size_t)(end - p));
		c.p = p;
		c.end = nl ? nl : end;
		if (c.end - c.p > LINE_MAX_BYTES)
			return -EINVAL;
		rc = one_line(&ps, &c);
		p = nl ? nl + 1 : end;
	}
	if (!rc)
		rc = flush(&ps);
	if (!rc && !ps.tot.sections)
		rc = -EINVAL;	/* not a hist file: no trigger info */
	if (totals)
		*totals = ps.tot;
	return rc;
}

static int lookup(const char names[][XVBD_HIST_NAME_MAX],
		  const uint64_t *vals, size_t n, const char *want,
		  uint64_t *v)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!strcmp(names[i], want)) {
			*v = vals[i];
			return 0;
		}
	}
	return -ENOENT;
}

int xvbd_hist_key(const struct xvbd_hist_entry *e, const char *key_name,
		  uint64_t *v)
{
	return lookup(e->key_name, e->key, e->nkeys, key_name, v);
}

int xvbd_hist_val(const struct xvbd_hist_entry *e, const char *val_name,
		  uint64_t *v)
{
	return lookup(e->val_name, e->val, e->nvals, val_name, v);
}
