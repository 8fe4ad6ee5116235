/* SnapDeals (EmptySectorUpdate) in the engine: src/filecoin does the circuit, the bincode PartitionProof,
 * the vanilla verifier and the public inputs; this file adapts them to the registry's hooks, the way
 * circuit_post.c does for PoSt.
 *
 * Request (cuzk-spec §1): registered_proof = filecoin-ffi RegisteredUpdateProof (0-4: 2 KiB, 8 MiB,
 * 512 MiB, 32 GiB, 64 GiB), vanilla_proofs[k] = bincode PartitionProof of partition k (exactly one per
 * partition: 1 at 2 KiB, 4 at 8 MiB, 16 from 512 MiB), comm_r_old, comm_r_new, comm_d_new (raw 32-byte
 * little-endian field elements). prepare parses and verifies every partition against the three
 * commitments, so a bad request is INVALID_ARGUMENT naming the partition and the failing field. The
 * request does not carry h (the high-bit count), so it is the allowed value (p->hs) under which partition
 * 0 verifies; upstream's default (hs[3]) is tried first. public_inputs come from the request's public
 * values (k, h, the three commitments), never from the witness. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "engine/circuit.h"
#include "filecoin/snap_circuit.h"
#include "filecoin/snap_vanilla.h"
#include "r1cs/cs.h"
#include "util/par.h"

typedef struct {
    cz_snap_params p;
    unsigned h, n;
    cz_fr comm_r_old, comm_d_new, comm_r_new;
    cz_snap_partition_proof *pp;
} snap_state;

static int record_snap(cz_cs *cs, const void *p) { return cz_snap_synthesize(cs, p, NULL); }

int cz_snap_circuit_build(const cz_circuit *c, cz_r1cs *out, bool (*stop)(void *), void *stop_arg) {
    cz_snap_params p;
    int rc = cz_snap_params_for(&p, c->sector_size);
    /* the challenges on every thread */
    return rc ? rc : cz_cs_record_circuit(out, record_snap, &p, 0, stop, stop_arg);
}

/* build's R1CS counted: the top and one challenge synthesized, the other challenges have its shape. */
int cz_snap_circuit_count(const cz_circuit *c, cz_r1cs_shape *out) {
    cz_snap_params p;
    int rc = cz_snap_params_for(&p, c->sector_size);
    return rc ? rc : cz_cs_count_circuit(out, record_snap, &p);
}

void cz_snap_circuit_release(const cz_circuit *c, void *state) {
    (void)c;
    snap_state *st = state;
    if (!st) return;
    for (unsigned i = 0; st->pp && i < st->n; i++) cz_snap_partition_proof_free(&st->pp[i]);
    free(st->pp), free(st);
}

uint32_t cz_snap_circuit_partitions(const cz_circuit *c, void *state) {
    (void)c;
    return ((snap_state *)state)->p.partitions;
}

static int comm_of(cz_fr *out, const uint8_t *b, size_t len, const char *name) {
    if (!b || len != 32) return cz_error(CZ_EINVAL, "%s must be 32 bytes (got %zu)", name, b ? len : 0);
    if (cz_fr_from_bytes_le(out, b)) return cz_error(CZ_EINVAL, "%s is not a field element", name);
    return 0;
}

/* Verifies partition k under h; CZ_EINVAL naming the partition on failure. */
static int verify_one(snap_state *st, unsigned k, unsigned h) {
    int rc = cz_snap_partition_proof_verify(&st->pp[k], &st->p, k, h, &st->comm_r_old, &st->comm_d_new,
                                            &st->comm_r_new);
    if (!rc) return 0;
    char why[400];
    snprintf(why, sizeof why, "%s", cz_error_message());
    return cz_error(CZ_EINVAL, "vanilla_proofs[%u] (partition %u) does not verify against comm_r_old / comm_r_new / "
                    "comm_d_new: %s", k, k, why);
}

typedef struct {
    snap_state *st;
    const cz_submit *s;
} part_job;

static int parse_one(void *ctx, unsigned k) {
    const part_job *pj = ctx;
    int rc = cz_snap_partition_proof_parse(&pj->st->pp[k], pj->s->vanillas[k], pj->s->vanilla_lens[k], &pj->st->p);
    if (!rc) return 0;
    char why[400];
    snprintf(why, sizeof why, "%s", cz_error_message());
    return cz_error(rc == CZ_ENOMEM ? CZ_ENOMEM : CZ_EINVAL, "vanilla_proofs[%u] (partition %u): %s", k, k, why);
}

static int verify_at_h(void *st, unsigned k) { return verify_one(st, k, ((snap_state *)st)->h); }

