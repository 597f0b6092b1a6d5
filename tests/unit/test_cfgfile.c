/* Unit tests: a config file replaced in place, with real files in a
 * temporary directory - backup, mode, symlinks, and nothing written when
 * the file changed in between. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "xvbd/base/cfgfile.h"
#include "unit_sig.h"

static char why[256];
static char dir[] = "/tmp/xvbd-test-cfgfile-XXXXXX";

static char *path_in(const char *name)
{
	char *p;

	assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
	return p;
}

static void put(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static char *get(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Files in the directory, dot files (temporaries) included. */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void clean(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *p;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		p = path_in(e->d_name);
		unlink(p);
		free(p);
	}
	if (d)
		closedir(d);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	clean();
	return rmdir(dir);
}

static void test_read(void **state)
{
	struct xvbd_cfgfile f;
	char *p = path_in("g.cfg"), *sub = path_in("sub");

	(void)state;
	clean();
	assert_int_equal(xvbd_cfgfile_read(p, 1024, &f, why, sizeof(why)),
			 -ENOENT);
	put(p, "name = 'g'\n", 0644);
	assert_int_equal(xvbd_cfgfile_read(p, 1024, &f, why, sizeof(why)), 0);
	assert_int_equal(f.len, 11);
	assert_string_equal(f.data, "name = 'g'\n");
	xvbd_cfgfile_free(&f);
	/* too big, a directory, NUL bytes */
	assert_int_equal(xvbd_cfgfile_read(p, 10, &f, why, sizeof(why)),
			 -EINVAL);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(xvbd_cfgfile_read(sub, 1024, &f, why, sizeof(why)),
			 -EINVAL);
	assert_int_equal(rmdir(sub), 0);
	{
		int fd = open(p, O_WRONLY | O_TRUNC);

		assert_true(fd >= 0);
		assert_int_equal(write(fd, "a\0b", 3), 3);
		close(fd);
	}
	assert_int_equal(xvbd_cfgfile_read(p, 1024, &f, why, sizeof(why)),
			 -EINVAL);
	free(p);
	free(sub);
}

