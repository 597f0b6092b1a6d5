/*
 * capture.c - a command's stdout, piece by piece, into its results:
 * both readers see every piece (so that --results auto needs no second
 * pass and no copy of the output), up to the bound; what comes after is
 * counted only.  The verdict waits for the command's end: a failed
 * command's output is not its results, whatever it printed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/workload/workload.h"

struct xvbd_wl_capture {
	enum xvbd_wl_results_mode mode;
	uint64_t max_bytes, bytes;
	struct xvbd_wl_fio_reader *fio;		/* NULL: not asked */
	struct xvbd_wl_bench_reader *bench;
	bool nomem;
};

static const char *const mode_names[] = {
	[XVBD_WL_RESULTS_AUTO] = "auto",
	[XVBD_WL_RESULTS_FIO] = "fio",
	[XVBD_WL_RESULTS_BENCHFMT] = "benchfmt",
	[XVBD_WL_RESULTS_NONE] = "none",
};

int xvbd_wl_results_mode_parse(const char *s, enum xvbd_wl_results_mode *m)
{
	size_t i;

	for (i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++) {
		if (!strcmp(s, mode_names[i])) {
			*m = i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *xvbd_wl_results_mode_name(enum xvbd_wl_results_mode m)
{
	return m <= XVBD_WL_RESULTS_NONE ? mode_names[m] : "?";
}

const char *xvbd_wl_format_name(enum xvbd_wl_format f)
{
	switch (f) {
	case XVBD_WL_FIO:
		return "fio";
	case XVBD_WL_BENCHFMT:
		return "benchfmt";
	default:
		return "absent";
	}
}

void xvbd_wl_results_free(struct xvbd_wl_results *r)
{
	xvbd_wl_fio_free(&r->fio);
	xvbd_wl_bench_free(&r->bench);
	memset(r, 0, sizeof(*r));
}

struct xvbd_wl_capture *xvbd_wl_capture_new(enum xvbd_wl_results_mode mode,
					    uint64_t max_bytes)
{
	struct xvbd_wl_capture *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->mode = mode;
	c->max_bytes = max_bytes;
	if (mode == XVBD_WL_RESULTS_AUTO || mode == XVBD_WL_RESULTS_FIO) {
		c->fio = xvbd_wl_fio_reader_new();
		if (!c->fio)
			goto nomem;
	}
	if (mode == XVBD_WL_RESULTS_AUTO || mode == XVBD_WL_RESULTS_BENCHFMT) {
		c->bench = xvbd_wl_bench_reader_new();
		if (!c->bench)
			goto nomem;
	}
	return c;
nomem:
	xvbd_wl_capture_free(c);
	return NULL;
}

int xvbd_wl_capture_feed(struct xvbd_wl_capture *c, const char *buf,
			 size_t len)
{
	size_t take = 0;

	if (c->bytes < c->max_bytes)
		take = c->max_bytes - c->bytes < len ?
		       (size_t)(c->max_bytes - c->bytes) : len;
	c->bytes += len;
	if (!take || c->nomem)
		return c->nomem ? -ENOMEM : 0;
	if (c->fio && xvbd_wl_fio_reader_feed(c->fio, buf, take))
		c->nomem = true;
	if (c->bench && xvbd_wl_bench_reader_feed(c->bench, buf, take))
		c->nomem = true;
	return c->nomem ? -ENOMEM : 0;
}

static void absent(struct xvbd_wl_results *out, const char *fmt, ...)
	XVBD_PRINTF(2, 3);
static void absent(struct xvbd_wl_results *out, const char *fmt, ...)
{
	va_list ap;

	out->format = XVBD_WL_ABSENT;
	va_start(ap, fmt);
	vsnprintf(out->why, sizeof(out->why), fmt, ap);
	va_end(ap);
}

static void take_fio(struct xvbd_wl_capture *c, struct xvbd_wl_results *out)
{
	char why[XVBD_WL_WHY_MAX];

	if (xvbd_wl_fio_reader_finish(c->fio, &out->fio, why, sizeof(why))) {
		absent(out, "%s", why);
		return;
	}
	if (xvbd_wl_fio_failed(&out->fio, why, sizeof(why))) {
		xvbd_wl_fio_free(&out->fio);
		absent(out, "%s", why);
		return;
	}
	out->format = XVBD_WL_FIO;
}

static void take_bench(struct xvbd_wl_capture *c,
		       struct xvbd_wl_results *out)
{
	char why[XVBD_WL_WHY_MAX];

	if (xvbd_wl_bench_reader_finish(c->bench, &out->bench, why,
					sizeof(why)))
		absent(out, "%s", why);
	else
		out->format = XVBD_WL_BENCHFMT;
}

/* A failed command: absent, with fio's own word for it if it has one. */
static void failed_command(struct xvbd_wl_capture *c, int exit_status,
			   struct xvbd_wl_results *out)
{
	char why[XVBD_WL_WHY_MAX] = "";
	struct xvbd_wl_fio f;

	if (c->fio && xvbd_wl_fio_reader_seen(c->fio) &&
	    !xvbd_wl_fio_reader_finish(c->fio, &f, why, sizeof(why))) {
		if (!xvbd_wl_fio_failed(&f, why, sizeof(why)))
			why[0] = '\0';
		xvbd_wl_fio_free(&f);
	} else {
		why[0] = '\0';
	}
	absent(out, "the command exited with status %d%s%.160s%s: its "
	       "output is not taken for results", exit_status,
	       why[0] ? " (" : "", why, why[0] ? ")" : "");
}

void xvbd_wl_capture_finish(struct xvbd_wl_capture *c, int exit_status,
			    struct xvbd_wl_results *out)
{
	memset(out, 0, sizeof(*out));
	out->mode = c->mode;
	out->output_bytes = c->bytes;
	if (c->mode == XVBD_WL_RESULTS_NONE) {
		out->quiet = true;
		absent(out, "not read (--results none)");
	} else if (c->nomem) {
		absent(out, "%s", strerror(ENOMEM));
	} else if (exit_status) {
		failed_command(c, exit_status, out);
	} else if (c->bytes > c->max_bytes) {
		absent(out, "the command printed %llu bytes on stdout, more "
		       "than the %llu MiB read", (unsigned long long)c->bytes,
		       (unsigned long long)(c->max_bytes >> 20));
	} else if (c->mode == XVBD_WL_RESULTS_FIO) {
		take_fio(c, out);
	} else if (c->mode == XVBD_WL_RESULTS_BENCHFMT) {
		take_bench(c, out);
	} else if (xvbd_wl_fio_reader_seen(c->fio)) {
		take_fio(c, out);
	} else if (xvbd_wl_bench_reader_seen(c->bench)) {
		take_bench(c, out);
	} else {
		/* A command that only drives the guest prints nothing. */
		out->quiet = c->bytes == 0;
		absent(out, "neither fio's JSON nor benchmark lines in %llu "
		       "bytes of output", (unsigned long long)c->bytes);
	}
}

void xvbd_wl_capture_free(struct xvbd_wl_capture *c)
{
	if (!c)
		return;
	xvbd_wl_fio_reader_free(c->fio);
	xvbd_wl_bench_reader_free(c->bench);
	free(c);
}
