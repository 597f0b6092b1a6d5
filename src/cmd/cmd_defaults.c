/*
 * cmd_defaults.c - xvbd defaults [--reload] [--persist] [param=value...]
 *
 * dom0's xen_blkback module parameters: what every new VBD is offered.
 * Runtime-writable ones are written through sysfs; read-only ones
 * (max_ring_page_order, 0444) need the module reloaded with no VBD
 * attached (--reload) or a modprobe.d line and the next load (--persist).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/xen/blkif.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/dom0/modparam.h"
#include "xvbd/base/sig.h"

#define DEFAULTS_MAX_PARAMS	16
#define ATTACHED_SHOWN		8

struct defaults_opts {
	bool reload, persist;
	char *items[DEFAULTS_MAX_PARAMS + 1];	/* canonical NAME=VALUE */
	size_t n;
};

static void free_items(struct defaults_opts *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->items[i]);
	d->n = 0;
}

/* A bad parameter is one line (exit 2), not the whole usage text. */
static int add_item(struct defaults_opts *d, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char name[64], canon[32];
	size_t len, i;
	int rc;

	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(name)) {
		xvbd_err("defaults", NULL, "\"%.60s\": expected param=value",
			 arg);
		return XVBD_EXIT_USAGE;
	}
	len = (size_t)(eq - arg);
	memcpy(name, arg, len);
	name[len] = '\0';
	rc = xvbd_modparam_check(name, eq + 1, canon, sizeof(canon));
	if (rc == -ENOENT) {
		xvbd_err("defaults", NULL, "unknown %s parameter \"%.40s\" "
			 "(see \"xvbd defaults\")", XVBD_BLKBACK_MODULE, name);
		return XVBD_EXIT_USAGE;
	}
	if (rc) {
		const struct xvbd_modparam_info *info =
			xvbd_modparam_info(name);

		if (info->type == XVBD_MP_BOOL)
			xvbd_err("defaults", NULL, "%s=%.24s: expected Y or N",
				 name, eq + 1);
		else
			xvbd_err("defaults", NULL, "%s=%.24s: expected a "
				 "number %llu..%llu", name, eq + 1,
				 (unsigned long long)info->min,
				 (unsigned long long)info->max);
		return XVBD_EXIT_USAGE;
	}
	for (i = 0; i < d->n; i++) {
		if (!strncmp(d->items[i], name, len) &&
		    d->items[i][len] == '=') {
			xvbd_err("defaults", NULL, "%s given twice", name);
			return XVBD_EXIT_USAGE;
		}
	}
	if (d->n == DEFAULTS_MAX_PARAMS) {
		xvbd_err("defaults", NULL, "too many parameters");
		return XVBD_EXIT_USAGE;
	}
	if (asprintf(&d->items[d->n], "%s=%s", name, canon) < 0)
		return XVBD_EXIT_FAIL;
	d->n++;
	d->items[d->n] = NULL;
	return XVBD_EXIT_OK;
}

enum { O_RELOAD, O_PERSIST };

const struct xvbd_cmdopt cmd_defaults_opts[] = {
	[O_RELOAD] = XVBD_OPT_F("reload", 0, "unload and load xen_blkback "
		"for parameters that are read at load (no VBD may exist)"),
	[O_PERSIST] = XVBD_OPT_F("persist", 0, "also write them to "
		"/etc/modprobe.d for the next boot"),
	XVBD_OPT_END,
};

static int parse_opts(struct xvbd_ctx *ctx, int argc, char **argv,
		      struct defaults_opts *d)
{
	int i, rc;

	d->reload = xvbd_opt(ctx, O_RELOAD) != NULL;
	d->persist = xvbd_opt(ctx, O_PERSIST) != NULL;
	for (i = 0; i < argc; i++) {
		rc = add_item(d, argv[i]);
		if (rc)
			return rc;
	}
	if ((d->reload || d->persist) && !d->n)
		return xvbd_usage_error(ctx->cmd, "--reload and --persist "
					"need param=value");
	return XVBD_EXIT_OK;
}

