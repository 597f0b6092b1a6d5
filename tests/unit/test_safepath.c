/*
 * test_safepath.c - the StrictModes rule (xvbd_path_check_safe) and the
 * pv edit that relies on it (xvbd_cfgfile_read), on real trees made with
 * chown/chmod under a temporary directory: a directory, a link or a file
 * owned by someone else (uid 65534) or writable by group or others is
 * named and refused; root's links are followed.  Needs root (chown).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "xvbd/base/cfgfile.h"
#include "xvbd/base/safepath.h"

#define OTHER_UID	65534

static char root[] = "/tmp/xvbd-test-safepath-XXXXXX";

static char *at(const char *fmt, ...)
{
	static char buf[8][512];
	static int next;
	char *p = buf[next++ % 8];
	char rel[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(p, 512, "%s/%s", root, rel);
	return p;
}

static void mk(const char *path, mode_t mode, uid_t uid)
{
	assert_int_equal(mkdir(path, mode), 0);
	assert_int_equal(chown(path, uid, 0), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static void put(const char *path, mode_t mode, uid_t uid)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "name = 'g'\n", 11), 11);
	assert_int_equal(close(fd), 0);
	assert_int_equal(chown(path, uid, 0), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static void ln(const char *target, const char *path, uid_t uid)
{
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(lchown(path, uid, 0), 0);
}

/* Refused, with a message naming component and problem. */
static void refused(const char *path, enum xvbd_safe_kind kind,
		    const char *component, const char *problem)
{
	struct xvbd_safe_why why;
	char want[600];

	assert_int_equal(xvbd_path_check_safe(path, kind, &why), -EPERM);
	snprintf(want, sizeof(want), "%s: %s", component, problem);
	if (strncmp(why.msg, want, strlen(want)))
		fail_msg("%s: expected \"%s...\", got \"%s\"", path, want,
			 why.msg);
	assert_null(strchr(why.msg, '\n'));
	xvbd_safe_why_free(&why);
}

static void accepted(const char *path, enum xvbd_safe_kind kind,
		     const char *real)
{
	struct xvbd_safe_why why;
	int rc = xvbd_path_check_safe(path, kind, &why);

	if (rc)
		fail_msg("%s: refused (%d): %s", path, rc, why.msg);
	assert_string_equal(why.real, real);
	xvbd_safe_why_free(&why);
}

/*
 * The tree: real/ and auto/ root's; user/ and user-owned links are
 * uid 65534's; grp/ group-writable; sticky/ 1777 like /tmp.
 */
static int setup(void **state)
{
	(void)state;
	if (geteuid() || !mkdtemp(root))
		return -1;
	mk(at("real"), 0755, 0);
	put(at("real/bob.cfg"), 0644, 0);
	put(at("real/theirs.cfg"), 0644, OTHER_UID);
	put(at("real/open.cfg"), 0666, 0);
	mk(at("user"), 0755, OTHER_UID);
	ln("../real/bob.cfg", at("user/alice.cfg"), OTHER_UID);
	mk(at("auto"), 0755, 0);
	ln("../real/bob.cfg", at("auto/g.cfg"), 0);
	ln("../user/alice.cfg", at("auto/via-user.cfg"), 0);
	ln("../real/bob.cfg", at("auto/their-link.cfg"), OTHER_UID);
	ln(at("real"), at("auto/realdir"), 0);
	mk(at("grp"), 0775, 0);
	put(at("grp/g.cfg"), 0644, 0);
	mk(at("sticky"), 01777, 0);
	put(at("sticky/g.cfg"), 0644, 0);
	mk(at("sticky/sub"), 0755, 0);
	put(at("sticky/sub/g.cfg"), 0644, 0);
	mk(at("sticky/theirs"), 0755, OTHER_UID);
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	(void)state;
	return nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void test_files(void **state)
{
	(void)state;
	accepted(at("real/bob.cfg"), XVBD_SAFE_FILE, at("real/bob.cfg"));
	/* root's links are followed, also to a directory on the way */
	accepted(at("auto/g.cfg"), XVBD_SAFE_FILE, at("real/bob.cfg"));
	accepted(at("auto/realdir/bob.cfg"), XVBD_SAFE_FILE,
		 at("real/bob.cfg"));
	accepted(at("auto/../real/./bob.cfg"), XVBD_SAFE_FILE,
		 at("real/bob.cfg"));
	/* the finding: a link in a directory someone else owns */
	refused(at("user/alice.cfg"), XVBD_SAFE_FILE, at("user"),
		"a directory owned by uid 65534");
	/* ... also when root's own link leads through it */
	refused(at("auto/via-user.cfg"), XVBD_SAFE_FILE, at("user"),
		"a directory owned by uid 65534");
	refused(at("auto/their-link.cfg"), XVBD_SAFE_FILE,
		at("auto/their-link.cfg"), "a symbolic link owned by uid 65534");
	refused(at("real/theirs.cfg"), XVBD_SAFE_FILE, at("real/theirs.cfg"),
		"a file owned by uid 65534");
	refused(at("real/open.cfg"), XVBD_SAFE_FILE, at("real/open.cfg"),
		"writable by others (mode 0666)");
	refused(at("grp/g.cfg"), XVBD_SAFE_FILE, at("grp"),
		"writable by its group (mode 0775)");
	/* sticky: fine on the way, never as the file's directory */
	refused(at("sticky/g.cfg"), XVBD_SAFE_FILE, at("sticky"),
		"writable by others (mode 1777)");
	accepted(at("sticky/sub/g.cfg"), XVBD_SAFE_FILE,
		 at("sticky/sub/g.cfg"));
}

static void test_dirs_and_errors(void **state)
{
	struct xvbd_safe_why why;
	char cwd[512];

	(void)state;
	accepted(at("real"), XVBD_SAFE_DIR, at("real"));
	accepted(at("auto/realdir"), XVBD_SAFE_DIR, at("real"));
	accepted(at("sticky/sub"), XVBD_SAFE_DIR, at("sticky/sub"));
	refused(at("sticky"), XVBD_SAFE_DIR, at("sticky"),
		"writable by others (mode 1777)");
	refused(at("sticky/theirs"), XVBD_SAFE_DIR, at("sticky/theirs"),
		"a directory owned by uid 65534");
	refused(at("user"), XVBD_SAFE_DIR, at("user"),
		"a directory owned by uid 65534");
	assert_int_equal(xvbd_path_check_safe(at("real/none.cfg"),
					      XVBD_SAFE_FILE, &why), -ENOENT);
	assert_non_null(strstr(why.msg, "none.cfg: No such file"));
	assert_null(why.real);
	assert_int_equal(xvbd_path_check_safe(at("real/bob.cfg/x"),
					      XVBD_SAFE_FILE, &why), -ENOTDIR);
	assert_int_equal(xvbd_path_check_safe(at("real"), XVBD_SAFE_FILE,
					      &why), -EISDIR);
	/* relative: the working directory's chain is walked too */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(at("user")), 0);
	refused("alice.cfg", XVBD_SAFE_FILE, at("user"),
		"a directory owned by uid 65534");
	assert_int_equal(chdir(at("auto")), 0);
	accepted("g.cfg", XVBD_SAFE_FILE, at("real/bob.cfg"));
	assert_int_equal(chdir(cwd), 0);
}

