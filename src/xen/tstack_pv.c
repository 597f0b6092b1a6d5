/*
 * tstack_pv.c - toolstack side of `xvbd pv`: an xl config's disk-path
 * settings and the key-by-key comparison of two configs (libxlutil), a
 * running domain's from libxl's stored configuration, and a clean
 * shutdown for --reboot.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libxl.h>
#include <libxl_utils.h>
#include <libxlutil.h>

#include "tstack_impl.h"
#include "xvbd/base/util.h"
#include "xvbd/xen/xlcfg_edit.h"

#define GONE_POLL_MS		500
/* A domain that shut down and still exists after this is reaped. */
#define GONE_REAP_AFTER_MS	10000

/*
 * A libxlutil config parsed from memory, its messages kept: the first
 * one is the error a user sees, on one line.
 */
struct parsed {
	XLU_Config *cfg;
	FILE *report;
	char *text;
	size_t text_len;
	const char *source;
};

static void parsed_free(struct parsed *p)
{
	if (p->cfg)
		xlu_cfg_destroy(p->cfg);
	if (p->report)
		fclose(p->report);
	free(p->text);
	memset(p, 0, sizeof(*p));
}

/*
 * First line of what libxlutil reported so far, or fallback.  Its
 * "SOURCE:3: ..." becomes "line 3: ..." (the caller names the file), and
 * the file's bytes it quotes ("near `\r'") have control bytes escaped.
 */
static void first_report_line(struct parsed *p, const char *fallback,
			      char *why, size_t why_len)
{
	size_t n, i = 0, used = 0, slen = strlen(p->source);
	const char *t;

	fflush(p->report);	/* sets p->text */
	t = p->text;
	n = t ? strcspn(t, "\n") : 0;
	if (!n) {
		snprintf(why, why_len, "%s", fallback);
		return;
	}
	if (n > slen + 1 && !strncmp(t, p->source, slen) && t[slen] == ':') {
		i = slen + 1;
		if (t[i] >= '0' && t[i] <= '9')
			used = (size_t)snprintf(why, why_len, "line ");
	}
	why[used] = '\0';
	for (; i < n && used + 5 < why_len; i++) {
		unsigned char c = (unsigned char)t[i];

		if (c >= 0x20 && c < 0x7f)
			why[used++] = (char)c;
		else
			used += (size_t)snprintf(why + used, why_len - used,
						 "\\x%02x", c);
	}
	why[used] = '\0';
}

static int parse_data(const char *source, const char *data, size_t len,
		      struct parsed *p, char *why, size_t why_len)
{
	int rc;

	memset(p, 0, sizeof(*p));
	p->source = source;
	if (len > INT32_MAX) {
		snprintf(why, why_len, "too large");
		return -EINVAL;
	}
	p->report = open_memstream(&p->text, &p->text_len);
	if (!p->report)
		return -ENOMEM;
	p->cfg = xlu_cfg_init(p->report, source);
	if (!p->cfg) {
		parsed_free(p);
		return -ENOMEM;
	}
	rc = xlu_cfg_readdata(p->cfg, data, (int)len);
	if (rc) {
		first_report_line(p, strerror(rc), why, why_len);
		parsed_free(p);
		return rc == ENOMEM ? -ENOMEM : -EINVAL;
	}
	return 0;
}

void xvbd_tstack_pvcfg_free(struct xvbd_pvcfg *cfg)
{
	xvbd_tstack_xlcfg_free(&cfg->xl);
	memset(cfg, 0, sizeof(*cfg));
}

static int read_platform(struct parsed *p, struct xvbd_pv_facts *f,
			 char *why, size_t why_len)
{
	long l;
	int rc = xlu_cfg_get_long(p->cfg, XVBD_PV_PLATFORM_KEY, &l, 0);

	f->platform_set = rc != ESRCH;
	f->platform_on = true;		/* libxl's default */
	if (rc == ESRCH)
		return 0;
	if (rc) {
		first_report_line(p, XVBD_PV_PLATFORM_KEY " is not a number",
				  why, why_len);
		return -EINVAL;
	}
	f->platform_on = l != 0;
	return 0;
}

