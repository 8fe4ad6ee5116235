/* PoRep public values; see porep_inputs.h. */
#include "filecoin/porep_inputs.h"

#include <string.h>

#include "cz_error.h"
#include "filecoin/graph.h"
#include "gadgets/sha256.h"

void cz_porep_id(uint8_t out[32], unsigned proof_id) {
    memset(out, 0, 32);
    for (int i = 0; i < 8; i++) out[i] = (uint8_t)((uint64_t)proof_id >> (8 * i));
}

void cz_porep_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id, const uint8_t ticket[32],
                         const uint8_t comm_d[32], const uint8_t porep_id[32]) {
    uint8_t buf[136];
    memcpy(buf, prover_id, 32);
    for (int i = 0; i < 8; i++) buf[32 + i] = (uint8_t)(sector_id >> (56 - 8 * i));
    memcpy(buf + 40, ticket, 32);
    memcpy(buf + 72, comm_d, 32);
    memcpy(buf + 104, porep_id, 32);
    cz_sha256_bytes(out, buf, sizeof buf);
    out[31] &= 0x3f;
}

void cz_porep_interactive_challenges(uint64_t *out, unsigned n, unsigned first, const uint8_t replica_id[32],
                                     const uint8_t seed[32], uint64_t nodes) {
    uint8_t buf[68], h[32];
    memcpy(buf, replica_id, 32);
    memcpy(buf + 32, seed, 32);
    for (unsigned i = 0; i < n; i++) {
        uint32_t j = first + i;
        for (int b = 0; b < 4; b++) buf[64 + b] = (uint8_t)(j >> (8 * b));
        cz_sha256_bytes(h, buf, sizeof buf);
        /* the 256-bit LE integer mod (nodes - 1), most significant byte first */
        unsigned __int128 r = 0;
        uint64_t m = nodes - 1;
        for (int b = 31; b >= 0; b--) r = ((r << 8) | h[b]) % m;
        out[i] = (uint64_t)r + 1;
    }
}

int cz_porep_public_inputs(cz_fr *out, const cz_c1 *c1, unsigned k, bool graph) {
    if (k >= c1->partitions) return cz_error(CZ_EINVAL, "porep inputs: partition %u of %u", k, c1->partitions);
    if (c1->proof_id >= 10)
        return cz_error(CZ_EUNSUPPORTED, "porep inputs: %s derives its challenges differently (synthetic / NI)",
                        c1->registered_proof);
    if (cz_fr_from_bytes_le(&out[0], c1->replica_id)) return cz_error(CZ_ERANGE, "porep inputs: replica_id >= r");
    if (cz_fr_from_bytes_le(&out[1], c1->comm_d)) return cz_error(CZ_ERANGE, "porep inputs: comm_d >= r");
    if (cz_fr_from_bytes_le(&out[2], c1->comm_r)) return cz_error(CZ_ERANGE, "porep inputs: comm_r >= r");
    unsigned C = c1->challenges;
    uint64_t chal[CZ_POREP_MAX_CHALLENGES];
    cz_porep_interactive_challenges(chal, C, C * k, c1->replica_id, c1->seed, 1ull << c1->params.nodes_log2);
    if (graph && c1->proof_id < 5)
        return cz_error(CZ_EUNSUPPORTED, "porep inputs: %s uses the ApiVersion 1.0 graph", c1->registered_proof);
    uint8_t porep_id[32];
    cz_porep_id(porep_id, c1->proof_id);
    cz_fr *o = out + 3;
    for (unsigned i = 0; i < C; i++) {
        const cz_porep_challenge *ch = &c1->ch[(size_t)k * C + i];
        if (ch->challenge != chal[i] || ch->d_index != chal[i] || ch->r_index != chal[i] || ch->c_index != chal[i])
            return cz_error(CZ_EVERIFY, "porep inputs: partition %u challenge %u: the C1 opens node %llu, the seed derives %llu",
                            k, i, (unsigned long long)ch->challenge, (unsigned long long)chal[i]);
        uint64_t drg[CZ_POREP_DRG_PARENTS], exp[CZ_POREP_EXP_PARENTS];
        for (int p = 0; p < CZ_POREP_DRG_PARENTS; p++) drg[p] = ch->drg[p].index;
        for (int p = 0; p < CZ_POREP_EXP_PARENTS; p++) exp[p] = ch->exp[p].index;
        if (graph) {
            uint64_t gd[CZ_POREP_DRG_PARENTS], ge[CZ_POREP_EXP_PARENTS];
            cz_porep_drg_parents(gd, chal[i], porep_id);
            cz_porep_exp_parents(ge, chal[i], 1ull << c1->params.nodes_log2, porep_id);
            for (int p = 0; p < CZ_POREP_DRG_PARENTS; p++)
                if (gd[p] != drg[p])
                    return cz_error(CZ_EVERIFY, "porep inputs: partition %u challenge %u: drg_parents[%d] is node %llu, the graph says %llu",
                                    k, i, p, (unsigned long long)drg[p], (unsigned long long)gd[p]);
            for (int p = 0; p < CZ_POREP_EXP_PARENTS; p++)
                if (ge[p] != exp[p])
                    return cz_error(CZ_EVERIFY, "porep inputs: partition %u challenge %u: exp_parents[%d] is node %llu, the graph says %llu",
                                    k, i, p, (unsigned long long)exp[p], (unsigned long long)ge[p]);
        }
        cz_fr_set_u64(o++, chal[i]);
        for (int p = 0; p < CZ_POREP_DRG_PARENTS; p++) cz_fr_set_u64(o++, drg[p]);
        for (int p = 0; p < CZ_POREP_EXP_PARENTS; p++) cz_fr_set_u64(o++, exp[p]);
        for (int r = 0; r < 3; r++) cz_fr_set_u64(o++, chal[i]);
    }
    return 0;
}
