/*
 * Unit tests: share URL parsing, and the validation of paths, libxl words
 * and mount options that keeps injection out of mount, libxl and the
 * hotplug scripts.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "xvbd/dom0/share.h"

static void test_url_nfs(void **state)
{
	struct xvbd_share_url u;
	const char *why = NULL;

	(void)state;
	assert_int_equal(xvbd_share_parse_url(
		"nfs://127.0.0.1/srv/nfs/export/dir/img.raw", &u, &why), 0);
	assert_int_equal(u.proto, XVBD_SHARE_NFS);
	assert_string_equal(u.server, "127.0.0.1");
	/* the image's directory is what gets mounted */
	assert_string_equal(u.share, "/srv/nfs/export/dir");
	assert_string_equal(u.image, "img.raw");
	assert_string_equal(u.source, "127.0.0.1:/srv/nfs/export/dir");
	assert_non_null(strstr(u.name, "nfs-127.0.0.1-srv_nfs_export_dir-"));
	assert_null(strchr(u.name, '/'));
	assert_string_equal(xvbd_share_fstype(u.proto), "nfs");
	/* export root plus image: fine; no directory at all: not */
	assert_int_equal(xvbd_share_parse_url("nfs://files.example.org/e/i",
					      &u, &why), 0);
	assert_int_equal(xvbd_share_parse_url("nfs://h/img.raw", &u, &why),
			 -EINVAL);
}

static void test_url_smb(void **state)
{
	struct xvbd_share_url u, v;
	const char *why = NULL;

	(void)state;
	assert_int_equal(xvbd_share_parse_url(
		"smb://127.0.0.1/share/dir/img.raw", &u, &why), 0);
	assert_int_equal(u.proto, XVBD_SHARE_SMB);
	assert_string_equal(u.share, "share");
	assert_string_equal(u.image, "dir/img.raw");
	assert_string_equal(u.source, "//127.0.0.1/share");
	assert_string_equal(xvbd_share_fstype(u.proto), "cifs");
	/* same share, other image: same mount directory */
	assert_int_equal(xvbd_share_parse_url("smb://127.0.0.1/share/b.img",
					      &v, &why), 0);
	assert_string_equal(u.name, v.name);
	/* a share name alone is no image */
	assert_int_equal(xvbd_share_parse_url("smb://h/share", &u, &why),
			 -EINVAL);
	assert_int_equal(xvbd_share_parse_url("smb://h/share/", &u, &why),
			 -EINVAL);
}

static void bad_url(const char *url, const char *why_part)
{
	struct xvbd_share_url u;
	const char *why = NULL;

	if (xvbd_share_parse_url(url, &u, &why) == 0)
		fail_msg("accepted %s", url);
	assert_non_null(why);
	if (!strstr(why, why_part))
		fail_msg("%s: why \"%s\" lacks \"%s\"", url, why, why_part);
}

static void test_url_rejects(void **state)
{
	(void)state;
	bad_url("nfs://h/exp,uid=0/img", "comma");
	bad_url("nfs://h/exp/img,uid=0", "comma");
	bad_url("smb://user:pass@h/s/img", "--credentials");
	bad_url("smb://user@h/s/img", "--credentials");
	bad_url("nfs://user@h/e/img", "user info");
	bad_url("nfs://h:2049/e/img", "port");
	bad_url("nfs://h/e/../etc/img", "\"..\"");
	bad_url("nfs://h/e/./img", "\".\"");
	bad_url("nfs://h//e/img", "empty");
	bad_url("nfs://h/e/$(reboot)", "shell");
	bad_url("nfs://h/e/a;b", "shell");
	bad_url("nfs://h/e/a b", "white space");
	bad_url("nfs://h/e/a%2Fb", "percent");
	bad_url("nfs://h/e/-oremount", "'-'");
	bad_url("nfs://-h/e/img", "'-'");
	bad_url("nfs://h;x/e/img", "shell");
	bad_url("nfs://[::1]/e/img", "IPv6");
	bad_url("nfs:///e/img", "no server");
	bad_url("nfs://h", "no path");
	bad_url("http://h/e/img", "nfs://");
	bad_url("NFS://h/e/img", "nfs://");
	bad_url("nfs://h/e/im\x01g", "control");
	bad_url("nfs://h/e/\xc3\xa9", "non-ASCII");
}