int xvbd_tstack_pvcfg_parse(const char *source, const char *data,
			    size_t len, struct xvbd_pvcfg *out, char *why,
			    size_t why_len)
{
	struct xvbd_pv_facts *f = &out->facts;
	struct parsed p;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = parse_data(source, data, len, &p, why, why_len);
	if (rc)
		return rc;
	rc = xvbd_tstack_xlcfg_fill(p.cfg, &out->xl);
	if (rc) {
		first_report_line(&p, strerror(-rc), why, why_len);
		goto out;
	}
	if (!out->xl.name) {
		snprintf(why, why_len, "no name= (xl requires one)");
		rc = -EINVAL;
		goto out;
	}
	if (xvbd_guest_type_from_xl(out->xl.type, out->xl.builder, &f->type)) {
		enum xvbd_guest_type t;

		if (out->xl.type && out->xl.builder &&
		    !xvbd_guest_type_from_xl(out->xl.type, NULL, &t))
			snprintf(why, why_len, "type=\"%.32s\" and builder="
				 "\"%.32s\" contradict each other",
				 out->xl.type, out->xl.builder);
		else if (out->xl.type &&
			 xvbd_guest_type_from_xl(out->xl.type, NULL, &t))
			snprintf(why, why_len, "type=\"%.32s\": xl knows hvm, "
				 "pv and pvh", out->xl.type);
		else
			snprintf(why, why_len, "builder=\"%.32s\": xl knows "
				 "hvm and generic", out->xl.builder);
		rc = -EINVAL;
		goto out;
	}
	rc = read_platform(&p, f, why, why_len);
	if (rc)
		goto out;
	f->kernel_direct = out->xl.kernel != NULL;
	/* xl: cmdline= wins, root= and extra= are then ignored. */
	f->cmdline_key = out->xl.cmdline ? "cmdline" : "extra";
	f->cmdline = out->xl.cmdline ? out->xl.cmdline : out->xl.extra;
out:
	parsed_free(&p);
	if (rc)
		xvbd_tstack_pvcfg_free(out);
	return rc;
}

/* ---- comparing two configs ---- */

static bool same_value(const XLU_Config *ca, XLU_ConfigValue *va,
		       const XLU_Config *cb, XLU_ConfigValue *vb,
		       unsigned depth);

static bool same_list(const XLU_Config *ca, XLU_ConfigList *la,
		      const XLU_Config *cb, XLU_ConfigList *lb,
		      unsigned depth)
{
	int i;

	for (i = 0; ; i++) {
		XLU_ConfigValue *va = xlu_cfg_get_listitem2(la, i);
		XLU_ConfigValue *vb = xlu_cfg_get_listitem2(lb, i);

		if (!va || !vb)
			return !va && !vb;
		if (!same_value(ca, va, cb, vb, depth + 1))
			return false;
	}
}

static bool same_value(const XLU_Config *ca, XLU_ConfigValue *va,
		       const XLU_Config *cb, XLU_ConfigValue *vb,
		       unsigned depth)
{
	XLU_ConfigList *la, *lb;
	char *sa, *sb;

	if (depth > 64 || xlu_cfg_value_type(va) != xlu_cfg_value_type(vb))
		return false;
	if (xlu_cfg_value_type(va) == XLU_STRING)
		return !xlu_cfg_value_get_string(ca, va, &sa, 1) &&
		       !xlu_cfg_value_get_string(cb, vb, &sb, 1) &&
		       !strcmp(sa, sb);
	return !xlu_cfg_value_get_list(ca, va, &la, 1) &&
	       !xlu_cfg_value_get_list(cb, vb, &lb, 1) &&
	       same_list(ca, la, cb, lb, depth);
}

