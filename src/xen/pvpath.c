/*
 * pvpath.c - PV or emulated disk path: what a config asks for, the edit
 * that switches it, and the verdict on a running guest's VBD.  Pure.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/xen/pvpath.h"
#include "xvbd/base/util.h"

#define UNPLUG_PREFIX	"xen_emul_unplug="

const char *xvbd_guest_type_name(enum xvbd_guest_type type)
{
	switch (type) {
	case XVBD_GUEST_PV:
		return "pv";
	case XVBD_GUEST_PVH:
		return "pvh";
	case XVBD_GUEST_HVM:
		return "hvm";
	case XVBD_GUEST_UNKNOWN:
		break;
	}
	return "unknown";
}

/* xl compares strncmp(value, name, strlen(value)): any prefix names it. */
static bool names(const char *value, const char *name)
{
	return !strncmp(value, name, strlen(value));
}

int xvbd_guest_type_from_xl(const char *type, const char *builder,
			    enum xvbd_guest_type *out)
{
	enum xvbd_guest_type t = XVBD_GUEST_UNKNOWN, b;

	if (type) {
		if (names(type, "hvm"))
			t = XVBD_GUEST_HVM;
		else if (names(type, "pv"))
			t = XVBD_GUEST_PV;
		else if (names(type, "pvh"))
			t = XVBD_GUEST_PVH;
		else
			return -EINVAL;
	}
	if (builder) {
		if (names(builder, "hvm"))
			b = XVBD_GUEST_HVM;
		else if (names(builder, "generic"))
			b = XVBD_GUEST_PV;
		else
			return -EINVAL;
		if (t != XVBD_GUEST_UNKNOWN && t != b)
			return -EINVAL;
		t = b;
	}
	*out = t == XVBD_GUEST_UNKNOWN ? XVBD_GUEST_PV : t;
	return 0;
}

/* Each blank-separated word of cmdline that starts with prefix. */
static bool unplug_word_has(const char *w, size_t n, const char *value)
{
	size_t plen = strlen(UNPLUG_PREFIX), vlen = strlen(value);
	const char *p, *end = w + n;

	if (n < plen || strncmp(w, UNPLUG_PREFIX, plen))
		return false;
	/* Linux parse_xen_emul_unplug(): comma-separated options. */
	for (p = w + plen; p < end; ) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		size_t len = comma ? (size_t)(comma - p) : (size_t)(end - p);

		if (len == vlen && !strncmp(p, value, len))
			return true;
		p += len + 1;
	}
	return false;
}

/* Calls fn on each word; stops and returns true when fn does. */
static bool any_word(const char *cmdline, const char *value,
		     bool (*fn)(const char *w, size_t n, const char *value))
{
	const char *p = cmdline ? cmdline : "";

	for (;;) {
		size_t n;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return false;
		n = strcspn(p, " \t");
		if (fn(p, n, value))
			return true;
		p += n;
	}
}

bool xvbd_pv_unplug_never(const char *cmdline)
{
	return any_word(cmdline, "never", unplug_word_has);
}

const char *xvbd_pv_expect_name(enum xvbd_pv_expect e)
{
	switch (e) {
	case XVBD_PV_EXPECT_PV:
		return "pv";
	case XVBD_PV_EXPECT_EMULATED:
		return "emulated";
	case XVBD_PV_EXPECT_DRIVERS:
		break;
	}
	return "pv-if-drivers";
}

enum xvbd_pv_expect xvbd_pv_expect(const struct xvbd_pv_facts *f,
				   const char **why)
{
	if (f->type != XVBD_GUEST_HVM) {
		*why = "PV and PVH guests have no emulated disks: PV is their "
		       "only disk path";
		return XVBD_PV_EXPECT_PV;
	}
	if (!f->platform_on) {
		*why = "xen_platform_pci is off: the guest's PV drivers cannot "
		       "start";
		return XVBD_PV_EXPECT_EMULATED;
	}
	if (f->kernel_direct && xvbd_pv_unplug_never(f->cmdline)) {
		*why = "the kernel command line has xen_emul_unplug=never: "
		       "Linux keeps the emulated disks and blkfront leaves "
		       "them alone";
		return XVBD_PV_EXPECT_EMULATED;
	}
	*why = "the Xen platform PCI device is there: disks go PV once the "
	       "guest's PV drivers take them";
	return XVBD_PV_EXPECT_DRIVERS;
}

