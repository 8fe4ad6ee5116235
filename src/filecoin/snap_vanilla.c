/* SnapDeals vanilla proofs, verifier, witness and synthetic sectors; see snap_vanilla.h. */
#include "filecoin/snap_vanilla.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "filecoin/sector.h"
#include "gadgets/sha256.h"

int cz_snap_registered(unsigned id, uint64_t *sector_size) {
    if (id >= 5) return cz_error(CZ_EINVAL, "snap: registered update proof %u is not known (0-4)", id);
    *sector_size = cz_sector_sizes[id];
    return 0;
}

void cz_snap_partition_proof_free(cz_snap_partition_proof *pp) {
    if (pp->ch)
        for (unsigned i = 0; i < pp->nch; i++) {
            cz_merkle_proof_free(&pp->ch[i].r_old);
            cz_merkle_proof_free(&pp->ch[i].d_new);
            cz_merkle_proof_free(&pp->ch[i].r_new);
        }
    free(pp->ch), free(pp->apex_leafs);
    memset(pp, 0, sizeof *pp);
}

int cz_snap_partition_proof_parse(cz_snap_partition_proof *out, const uint8_t *buf, size_t len,
                                  const cz_snap_params *p) {
    memset(out, 0, sizeof *out);
    cz_bincode b = {buf, len, 0, "SnapDeals partition proof"};
    uint64_t n;
    int rc = cz_bincode_fr(&b, &out->comm_c, "comm_c");
    if (!rc) rc = cz_bincode_u64(&b, &n, "apex_leafs length");
    if (!rc && n != p->apex_leaves)
        rc = cz_error(CZ_EFORMAT,
                      "SnapDeals partition proof: %llu apex leaves, %s needs %u (wrong sector size?)",
                      (unsigned long long)n, p->name, p->apex_leaves);
    if (rc) return rc;
    out->apex_leafs = malloc(n * sizeof(cz_fr));
    if (!out->apex_leafs) return cz_error(CZ_ENOMEM, "snap: out of memory");
    out->napex = (unsigned)n;
    char f[64];
    for (unsigned i = 0; i < out->napex && !rc; i++) {
        snprintf(f, sizeof f, "apex_leafs[%u]", i);
        rc = cz_bincode_fr(&b, &out->apex_leafs[i], f);
    }
    if (!rc) rc = cz_bincode_u64(&b, &n, "challenge_proofs length");
    if (!rc && n != p->challenges)
        rc = cz_error(CZ_EFORMAT, "SnapDeals partition proof: %llu challenge proofs, %s needs %u",
                      (unsigned long long)n, p->name, p->challenges);
    if (!rc && !(out->ch = calloc(n, sizeof *out->ch))) rc = cz_error(CZ_ENOMEM, "snap: out of memory");
    if (!rc) out->nch = (unsigned)n;
    for (unsigned i = 0; i < out->nch && !rc; i++) {
        snprintf(f, sizeof f, "challenge_proofs[%u].proof_r_old", i);
        rc = cz_bincode_merkle_proof(&b, &out->ch[i].r_old, &p->tree_r, p->tree_r_extra, f);
        snprintf(f, sizeof f, "challenge_proofs[%u].proof_d_new", i);
        if (!rc) rc = cz_bincode_merkle_proof(&b, &out->ch[i].d_new, &p->tree_d, 0, f);
        snprintf(f, sizeof f, "challenge_proofs[%u].proof_r_new", i);
        if (!rc) rc = cz_bincode_merkle_proof(&b, &out->ch[i].r_new, &p->tree_r, p->tree_r_extra, f);
    }
    if (!rc && b.off != b.len)
        rc = cz_error(CZ_EFORMAT, "SnapDeals partition proof: %zu trailing bytes", b.len - b.off);
    if (rc) cz_snap_partition_proof_free(out);
    return rc;
}