/* One setting by name, as libxlutil has it (the last assignment). */
static bool same_setting(const XLU_Config *ca, const XLU_Config *cb,
			 const char *name)
{
	const char *sa = NULL, *sb = NULL;
	XLU_ConfigList *la, *lb;
	int ra = xlu_cfg_get_string(ca, name, &sa, 1);
	int rb = xlu_cfg_get_string(cb, name, &sb, 1);

	if (!ra || !rb)
		return !ra && !rb && !strcmp(sa, sb);
	if (ra == ESRCH || rb == ESRCH)
		return ra == rb;
	/* neither a single value: lists */
	return !xlu_cfg_get_list(ca, name, &la, NULL, 1) &&
	       !xlu_cfg_get_list(cb, name, &lb, NULL, 1) &&
	       same_list(ca, la, cb, lb, 0);
}

static bool excepted(const char *name, const char *const *except, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(name, except[i]))
			return true;
	return false;
}

/* The names either text assigns: *names malloc'd, each entry too. */
static int union_names(const char *a, size_t alen, const char *b,
		       size_t blen, char ***names, size_t *n, char *why,
		       size_t why_len)
{
	struct xvbd_xlcfg_scan sa, sb;
	char **na = NULL, **nb = NULL, **all;
	size_t ca = 0, cb = 0, i, j;
	int rc;

	rc = xvbd_xlcfg_scan(a, alen, &sa, why, why_len);
	if (rc)
		return rc;
	rc = xvbd_xlcfg_scan(b, blen, &sb, why, why_len);
	if (rc) {
		xvbd_xlcfg_scan_free(&sa);
		return rc;
	}
	rc = xvbd_xlcfg_names(&sa, &na, &ca);
	if (!rc)
		rc = xvbd_xlcfg_names(&sb, &nb, &cb);
	xvbd_xlcfg_scan_free(&sa);
	xvbd_xlcfg_scan_free(&sb);
	all = rc ? NULL : realloc(na, (ca + cb + 1) * sizeof(*all));
	if (!all) {
		for (i = 0; i < ca; i++)
			free(na[i]);
		free(na);
		ca = 0;
		rc = rc ? rc : -ENOMEM;
	}
	/* b's names that a does not have move over; the rest are freed */
	for (j = 0; j < cb; j++) {
		for (i = 0; all && i < ca && strcmp(all[i], nb[j]); i++)
			;
		if (all && i == ca)
			all[ca++] = nb[j];
		else
			free(nb[j]);
	}
	free(nb);
	if (rc)
		return rc;
	*names = all;
	*n = ca;
	return 0;
}

