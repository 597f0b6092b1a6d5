/*
 * kcmdline.c - module parameters on a kernel command line, read as
 * Linux reads them (see kcmdline.h).  Pure.
 */
#include <string.h>

#include "xvbd/xen/kcmdline.h"

/* One word of the command line. */
struct word {
	const char *p;
	size_t len;
};

static bool blank(char ch)
{
	/* isspace() in the C locale, as the kernel's */
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\v' ||
	       ch == '\f' || ch == '\r';
}

/* The next word from *s (quotes keep blanks inside it); false at end. */
static bool next_word(const char **s, struct word *w)
{
	const char *p = *s;
	bool in_quote = false;

	while (*p && blank(*p))
		p++;
	if (!*p) {
		*s = p;
		return false;
	}
	w->p = p;
	for (; *p; p++) {
		if (blank(*p) && !in_quote)
			break;
		if (*p == '"')
			in_quote = !in_quote;
	}
	w->len = (size_t)(p - w->p);
	*s = p;
	return true;
}

/*
 * As parameq() in kernel/params.c: '-' and '_' are the same, case is
 * not folded (XEN_BLKFRONT.max_queues is no parameter of blkfront's).
 */
static char fold(char ch)
{
	return ch == '-' ? '_' : ch;
}

/*
 * Does w name a parameter of module ("<module>.<rest>", '-' and '_'
 * alike)?  *rest is what follows the dot.
 */
static bool of_module(const struct word *w, const char *module,
		      struct word *rest)
{
	const char *p = w->p, *end = w->p + w->len;
	size_t mlen = strlen(module), i;

	if (p < end && *p == '"')
		p++;
	if ((size_t)(end - p) <= mlen + 1)
		return false;
	for (i = 0; i < mlen; i++)
		if (fold(p[i]) != fold(module[i]))
			return false;
	if (p[mlen] != '.')
		return false;
	rest->p = p + mlen + 1;
	rest->len = (size_t)(end - rest->p);
	return true;
}

static bool is_end(const struct word *w)
{
	return w->len == 2 && !strncmp(w->p, "--", 2);
}

/* The name of rest ("name=value") folded into buf; false if unfit. */
static bool param_name(const struct word *rest, char *buf, size_t len,
		       size_t *name_len)
{
	size_t i, n = 0;

	while (n < rest->len && rest->p[n] != '=')
		n++;
	if (!n || n >= len)
		return false;
	for (i = 0; i < n; i++) {
		char ch = fold(rest->p[i]);

		if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
		      ch == '_'))
			return false;
		buf[i] = ch;
	}
	buf[n] = '\0';
	*name_len = n;
	return true;
}

/* The value after "name=": one pair of quotes taken off. */
static void param_value(const struct word *rest, size_t name_len,
			struct xvbd_kparam *kp)
{
	const char *v = rest->p + name_len + 1;
	size_t vlen = rest->len - name_len - 1;

	kp->has_value = true;
	kp->value_too_long = false;
	kp->value[0] = '\0';
	if (vlen && *v == '"') {
		v++;
		vlen--;
	}
	if (vlen && v[vlen - 1] == '"')
		vlen--;
	if (vlen >= sizeof(kp->value)) {
		kp->value_too_long = true;
		return;
	}
	memcpy(kp->value, v, vlen);
	kp->value[vlen] = '\0';
}

static struct xvbd_kparam *slot(struct xvbd_kparams *out, const char *name)
{
	size_t i;

	for (i = 0; i < out->n; i++)
		if (!strcmp(out->items[i].name, name))
			return &out->items[i];
	if (out->n >= XVBD_KPARAMS_MAX)
		return NULL;
	return &out->items[out->n++];
}

void xvbd_kcmdline_module_params(const char *cmdline, const char *module,
				 struct xvbd_kparams *out)
{
	const char *s = cmdline ? cmdline : "";
	struct word w, rest;

	memset(out, 0, sizeof(*out));
	while (next_word(&s, &w)) {
		char name[XVBD_KPARAM_NAME_MAX];
		struct xvbd_kparam *kp;
		size_t name_len;

		if (is_end(&w))
			break;	/* the rest is init's */
		if (!of_module(&w, module, &rest))
			continue;
		if (rest.len && rest.p[rest.len - 1] == '"' &&
		    w.p[0] == '"')
			rest.len--;	/* "xen_blkfront.x=1" quoted whole */
		if (!param_name(&rest, name, sizeof(name), &name_len) ||
		    !(kp = slot(out, name))) {
			out->skipped++;
			continue;
		}
		memcpy(kp->name, name, name_len + 1);
		if (name_len < rest.len) {
			param_value(&rest, name_len, kp);
		} else {
			kp->has_value = false;
			kp->value_too_long = false;
			kp->value[0] = '\0';
		}
	}
}

/*
 * The next word of *s that is not one of module's parameters (all words
 * once past "--", where they are init's).
 */
static bool next_other(const char **s, const char *module, bool *past_end,
		       struct word *w)
{
	struct word rest;

	while (next_word(s, w)) {
		if (*past_end || !of_module(w, module, &rest)) {
			if (is_end(w))
				*past_end = true;
			return true;
		}
	}
	return false;
}

bool xvbd_kcmdline_same_except(const char *a, const char *b,
			       const char *module)
{
	const char *sa = a ? a : "", *sb = b ? b : "";
	bool end_a = false, end_b = false, more_a, more_b;
	struct word wa, wb;

	for (;;) {
		more_a = next_other(&sa, module, &end_a, &wa);
		more_b = next_other(&sb, module, &end_b, &wb);
		if (!more_a || !more_b)
			return more_a == more_b;
		if (wa.len != wb.len || memcmp(wa.p, wb.p, wa.len))
			return false;
	}
}