static void test_path_check(void **state)
{
	const char *why = NULL;
	char longp[XVBD_PATH_MAX + 8];

	(void)state;
	assert_int_equal(xvbd_path_check("/scratch/a.img", &why), 0);
	assert_int_equal(xvbd_path_check("/dev/vdb1", &why), 0);
	assert_int_equal(xvbd_path_check("/dev/disk/by-id/x@y:z+1", &why), 0);
	assert_int_equal(xvbd_path_check("rel/a.img", &why), -EINVAL);
	assert_int_equal(xvbd_path_check("/", &why), -EINVAL);
	assert_int_equal(xvbd_path_check("/a,b", &why), -EINVAL);
	assert_non_null(strstr(why, "comma"));
	assert_int_equal(xvbd_path_check("/scratch/../etc/shadow", &why),
			 -EINVAL);
	assert_int_equal(xvbd_path_check("/scratch//a", &why), -EINVAL);
	assert_int_equal(xvbd_path_check("/scratch/a/", &why), -EINVAL);
	assert_int_equal(xvbd_path_check("/a`id`", &why), -EINVAL);
	assert_int_equal(xvbd_path_check("/a=b", &why), -EINVAL);
	assert_int_equal(xvbd_path_check("/a\nb", &why), -EINVAL);
	assert_int_equal(xvbd_path_check(NULL, &why), -EINVAL);
	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = '\0';
	assert_int_equal(xvbd_path_check(longp, &why), -ENAMETOOLONG);
}

static void test_token_check(void **state)
{
	const char *why = NULL;

	(void)state;
	assert_int_equal(xvbd_token_check("iscsi:iqn.2001-05.com.x:1", &why),
			 0);
	assert_int_equal(xvbd_token_check("block", &why), 0);
	assert_int_equal(xvbd_token_check("/etc/xen/scripts/block", &why), 0);
	assert_int_equal(xvbd_token_check("drbd:res=a", &why), 0);
	assert_int_equal(xvbd_token_check("", &why), -EINVAL);
	assert_int_equal(xvbd_token_check("-x", &why), -EINVAL);
	assert_int_equal(xvbd_token_check("../../tmp/evil", &why), -EINVAL);
	assert_int_equal(xvbd_token_check("a;rm -rf /", &why), -EINVAL);
	assert_int_equal(xvbd_token_check("a,b", &why), -EINVAL);
}

