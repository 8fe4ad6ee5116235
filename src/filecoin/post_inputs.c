/* PoSt public values; see post_inputs.h and filecoin-circuits.md §3.2. */
#include "filecoin/post_inputs.h"

#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "filecoin/sector.h"
#include "gadgets/sha256.h"
#include "util/json.h"

int cz_post_registered(unsigned id, cz_post_kind *kind, uint64_t *sector_size, bool *v1_2) {
    if (id >= 15) return cz_error(CZ_EINVAL, "post: registered PoSt proof %u is not known (0-14)", id);
    *kind = id < 5 ? CZ_POST_WINNING : CZ_POST_WINDOW;
    *sector_size = cz_sector_sizes[id % 5];
    *v1_2 = id >= 10;
    return 0;
}

static void put_u64_le(uint8_t *b, uint64_t v) {
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
}

void cz_post_leaf_challenges(uint64_t *out, const cz_post_params *p, bool v1_2, const uint8_t randomness[32],
                             uint64_t sector_id, uint64_t sector_index) {
    uint8_t msg[48], h[32];
    memcpy(msg, randomness, 32);
    put_u64_le(msg + 32, sector_id);
    for (unsigned n = 0; n < p->challenges; n++) {
        uint64_t ci = v1_2 ? n : sector_index * p->challenges + n;
        put_u64_le(msg + 40, ci);
        cz_sha256_bytes(h, msg, 48);
        uint64_t v = 0;
        for (int i = 7; i >= 0; i--) v = v << 8 | h[i];
        out[n] = v % (1ull << p->nodes_log2);
    }
}

int cz_post_public_inputs(cz_fr *out, const cz_post_params *p, bool v1_2, const uint8_t randomness[32],
                          const uint64_t *sector_ids, const cz_fr *comm_rs, unsigned nsectors, unsigned k) {
    cz_fr t;
    if (cz_fr_from_bytes_le(&t, randomness))
        return cz_error(CZ_ERANGE, "post inputs: randomness is not a field element");
    if (p->kind == CZ_POST_WINNING ? nsectors != 1 : (nsectors == 0 || nsectors > p->sectors))
        return cz_error(CZ_EINVAL, "post inputs: %u public sectors for %s", nsectors, p->name);
    if (p->challenges > 66) return cz_error(CZ_EINVAL, "post inputs: too many challenges");
    uint64_t ch[66];
    unsigned per = 1 + p->challenges;
    for (unsigned i = 0; i < p->sectors; i++) {
        cz_fr *o = out + (uint64_t)per * i;
        if (p->kind == CZ_POST_WINDOW && i >= nsectors) {
            /* "duplicate last one if too little sectors available" */
            memcpy(o, out + (uint64_t)per * (nsectors - 1), per * sizeof(cz_fr));
            continue;
        }
        unsigned s = p->kind == CZ_POST_WINNING ? 0 : i;
        o[0] = comm_rs[s];
        cz_post_leaf_challenges(ch, p, v1_2, randomness, sector_ids[s], (uint64_t)k * p->sectors + i);
        for (unsigned n = 0; n < p->challenges; n++) cz_fr_set_u64(&o[1 + n], ch[n]);
    }
    return 0;
}

/* ---- CIDs ---- */

static int varint(const uint8_t *b, size_t n, size_t *off, uint64_t *v) {
    *v = 0;
    for (unsigned sh = 0; *off < n && sh < 63; sh += 7) {
        uint8_t c = b[(*off)++];
        *v |= (uint64_t)(c & 0x7f) << sh;
        if (!(c & 0x80)) return 0;
    }
    return -1;
}

int cz_commcid_decode(uint8_t out[32], uint64_t *codec, const char *cid, size_t len) {
    if (len < 2 || cid[0] != 'b') return cz_error(CZ_EFORMAT, "CID: not a base32 ('b') multibase string");
    uint8_t raw[64];
    size_t n = 0;
    uint32_t acc = 0;
    unsigned bits = 0;
    for (size_t i = 1; i < len; i++) {
        char c = cid[i];
        int v = c >= 'a' && c <= 'z' ? c - 'a' : c >= '2' && c <= '7' ? c - '2' + 26 : -1;
        if (v < 0) return cz_error(CZ_EFORMAT, "CID: '%c' is not a base32 digit", c);
        acc = acc << 5 | (uint32_t)v, bits += 5;
        if (bits >= 8) {
            if (n == sizeof raw) return cz_error(CZ_EFORMAT, "CID: too long");
            raw[n++] = (uint8_t)(acc >> (bits - 8)), bits -= 8;
        }
    }
    size_t off = 0;
    uint64_t ver, cod, mh, mlen;
    if (varint(raw, n, &off, &ver) || ver != 1) return cz_error(CZ_EFORMAT, "CID: not a CIDv1");
    if (varint(raw, n, &off, &cod) || (cod != 0xf101 && cod != 0xf102))
        return cz_error(CZ_EFORMAT, "CID: codec 0x%llx is not a Filecoin commitment",
                        (unsigned long long)cod);
    if (varint(raw, n, &off, &mh) || varint(raw, n, &off, &mlen) || mlen != 32 || n - off != 32)
        return cz_error(CZ_EFORMAT, "CID: the multihash is not 32 bytes");
    if ((cod == 0xf102 && mh != 0xb401) || (cod == 0xf101 && mh != 0x1012))
        return cz_error(CZ_EFORMAT, "CID: multihash 0x%llx does not match codec 0x%llx",
                        (unsigned long long)mh, (unsigned long long)cod);
    memcpy(out, raw + off, 32);
    if (codec) *codec = cod;
    return 0;
}