int cz_snap_partition_proof_encode(const cz_snap_partition_proof *pp, const cz_snap_params *p, uint8_t **out,
                                   size_t *len) {
    cz_bincode_writer w = {0};
    cz_bincode_put_fr(&w, &pp->comm_c);
    cz_bincode_put_u64(&w, pp->napex);
    for (unsigned i = 0; i < pp->napex; i++) cz_bincode_put_fr(&w, &pp->apex_leafs[i]);
    cz_bincode_put_u64(&w, pp->nch);
    for (unsigned i = 0; i < pp->nch; i++) {
        cz_bincode_put_merkle_proof(&w, &pp->ch[i].r_old, &p->tree_r, p->tree_r_extra);
        cz_bincode_put_merkle_proof(&w, &pp->ch[i].d_new, &p->tree_d, 0);
        cz_bincode_put_merkle_proof(&w, &pp->ch[i].r_new, &p->tree_r, p->tree_r_extra);
    }
    if (w.err) {
        free(w.p);
        return cz_error(CZ_ENOMEM, "snap encode: out of memory");
    }
    *out = w.p, *len = w.len;
    return 0;
}

int cz_snap_public_inputs(cz_fr out[4], const cz_snap_params *p, unsigned k, unsigned h,
                          const cz_fr *comm_r_old, const cz_fr *comm_d_new, const cz_fr *comm_r_new) {
    uint64_t kh;
    int rc = cz_snap_k_and_h_select(&kh, p, k, h);
    if (rc) return rc;
    cz_fr_set_u64(&out[0], kh);
    out[1] = *comm_r_old, out[2] = *comm_d_new, out[3] = *comm_r_new;
    return 0;
}

#define FAIL(...) cz_error(CZ_EVERIFY, __VA_ARGS__)

