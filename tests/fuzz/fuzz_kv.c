/*
 * fuzz_kv.c - key=value lists: a --vbd "VDEV:key=value[,key=value]..."
 * spec, tune's key=value words (xvbd_override_parse_kv) and defaults'
 * param=value words (xvbd_modparam_check).  A parsed set holds each key
 * at most once.
 */
#include "fuzz.h"
#include "xvbd/dom0/modparam.h"
#include "xvbd/vbd/override.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct xvbd_ovr_set set;
	size_t pos = 0, i, j;
	char *spec = fuzz_field(data, len, &pos);
	char *kv = fuzz_field(data, len, &pos);
	char *rest = fuzz_field(data, len, &pos);
	char why[256], canon[32], *eq;

	if (!xvbd_override_parse_vbd(&set, spec, why, sizeof(why))) {
		FUZZ_ASSERT(set.n <= XVBD_OVR_NKEYS);
		for (i = 0; i < set.n; i++)
			for (j = i + 1; j < set.n; j++)
				FUZZ_ASSERT(set.items[i].key !=
					    set.items[j].key);
	}
	why[0] = '\0';
	if (!xvbd_override_set_init(&set, "xvda", why, sizeof(why)))
		(void)xvbd_override_parse_kv(&set, kv, why, sizeof(why));
	FUZZ_ASSERT(memchr(why, '\0', sizeof(why)));
	/* defaults: "param=value" split at the first '=' as cmd_defaults. */
	eq = strchr(rest, '=');
	if (eq) {
		*eq = '\0';
		if (!xvbd_modparam_check(rest, eq + 1, canon, sizeof(canon)))
			FUZZ_ASSERT(memchr(canon, '\0', sizeof(canon)));
	}
	free(spec);
	free(kv);
	free(rest);
	return 0;
}
