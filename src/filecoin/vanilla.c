/* Vanilla PoRep verification; see vanilla.h. */
#include "filecoin/vanilla.h"

#include <string.h>

#include "cz_error.h"
#include "filecoin/porep_inputs.h"
#include "gadgets/sha256.h"

void cz_porep_label(cz_fr *out, const uint8_t replica_id[32], uint32_t layer, uint64_t node, const cz_fr *parents,
                    unsigned nparents) {
    uint8_t buf[64 + 37 * 32], h[32];
    memcpy(buf, replica_id, 32);
    for (int i = 0; i < 4; i++) buf[32 + i] = (uint8_t)(layer >> (24 - 8 * i));
    for (int i = 0; i < 8; i++) buf[36 + i] = (uint8_t)(node >> (56 - 8 * i));
    memset(buf + 44, 0, 20);
    for (unsigned k = 0; k < 37; k++) cz_fr_to_bytes_le(buf + 64 + 32 * k, &parents[k % nparents]);
    cz_sha256_bytes(h, buf, sizeof buf);
    h[31] &= 0x3f;
    cz_fr_from_bytes_le(out, h);
}

#define BAD(...) cz_error(CZ_EVERIFY, "vanilla: partition %u challenge %u: " __VA_ARGS__)

int cz_c1_verify_challenge(const cz_c1 *c1, unsigned k, unsigned i) {
    if (k >= c1->partitions) return cz_error(CZ_EINVAL, "vanilla: partition %u of %u", k, c1->partitions);
    if (i >= c1->challenges) return cz_error(CZ_EINVAL, "vanilla: challenge %u of %u", i, c1->challenges);
    const cz_porep_params *p = &c1->params;
    cz_fr comm_d, comm_r, want_r;
    if (cz_fr_from_bytes_le(&comm_d, c1->comm_d) || cz_fr_from_bytes_le(&comm_r, c1->comm_r))
        return cz_error(CZ_EVERIFY, "vanilla: comm_d / comm_r is not a field element");
    unsigned L = p->layers;
    size_t n = (size_t)k * c1->challenges + i;
    const cz_porep_challenge *ch = &c1->ch[n];
    const cz_fr *comm_c = &c1->comm_c[n], *comm_r_last = &c1->comm_r_last[n];
    cz_fr root, h;
    if (ch->d_index != ch->challenge || ch->r_index != ch->challenge || ch->c_index != ch->challenge)
        return BAD("a path index differs from the challenge %llu (comm_d_proofs %llu, comm_r_last_proof %llu, c_x %llu)",
                   k, i, (unsigned long long)ch->challenge, (unsigned long long)ch->d_index,
                   (unsigned long long)ch->r_index, (unsigned long long)ch->c_index);
    cz_por_root(&root, &p->tree_d, &ch->data_leaf, ch->d_index, ch->comm_d_path);
    if (!cz_fr_equal(&root, &comm_d)) return BAD("comm_d_proofs: the path does not lead to comm_d", k, i);
    for (int q = 0; q < 14; q++) {
        const cz_porep_column *col = q < 6 ? &ch->drg[q] : &ch->exp[q - 6];
        cz_poseidon_hash(&h, col->rows, L);
        cz_por_root(&root, &p->tree, &h, col->index, col->path);
        if (!cz_fr_equal(&root, comm_c))
            return BAD("%s_parents[%d]: column %llu is not included in tree_c", k, i, q < 6 ? "drg" : "exp",
                       q < 6 ? q : q - 6, (unsigned long long)col->index);
    }
    cz_fr labels[CZ_POREP_MAX_LAYERS];
    for (unsigned l = 1; l <= L; l++) {
        cz_fr par[14];
        for (int q = 0; q < 6; q++) par[q] = ch->drg[q].rows[l - 1];
        if (l > 1)
            for (int q = 0; q < 8; q++) par[6 + q] = ch->exp[q].rows[l - 2];
        cz_porep_label(&labels[l - 1], c1->replica_id, l, ch->challenge, par, l > 1 ? 14 : 6);
    }
    cz_poseidon_hash(&h, labels, L);
    cz_por_root(&root, &p->tree, &h, ch->c_index, ch->comm_c_path);
    if (!cz_fr_equal(&root, comm_c))
        return BAD("replica_column_proofs.c_x: the labels recomputed from the parents are not in tree_c", k, i);
    cz_fr enc;
    cz_fr_add(&enc, &labels[L - 1], &ch->data_leaf);
    cz_por_root(&root, &p->tree, &enc, ch->r_index, ch->comm_r_last_path);
    if (!cz_fr_equal(&root, comm_r_last))
        return BAD("comm_r_last_proof: the encoded node is not included in tree_r_last", k, i);
    cz_fr pre[2] = {*comm_c, *comm_r_last};
    cz_poseidon_hash(&want_r, pre, 2);
    if (!cz_fr_equal(&want_r, &comm_r)) return BAD("comm_r is not Poseidon(comm_c, comm_r_last)", k, i);
    return 0;
}

int cz_c1_verify_graph(const cz_c1 *c1, unsigned k) {
    if (k >= c1->partitions) return cz_error(CZ_EINVAL, "vanilla: partition %u of %u", k, c1->partitions);
    cz_fr pub[3 + 18 * CZ_POREP_MAX_CHALLENGES];
    return cz_porep_public_inputs(pub, c1, k, true);
}

int cz_c1_verify(const cz_c1 *c1, unsigned k, bool graph) {
    if (k >= c1->partitions) return cz_error(CZ_EINVAL, "vanilla: partition %u of %u", k, c1->partitions);
    for (unsigned i = 0; i < c1->challenges; i++) {
        int rc = cz_c1_verify_challenge(c1, k, i);
        if (rc) return rc;
    }
    return graph ? cz_c1_verify_graph(c1, k) : 0;
}
