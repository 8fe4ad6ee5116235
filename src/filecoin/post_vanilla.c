/* PoSt vanilla proofs: bincode reader, vanilla verifier, partition assembly; see post_vanilla.h. */
#include "filecoin/post_vanilla.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "util/json.h"

int cz_bincode_u64(cz_bincode *b, uint64_t *out, const char *field) {
    if (b->len - b->off < 8)
        return cz_error(CZ_EFORMAT, "%s: truncated at byte %zu reading %s (8 bytes, %zu left)", b->what,
                        b->off, field, b->len - b->off);
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | b->p[b->off + i];
    b->off += 8;
    *out = v;
    return 0;
}

static int rd_u32(cz_bincode *b, uint32_t *out, const char *field) {
    if (b->len - b->off < 4)
        return cz_error(CZ_EFORMAT, "%s: truncated at byte %zu reading %s", b->what, b->off, field);
    *out = (uint32_t)b->p[b->off] | (uint32_t)b->p[b->off + 1] << 8 | (uint32_t)b->p[b->off + 2] << 16 |
           (uint32_t)b->p[b->off + 3] << 24;
    b->off += 4;
    return 0;
}

int cz_bincode_fr(cz_bincode *b, cz_fr *out, const char *field) {
    if (b->len - b->off < 32)
        return cz_error(CZ_EFORMAT, "%s: truncated at byte %zu reading %s (32 bytes, %zu left)", b->what,
                        b->off, field, b->len - b->off);
    if (cz_fr_from_bytes_le(out, b->p + b->off))
        return cz_error(CZ_ERANGE, "%s: %s at byte %zu is not below the field modulus", b->what, field,
                        b->off);
    b->off += 32;
    return 0;
}

/* One InclusionPath covering levels [l0, l1) of s: siblings into sib, index digits into *index. */
static int rd_path(cz_bincode *b, const cz_tree_shape *s, unsigned l0, unsigned l1, cz_fr **sib,
                   uint64_t *index, unsigned *bitpos, const char *field) {
    uint64_t n;
    int rc = cz_bincode_u64(b, &n, field);
    if (rc) return rc;
    if (n != l1 - l0)
        return cz_error(CZ_EFORMAT, "%s: %s has %llu levels, the tree needs %u", b->what, field,
                        (unsigned long long)n, l1 - l0);
    for (unsigned l = l0; l < l1; l++) {
        unsigned ar = s->levels[l];
        uint64_t nh, idx;
        if ((rc = cz_bincode_u64(b, &nh, field))) return rc;
        if (nh != ar - 1u)
            return cz_error(CZ_EFORMAT, "%s: %s level %u has %llu hashes, arity %u needs %u", b->what, field,
                            l - l0, (unsigned long long)nh, ar, ar - 1);
        for (unsigned i = 0; i + 1 < ar; i++)
            if ((rc = cz_bincode_fr(b, (*sib)++, field))) return rc;
        if ((rc = cz_bincode_u64(b, &idx, field))) return rc;
        if (idx >= ar)
            return cz_error(CZ_EFORMAT, "%s: %s level %u index %llu >= arity %u", b->what, field, l - l0,
                            (unsigned long long)idx, ar);
        *index |= idx << *bitpos;
        *bitpos += ar == 2 ? 1 : ar == 4 ? 2 : 3;
    }
    return 0;
}

int cz_bincode_merkle_proof(cz_bincode *b, cz_merkle_proof *out, const cz_tree_shape *s, unsigned extra,
                            const char *field) {
    memset(out, 0, sizeof *out);
    if (extra > 2 || extra >= s->nlevels) return cz_error(CZ_EINVAL, "merkle proof: bad tree split");
    uint32_t tag = 0;
    int rc = rd_u32(b, &tag, field);
    if (rc) return rc;
    static const char *names[3] = {"Single", "Sub", "Top"};
    if (tag != extra)
        return cz_error(CZ_EFORMAT, "%s: %s is a %s proof (tag %u), this sector size needs %s", b->what,
                        field, tag < 3 ? names[tag] : "unknown", tag, names[extra]);
    out->nsib = cz_tree_path_len(s);
    out->sib = malloc(out->nsib * sizeof(cz_fr));
    if (!out->sib) return cz_error(CZ_ENOMEM, "merkle proof: out of memory");
    cz_fr *sib = out->sib;
    unsigned bitpos = 0, base = s->nlevels - extra;
    if (extra == 0) {
        if (!(rc = cz_bincode_fr(b, &out->root, field)) && !(rc = cz_bincode_fr(b, &out->leaf, field)))
            rc = rd_path(b, s, 0, base, &sib, &out->index, &bitpos, field);
    } else {
        rc = rd_path(b, s, 0, base, &sib, &out->index, &bitpos, field);
        for (unsigned e = 0; e < extra && !rc; e++)
            rc = rd_path(b, s, base + e, base + e + 1, &sib, &out->index, &bitpos, field);
        if (!rc && !(rc = cz_bincode_fr(b, &out->root, field))) rc = cz_bincode_fr(b, &out->leaf, field);
    }
    if (rc) cz_merkle_proof_free(out);
    return rc;
}