int xvbd_tstack_xlcfg_compare(const char *a, size_t alen, const char *b,
			      size_t blen, const char *const *except,
			      size_t nexcept, char *why, size_t why_len)
{
	struct parsed pa = { 0 }, pb = { 0 };
	char **names = NULL;
	size_t n = 0, i;
	int rc;

	rc = parse_data("first config", a, alen, &pa, why, why_len);
	if (!rc)
		rc = parse_data("second config", b, blen, &pb, why, why_len);
	if (!rc)
		rc = union_names(a, alen, b, blen, &names, &n, why, why_len);
	for (i = 0; !rc && i < n; i++) {
		if (excepted(names[i], except, nexcept) ||
		    same_setting(pa.cfg, pb.cfg, names[i]))
			continue;
		snprintf(why, why_len, "%s differs", names[i]);
		rc = 1;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	parsed_free(&pa);
	parsed_free(&pb);
	return rc;
}

/* ---- a running domain ---- */

static enum xvbd_guest_type guest_type(libxl_domain_type t)
{
	switch (t) {
	case LIBXL_DOMAIN_TYPE_PV:
		return XVBD_GUEST_PV;
	case LIBXL_DOMAIN_TYPE_PVH:
		return XVBD_GUEST_PVH;
	case LIBXL_DOMAIN_TYPE_HVM:
		return XVBD_GUEST_HVM;
	default:
		return XVBD_GUEST_UNKNOWN;
	}
}

void xvbd_tstack_pvdom_free(struct xvbd_pvdom *d)
{
	free(d->cmdline);
	memset(d, 0, sizeof(*d));
}

int xvbd_tstack_pvdom_read(struct xvbd_tstack *ts, uint32_t domid,
			   struct xvbd_pvdom *out)
{
	libxl_ctx *ctx = xvbd_tstack_libxl(ts);
	struct xvbd_pv_facts *f = &out->facts;
	libxl_domain_config dc;
	libxl_dominfo info;
	uint32_t start_s;
	time_t now;
	int rc;

	memset(out, 0, sizeof(*out));
	libxl_dominfo_init(&info);
	rc = libxl_domain_info(ctx, &info, domid);
	f->type = guest_type(info.domain_type);
	libxl_dominfo_dispose(&info);
	if (rc)
		return rc == ERROR_DOMAIN_NOTFOUND ? -ENOENT : -EIO;
	f->platform_on = true;
	f->cmdline_key = "cmdline";

	/* The configuration libxl stored at creation (its "libxl-json"). */
	libxl_domain_config_init(&dc);
	if (!libxl_retrieve_domain_configuration(ctx, domid, &dc, NULL)) {
		const libxl_domain_build_info *b = &dc.b_info;

		out->stored = true;
		if (f->type == XVBD_GUEST_HVM &&
		    b->type == LIBXL_DOMAIN_TYPE_HVM) {
			libxl_defbool p = b->u.hvm.xen_platform_pci;

			f->platform_set = !libxl_defbool_is_default(p);
			f->platform_on = f->platform_set ?
					 libxl_defbool_val(p) : true;
		}
		f->kernel_direct = b->kernel != NULL;
		if (b->cmdline) {
			out->cmdline = strdup(b->cmdline);
			if (!out->cmdline)
				rc = -ENOMEM;
		}
		f->cmdline = out->cmdline;
	}
	libxl_domain_config_dispose(&dc);
	if (rc) {
		xvbd_tstack_pvdom_free(out);
		return rc;
	}

	/* /vm/<uuid>/start_time, written by libxl when it built the domain. */
	start_s = libxl_vm_get_start_time(ctx, domid);
	now = time(NULL);
	if (start_s && now != (time_t)-1 && now >= (time_t)start_s) {
		out->uptime_known = true;
		out->uptime_s = (uint64_t)(now - (time_t)start_s);
	}
	return 0;
}

int xvbd_tstack_shutdown(struct xvbd_tstack *ts, uint32_t domid)
{
	libxl_ctx *ctx = xvbd_tstack_libxl(ts);
	libxl_dominfo info;
	bool hvm;
	int rc = libxl_domain_shutdown(ctx, domid, NULL);

	if (rc != ERROR_NOPARAVIRT)
		return rc ? -EIO : 0;
	libxl_dominfo_init(&info);
	hvm = !libxl_domain_info(ctx, &info, domid) &&
	      info.domain_type == LIBXL_DOMAIN_TYPE_HVM;
	libxl_dominfo_dispose(&info);
	if (!hvm)
		return -EOPNOTSUPP;
	return libxl_send_trigger(ctx, domid, LIBXL_TRIGGER_POWER, 0, NULL) ?
	       -EIO : 0;
}

int xvbd_tstack_wait_gone(struct xvbd_tstack *ts, uint32_t domid,
			  int timeout_ms)
{
	libxl_ctx *ctx = xvbd_tstack_libxl(ts);
	int64_t deadline = xvbd_now_ms() + timeout_ms, down_since = 0;
	const struct timespec poll = { 0, GONE_POLL_MS * 1000000L };

	for (;;) {
		libxl_dominfo info;
		bool down;
		int rc;

		libxl_dominfo_init(&info);
		rc = libxl_domain_info(ctx, &info, domid);
		down = !rc && info.shutdown && !info.dying;
		libxl_dominfo_dispose(&info);
		if (rc == ERROR_DOMAIN_NOTFOUND)
			return 0;
		if (rc)
			return -EIO;
		if (!down)
			down_since = 0;
		else if (!down_since)
			down_since = xvbd_now_ms();
		else if (xvbd_now_ms() - down_since >= GONE_REAP_AFTER_MS &&
			 libxl_domain_destroy(ctx, domid, NULL))
			return -EIO;
		if (xvbd_now_ms() >= deadline)
			return -ETIMEDOUT;
		nanosleep(&poll, NULL);
	}
}
