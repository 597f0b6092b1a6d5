/*
 * json_err.c - yajl's word for a syntax error, for the JSON readers
 * (records, fio's output).  Apart from util.c: xvbd-block links that one
 * without yajl.
 */
#include <stdio.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "xvbd/base/util.h"

void xvbd_json_syntax_error(struct yajl_handle_t *h, char *buf, size_t len)
{
	unsigned char *msg = yajl_get_error(h, 0, NULL, 0);
	char *nl = msg ? strchr((char *)msg, '\n') : NULL;

	if (nl)
		*nl = '\0';
	snprintf(buf, len, "%s", msg && *msg ? (char *)msg : "parse error");
	if (msg)
		yajl_free_error(h, msg);
}
