/* PoRep public values; see porep_inputs.h. */
#include "filecoin/porep_inputs.h"

#include <stdio.h>
#include <string.h>

#include "cz_error.h"
#include "filecoin/graph.h"
#include "gadgets/sha256.h"

static const char *const KIND_NAMES[3] = {"interactive", "synthetic", "non-interactive"};

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

void cz_porep_prover_id(uint8_t out[32], uint64_t miner_id) {
    memset(out, 0, 32);
    int i = 0;
    do {
        out[i] = (uint8_t)(miner_id & 0x7f);
        miner_id >>= 7;
        if (miner_id) out[i] |= 0x80;
        i++;
    } while (miner_id); /* at most 10 bytes for 64 bits */
}

int cz_porep_check_sector(const cz_c1 *c1, uint64_t miner_id, uint64_t sector_number) {
    uint8_t prover_id[32], porep_id[32], want[32];
    cz_porep_prover_id(prover_id, miner_id);
    cz_porep_id(porep_id, c1->proof_id);
    cz_porep_replica_id(want, prover_id, sector_number, c1->ticket, c1->comm_d, porep_id);
    if (!memcmp(want, c1->replica_id, 32)) return 0;
    char have_hex[17], want_hex[17];
    for (int i = 0; i < 8; i++) {
        snprintf(have_hex + 2 * i, 3, "%02x", c1->replica_id[i]);
        snprintf(want_hex + 2 * i, 3, "%02x", want[i]);
    }
    return cz_error(CZ_EVERIFY,
                    "the C1's replica_id (%s...) is not that of miner f0%llu sector %llu (%s... from their ids, the "
                    "C1's ticket and comm_d and the %s porep_id): the C1 is another sector's or another miner's, "
                    "and its proof would fail on chain",
                    have_hex, (unsigned long long)miner_id, (unsigned long long)sector_number, want_hex,
                    c1->registered_proof);
}

unsigned cz_porep_kind_partitions(const cz_porep_params *p, cz_porep_kind kind) {
    if (kind != CZ_POREP_NI) return p->partitions;
    return p->sector_size <= (1ull << 30) ? 13 : 126;
}

/* bigint_to_challenge: the 256-bit LE integer mod (nodes - 1), plus 1 (node 0 is never challenged) */
static uint64_t to_challenge(const uint8_t h[32], uint64_t nodes) {
    unsigned __int128 r = 0;
    uint64_t m = nodes - 1;
    for (int b = 31; b >= 0; b--) r = ((r << 8) | h[b]) % m; /* most significant byte first */
    return (uint64_t)r + 1;
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
        out[i] = to_challenge(h, nodes);
    }
}

void cz_porep_ni_challenges(uint64_t *out, unsigned n, unsigned first, const uint8_t replica_id[32],
                            const uint8_t comm_r[32], uint64_t nodes) {
    static const char TAG[] = "filecoin.io|PoRep|1|NonInteractive|1";
    enum { T = sizeof TAG - 1 };
    uint8_t buf[T + 68], h[32];
    memcpy(buf, TAG, T), memcpy(buf + T, replica_id, 32), memcpy(buf + T + 32, comm_r, 32);
    for (unsigned i = 0; i < n; i++) {
        uint32_t j = first + i;
        for (int b = 0; b < 4; b++) buf[T + 64 + b] = (uint8_t)(j >> (8 * b));
        cz_sha256_bytes(h, buf, sizeof buf);
        out[i] = to_challenge(h, nodes);
    }
}

/* n keystream bytes of ChaCha20 (RFC 8439: 32-bit block counter from 0, 96-bit nonce) from byte
 * offset off, keyed by BLAKE2b-256 with key tag over a ‖ b. */
static void synth_stream(uint8_t *out, size_t n, uint64_t off, const char *tag, const uint8_t a[32],
                         const uint8_t b[32]) {
    uint8_t msg[64], key[32];
    memcpy(msg, a, 32), memcpy(msg + 32, b, 32);
    cz_blake2b(key, 32, (const uint8_t *)tag, strlen(tag), msg, 64);
    static const uint8_t NONCE[12] = "synth-porep";
    uint32_t st[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574}, ks[16];
    for (int i = 0; i < 8; i++)
        st[4 + i] = (uint32_t)key[4 * i] | (uint32_t)key[4 * i + 1] << 8 | (uint32_t)key[4 * i + 2] << 16 |
                    (uint32_t)key[4 * i + 3] << 24;
    for (int i = 0; i < 3; i++)
        st[13 + i] = (uint32_t)NONCE[4 * i] | (uint32_t)NONCE[4 * i + 1] << 8 | (uint32_t)NONCE[4 * i + 2] << 16 |
                     (uint32_t)NONCE[4 * i + 3] << 24;
    while (n) {
        st[12] = (uint32_t)(off / 64);
        cz_chacha_block(ks, st, 20);
        for (unsigned o = (unsigned)(off % 64); o < 64 && n; o++, n--, off++) *out++ = (uint8_t)(ks[o / 4] >> (8 * (o % 4)));
    }
}

uint64_t cz_porep_synth_count(uint64_t nodes) { return nodes < (1ull << 18) ? nodes : 1ull << 18; }

uint64_t cz_porep_synth_challenge(uint64_t i, const uint8_t replica_id[32], const uint8_t comm_r[32], uint64_t nodes) {
    uint8_t r[32];
    synth_stream(r, 32, 32 * i, "filecoin.io|PoRep|1|Synthetic|1|Generation", replica_id, comm_r);
    return to_challenge(r, nodes);
}