static void render_list(struct xvbd_out *o, const struct xvbd_modparams *mp,
			char **attached, size_t nattached)
{
	size_t i;

	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "module", XVBD_BLKBACK_MODULE);
	xvbd_out_arr_begin(o, "parameters");
	for (i = 0; i < mp->n; i++) {
		const struct xvbd_modparam *p = &mp->items[i];
		const struct xvbd_modparam_info *info =
			xvbd_modparam_info(p->name);

		xvbd_out_obj_begin(o, NULL);
		xvbd_out_str(o, "param", p->name);
		xvbd_out_str(o, "value", p->value);
		xvbd_out_str(o, "change", p->writable ? "runtime" :
			     "reload or reboot");
		xvbd_out_str(o, "meaning", info ? info->meaning : NULL);
		xvbd_out_obj_end(o);
	}
	xvbd_out_arr_end(o);
	xvbd_out_arr_begin(o, "attached");
	for (i = 0; i < nattached; i++)
		xvbd_out_str(o, NULL, attached[i]);
	xvbd_out_arr_end(o);
	xvbd_out_obj_end(o);
}

/* "vbd-1-51712" -> "t20 (1) xvda" for messages. */
static void describe(struct xvbd_ctx *ctx, const char *dev, char *buf,
		     size_t len)
{
	uint32_t domid, devid, found;
	char id[16], vdev[32], *name = NULL;

	if (xvbd_modparam_parse_vbd_name(dev, &domid, &devid) ||
	    xvbd_vdev_name(devid, vdev, sizeof(vdev))) {
		snprintf(buf, len, "%s", dev);
		return;
	}
	snprintf(id, sizeof(id), "%u", domid);
	if (xvbd_tstack_domain_lookup(ctx->ts, id, &found, &name))
		name = NULL;
	snprintf(buf, len, "%s (%u) %s", name ? name : "?", domid, vdev);
	free(name);
}

/* Items as argv: current values carried over, the new ones on top. */
static int build_reload(const struct xvbd_modparams *mp,
			const struct defaults_opts *d, char ***with_new,
			char ***old)
{
	char **a = calloc(mp->n + d->n + 1, sizeof(char *));
	char **b = calloc(mp->n + 1, sizeof(char *));
	size_t i, j, na = 0, nb = 0;

	if (!a || !b)
		goto fail;
	for (i = 0; i < mp->n; i++) {
		const struct xvbd_modparam *p = &mp->items[i];
		char canon[32];
		bool replaced = false;

		/* Only what xvbd can validate is carried over. */
		if (xvbd_modparam_check(p->name, p->value, canon,
					sizeof(canon)))
			continue;
		if (asprintf(&b[nb++], "%s=%s", p->name, canon) < 0)
			goto fail;
		for (j = 0; j < d->n; j++)
			if (!strncmp(d->items[j], p->name, strlen(p->name)) &&
			    d->items[j][strlen(p->name)] == '=')
				replaced = true;
		if (!replaced && !(a[na++] = strdup(b[nb - 1])))
			goto fail;
	}
	for (j = 0; j < d->n; j++)
		if (!(a[na++] = strdup(d->items[j])))
			goto fail;
	*with_new = a;
	*old = b;
	return 0;
fail:
	for (i = 0; a && a[i]; i++)
		free(a[i]);
	for (i = 0; b && b[i]; i++)
		free(b[i]);
	free(a);
	free(b);
	return -ENOMEM;
}

static void free_argv(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* NAME=VALUE split in place into name, value. */
static const char *value_of(const char *item)
{
	return strchr(item, '=') + 1;
}

static void name_of(const char *item, char *buf, size_t len)
{
	size_t n = strcspn(item, "=");

	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), item);
}

/* --reload refuses while blkback serves a VBD: name them. */
static int check_detached(struct xvbd_ctx *ctx, char **attached,
			  size_t nattached)
{
	char desc[96];
	size_t i;

	if (!nattached)
		return 0;
	describe(ctx, attached[0], desc, sizeof(desc));
	xvbd_err("defaults", "--reload", "%zu VBD%s attached to %s (%s%s): "
		 "unloading it would cut them off", nattached,
		 nattached == 1 ? " is" : "s are", XVBD_BLKBACK_MODULE, desc,
		 nattached > 1 ? ", ..." : "");
	for (i = 1; i < nattached && i < ATTACHED_SHOWN; i++) {
		describe(ctx, attached[i], desc, sizeof(desc));
		fprintf(stderr, "xvbd: defaults: attached: %s\n", desc);
	}
	if (!ctx->opts->quiet)
		xvbd_hint("detach them (or stop their guests), or use "
			  "--persist and reboot");
	return -EBUSY;
}