int cz_snap_partition_proof_verify(const cz_snap_partition_proof *pp, const cz_snap_params *p, unsigned k,
                                   unsigned h, const cz_fr *comm_r_old, const cz_fr *comm_d_new,
                                   const cz_fr *comm_r_new) {
    uint64_t kh;
    if (cz_snap_k_and_h_select(&kh, p, k, h)) return CZ_EINVAL;
    if (pp->napex != p->apex_leaves || pp->nch != p->challenges)
        return FAIL("snap vanilla: %u apex leaves / %u challenges, want %u / %u", pp->napex, pp->nch,
                    p->apex_leaves, p->challenges);
    const cz_fr *root_r_old = &pp->ch[0].r_old.root, *root_r_new = &pp->ch[0].r_new.root;
    cz_fr calc, pre[2] = {pp->comm_c, *root_r_old};
    cz_poseidon_hash(&calc, pre, 2);
    if (!cz_fr_equal(&calc, comm_r_old))
        return FAIL("snap vanilla: comm_r_old != Poseidon(comm_c, root_r_old)");
    pre[1] = *root_r_new;
    cz_poseidon_hash(&calc, pre, 2);
    if (!cz_fr_equal(&calc, comm_r_new))
        return FAIL("snap vanilla: comm_r_new != Poseidon(comm_c, root_r_new)");
    /* the apex tree over the apex leaves, its root under comm_d_new at partition k */
    cz_fr *row = malloc(p->apex_leaves * sizeof(cz_fr));
    uint32_t *ch = malloc(p->challenges * sizeof(uint32_t));
    if (!row || !ch) {
        free(row), free(ch);
        return cz_error(CZ_ENOMEM, "snap: out of memory");
    }
    memcpy(row, pp->apex_leafs, p->apex_leaves * sizeof(cz_fr));
    for (unsigned n = p->apex_leaves; n > 1; n /= 2)
        for (unsigned i = 0; i < n / 2; i++) cz_sha256_node(&row[i], &row[2 * i], &row[2 * i + 1]);
    cz_fr phi, apex_root = row[0];
    free(row);
    cz_snap_hash_tag(&phi, comm_d_new, comm_r_old);
    cz_snap_challenges(ch, p, comm_r_new, k);
    const unsigned cbl = p->nodes_log2, pbl = p->partition_bits, height = cbl - pbl - p->apex_bits;
    int rc = 0;
    for (unsigned i = 0; i < p->challenges && !rc; i++) {
        const cz_snap_challenge_proof *c = &pp->ch[i];
        const char *what = NULL;
        if (c->r_old.index != ch[i] || c->d_new.index != ch[i] || c->r_new.index != ch[i])
            what = "a path is not at the challenge";
        else if (!cz_fr_equal(&c->r_old.root, root_r_old) || !cz_fr_equal(&c->r_new.root, root_r_new) ||
                 !cz_fr_equal(&c->d_new.root, comm_d_new))
            what = "a path has another root";
        else if (cz_merkle_proof_verify(&c->r_old, &p->tree_r) ||
                 cz_merkle_proof_verify(&c->d_new, &p->tree_d) ||
                 cz_merkle_proof_verify(&c->r_new, &p->tree_r))
            what = "a path does not verify";
        if (!what) {
            cz_fr rho, high, lab;
            cz_fr_set_u64(&high, ch[i] >> (cbl - h));
            cz_snap_hash_tag(&rho, &phi, &high);
            cz_fr_mul(&lab, &c->d_new.leaf, &rho);
            cz_fr_add(&lab, &lab, &c->r_old.leaf);
            if (!cz_fr_equal(&lab, &c->r_new.leaf)) what = "leaf_r_new != leaf_r_old + leaf_d_new * rho";
        }
        if (!what) {
            /* the tree_d node at apex height is the selected apex leaf, and above it the apex root
             * and the partition path (the same for every challenge) */
            cz_tree_shape lo = p->tree_d;
            lo.nlevels = height;
            cz_fr node;
            cz_por_root(&node, &lo, &c->d_new.leaf, c->d_new.index, c->d_new.sib);
            unsigned ai = (unsigned)(ch[i] >> height) & (p->apex_leaves - 1);
            if (!cz_fr_equal(&node, &pp->apex_leafs[ai]))
                what = "the tree_d path misses its apex leaf";
            else {
                cz_tree_shape hi = {pbl, {2, 2, 2, 2}, true};
                cz_fr root;
                cz_por_root(&root, &hi, &apex_root, k, c->d_new.sib + cbl - pbl);
                if (!cz_fr_equal(&root, comm_d_new))
                    what = "the apex tree is not under comm_d_new";
                else if (memcmp(c->d_new.sib + cbl - pbl, pp->ch[0].d_new.sib + cbl - pbl,
                                pbl * sizeof(cz_fr)))
                    what = "the partition path differs from challenge 0's";
            }
        }
        if (what) rc = FAIL("snap vanilla partition %u challenge %u (node %u): %s", k, i, ch[i], what);
    }
    free(ch);
    return rc;
}

int cz_snap_witness_from_proof(cz_snap_witness *w, cz_snap_challenge *chs, const cz_snap_partition_proof *pp,
                               const cz_snap_params *p, unsigned k, unsigned h, const cz_fr *comm_r_old,
                               const cz_fr *comm_d_new, const cz_fr *comm_r_new) {
    uint64_t kh;
    if (cz_snap_k_and_h_select(&kh, p, k, h)) return CZ_EINVAL;
    if (pp->napex != p->apex_leaves || pp->nch != p->challenges)
        return cz_error(CZ_EINVAL, "snap witness: proof shape does not match %s", p->name);
    *w = (cz_snap_witness){k,
                           h,
                           *comm_r_old,
                           *comm_d_new,
                           *comm_r_new,
                           pp->comm_c,
                           pp->ch[0].r_old.root,
                           pp->ch[0].r_new.root,
                           pp->apex_leafs,
                           chs};
    for (unsigned i = 0; i < p->challenges; i++)
        chs[i] = (cz_snap_challenge){pp->ch[i].r_old.leaf, pp->ch[i].d_new.leaf, pp->ch[i].r_new.leaf,
                                     pp->ch[i].r_old.sib,  pp->ch[i].d_new.sib,  pp->ch[i].r_new.sib};
    return 0;
}

/* ---- synthetic sectors ---- */