void cz_merkle_proof_free(cz_merkle_proof *mp) {
    free(mp->sib);
    mp->sib = NULL;
    mp->nsib = 0;
}

int cz_merkle_proof_verify(const cz_merkle_proof *mp, const cz_tree_shape *s) {
    cz_fr r;
    if (mp->nsib != cz_tree_path_len(s)) return cz_error(CZ_EVERIFY, "merkle proof: wrong path length");
    int rc = cz_por_root(&r, s, &mp->leaf, mp->index, mp->sib);
    if (rc) return rc;
    return cz_fr_equal(&r, &mp->root)
               ? 0
               : cz_error(CZ_EVERIFY, "merkle proof: path of leaf %llu does not hash to its root",
                          (unsigned long long)mp->index);
}

static unsigned expected_proofs(const cz_post_params *p) {
    return p->kind == CZ_POST_WINNING ? p->sectors * p->challenges : p->challenges;
}

int cz_post_sector_proof_parse(cz_post_sector_proof *out, const uint8_t *buf, size_t len,
                               const cz_post_params *p) {
    memset(out, 0, sizeof *out);
    cz_bincode b = {buf, len, 0, "PoSt vanilla proof"};
    uint64_t nsec, nproofs;
    int rc = cz_bincode_u64(&b, &out->sector_id, "sector_id");
    if (!rc) rc = cz_bincode_fr(&b, &out->comm_r, "comm_r");
    if (!rc) rc = cz_bincode_u64(&b, &nsec, "vanilla_proof.sectors length");
    if (!rc && nsec != 1)
        rc = cz_error(CZ_EFORMAT, "PoSt vanilla proof of sector %llu: %llu sector proofs, want 1",
                      (unsigned long long)out->sector_id, (unsigned long long)nsec);
    if (!rc) rc = cz_bincode_u64(&b, &nproofs, "inclusion_proofs length");
    if (!rc && nproofs != expected_proofs(p))
        rc = cz_error(CZ_EFORMAT, "PoSt vanilla proof of sector %llu: %llu inclusion proofs, %s needs %u",
                      (unsigned long long)out->sector_id, (unsigned long long)nproofs, p->name,
                      expected_proofs(p));
    if (rc) return rc;
    out->proofs = calloc(nproofs, sizeof *out->proofs);
    if (!out->proofs) return cz_error(CZ_ENOMEM, "PoSt vanilla proof: out of memory");
    out->nproofs = (unsigned)nproofs;
    char field[64];
    for (unsigned j = 0; j < out->nproofs && !rc; j++) {
        snprintf(field, sizeof field, "inclusion_proofs[%u]", j);
        rc = cz_bincode_merkle_proof(&b, &out->proofs[j], &p->tree, p->tree_extra, field);
    }
    if (!rc) rc = cz_bincode_fr(&b, &out->comm_c, "comm_c");
    if (!rc) rc = cz_bincode_fr(&b, &out->comm_r_last, "comm_r_last");
    if (!rc && b.off != b.len)
        rc = cz_error(CZ_EFORMAT,
                      "PoSt vanilla proof: %zu trailing bytes after the proof (wrong sector size?)",
                      b.len - b.off);
    if (rc) cz_post_sector_proof_free(out);
    return rc;
}

void cz_post_sector_proof_free(cz_post_sector_proof *sp) {
    if (sp->proofs)
        for (unsigned j = 0; j < sp->nproofs; j++) cz_merkle_proof_free(&sp->proofs[j]);
    free(sp->proofs);
    sp->proofs = NULL;
    sp->nproofs = 0;
}

/* ---- encoder (the inverse of the reader) ---- */

typedef cz_bincode_writer wbuf;