static void test_opts(void **state)
{
	const char *why = NULL;
	char buf[256];

	(void)state;
	assert_int_equal(xvbd_share_opts_check(XVBD_SHARE_NFS, NULL, &why), 0);
	assert_int_equal(xvbd_share_opts_check(XVBD_SHARE_NFS, "", &why), 0);
	assert_int_equal(xvbd_share_opts_check(XVBD_SHARE_NFS,
					       "vers=4.2,hard,timeo=600",
					       &why), 0);
	assert_int_equal(xvbd_share_opts_check(XVBD_SHARE_SMB,
					       "uid=0,file_mode=0600", &why),
			 0);
	/* not on the allow list / credentials / injection */
	assert_int_equal(xvbd_share_opts_check(XVBD_SHARE_NFS, "uid=0",
					       &why), -EINVAL);
	assert_int_equal(xvbd_share_opts_check(XVBD_SHARE_NFS, "remount",
					       &why), -EINVAL);
	assert_int_equal(xvbd_share_opts_check(XVBD_SHARE_SMB,
					       "password=x", &why), -EINVAL);
	assert_non_null(strstr(why, "--credentials"));
	assert_int_equal(xvbd_share_opts_check(XVBD_SHARE_SMB,
					       "credentials=/tmp/c", &why),
			 -EINVAL);
	assert_int_equal(xvbd_share_opts_check(XVBD_SHARE_SMB, "username=u",
					       &why), -EINVAL);
	assert_int_equal(xvbd_share_opts_check(XVBD_SHARE_NFS, "vers=3,,hard",
					       &why), -EINVAL);
	assert_int_equal(xvbd_share_opts_check(XVBD_SHARE_NFS, "vers=",
					       &why), -EINVAL);
	assert_int_equal(xvbd_share_opts_check(XVBD_SHARE_NFS, "vers=3 x",
					       &why), -EINVAL);
	assert_int_equal(xvbd_share_opts_check(XVBD_SHARE_NFS,
					       "vers=$(id)", &why), -EINVAL);

	assert_int_equal(xvbd_share_build_opts(XVBD_SHARE_NFS, NULL, NULL,
					       buf, sizeof(buf)), 0);
	assert_string_equal(buf, "vers=3,proto=tcp,nolock,retry=0,nosuid,nodev,noexec");
	assert_int_equal(xvbd_share_build_opts(XVBD_SHARE_SMB, "uid=0",
					       "/root/c", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "vers=3.0,uid=0,nosuid,nodev,noexec,credentials=/root/c");
	/* nfs never gets a credentials option */
	assert_int_equal(xvbd_share_build_opts(XVBD_SHARE_NFS, "hard",
					       "/root/c", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "vers=3,proto=tcp,nolock,retry=0,hard,nosuid,nodev,noexec");
	assert_int_equal(xvbd_share_build_opts(XVBD_SHARE_NFS, NULL, NULL,
					       buf, 8), -ENAMETOOLONG);
}

/* A helper's message reaches the terminal escaped, C1 bytes too. */
static void test_helper_line(void **state)
{
	char why[256];

	(void)state;
	xvbd_share_helper_line("\n mount.nfs: access denied\nsee dmesg\n",
			       why, sizeof(why));
	assert_string_equal(why, "mount.nfs: access denied");
	xvbd_share_helper_line("bad \x1b[2J\x7f\x9b" "31m\x80\xff\tx", why,
			       sizeof(why));
	assert_string_equal(why, "bad \\x1b[2J\\x7f\\x9b31m\\x80\\xff"
			    "\\x09x");
	xvbd_share_helper_line("", why, sizeof(why));
	assert_string_equal(why, "");
}

static void test_share_of_target(void **state)
{
	char name[128];

	(void)state;
	/* no record file under /run/xvbd/shares in the test: never ours */
	assert_int_equal(xvbd_share_of_target("/scratch/a.img", name,
					      sizeof(name)), 0);
	assert_int_equal(xvbd_share_of_target(NULL, name, sizeof(name)), 0);
	assert_int_equal(xvbd_share_of_target(XVBD_SHARE_DIR "/x", name,
					      sizeof(name)), 0);
}

/*
 * The bounded lstat answers for any path (an admin's own NFS mount can
 * be anywhere, not only under XVBD_SHARE_DIR), and as lstat would: the
 * link itself, errors as -errno.
 */
static void test_bounded_lstat(void **state)
{
	struct stat st, want;

	(void)state;
	assert_int_equal(xvbd_share_lstat("/proc/self/exe", 5000, &st), 0);
	assert_int_equal(lstat("/proc/self/exe", &want), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(xvbd_share_lstat("/", 5000, &st), 0);
	assert_int_equal(lstat("/", &want), 0);
	assert_int_equal(st.st_ino, want.st_ino);
	assert_int_equal(st.st_dev, want.st_dev);
	assert_int_equal(xvbd_share_lstat("/nonexistent/x", 5000, &st),
			 -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url_nfs),
		cmocka_unit_test(test_url_smb),
		cmocka_unit_test(test_url_rejects),
		cmocka_unit_test(test_path_check),
		cmocka_unit_test(test_token_check),
		cmocka_unit_test(test_opts),
		cmocka_unit_test(test_share_of_target),
		cmocka_unit_test(test_helper_line),
		cmocka_unit_test(test_bounded_lstat),
	};

	return cmocka_run_group_tests_name("share", tests, NULL, NULL);
}