static void prng_fr(cz_fr *out, uint64_t seed, uint64_t tag, uint64_t i) {
    uint8_t msg[24], h[32];
    for (int b = 0; b < 8; b++)
        msg[b] = (uint8_t)(seed >> (8 * b)), msg[8 + b] = (uint8_t)(tag >> (8 * b)),
        msg[16 + b] = (uint8_t)(i >> (8 * b));
    cz_sha256_bytes(h, msg, sizeof msg);
    h[31] &= 0x3f;
    cz_fr_from_bytes_le(out, h);
}

void cz_snap_sector_free(cz_snap_sector *s) {
    cz_full_tree_free(&s->r_old), cz_full_tree_free(&s->d_new), cz_full_tree_free(&s->r_new);
}

int cz_snap_synthetic_sector(cz_snap_sector *s, uint64_t sector_size, unsigned h, uint64_t seed) {
    memset(s, 0, sizeof *s);
    int rc = cz_snap_params_for(&s->p, sector_size);
    if (rc) return rc;
    if (cz_snap_h_index(&s->p, h) < 0)
        return cz_error(CZ_EINVAL, "snap synth: h %u not allowed for %s", h, s->p.name);
    if (s->p.nodes_log2 > 20)
        return cz_error(CZ_EUNSUPPORTED, "snap synth: %s needs full trees of 2^%u nodes (at most 2^20 here)",
                        s->p.name, s->p.nodes_log2);
    s->h = h;
    uint64_t n = 1ull << s->p.nodes_log2;
    cz_fr *old = malloc(n * sizeof(cz_fr)), *data = malloc(n * sizeof(cz_fr));
    if (!old || !data) {
        free(old), free(data);
        return cz_error(CZ_ENOMEM, "snap synth: out of memory");
    }
    for (uint64_t i = 0; i < n; i++) prng_fr(&old[i], seed, 1, i), prng_fr(&data[i], seed, 2, i);
    prng_fr(&s->comm_c, seed, 3, 0);
    rc = cz_full_tree_build(&s->r_old, &s->p.tree_r, old);
    if (!rc) rc = cz_full_tree_build(&s->d_new, &s->p.tree_d, data);
    if (!rc) {
        cz_fr pre[2] = {s->comm_c, *cz_full_tree_root(&s->r_old)}, phi;
        cz_poseidon_hash(&s->comm_r_old, pre, 2);
        s->comm_d_new = *cz_full_tree_root(&s->d_new);
        cz_snap_hash_tag(&phi, &s->comm_d_new, &s->comm_r_old);
        /* encode: new = old + data * rho(high bits of the node index) */
        unsigned shr = s->p.nodes_log2 - h;
        cz_fr rho, high;
        uint64_t last = ~0ull;
        for (uint64_t i = 0; i < n; i++) {
            if ((i >> shr) != last) {
                last = i >> shr;
                cz_fr_set_u64(&high, last);
                cz_snap_hash_tag(&rho, &phi, &high);
            }
            cz_fr t;
            cz_fr_mul(&t, &data[i], &rho);
            cz_fr_add(&old[i], &old[i], &t);
        }
        rc = cz_full_tree_build(&s->r_new, &s->p.tree_r, old);
        pre[1] = *cz_full_tree_root(&s->r_new);
        cz_poseidon_hash(&s->comm_r_new, pre, 2);
    }
    free(old), free(data);
    if (rc) cz_snap_sector_free(s);
    return rc;
}