static int do_reload(struct xvbd_ctx *ctx, const struct xvbd_modparams *mp,
		     const struct defaults_opts *d, char ***argv_out)
{
	char **with_new = NULL, **old = NULL;
	const char *step;
	int err;

	if (build_reload(mp, d, &with_new, &old)) {
		xvbd_err("defaults", "--reload", "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	err = ctx->opts->dry_run ? 0 :
	      xvbd_modparam_reload(XVBD_BLKBACK_MODULE, with_new, old, &step);
	if (err)
		xvbd_err("defaults", "--reload", "%s failed: %s", step,
			 err == -EIO ? "modprobe reported an error (above)" :
			 strerror(-err));
	free_argv(old);
	*argv_out = with_new;
	return err ? XVBD_EXIT_FAIL : XVBD_EXIT_OK;
}

/* Runtime writes; every value validated before the first write. */
static int do_write(struct xvbd_ctx *ctx, const struct xvbd_modparams *mp,
		    const struct defaults_opts *d)
{
	char name[64];
	size_t i;
	int err;

	for (i = 0; i < d->n; i++) {
		const struct xvbd_modparam *p;

		name_of(d->items[i], name, sizeof(name));
		p = xvbd_modparam_find(mp, name);
		if (!p) {
			xvbd_err("defaults", name, "not a parameter of the "
				 "loaded %s", XVBD_BLKBACK_MODULE);
			return XVBD_EXIT_FAIL;
		}
		if (!p->writable) {
			xvbd_err("defaults", name, "read-only once %s is "
				 "loaded", XVBD_BLKBACK_MODULE);
			if (!ctx->opts->quiet)
				xvbd_hint("--reload reloads the module (no VBD "
					  "may be attached); --persist writes "
					  "it to modprobe.d for the next "
					  "boot");
			return XVBD_EXIT_FAIL;
		}
	}
	if (ctx->opts->dry_run)
		return XVBD_EXIT_OK;
	for (i = 0; i < d->n; i++) {
		name_of(d->items[i], name, sizeof(name));
		err = xvbd_modparam_write(XVBD_BLKBACK_MODULE, name,
					  value_of(d->items[i]));
		if (err) {
			xvbd_err("defaults", name, "write failed: %s%s",
				 strerror(-err), i ? " (earlier ones were "
				 "written)" : "");
			return XVBD_EXIT_FAIL;
		}
	}
	return XVBD_EXIT_OK;
}

/* After a change: the values as the kernel shows them now. */
static int report(struct xvbd_ctx *ctx, const struct xvbd_modparams *before,
		  const struct defaults_opts *d, const char *how,
		  const char *persist_path, char **modprobe_args)
{
	struct xvbd_modparams now = { 0 };
	bool changed = how && !ctx->opts->dry_run;
	struct xvbd_out *o = ctx->out;
	char name[64];
	size_t i;
	int rc = XVBD_EXIT_OK;

	if (changed)
		xvbd_modparam_list(XVBD_BLKBACK_MODULE, &now);
	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "module", XVBD_BLKBACK_MODULE);
	xvbd_out_arr_begin(o, "changes");
	for (i = 0; i < d->n; i++) {
		const struct xvbd_modparam *b, *a;

		name_of(d->items[i], name, sizeof(name));
		b = xvbd_modparam_find(before, name);
		a = changed ? xvbd_modparam_find(&now, name) : b;
		xvbd_out_obj_begin(o, NULL);
		xvbd_out_str(o, "param", name);
		xvbd_out_str(o, "before", b ? b->value : NULL);
		xvbd_out_str(o, "requested", value_of(d->items[i]));
		xvbd_out_str(o, "now", a ? a->value : NULL);
		xvbd_out_str(o, "how", ctx->opts->dry_run ? "dry run" :
			     how ? how : "persisted only");
		xvbd_out_obj_end(o);
		if (changed && !(a && !strcmp(a->value,
					      value_of(d->items[i])))) {
			xvbd_err("defaults", name, "reads back as %s, not %s",
				 a ? a->value : "absent",
				 value_of(d->items[i]));
			rc = XVBD_EXIT_FAIL;
		}
	}
	xvbd_out_arr_end(o);
	if (modprobe_args) {
		char load[1024];
		size_t used;

		used = (size_t)snprintf(load, sizeof(load), "modprobe %s",
					XVBD_BLKBACK_MODULE);
		for (i = 0; modprobe_args[i] && used < sizeof(load); i++)
			used += (size_t)snprintf(load + used,
						 sizeof(load) - used, " %s",
						 modprobe_args[i]);
		xvbd_out_str(o, "unload", "modprobe -r " XVBD_BLKBACK_MODULE);
		xvbd_out_str(o, "load", load);
	}
	if (persist_path) {
		xvbd_out_str(o, "persisted_in", persist_path);
		xvbd_out_str(o, "note", "modprobe.d is read when "
			     XVBD_BLKBACK_MODULE " is next loaded: reboot "
			     "(or --reload with no VBD attached)");
	}
	xvbd_out_obj_end(o);
	xvbd_modparams_free(&now);
	return rc;
}

int cmd_defaults(struct xvbd_ctx *ctx, int argc, char **argv)
{
	struct defaults_opts d = { 0 };
	struct xvbd_modparams mp = { 0 };
	char **attached = NULL, *persist_path = NULL, **modprobe_args = NULL;
	size_t nattached = 0;
	const char *how = NULL;
	int rc, err;

	rc = parse_opts(ctx, argc, argv, &d);
	if (!rc)
		rc = xvbd_cmd_connect(ctx);
	if (rc)
		goto out;
	rc = XVBD_EXIT_FAIL;
	err = xvbd_modparam_list(XVBD_BLKBACK_MODULE, &mp);
	if (err) {
		xvbd_err("defaults", XVBD_BLKBACK_MODULE, "%s", err == -ENOENT ?
			 "module not loaded" : strerror(-err));
		if (err == -ENOENT && !ctx->opts->quiet)
			xvbd_hint("modprobe xen-blkback");
		goto out;
	}
	err = xvbd_modparam_bound_devices("vbd", &attached, &nattached);
	if (err && err != -ENOENT) {
		xvbd_err("defaults", "attached VBDs", "%s", strerror(-err));
		goto out;
	}
	if (!d.n) {
		render_list(ctx->out, &mp, attached, nattached);
		rc = XVBD_EXIT_OK;
		goto out;
	}
	/* Every refusal before the first change. */
	if (d.reload && check_detached(ctx, attached, nattached))
		goto out;
	if (xvbd_interrupted()) {
		xvbd_err("defaults", "interrupted", "by %s: nothing changed",
			 xvbd_sig_name(xvbd_interrupted()));
		goto out;
	}
	if (!d.reload && !d.persist) {
		rc = do_write(ctx, &mp, &d);
		if (rc)
			goto out;
		how = "written";
	}
	if (d.persist) {
		if (ctx->opts->dry_run)
			persist_path = xvbd_modparam_persist_path(
				XVBD_BLKBACK_MODULE);
		else if ((err = xvbd_modparam_persist(XVBD_BLKBACK_MODULE,
						      d.items, &persist_path))) {
			xvbd_err("defaults", "--persist", "%s",
				 strerror(-err));
			goto out;
		}
	}
	if (d.reload) {
		rc = do_reload(ctx, &mp, &d, &modprobe_args);
		if (rc)
			goto out;
		how = "reloaded";
	}
	rc = report(ctx, &mp, &d, how, persist_path, modprobe_args);
	/* A signal during the changes let them finish (the reload holds
	 * it): what was done is reported, and the exit says interrupted. */
	if (!rc && xvbd_interrupted()) {
		xvbd_err("defaults", "interrupted", "by %s: the changes were "
			 "finished first (above)",
			 xvbd_sig_name(xvbd_interrupted()));
		rc = XVBD_EXIT_FAIL;	/* the changes told: cmd.c ends it */
	}
out:
	free_argv(modprobe_args);
	free(persist_path);
	xvbd_modparam_names_free(attached, nattached);
	xvbd_modparams_free(&mp);
	free_items(&d);
	return rc;
}
