/*
 * fuzz_share.c - share URLs (attach --share nfs://... / smb://...), the
 * --share-opts string, and the paths and words handed to libxl, the
 * hotplug script and mount (xvbd_path_check, xvbd_token_check).  What
 * passes must be what the checks promise: no comma, quote, space or
 * newline reaches a mount option string or a disk spec.
 */
#include "fuzz.h"
#include "xvbd/dom0/share.h"

static void no_injection(const char *s)
{
	FUZZ_ASSERT(!strpbrk(s, ",\"' \t\n\\"));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct xvbd_share_url u;
	size_t pos = 0;
	char *url = fuzz_field(data, len, &pos);
	char *opts = fuzz_field(data, len, &pos);
	char *path = fuzz_field(data, len, &pos);
	char buf[4096], mnt[4096];
	const char *why;

	if (!xvbd_share_parse_url(url, &u, &why)) {
		no_injection(u.server);
		no_injection(u.share);
		no_injection(u.image);
		no_injection(u.source);
		FUZZ_ASSERT(!strchr(u.name, '/'));
		FUZZ_ASSERT(strcmp(u.name, ".") && strcmp(u.name, ".."));
		(void)xvbd_share_mountpoint(&u, mnt, sizeof(mnt));
		if (!xvbd_share_opts_check(u.proto, opts, &why) &&
		    !xvbd_share_build_opts(u.proto, opts,
					   "/run/cred", buf, sizeof(buf)))
			FUZZ_ASSERT(!strpbrk(buf, "\"' \t\n\\"));
	}
	if (!xvbd_path_check(path, &why)) {
		no_injection(path);
		FUZZ_ASSERT(path[0] == '/' && !strstr(path, "/../") &&
			    !strstr(path, "//"));
	}
	if (!xvbd_token_check(path, &why))
		no_injection(path);
	free(url);
	free(opts);
	free(path);
	return 0;
}