void cz_porep_synth_indexes(uint64_t *out, unsigned n, unsigned first, const uint8_t replica_id[32],
                            const uint8_t seed[32], uint64_t num_synth) {
    for (unsigned i = 0; i < n; i++) {
        uint8_t b[4];
        synth_stream(b, 4, 4 * (uint64_t)(first + i), "filecoin.io|PoRep|1|Synthetic|1|Selection", replica_id, seed);
        uint32_t v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
        out[i] = v % num_synth;
    }
}

void cz_porep_synth_challenges(uint64_t *out, unsigned n, unsigned first, const uint8_t replica_id[32],
                               const uint8_t comm_r[32], const uint8_t seed[32], uint64_t nodes, uint64_t num_synth) {
    cz_porep_synth_indexes(out, n, first, replica_id, seed, num_synth);
    for (unsigned i = 0; i < n; i++) out[i] = cz_porep_synth_challenge(out[i], replica_id, comm_r, nodes);
}

void cz_porep_partition_challenges(uint64_t *out, cz_porep_kind kind, unsigned C, unsigned k, uint64_t nodes,
                                   const uint8_t replica_id[32], const uint8_t comm_r[32], const uint8_t seed[32]) {
    if (kind == CZ_POREP_NI) cz_porep_ni_challenges(out, C, C * k, replica_id, comm_r, nodes);
    else if (kind == CZ_POREP_SYNTHETIC)
        cz_porep_synth_challenges(out, C, C * k, replica_id, comm_r, seed, nodes, cz_porep_synth_count(nodes));
    else cz_porep_interactive_challenges(out, C, C * k, replica_id, seed, nodes);
}

int cz_porep_inputs_from_public(cz_fr *out, const cz_porep_params *p, const uint8_t porep_id[32], bool api_1_0,
                                cz_porep_kind kind, const uint8_t replica_id[32], const uint8_t comm_d[32], const uint8_t comm_r[32],
                                const uint8_t seed[32], unsigned k) {
    if (cz_fr_from_bytes_le(&out[0], replica_id)) return cz_error(CZ_ERANGE, "porep inputs: replica_id >= r");
    if (cz_fr_from_bytes_le(&out[1], comm_d)) return cz_error(CZ_ERANGE, "porep inputs: comm_d >= r");
    if (cz_fr_from_bytes_le(&out[2], comm_r)) return cz_error(CZ_ERANGE, "porep inputs: comm_r >= r");
    unsigned C = p->challenges;
    uint64_t nodes = 1ull << p->nodes_log2, chal[CZ_POREP_MAX_CHALLENGES];
    cz_porep_partition_challenges(chal, kind, C, k, nodes, replica_id, comm_r, seed);
    cz_fr *o = out + 3;
    for (unsigned i = 0; i < C; i++) {
        uint64_t drg[6], exp[8];
        if (api_1_0) cz_porep_drg_parents_v1_0(drg, chal[i], porep_id);
        else cz_porep_drg_parents(drg, chal[i], porep_id);
        cz_porep_exp_parents(exp, chal[i], nodes, porep_id);
        cz_fr_set_u64(o++, chal[i]);
        for (int q = 0; q < 6; q++) cz_fr_set_u64(o++, drg[q]);
        for (int q = 0; q < 8; q++) cz_fr_set_u64(o++, exp[q]);
        for (int r = 0; r < 3; r++) cz_fr_set_u64(o++, chal[i]);
    }
    return 0;
}

int cz_porep_public_inputs(cz_fr *out, const cz_c1 *c1, unsigned k, bool graph) {
    if (k >= c1->partitions) return cz_error(CZ_EINVAL, "porep inputs: partition %u of %u", k, c1->partitions);
    uint8_t porep_id[32];
    cz_porep_id(porep_id, c1->proof_id);
    int rc = cz_porep_inputs_from_public(out, &c1->params, porep_id, c1->proof_id < 5,
                                         cz_porep_kind_of(c1->proof_id), c1->replica_id, c1->comm_d,
                                         c1->comm_r, c1->seed, k);
    if (rc) return rc;
    /* the C1 must open exactly the derived challenges (and, with graph, the graph's parents) */
    for (unsigned i = 0; i < c1->challenges; i++) {
        const cz_porep_challenge *ch = &c1->ch[(size_t)k * c1->challenges + i];
        cz_fr *o = out + 3 + 18 * i, v;
        cz_fr_set_u64(&v, ch->challenge);
        if (!cz_fr_equal(&v, &o[0]) || ch->d_index != ch->challenge || ch->r_index != ch->challenge ||
            ch->c_index != ch->challenge) {
            uint64_t raw[4];
            cz_fr_to_raw(raw, &o[0]);
            return cz_error(CZ_EVERIFY, "porep inputs: partition %u challenge %u: the C1 opens node %llu, the %s rule derives %llu",
                            k, i, (unsigned long long)ch->challenge, KIND_NAMES[cz_porep_kind_of(c1->proof_id)],
                            (unsigned long long)raw[0]);
        }
        for (int q = 0; q < 14; q++) {
            const cz_porep_column *col = q < 6 ? &ch->drg[q] : &ch->exp[q - 6];
            cz_fr_set_u64(&v, col->index);
            if (graph && !cz_fr_equal(&v, &o[1 + q])) {
                uint64_t raw[4];
                cz_fr_to_raw(raw, &o[1 + q]);
                return cz_error(CZ_EVERIFY, "porep inputs: partition %u challenge %u: %s_parents[%d] is node %llu, the graph says %llu",
                                k, i, q < 6 ? "drg" : "exp", q < 6 ? q : q - 6, (unsigned long long)col->index,
                                (unsigned long long)raw[0]);
            }
            o[1 + q] = v;
        }
    }
    return 0;
}