void xvbd_pv_plan_free(struct xvbd_pv_plan *plan)
{
	xvbd_xlcfg_edits_free(&plan->edits);
	free(plan->cmdline_before);
	free(plan->cmdline_after);
	memset(plan, 0, sizeof(*plan));
}

/* The command line edit of --linux-unplug, if one is needed. */
static int plan_cmdline(const struct xvbd_xlcfg_scan *scan,
			const struct xvbd_pv_facts *f,
			const struct xvbd_pv_want *w,
			struct xvbd_pv_plan *plan, char *why, size_t why_len)
{
	const char *key = f->cmdline_key ? f->cmdline_key : "extra";
	char *text = NULL, *after;
	int rc;

	if (!f->kernel_direct) {
		snprintf(why, why_len, "--linux-unplug needs direct kernel "
			 "boot (kernel=): otherwise the guest's own boot "
			 "loader holds the kernel command line; add "
			 XVBD_PV_UNPLUG_NEVER " there");
		return -EINVAL;
	}
	/* xvbd's reading of the text must be libxlutil's. */
	rc = xvbd_xlcfg_get_plain_string(scan, key, &text, why, why_len);
	if (rc)
		return rc;
	if ((text == NULL) != (f->cmdline == NULL) ||
	    (text && strcmp(text, f->cmdline))) {
		snprintf(why, why_len, "%s= reads differently to libxlutil: "
			 "edit it by hand", key);
		free(text);
		return -EINVAL;
	}
	if (w->on) {
		if (!xvbd_pv_unplug_never(text)) {
			free(text);
			return 0;
		}
		if (!xvbd_kcmdline_has(text, XVBD_PV_UNPLUG_NEVER)) {
			snprintf(why, why_len, "%s= has xen_emul_unplug= with "
				 "never among other values: edit it by hand",
				 key);
			free(text);
			return -EINVAL;
		}
		after = xvbd_kcmdline_remove(text, XVBD_PV_UNPLUG_NEVER);
	} else {
		if (xvbd_pv_unplug_never(text)) {
			free(text);
			return 0;
		}
		after = xvbd_kcmdline_add(text, XVBD_PV_UNPLUG_NEVER);
	}
	if (!after) {
		free(text);
		return -ENOMEM;
	}
	plan->cmdline_key = key;
	plan->cmdline_before = text;
	plan->cmdline_after = after;
	return xvbd_xlcfg_plan_string(scan, key, after, &plan->edits, why,
				      why_len);
}

int xvbd_pv_plan(const struct xvbd_xlcfg_scan *scan,
		 const struct xvbd_pv_facts *f, const struct xvbd_pv_want *w,
		 struct xvbd_pv_plan *plan, char *why, size_t why_len)
{
	size_t n = xvbd_xlcfg_count(scan, XVBD_PV_PLATFORM_KEY, NULL);
	int rc = 0;

	memset(plan, 0, sizeof(*plan));
	/* xl would take the last one; a second one is a mistake to fix. */
	if (n > 1)
		return xvbd_xlcfg_plan_atom(scan, XVBD_PV_PLATFORM_KEY, "0",
					    &plan->edits, why, why_len);
	if (f->type != XVBD_GUEST_HVM) {
		if (!w->on) {
			snprintf(why, why_len, "a %s guest has no emulated "
				 "disks: PV is its only disk path",
				 f->type == XVBD_GUEST_PVH ? "PVH" : "PV");
			return -EPERM;
		}
		plan->pv_only = true;
		return 0;
	}
	if (w->on ? f->platform_set && !f->platform_on : f->platform_on) {
		plan->platform_edit = true;
		plan->platform_after = w->on;
		rc = xvbd_xlcfg_plan_atom(scan, XVBD_PV_PLATFORM_KEY,
					  w->on ? "1" : "0", &plan->edits, why,
					  why_len);
	}
	if (!rc && w->linux_unplug)
		rc = plan_cmdline(scan, f, w, plan, why, why_len);
	if (rc)
		xvbd_pv_plan_free(plan);
	return rc;
}

/* ---- a running guest's VBD ---- */