/* ---- curio's public info ---- */

void cz_post_public_free(cz_post_public *pp) {
    free(pp->sector_ids), free(pp->comm_rs);
    memset(pp, 0, sizeof *pp);
}

int cz_post_public_parse(cz_post_public *out, const char *text, size_t len) {
    memset(out, 0, sizeof *out);
    cz_json j;
    int rc = cz_json_parse(&j, text, len);
    if (rc) return rc;
    char *s = NULL;
    size_t sl = 0;
    uint8_t *rnd = NULL;
    size_t rl = 0;
    uint64_t v;
    int64_t r = cz_json_get(&j, 0, "Randomness");
    if (cz_json_string(&j, r, &s, &sl) || cz_base64_decode(s, sl, &rnd, &rl) || rl != 32) {
        rc = cz_error(CZ_EFORMAT, "PoSt public info: Randomness is not base64 of 32 bytes");
        goto done;
    }
    memcpy(out->randomness, rnd, 32);
    int64_t pr = cz_json_at(&j, cz_json_get(&j, 0, "Proofs"), 0);
    if (cz_json_u64(&j, cz_json_get(&j, pr, "PoStProof"), &v) || v > 14) {
        rc = cz_error(CZ_EFORMAT, "PoSt public info: Proofs[0].PoStProof missing or unknown");
        goto done;
    }
    out->post_proof = (unsigned)v;
    if (cz_json_u64(&j, cz_json_get(&j, 0, "Prover"), &out->prover)) {
        rc = cz_error(CZ_EFORMAT, "PoSt public info: Prover missing");
        goto done;
    }
    int64_t cs = cz_json_get(&j, 0, "ChallengedSectors");
    out->nsectors = cz_json_count(&j, cs);
    if (cz_json_type(&j, cs) != CZ_JSON_ARRAY || !out->nsectors) {
        rc = cz_error(CZ_EFORMAT, "PoSt public info: no ChallengedSectors");
        goto done;
    }
    out->sector_ids = calloc(out->nsectors, sizeof(uint64_t));
    out->comm_rs = calloc(out->nsectors, sizeof(cz_fr));
    if (!out->sector_ids || !out->comm_rs) {
        rc = cz_error(CZ_ENOMEM, "PoSt public info: out of memory");
        goto done;
    }
    for (unsigned i = 0; i < out->nsectors && !rc; i++) {
        int64_t e = cz_json_at(&j, cs, i);
        char *cid = NULL;
        size_t cl = 0;
        uint8_t comm[32];
        uint64_t codec;
        if (cz_json_u64(&j, cz_json_get(&j, e, "SectorNumber"), &out->sector_ids[i]) ||
            cz_json_string(&j, cz_json_get(&j, cz_json_get(&j, e, "SealedCID"), "/"), &cid, &cl)) {
            rc = cz_error(CZ_EFORMAT,
                          "PoSt public info: ChallengedSectors[%u] lacks SectorNumber or SealedCID", i);
        } else if ((rc = cz_commcid_decode(comm, &codec, cid, cl)) || codec != 0xf102) {
            rc = cz_error(CZ_EFORMAT, "PoSt public info: ChallengedSectors[%u].SealedCID: %s", i,
                          rc ? cz_error_message() : "not a sealed commitment");
        } else if (cz_fr_from_bytes_le(&out->comm_rs[i], comm)) {
            rc = cz_error(CZ_ERANGE, "PoSt public info: ChallengedSectors[%u] comm_r is not a field element",
                          i);
        }
        free(cid);
    }
done:
    free(s), free(rnd);
    cz_json_free(&j);
    if (rc) cz_post_public_free(out);
    return rc;
}