int cz_snap_empty_update_sector(cz_snap_sector *s, uint64_t sector_size, unsigned h, uint64_t seed,
                                uint64_t period) {
    memset(s, 0, sizeof *s);
    int rc = cz_snap_params_for(&s->p, sector_size);
    if (rc) return rc;
    if (cz_snap_h_index(&s->p, h) < 0)
        return cz_error(CZ_EINVAL, "snap synth: h %u not allowed for %s", h, s->p.name);
    s->h = h;
    const cz_tree_shape *tr = &s->p.tree_r;
    for (unsigned l = 0, span = 1; !period; l++) /* by default the largest whole-subtree period of <= 2^18 nodes */
        if (l == tr->nlevels || span * tr->levels[l] > 1u << 18) period = span;
        else span *= tr->levels[l];
    if (period > 1u << 18) return cz_error(CZ_EINVAL, "snap synth: a period of %llu nodes", (unsigned long long)period);
    cz_fr *old = malloc(period * sizeof(cz_fr)), zero = {{0}};
    if (!old) return cz_error(CZ_ENOMEM, "snap synth: out of memory");
    for (uint64_t i = 0; i < period; i++) prng_fr(&old[i], seed, 1, i);
    prng_fr(&s->comm_c, seed, 3, 0);
    rc = cz_full_tree_build_periodic(&s->r_old, tr, old, period);
    if (!rc) rc = cz_full_tree_build_periodic(&s->d_new, &s->p.tree_d, &zero, 1);
    free(old);
    /* the new replica: old + data * rho with data 0, node for node the old one (its own copy: the sector frees both) */
    const size_t stored = rc ? 0 : (s->r_old.off[tr->nlevels] + 1) * sizeof(cz_fr);
    if (!rc) {
        s->r_new = s->r_old;
        if ((s->r_new.nodes = malloc(stored))) memcpy(s->r_new.nodes, s->r_old.nodes, stored);
        else rc = cz_error(CZ_ENOMEM, "snap synth: out of memory");
    }
    if (rc) {
        cz_snap_sector_free(s);
        return rc;
    }
    cz_fr pre[2] = {s->comm_c, *cz_full_tree_root(&s->r_old)};
    cz_poseidon_hash(&s->comm_r_old, pre, 2);
    s->comm_d_new = *cz_full_tree_root(&s->d_new);
    s->comm_r_new = s->comm_r_old;
    return 0;
}

int cz_snap_sector_partition_proof(cz_snap_partition_proof *out, const cz_snap_sector *s, unsigned k) {
    const cz_snap_params *p = &s->p;
    memset(out, 0, sizeof *out);
    if (k >= p->partitions) return cz_error(CZ_EINVAL, "snap synth: partition %u of %u", k, p->partitions);
    uint32_t *ch = malloc(p->challenges * sizeof(uint32_t));
    out->apex_leafs = malloc(p->apex_leaves * sizeof(cz_fr));
    out->ch = calloc(p->challenges, sizeof *out->ch);
    if (!ch || !out->apex_leafs || !out->ch) {
        free(ch);
        cz_snap_partition_proof_free(out);
        return cz_error(CZ_ENOMEM, "snap synth: out of memory");
    }
    out->napex = p->apex_leaves, out->nch = p->challenges;
    out->comm_c = s->comm_c;
    unsigned height = p->nodes_log2 - p->partition_bits - p->apex_bits;
    for (unsigned i = 0; i < p->apex_leaves; i++)
        out->apex_leafs[i] = *cz_full_tree_node(&s->d_new, height, ((uint64_t)k << p->apex_bits) + i);
    cz_snap_challenges(ch, p, &s->comm_r_new, k);
    int rc = 0;
    for (unsigned i = 0; i < p->challenges && !rc; i++) {
        rc = cz_full_tree_proof(&s->r_old, ch[i], &out->ch[i].r_old);
        if (!rc) rc = cz_full_tree_proof(&s->d_new, ch[i], &out->ch[i].d_new);
        if (!rc) rc = cz_full_tree_proof(&s->r_new, ch[i], &out->ch[i].r_new);
    }
    free(ch);
    if (rc) cz_snap_partition_proof_free(out);
    return rc;
}

