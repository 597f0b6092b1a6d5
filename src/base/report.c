/*
 * report.c - the layers' error carrier (xvbd/base/report.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "xvbd/base/report.h"

void xvbd_report_init(struct xvbd_report *r,
		      void (*fn)(void *arg, enum xvbd_say kind,
				 const char *what, const char *text),
		      void *arg)
{
	memset(r, 0, sizeof(*r));
	r->fn = fn;
	r->arg = arg;
}

void xvbd_report_clear(struct xvbd_report *r)
{
	r->nerrors = 0;
	r->has_what = false;
	r->what[0] = r->why[0] = r->hint[0] = '\0';
}

static void say(struct xvbd_report *r, enum xvbd_say kind, const char *what,
		const char *fmt, va_list ap)
{
	char text[XVBD_REPORT_WHY_MAX];

	vsnprintf(text, sizeof(text), fmt, ap);
	if (kind == XVBD_SAY_ERROR && !r->nerrors++) {
		r->has_what = what != NULL;
		snprintf(r->what, sizeof(r->what), "%s", what ? what : "");
		snprintf(r->why, sizeof(r->why), "%s", text);
		r->hint[0] = '\0';
	} else if (kind == XVBD_SAY_HINT && r->nerrors == 1 && !r->hint[0]) {
		snprintf(r->hint, sizeof(r->hint), "%.*s",
			 (int)sizeof(r->hint) - 1, text);
	}
	if (r->fn)
		r->fn(r->arg, kind, what, text);
}

void xvbd_report_err(struct xvbd_report *r, const char *what,
		     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(r, XVBD_SAY_ERROR, what, fmt, ap);
	va_end(ap);
}

void xvbd_report_hint(struct xvbd_report *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(r, XVBD_SAY_HINT, NULL, fmt, ap);
	va_end(ap);
}

void xvbd_report_say(struct xvbd_report *r, enum xvbd_say kind,
		     const char *what, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(r, kind, what, fmt, ap);
	va_end(ap);
}