static void w_bytes(wbuf *w, const void *d, size_t n) {
    if (w->err) return;
    if (w->len + n > w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 4096;
        while (cap < w->len + n) cap *= 2;
        uint8_t *q = realloc(w->p, cap);
        if (!q) {
            w->err = CZ_ENOMEM;
            return;
        }
        w->p = q, w->cap = cap;
    }
    memcpy(w->p + w->len, d, n);
    w->len += n;
}
static void w_u64(wbuf *w, uint64_t v) {
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
    w_bytes(w, b, 8);
}
static void w_fr(wbuf *w, const cz_fr *x) {
    uint8_t b[32];
    cz_fr_to_bytes_le(b, x);
    w_bytes(w, b, 32);
}

static void w_path(wbuf *w, const cz_tree_shape *s, unsigned l0, unsigned l1, const cz_fr **sib,
                   uint64_t index, unsigned *bitpos) {
    w_u64(w, l1 - l0);
    for (unsigned l = l0; l < l1; l++) {
        unsigned ar = s->levels[l], lb = ar == 2 ? 1 : ar == 4 ? 2 : 3;
        w_u64(w, ar - 1u);
        for (unsigned i = 0; i + 1 < ar; i++) w_fr(w, (*sib)++);
        w_u64(w, (index >> *bitpos) & (ar - 1u));
        *bitpos += lb;
    }
}

void cz_bincode_put_u64(cz_bincode_writer *w, uint64_t v) { w_u64(w, v); }
void cz_bincode_put_fr(cz_bincode_writer *w, const cz_fr *x) { w_fr(w, x); }

void cz_bincode_put_merkle_proof(cz_bincode_writer *w, const cz_merkle_proof *mp, const cz_tree_shape *s,
                                 unsigned extra) {
    uint8_t tag[4] = {(uint8_t)extra, 0, 0, 0};
    w_bytes(w, tag, 4);
    const cz_fr *sib = mp->sib;
    unsigned bitpos = 0, base = s->nlevels - extra;
    if (extra == 0) {
        w_fr(w, &mp->root), w_fr(w, &mp->leaf);
        w_path(w, s, 0, base, &sib, mp->index, &bitpos);
    } else {
        w_path(w, s, 0, base, &sib, mp->index, &bitpos);
        for (unsigned e = 0; e < extra; e++) w_path(w, s, base + e, base + e + 1, &sib, mp->index, &bitpos);
        w_fr(w, &mp->root), w_fr(w, &mp->leaf);
    }
}

int cz_post_sector_proof_encode(const cz_post_sector_proof *sp, const cz_post_params *p, uint8_t **out,
                                size_t *len) {
    wbuf w = {0};
    w_u64(&w, sp->sector_id);
    w_fr(&w, &sp->comm_r);
    w_u64(&w, 1);
    w_u64(&w, sp->nproofs);
    for (unsigned j = 0; j < sp->nproofs; j++)
        cz_bincode_put_merkle_proof(&w, &sp->proofs[j], &p->tree, p->tree_extra);
    w_fr(&w, &sp->comm_c);
    w_fr(&w, &sp->comm_r_last);
    if (w.err) {
        free(w.p);
        return cz_error(CZ_ENOMEM, "PoSt vanilla encode: out of memory");
    }
    *out = w.p, *len = w.len;
    return 0;
}

int cz_post_sector_proof_verify(const cz_post_sector_proof *sp, const cz_post_params *p,
                                const uint64_t *challenges) {
    if (sp->nproofs != expected_proofs(p) || !sp->proofs)
        return cz_error(CZ_EVERIFY, "PoSt vanilla sector %llu: %u inclusion proofs, want %u",
                        (unsigned long long)sp->sector_id, sp->nproofs, expected_proofs(p));
    const cz_fr *root = &sp->proofs[0].root;
    cz_fr h, pre[2] = {sp->comm_c, *root};
    cz_poseidon_hash(&h, pre, 2);
    if (!cz_fr_equal(&h, &sp->comm_r))
        return cz_error(CZ_EVERIFY, "PoSt vanilla sector %llu: comm_r != Poseidon(comm_c, comm_r_last)",
                        (unsigned long long)sp->sector_id);
    if (!cz_fr_equal(root, &sp->comm_r_last))
        return cz_error(CZ_EVERIFY,
                        "PoSt vanilla sector %llu: comm_r_last differs from the inclusion proofs' root",
                        (unsigned long long)sp->sector_id);
    for (unsigned j = 0; j < sp->nproofs; j++) {
        const cz_merkle_proof *mp = &sp->proofs[j];
        if (!cz_fr_equal(&mp->root, root))
            return cz_error(CZ_EVERIFY, "PoSt vanilla sector %llu: inclusion proof %u has another root",
                            (unsigned long long)sp->sector_id, j);
        if (cz_merkle_proof_verify(mp, &p->tree))
            return cz_error(CZ_EVERIFY,
                            "PoSt vanilla sector %llu: inclusion proof %u (leaf %llu) does not verify",
                            (unsigned long long)sp->sector_id, j, (unsigned long long)mp->index);
        if (challenges && mp->index != challenges[j])
            return cz_error(
                CZ_EVERIFY,
                "PoSt vanilla sector %llu: inclusion proof %u opens leaf %llu, the challenge is %llu",
                (unsigned long long)sp->sector_id, j, (unsigned long long)mp->index,
                (unsigned long long)challenges[j]);
    }
    return 0;
}