const char *xvbd_pv_path_name(enum xvbd_pv_path path)
{
	switch (path) {
	case XVBD_PATH_PV:
		return "pv";
	case XVBD_PATH_EMULATED:
		return "emulated";
	case XVBD_PATH_NOT_CONNECTED:
		return "not-connected";
	case XVBD_PATH_UNKNOWN:
		break;
	}
	return "unknown";
}

static struct xvbd_opt parse_state(const char *s)
{
	struct xvbd_opt o = { false, 0 };

	if (s && !xvbd_parse_uint(s, XVBD_STATE_MAX, &o.v))
		o.known = true;
	return o;
}

/* "Connected", or a quoted (and cut) raw value when it is no state. */
static void state_text(const struct xvbd_opt *o, const char *raw, char *buf,
		       size_t len)
{
	if (o->known)
		snprintf(buf, len, "%s", xvbd_state_name(o->v));
	else if (raw)
		snprintf(buf, len, "\"%.16s\" (not a xenbus state)", raw);
	else
		snprintf(buf, len, "missing");
}

void xvbd_pv_classify(const struct xvbd_pv_path_in *in,
		      struct xvbd_pv_verdict *v)
{
	char fe[48], be[48], up[48];
	bool waiting;

	memset(v, 0, sizeof(*v));
	v->frontend = parse_state(in->frontend_state);
	v->backend = parse_state(in->backend_state);
	state_text(&v->frontend, in->frontend_state, fe, sizeof(fe));
	state_text(&v->backend, in->backend_state, be, sizeof(be));
	if (in->uptime_known)
		snprintf(up, sizeof(up), "%" PRIu64 " s", in->uptime_s);
	else
		snprintf(up, sizeof(up), "an unknown time");

	if (!v->frontend.known) {
		v->path = XVBD_PATH_UNKNOWN;
		snprintf(v->evidence, sizeof(v->evidence), "frontend state %s"
			 "; backend %s", fe, be);
		return;
	}
	/*
	 * Connected needs both sides: the frontend's key is the guest's
	 * word, the backend's is blkback's, which connects only once it has
	 * mapped the ring the frontend granted.
	 */
	if (v->frontend.v == XVBD_STATE_CONNECTED) {
		if (v->backend.known && v->backend.v == XVBD_STATE_CONNECTED) {
			v->path = XVBD_PATH_PV;
			snprintf(v->evidence, sizeof(v->evidence),
				 "frontend and backend Connected: the guest's "
				 "PV driver has the disk");
		} else {
			v->path = XVBD_PATH_NOT_CONNECTED;
			snprintf(v->evidence, sizeof(v->evidence),
				 "frontend says Connected but the backend is "
				 "%s: not connected", be);
		}
		return;
	}
	waiting = v->frontend.v == XVBD_STATE_INITIALISING ||
		  v->frontend.v == XVBD_STATE_UNKNOWN;
	if (!waiting) {
		v->path = XVBD_PATH_NOT_CONNECTED;
		snprintf(v->evidence, sizeof(v->evidence), "frontend %s, "
			 "backend %s: not connected (guest up %s)", fe, be,
			 up);
		return;
	}
	if (in->type != XVBD_GUEST_HVM) {
		v->path = XVBD_PATH_NOT_CONNECTED;
		snprintf(v->evidence, sizeof(v->evidence), "frontend %s, "
			 "not connected: waited up to %s (the guest's "
			 "uptime); PV is this guest's only disk path", fe, up);
		return;
	}
	if (in->pv_blocked) {
		v->path = XVBD_PATH_EMULATED;
		snprintf(v->evidence, sizeof(v->evidence), "frontend %s after "
			 "%s of guest uptime, and %s", fe, up, in->pv_blocked);
		return;
	}
	if (in->uptime_known && in->uptime_s >= in->settle_s) {
		v->path = XVBD_PATH_EMULATED;
		snprintf(v->evidence, sizeof(v->evidence), "frontend never "
			 "left %s in %s of guest uptime (settle time %" PRIu64
			 " s): no PV driver took the disk", fe, up,
			 in->settle_s);
		return;
	}
	v->path = XVBD_PATH_NOT_CONNECTED;
	snprintf(v->evidence, sizeof(v->evidence), "frontend %s, guest up "
		 "%s: too early to tell (PV drivers connect within the "
		 "settle time, %" PRIu64 " s)", fe, up, in->settle_s);
}
