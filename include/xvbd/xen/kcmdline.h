/*
 * kcmdline.h - a guest kernel's command line read the way Linux reads it
 * (lib/cmdline.c next_arg, kernel/params.c parse_args): words split at
 * blanks outside double quotes, "param=value" with the quotes around a
 * value taken off, '-' and '_' the same in the module's and the
 * parameter's name (and nothing else alike: case matters), "--" ending
 * the kernel's parameters, and the last of a repeated parameter winning.
 *
 * The command line comes from a guest's configuration: any bytes, any
 * length.  Nothing here allocates; every copy is bounded.  Pure.
 */
#ifndef XVBD_KCMDLINE_H
#define XVBD_KCMDLINE_H

#include <stdbool.h>
#include <stddef.h>

/* Linux blkfront's module name: its parameters are xen_blkfront.NAME. */
#define XVBD_BLKFRONT_MODULE	"xen_blkfront"

#define XVBD_KPARAM_NAME_MAX	48	/* with the NUL */
#define XVBD_KPARAM_VALUE_MAX	64	/* with the NUL */
#define XVBD_KPARAMS_MAX	16

/* One "<module>.<name>[=<value>]" parameter. */
struct xvbd_kparam {
	/* '-' made '_', [a-z0-9_] only (case is the kernel's: kept) */
	char name[XVBD_KPARAM_NAME_MAX];
	char value[XVBD_KPARAM_VALUE_MAX];	/* quotes taken off */
	bool has_value;				/* "=" present */
	bool value_too_long;			/* value left empty */
};

struct xvbd_kparams {
	struct xvbd_kparam items[XVBD_KPARAMS_MAX];	/* first-seen order */
	size_t n;
	/* words of the module not kept: a name too long or of other
	 * characters, or more parameters than items holds */
	size_t skipped;
};

/*
 * Every parameter of module ("xen_blkfront") on cmdline (NULL: none);
 * a name given twice keeps its last value, as the kernel does.
 */
void xvbd_kcmdline_module_params(const char *cmdline, const char *module,
				 struct xvbd_kparams *out);

/*
 * Are command lines a and b the same words (before "--" and after it)
 * once module's parameters are left out of both?  NULL is empty.
 */
bool xvbd_kcmdline_same_except(const char *a, const char *b,
			       const char *module);

#endif /* XVBD_KCMDLINE_H */
