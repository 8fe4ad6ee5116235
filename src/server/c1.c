/* PoRep requests carry the C1 wrapper JSON {"SectorNum":int,"Phase1Out":"<std base64>","SectorSize":u64}
 * (cuzk-spec §5). It is checked here, at the API edge, so garbage gets INVALID_ARGUMENT before it is
 * queued; the engine receives the bytes unchanged. */
#include <jansson.h>
#include <string.h>

#include "cz_error.h"
#include "server/rpc.h"
#include "util/json.h"

int cz_c1_wrapper_check(const uint8_t *buf, size_t len, uint64_t sector_size) {
    if (!len) return cz_error(CZ_EINVAL, "empty vanilla_proof");
    json_error_t err;
    json_t *root = json_loadb((const char *)buf, len, JSON_REJECT_DUPLICATES, &err);
    if (!root) return cz_error(CZ_EINVAL, "vanilla_proof is not the C1 wrapper JSON: %s", err.text);
    int rc = 0;
    json_t *sn = json_object_get(root, "SectorNum"), *p1 = json_object_get(root, "Phase1Out"),
           *ss = json_object_get(root, "SectorSize");
    if (!json_is_object(root) || !json_is_integer(sn) || !json_is_string(p1) || !json_is_integer(ss)) {
        rc = cz_error(CZ_EINVAL, "vanilla_proof must be {\"SectorNum\":int,\"Phase1Out\":base64,\"SectorSize\":int}");
    } else if (sector_size && (uint64_t)json_integer_value(ss) != sector_size) { /* 0: checked later */
        rc = cz_error(CZ_EINVAL, "C1 SectorSize %lld does not match sector_size %llu", (long long)json_integer_value(ss),
                      (unsigned long long)sector_size);
    } else {
        size_t n = 0; /* checked without decoding: the engine decodes it once, later */
        if (cz_base64_decode(json_string_value(p1), json_string_length(p1), NULL, &n) || !n)
            rc = cz_error(CZ_EINVAL, "C1 Phase1Out is not non-empty standard base64");
    }
    json_decref(root);
    return rc;
}