int cz_snap_timing_partition(cz_snap_partition_proof *out, cz_fr comms[3], const cz_snap_params *p,
                             unsigned k, unsigned h, uint64_t seed) {
    memset(out, 0, sizeof *out);
    uint64_t kh;
    if (cz_snap_k_and_h_select(&kh, p, k, h)) return CZ_EINVAL;
    uint32_t *c32 = malloc(p->challenges * sizeof(uint32_t));
    /* tree_d's opened leaves: the challenges, then one leaf under every apex leaf of partition k,
     * so that the apex leaves and everything above them are hashed (the circuit rebuilds that part) */
    uint64_t *ch = malloc((p->challenges + p->apex_leaves) * sizeof(uint64_t));
    out->apex_leafs = malloc(p->apex_leaves * sizeof(cz_fr));
    out->ch = calloc(p->challenges, sizeof *out->ch);
    if (!c32 || !ch || !out->apex_leafs || !out->ch) {
        free(c32), free(ch);
        cz_snap_partition_proof_free(out);
        return cz_error(CZ_ENOMEM, "snap timing: out of memory");
    }
    out->napex = p->apex_leaves, out->nch = p->challenges;
    cz_fr root_r_new, pre[2];
    prng_fr(&out->comm_c, seed, 3, 0);
    prng_fr(&root_r_new, seed, 4, 0);
    pre[0] = out->comm_c, pre[1] = root_r_new;
    cz_poseidon_hash(&comms[2], pre, 2);
    cz_snap_challenges(c32, p, &comms[2], k);
    unsigned height = p->nodes_log2 - p->partition_bits - p->apex_bits;
    for (unsigned i = 0; i < p->challenges; i++) ch[i] = c32[i];
    for (unsigned j = 0; j < p->apex_leaves; j++)
        ch[p->challenges + j] = (((uint64_t)k << p->apex_bits) + j) << height;
    cz_sparse_tree r_old, d_new;
    int rc = cz_sparse_tree_init(&r_old, &p->tree_r, ch, p->challenges, seed ^ 0x5151);
    if (!rc &&
        (rc = cz_sparse_tree_init(&d_new, &p->tree_d, ch, p->challenges + p->apex_leaves, seed ^ 0xd0d0)))
        cz_sparse_tree_free(&r_old);
    if (rc) {
        free(c32), free(ch);
        cz_snap_partition_proof_free(out);
        return rc;
    }
    cz_fr root_r_old, phi;
    rc = cz_sparse_tree_node(&root_r_old, &r_old, p->tree_r.nlevels, 0);
    if (!rc) rc = cz_sparse_tree_node(&comms[1], &d_new, p->tree_d.nlevels, 0);
    pre[1] = root_r_old;
    cz_poseidon_hash(&comms[0], pre, 2);
    cz_snap_hash_tag(&phi, &comms[1], &comms[0]);
    for (unsigned i = 0; i < p->apex_leaves && !rc; i++)
        rc = cz_sparse_tree_node(&out->apex_leafs[i], &d_new, height, ((uint64_t)k << p->apex_bits) + i);
    for (unsigned i = 0; i < p->challenges && !rc; i++) {
        cz_snap_challenge_proof *c = &out->ch[i];
        rc = cz_sparse_tree_proof(&c->r_old, &r_old, ch[i]);
        if (!rc) rc = cz_sparse_tree_proof(&c->d_new, &d_new, ch[i]);
        if (!rc && !(c->r_new.sib = malloc(c->r_old.nsib * sizeof(cz_fr))))
            rc = cz_error(CZ_ENOMEM, "snap timing: out of memory");
        if (rc) break;
        /* the real encoding at the challenged node, tree_r_old's siblings, the random root */
        cz_fr rho, high, t;
        cz_fr_set_u64(&high, ch[i] >> (p->nodes_log2 - h));
        cz_snap_hash_tag(&rho, &phi, &high);
        cz_fr_mul(&t, &c->d_new.leaf, &rho);
        cz_fr_add(&c->r_new.leaf, &c->r_old.leaf, &t);
        c->r_new.nsib = c->r_old.nsib, c->r_new.index = ch[i], c->r_new.root = root_r_new;
        memcpy(c->r_new.sib, c->r_old.sib, c->r_old.nsib * sizeof(cz_fr));
    }
    cz_sparse_tree_free(&r_old), cz_sparse_tree_free(&d_new);
    free(c32), free(ch);
    if (rc) cz_snap_partition_proof_free(out);
    return rc;
}