static void test_replace(void **state)
{
	struct xvbd_cfgfile f;
	char *p = path_in("g.cfg"), *bak = path_in("g.cfg.bak"), *backup;
	struct stat st;

	(void)state;
	clean();
	put(p, "old\n", 0640);
	assert_int_equal(xvbd_cfgfile_read(p, 1024, &f, why, sizeof(why)), 0);
	assert_int_equal(xvbd_cfgfile_check_writable(&f, why, sizeof(why)), 0);
	assert_int_equal(xvbd_cfgfile_replace(&f, "new\n", 4, ".bak", NULL,
					      NULL, &backup, why,
					      sizeof(why)), 0);
	assert_string_equal(backup, bak);
	assert_string_equal(get(p), "new\n");
	assert_string_equal(get(bak), "old\n");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_int_equal(stat(bak, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_int_equal(entries(), 2);		/* no temporaries left */
	free(backup);
	xvbd_cfgfile_free(&f);
	free(p);
	free(bak);
}

static void change_bytes(void *arg)
{
	put(arg, "someone else's\n", 0644);
}

/* Same bytes, another modification time: an editor saved it again. */
static void touch_only(void *arg)
{
	struct timespec ts[2] = { { 1000000000, 0 }, { 1000000000, 0 } };

	assert_int_equal(utimensat(AT_FDCWD, arg, ts, 0), 0);
}

static void test_changed_meanwhile(void **state)
{
	struct xvbd_cfgfile f;
	char *p = path_in("g.cfg"), *backup = NULL;

	(void)state;
	clean();
	put(p, "old\n", 0644);
	assert_int_equal(xvbd_cfgfile_read(p, 1024, &f, why, sizeof(why)), 0);
	assert_int_equal(xvbd_cfgfile_replace(&f, "new\n", 4, ".bak",
					      change_bytes, p, &backup, why,
					      sizeof(why)), -ESTALE);
	assert_null(backup);
	assert_non_null(strstr(why, "changed"));
	assert_string_equal(get(p), "someone else's\n");
	assert_int_equal(entries(), 1);		/* no backup, no temporaries */
	xvbd_cfgfile_free(&f);

	assert_int_equal(xvbd_cfgfile_read(p, 1024, &f, why, sizeof(why)), 0);
	assert_int_equal(xvbd_cfgfile_replace(&f, "new\n", 4, ".bak",
					      touch_only, p, &backup, why,
					      sizeof(why)), -ESTALE);
	assert_string_equal(get(p), "someone else's\n");
	assert_int_equal(entries(), 1);
	xvbd_cfgfile_free(&f);
	free(p);
}

static void test_refused(void **state)
{
	struct xvbd_cfgfile f;
	char *p = path_in("g.cfg"), *link2 = path_in("h.cfg");

	(void)state;
	clean();
	put(p, "x\n", 0444);
	assert_int_equal(xvbd_cfgfile_read(p, 1024, &f, why, sizeof(why)), 0);
	assert_int_equal(xvbd_cfgfile_check_writable(&f, why, sizeof(why)),
			 -EACCES);
	assert_non_null(strstr(why, "0444"));
	xvbd_cfgfile_free(&f);
	assert_int_equal(chmod(p, 0644), 0);
	assert_int_equal(link(p, link2), 0);
	assert_int_equal(xvbd_cfgfile_read(p, 1024, &f, why, sizeof(why)), 0);
	assert_int_equal(xvbd_cfgfile_check_writable(&f, why, sizeof(why)),
			 -EMLINK);
	xvbd_cfgfile_free(&f);
	free(p);
	free(link2);
}

static void test_symlink(void **state)
{
	struct xvbd_cfgfile f;
	char *p = path_in("real.cfg"), *l = path_in("link.cfg"), *backup;
	struct stat st;

	(void)state;
	clean();
	put(p, "old\n", 0644);
	assert_int_equal(symlink("real.cfg", l), 0);
	assert_int_equal(xvbd_cfgfile_read(l, 1024, &f, why, sizeof(why)), 0);
	assert_string_equal(f.real, p);
	assert_int_equal(xvbd_cfgfile_replace(&f, "new\n", 4, ".bak", NULL,
					      NULL, &backup, why,
					      sizeof(why)), 0);
	/* the link is still a link, to the edited file */
	assert_int_equal(lstat(l, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_string_equal(get(l), "new\n");
	free(backup);
	xvbd_cfgfile_free(&f);
	free(p);
	free(l);
}

/* A Ctrl-C caught as the commands catch it (pv), before the renames. */
static void interrupt_now(void *arg)
{
	(void)arg;
	raise(SIGINT);
}

static void test_interrupted(void **state)
{
	struct xvbd_cfgfile f;
	char *p = path_in("g.cfg"), *backup = NULL;

	(void)state;
	clean();
	put(p, "old\n", 0644);
	unit_sig_reset();
	xvbd_sig_setup(true);
	assert_int_equal(xvbd_cfgfile_read(p, 1024, &f, why, sizeof(why)), 0);
	assert_int_equal(xvbd_cfgfile_replace(&f, "new\n", 4, ".bak",
					      interrupt_now, NULL, &backup,
					      why, sizeof(why)), -EINTR);
	assert_non_null(strstr(why, "interrupted by SIGINT: nothing written"));
	assert_null(backup);
	assert_string_equal(get(p), "old\n");
	assert_int_equal(entries(), 1);		/* no backup, no temporaries */
	xvbd_cfgfile_free(&f);
	unit_sig_reset();
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_replace),
		cmocka_unit_test(test_changed_meanwhile),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_symlink),
		cmocka_unit_test(test_interrupted),
	};

	return cmocka_run_group_tests_name("cfgfile", tests, setup, teardown);
}