int cz_post_partition_sectors(cz_post_sector *out, const cz_post_params *p,
                              const cz_post_sector_proof *proofs, unsigned nproofs) {
    if (p->kind == CZ_POST_WINNING) {
        if (nproofs != 1)
            return cz_error(CZ_EINVAL, "%s: %u vanilla proofs, Winning PoSt takes exactly 1", p->name,
                            nproofs);
        if (proofs[0].nproofs != p->sectors * p->challenges)
            return cz_error(CZ_EINVAL, "%s: the vanilla proof has %u inclusion proofs, want %u", p->name,
                            proofs[0].nproofs, p->sectors * p->challenges);
        for (unsigned i = 0; i < p->sectors; i++)
            out[i] = (cz_post_sector){proofs[0].comm_r, proofs[0].comm_c, proofs[0].comm_r_last,
                                      &proofs[0].proofs[i * p->challenges]};
        return 0;
    }
    if (nproofs == 0 || nproofs > p->sectors)
        return cz_error(CZ_EINVAL, "%s: %u vanilla proofs for a partition of %u sectors", p->name, nproofs,
                        p->sectors);
    for (unsigned i = 0; i < p->sectors; i++) {
        const cz_post_sector_proof *sp = &proofs[i < nproofs ? i : nproofs - 1];
        if (sp->nproofs != p->challenges)
            return cz_error(CZ_EINVAL, "%s: vanilla proof %u has %u inclusion proofs, want %u", p->name, i,
                            sp->nproofs, p->challenges);
        out[i] = (cz_post_sector){sp->comm_r, sp->comm_c, sp->comm_r_last, sp->proofs};
    }
    return 0;
}

int cz_vanilla_list_parse(cz_vanilla_blob **bufs, unsigned *n, const uint8_t *text, size_t len) {
    *bufs = NULL, *n = 0;
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t')) i++;
    cz_json j = {0};
    bool json = i < len && text[i] == '[' && cz_json_parse(&j, (const char *)text, len) == 0;
    if (!json) {
        /* one raw proof */
        cz_vanilla_blob *b = malloc(sizeof *b + (len ? len : 1));
        if (!b) return cz_error(CZ_ENOMEM, "vanilla list: out of memory");
        b->p = (const uint8_t *)(b + 1), b->len = len;
        memcpy(b + 1, text, len);
        *bufs = b, *n = 1;
        return 0;
    }
    unsigned cnt = cz_json_count(&j, 0);
    uint8_t **dec = calloc(cnt ? cnt : 1, sizeof *dec);
    size_t *dl = calloc(cnt ? cnt : 1, sizeof *dl), total = 0;
    int rc = dec && dl ? 0 : cz_error(CZ_ENOMEM, "vanilla list: out of memory");
    for (unsigned k = 0; k < cnt && !rc; k++) {
        char *s = NULL;
        size_t sl = 0;
        int64_t t = cz_json_at(&j, 0, k);
        if (cz_json_type(&j, t) != CZ_JSON_STRING || cz_json_string(&j, t, &s, &sl) ||
            cz_base64_decode(s, sl, &dec[k], &dl[k]))
            rc = cz_error(CZ_EFORMAT, "vanilla list: element %u is not a base64 string", k);
        free(s);
        total += dl[k];
    }
    cz_vanilla_blob *b = NULL;
    if (!rc && !(b = malloc(cnt * sizeof *b + total + 1)))
        rc = cz_error(CZ_ENOMEM, "vanilla list: out of memory");
    if (!rc) {
        uint8_t *data = (uint8_t *)(b + cnt);
        for (unsigned k = 0; k < cnt; k++) {
            if (dl[k]) memcpy(data, dec[k], dl[k]);
            b[k].p = data, b[k].len = dl[k];
            data += dl[k];
        }
        *bufs = b, *n = cnt;
    }
    for (unsigned k = 0; dec && k < cnt; k++) free(dec[k]);
    free(dec), free(dl);
    cz_json_free(&j);
    return rc;
}