/* What pv on/off reads: refused with the component, else the target. */
static void test_cfgfile(void **state)
{
	struct xvbd_cfgfile f;
	char why[512];

	(void)state;
	assert_int_equal(xvbd_cfgfile_read(at("user/alice.cfg"), 1024, &f,
					   why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "user: a directory owned by uid 65534"));
	assert_int_equal(xvbd_cfgfile_read(at("auto/g.cfg"), 1024, &f, why,
					   sizeof(why)), 0);
	assert_string_equal(f.real, at("real/bob.cfg"));
	xvbd_cfgfile_free(&f);
}

/*
 * What apply reads its plan with: the file checked, then opened by its
 * resolved form and judged again by the descriptor's stat.
 */
static void test_open_file(void **state)
{
	struct xvbd_safe_why why;
	struct stat st, want;
	char buf[16];
	int fd;

	(void)state;
	fd = xvbd_safe_open_file(at("auto/g.cfg"), &st, &why);
	assert_true(fd >= 0);
	assert_string_equal(why.real, at("real/bob.cfg"));
	assert_int_equal(stat(at("real/bob.cfg"), &want), 0);
	assert_int_equal(st.st_ino, want.st_ino);
	assert_int_equal(read(fd, buf, sizeof(buf)), 11);
	assert_int_equal(close(fd), 0);
	xvbd_safe_why_free(&why);
	/* refused: nothing to free, the component named */
	assert_int_equal(xvbd_safe_open_file(at("auto/their-link.cfg"), &st,
					     &why), -EPERM);
	assert_null(why.real);
	assert_non_null(strstr(why.msg, "a symbolic link owned by uid 65534"));
	assert_int_equal(xvbd_safe_open_file(at("real/open.cfg"), &st, &why),
			 -EPERM);
	assert_int_equal(xvbd_safe_open_file(at("real"), &st, &why), -EISDIR);
	assert_int_equal(xvbd_safe_open_file(at("real/none"), &st, &why),
			 -ENOENT);
	/* a FIFO in root's directory: refused at once, not waited on */
	assert_int_equal(mkfifo(at("real/fifo"), 0600), 0);
	assert_int_equal(xvbd_safe_open_file(at("real/fifo"), &st, &why),
			 -EINVAL);
	assert_non_null(strstr(why.msg, "fifo: not a regular file"));
	assert_null(why.real);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_dirs_and_errors),
		cmocka_unit_test(test_cfgfile),
		cmocka_unit_test(test_open_file),
	};

	return cmocka_run_group_tests_name("safepath", tests, setup, teardown);
}