int cz_snap_circuit_prepare(const cz_circuit *c, const cz_submit *s, void **state) {
    uint64_t size;
    if (s->registered_proof > 0xffffffffu || cz_snap_registered((unsigned)s->registered_proof, &size))
        return cz_error(CZ_EINVAL, "registered_proof %llu is not a SnapDeals update proof (0-4)",
                        (unsigned long long)s->registered_proof);
    if (size != c->sector_size)
        return cz_error(CZ_EINVAL, "registered_proof %llu is the update proof for %llu-byte sectors; the request's "
                        "sector_size is %llu", (unsigned long long)s->registered_proof, (unsigned long long)size,
                        (unsigned long long)c->sector_size);
    snap_state *st = calloc(1, sizeof *st);
    if (!st) return cz_error(CZ_ENOMEM, "out of memory");
    int rc = cz_snap_params_for(&st->p, c->sector_size);
    if (!rc) rc = comm_of(&st->comm_r_old, s->comm_r_old, s->comm_r_old_len, "comm_r_old");
    if (!rc) rc = comm_of(&st->comm_r_new, s->comm_r_new, s->comm_r_new_len, "comm_r_new");
    if (!rc) rc = comm_of(&st->comm_d_new, s->comm_d_new, s->comm_d_new_len, "comm_d_new");
    unsigned n = (unsigned)s->n_vanillas;
    if (!rc && (!n || !s->vanillas)) rc = cz_error(CZ_EINVAL, "no vanilla_proofs");
    else if (!rc && n != st->p.partitions)
        rc = cz_error(CZ_EINVAL, "%u vanilla proofs, %s takes exactly %u (one per partition)", n, st->p.name,
                      st->p.partitions);
    if (!rc && !(st->pp = calloc(n, sizeof *st->pp))) rc = cz_error(CZ_ENOMEM, "out of memory");
    /* the partitions on OpenMP threads, parsed then verified; the lowest failing one is named, as one by one;
     * every pp[k] is parsed or zeroed, so release frees them all */
    part_job pj = {st, s};
    if (!rc) {
        st->n = n;
        rc = cz_par_check(n, 0, parse_one, &pj, NULL);
    }
    if (!rc) { /* h: the allowed value under which partition 0 verifies, upstream's default first */
        unsigned order[6] = {3, 0, 1, 2, 4, 5};
        st->h = st->p.hs[3];
        for (unsigned i = 0; i < 6; i++) {
            unsigned h = st->p.hs[order[i]];
            if (i && h == st->p.hs[3]) continue;
            if (!cz_snap_partition_proof_verify(&st->pp[0], &st->p, 0, h, &st->comm_r_old, &st->comm_d_new,
                                                &st->comm_r_new)) {
                st->h = h;
                break;
            }
        }
        rc = cz_par_check(n, 0, verify_at_h, st, NULL);
    }
    if (rc) {
        cz_snap_circuit_release(c, st);
        return rc;
    }
    *state = st;
    return 0;
}

int cz_snap_circuit_synth(const cz_circuit *c, void *state, uint32_t partition, cz_fr **inputs, uint64_t *ni,
                          cz_fr **aux, uint64_t *na) {
    (void)c;
    snap_state *st = state;
    if (partition >= st->n) return cz_error(CZ_ERANGE, "snap: partition %u of %u", partition, st->n);
    uint64_t top, per;
    int rc = cz_snap_shape(&st->p, &top, &per);
    if (rc) return rc;
    uint64_t n_aux = top + (uint64_t)st->p.challenges * per;
    cz_fr *in = malloc(CZ_SNAP_INPUTS * sizeof *in), *ax = malloc(n_aux * sizeof *ax);
    cz_snap_challenge *chs = malloc(st->p.challenges * sizeof *chs);
    cz_snap_witness w;
    rc = !in || !ax || !chs ? cz_error(CZ_ENOMEM, "snap witness: out of memory")
                            : cz_snap_witness_from_proof(&w, chs, &st->pp[partition], &st->p, partition, st->h,
                                                         &st->comm_r_old, &st->comm_d_new, &st->comm_r_new);
    if (!rc) rc = cz_snap_witness_parallel(&st->p, &w, in, CZ_SNAP_INPUTS, ax, n_aux, 0);
    free(chs);
    if (rc) {
        free(in), free(ax);
        return rc;
    }
    *inputs = in, *ni = CZ_SNAP_INPUTS, *aux = ax, *na = n_aux;
    return 0;
}

int cz_snap_circuit_synth_compact(const cz_circuit *c, void *state, uint32_t partition, cz_fr **inputs,
                                  uint64_t *ni, cz_wcompact *aux) {
    (void)c;
    snap_state *st = state;
    if (partition >= st->n) return cz_error(CZ_ERANGE, "snap: partition %u of %u", partition, st->n);
    cz_fr *in = malloc(CZ_SNAP_INPUTS * sizeof *in);
    cz_snap_challenge *chs = malloc(st->p.challenges * sizeof *chs);
    cz_snap_witness w;
    int rc = !in || !chs ? cz_error(CZ_ENOMEM, "snap witness: out of memory")
                         : cz_snap_witness_from_proof(&w, chs, &st->pp[partition], &st->p, partition, st->h,
                                                      &st->comm_r_old, &st->comm_d_new, &st->comm_r_new);
    if (!rc) rc = cz_snap_witness_compact(&st->p, &w, in, CZ_SNAP_INPUTS, aux, 0);
    free(chs);
    if (rc) {
        free(in);
        return rc;
    }
    cz_wcompact_shrink(aux); /* the dense part grew geometrically; the partition may wait in the queue */
    *inputs = in, *ni = CZ_SNAP_INPUTS;
    return 0;
}

int cz_snap_circuit_inputs(const cz_circuit *c, void *state, uint32_t partition, cz_fr *out, uint64_t n) {
    (void)c;
    snap_state *st = state;
    if (partition >= st->n || n != CZ_SNAP_INPUTS - 1)
        return cz_error(CZ_ERANGE, "snap inputs: partition %u of %u, %llu asked, the circuit has %d", partition, st->n,
                        (unsigned long long)n, CZ_SNAP_INPUTS - 1);
    return cz_snap_public_inputs(out, &st->p, partition, st->h, &st->comm_r_old, &st->comm_d_new, &st->comm_r_new);
}
