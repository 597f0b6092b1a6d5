/*
 * test_sha256.c - SHA-256 against FIPS 180-4's examples and sha256sum
 * (the lengths around the padding's block boundary).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "xvbd/base/sha256.h"

static void test_vectors(void **state)
{
	char hex[XVBD_SHA256_HEX_LEN], buf[1000];

	(void)state;
	xvbd_sha256_hex("", 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb924"
			    "27ae41e4649b934ca495991b7852b855");
	xvbd_sha256_hex("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223"
			    "b00361a396177a9cb410ff61f20015ad");
	xvbd_sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnop"
			"nopq", 56, hex);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039"
			    "a33ce45964ff2167f6ecedd419db06c1");
	/* printf 'a%.0s' $(seq 55|64|1000) | sha256sum */
	memset(buf, 'a', sizeof(buf));
	xvbd_sha256_hex(buf, 55, hex);
	assert_string_equal(hex, "9f4390f8d30c2dd92ec9f095b65e2b9a"
			    "e9b0a925a5258e241c9f1e910f734318");
	xvbd_sha256_hex(buf, 64, hex);
	assert_string_equal(hex, "ffe054fe7ae0cb6dc65c3af9b61d5209"
			    "f439851db43d0ba5997337df154668eb");
	xvbd_sha256_hex(buf, 1000, hex);
	assert_string_equal(hex, "41edece42d63e8d9bf515a9ba6932e1c"
			    "20cbc9f5a5d134645adb5db1b9737ea3");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
