/* PoRep requests carry the C1 wrapper JSON {"SectorNum":int,"Phase1Out":"<std base64>","SectorSize":u64}
 * (cuzk-spec §5). It is checked here, at the API edge, so garbage gets INVALID_ARGUMENT before it is
 * queued; the engine receives the bytes unchanged. */
#include <jansson.h>
#include <string.h>

#include "cz_error.h"
#include "server/rpc.h"

static int b64val(int ch) {
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    if (ch == '+') return 62;
    if (ch == '/') return 63;
    return -1;
}

/* Standard base64 with padding; returns the decoded length or -1. */
static long b64_check(const char *s, size_t n) {
    if (n % 4) return -1;
    size_t pad = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '=') {
            if (i < n - 2) return -1;
            pad++;
        } else if (pad || b64val((unsigned char)s[i]) < 0) {
            return -1;
        }
    }
    return (long)(n / 4 * 3 - pad);
}

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
    } else if ((uint64_t)json_integer_value(ss) != sector_size) {
        rc = cz_error(CZ_EINVAL, "C1 SectorSize %lld does not match sector_size %llu", (long long)json_integer_value(ss),
                      (unsigned long long)sector_size);
    } else {
        long n = b64_check(json_string_value(p1), json_string_length(p1));
        if (n <= 0) rc = cz_error(CZ_EINVAL, "C1 Phase1Out is not non-empty standard base64");
    }
    json_decref(root);
    return rc;
}
