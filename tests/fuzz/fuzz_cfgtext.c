/*
 * fuzz_cfgtext.c - xl config edits: xvbd start rewrites the guest's
 * extra= (kernel command line) in the user's xl config text
 * (xvbd_cfgtext_set_string) after reading its blkfront limits
 * (xvbd_override_guest_limits) and merging the overrides' needs
 * (xvbd_override_guest_cmdline).  Input: config text, '\x01', key,
 * '\x01', value, '\x01', a --vbd spec.
 */
#include <stdbool.h>

#include "fuzz.h"
#include "xvbd/vbd/override.h"

/* A key as xl configs spell them (what start edits: "extra"). */
static bool plain_key(const char *key)
{
	return *key && strspn(key, "abcdefghijklmnopqrstuvwxyz_") ==
		strlen(key);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct xvbd_guest_limits gl;
	struct xvbd_ovr_set set;
	size_t pos = 0;
	char *text = fuzz_field(data, len, &pos);
	char *key = fuzz_field(data, len, &pos);
	char *value = fuzz_field(data, len, &pos);
	char *spec = fuzz_field(data, len, &pos);
	char *out = NULL, *cmdline = NULL, why[256];

	if (!xvbd_cfgtext_set_string(text, key, value, &out, why,
				     sizeof(why))) {
		/* The edited assignment is one plain string: editing it
		 * again with the same value changes nothing. */
		if (plain_key(key)) {
			char *twice = NULL;

			FUZZ_ASSERT(!xvbd_cfgtext_set_string(out, key, value,
							     &twice, why,
							     sizeof(why)));
			FUZZ_ASSERT(!strcmp(out, twice));
			free(twice);
		}
		free(out);
	}
	xvbd_override_guest_limits(value, &gl);
	if (!xvbd_override_parse_vbd(&set, spec, why, sizeof(why)) &&
	    !xvbd_override_guest_cmdline(value, &set, 1, &cmdline, why,
					 sizeof(why))) {
		FUZZ_ASSERT(!strpbrk(cmdline, "\"\\\n"));
		free(cmdline);
	}
	free(text);
	free(key);
	free(value);
	free(spec);
	return 0;
}
