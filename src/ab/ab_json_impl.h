/*
 * ab_json_impl.h - the two halves of reading a record (ab_json.c checks
 * a tree, ab_json_read.c streams the document and makes the trees).
 *
 * A record file comes from a directory others may write to, so the
 * reader's memory follows what it keeps: the head (every key but
 * "samples") is one small tree, each sample another, made, checked and
 * freed in turn; nothing is built for a value a record cannot hold.
 */
#ifndef XVBD_AB_JSON_IMPL_H
#define XVBD_AB_JSON_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include "xvbd/ab/ab.h"

/*
 * root: the record's object with every key but the samples, and
 * "samples": [] (an absent key is missing, as in the file).  Fills rec's
 * head and runs xvbd_ab_record_check_head().
 */
int xvbd_ab_json_read_head(yajl_val root, struct xvbd_ab_record *rec,
			   struct xvbd_ab_err *e);
/* Is key[len] one of a record's top-level keys? */
bool xvbd_ab_json_record_key(const char *key, size_t len);
/* samples[index] into *s (its vbds malloc'd, nvdevs entries). */
int xvbd_ab_json_read_sample(yajl_val v, size_t index, size_t nvdevs,
			     struct xvbd_ab_sample *s, struct xvbd_ab_err *e);

/*
 * v is an object with no key outside keys[0..nkeys), none twice, and
 * each of the first nrequired; where names it in e ("results.fio").
 */
int xvbd_ab_json_obj_check(yajl_val v, const char *where,
			   const char *const *keys, size_t nkeys,
			   size_t nrequired, struct xvbd_ab_err *e);

/*
 * The writers' common values (a record, its results, its latency): a
 * string, and a counter as a number of its own digits, since
 * yajl_gen_integer takes long long and a uint64 counter may not fit.
 */
yajl_gen_status xvbd_ab_gen_str(yajl_gen g, const char *s);
yajl_gen_status xvbd_ab_gen_u64(yajl_gen g, uint64_t v);
yajl_gen_status xvbd_ab_gen_key_str(yajl_gen g, const char *k, const char *v);
yajl_gen_status xvbd_ab_gen_key_u64(yajl_gen g, const char *k, uint64_t v);

#endif /* XVBD_AB_JSON_IMPL_H */
