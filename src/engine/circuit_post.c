/* Window and Winning PoSt in the engine (src/filecoin does the FallbackPoSt circuit, the bincode vanilla
 * proofs, the vanilla verifier and the public inputs; this file adapts them to the registry's hooks).
 *
 * Request (cuzk-spec §1): registered_proof = filecoin-ffi RegisteredPoStProof (0-4 Winning, 5-9 Window
 * V1, 10-14 Window V1_1), vanilla_proofs[i] = bincode FallbackPoStSectorProof, randomness (32 B, a field
 * element: Curio masks byte 31), partition_index (Window: k). prepare parses every sector proof and runs
 * the vanilla verifier against the challenges derived from randomness, sector id and the sector's index
 * in the PoSt (Window: k * sectors + i; Winning: exactly one sector, its 66 challenges), so a bad request
 * is INVALID_ARGUMENT naming sector and challenge. One partition per request (one 192-byte proof);
 * Window sectors beyond the given ones repeat the last (upstream's padding). public_inputs: comm_r and
 * leaf indices from the parsed public values (sector ids, comm_r, randomness), never the witness. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "engine/circuit.h"
#include "filecoin/post_circuit.h"
#include "filecoin/post_inputs.h"
#include "filecoin/post_synth.h"
#include "filecoin/post_vanilla.h"
#include "r1cs/cs.h"
#include "util/par.h"

typedef struct {
    cz_post_params p;
    bool v1_2;
    uint8_t rnd[32];
    unsigned k, n;
    cz_post_sector_proof *sp;
    uint64_t *ids;
    cz_fr *comm_rs;
} post_state;

static int params_of(const cz_circuit *c, cz_post_params *p) {
    return cz_post_params_for(p, c->kind == CZ_KIND_WINNING ? CZ_POST_WINNING : CZ_POST_WINDOW, c->sector_size);
}

static int record_post(cz_cs *cs, const void *p) { return cz_post_synthesize(cs, p, NULL); }

int cz_post_circuit_build(const cz_circuit *c, cz_r1cs *out, bool (*stop)(void *), void *stop_arg) {
    cz_post_params p;
    int rc = params_of(c, &p);
    /* the sectors on every thread */
    return rc ? rc : cz_cs_record_circuit(out, record_post, &p, 0, stop, stop_arg);
}

/* build's R1CS counted: one sector synthesized, the others have its shape. */
int cz_post_circuit_count(const cz_circuit *c, cz_r1cs_shape *out) {
    cz_post_params p;
    int rc = params_of(c, &p);
    return rc ? rc : cz_cs_count_circuit(out, record_post, &p);
}

void cz_post_circuit_release(const cz_circuit *c, void *state) {
    (void)c;
    post_state *st = state;
    if (!st) return;
    for (unsigned i = 0; st->sp && i < st->n; i++) cz_post_sector_proof_free(&st->sp[i]);
    free(st->sp), free(st->ids), free(st->comm_rs), free(st);
}

typedef struct {
    post_state *st;
    const cz_submit *s;
    bool winning;
    unsigned nch;
} sector_job;

/* Parses and verifies vanilla proof i against its challenges; CZ_EINVAL / CZ_ENOMEM naming it. */
static int prepare_sector(void *ctx, unsigned i) {
    const sector_job *sj = ctx;
    post_state *st = sj->st;
    int rc = cz_post_sector_proof_parse(&st->sp[i], sj->s->vanillas[i], sj->s->vanilla_lens[i], &st->p);
    if (rc) {
        char why[400];
        snprintf(why, sizeof why, "%s", cz_error_message());
        return cz_error(rc == CZ_ENOMEM ? CZ_ENOMEM : CZ_EINVAL, "vanilla_proofs[%u]: %s", i, why);
    }
    st->ids[i] = st->sp[i].sector_id, st->comm_rs[i] = st->sp[i].comm_r;
    uint64_t *ch = malloc(sj->nch * sizeof *ch);
    if (!ch) return cz_error(CZ_ENOMEM, "out of memory");
    uint64_t index = sj->winning ? 0 : (uint64_t)st->k * st->p.sectors + i;
    cz_post_sector_challenges(ch, &st->p, st->v1_2, st->rnd, st->sp[i].sector_id, index);
    rc = cz_post_sector_proof_verify(&st->sp[i], &st->p, ch);
    free(ch);
    if (rc) {
        char why[400];
        snprintf(why, sizeof why, "%s", cz_error_message());
        rc = cz_error(CZ_EINVAL, "vanilla_proofs[%u] (sector %llu) does not verify: %s", i,
                      (unsigned long long)st->sp[i].sector_id, why);
    }
    return rc;
}

int cz_post_circuit_prepare(const cz_circuit *c, const cz_submit *s, void **state) {
    cz_post_kind kind;
    uint64_t size;
    bool v12;
    if (s->registered_proof > 0xffffffffu || cz_post_registered((unsigned)s->registered_proof, &kind, &size, &v12))
        return cz_error(CZ_EINVAL, "registered_proof %llu is not a PoSt proof (0-4 Winning, 5-14 Window)",
                        (unsigned long long)s->registered_proof);
    bool winning = c->kind == CZ_KIND_WINNING;
    if ((kind == CZ_POST_WINNING) != winning || size != c->sector_size)
        return cz_error(CZ_EINVAL, "registered_proof %llu is a %s PoSt proof for %llu-byte sectors; the request is %s, "
                        "sector_size %llu", (unsigned long long)s->registered_proof,
                        kind == CZ_POST_WINNING ? "Winning" : "Window", (unsigned long long)size,
                        cz_kind_name(c->kind), (unsigned long long)c->sector_size);
    if (!s->randomness || s->randomness_len != 32)
        return cz_error(CZ_EINVAL, "randomness must be 32 bytes (got %zu)", s->randomness ? s->randomness_len : 0);
    if (s->randomness[31] & 0xc0)
        return cz_error(CZ_EINVAL, "randomness is not a field element (byte 31 must be masked with 0x3f, as Curio does)");
    post_state *st = calloc(1, sizeof *st);
    if (!st) return cz_error(CZ_ENOMEM, "out of memory");
    int rc = params_of(c, &st->p);
    if (rc) {
        free(st);
        return rc;
    }
    st->v1_2 = v12;
    memcpy(st->rnd, s->randomness, 32);
    st->k = winning ? 0 : s->partition_index;
    unsigned n = (unsigned)s->n_vanillas;
    if (!n || !s->vanillas) rc = cz_error(CZ_EINVAL, "no vanilla_proofs");
    else if (winning && n != 1) rc = cz_error(CZ_EINVAL, "WinningPoSt takes exactly 1 vanilla proof, got %u", n);
    else if (n > st->p.sectors)
        rc = cz_error(CZ_EINVAL, "%u vanilla proofs, a %s partition holds at most %u sectors", n, st->p.name,
                      st->p.sectors);
    if (rc) {
        free(st);
        return rc;
    }
    st->sp = calloc(n, sizeof *st->sp);
    st->ids = calloc(n, sizeof *st->ids);
    st->comm_rs = calloc(n, sizeof *st->comm_rs);
    if (!st->sp || !st->ids || !st->comm_rs) {
        cz_post_circuit_release(c, st);
        return cz_error(CZ_ENOMEM, "out of memory");
    }
    /* the sectors on OpenMP threads (a 32 GiB Window PoSt's 2,349 took ~14 s one by one on the H200 host); the
     * lowest failing proof is named, as one by one; every sp[i] is parsed or zeroed, so release frees them all */
    st->n = n;
    sector_job sj = {st, s, winning, winning ? st->p.sectors * st->p.challenges : st->p.challenges};
    rc = cz_par_check(n, 0, prepare_sector, &sj, NULL);
    if (rc) {
        cz_post_circuit_release(c, st);
        return rc;
    }
    *state = st;
    return 0;
}

int cz_post_circuit_synth(const cz_circuit *c, void *state, uint32_t partition, cz_fr **inputs, uint64_t *ni,
                          cz_fr **aux, uint64_t *na) {
    (void)c;
    post_state *st = state;
    if (partition != 0) return cz_error(CZ_ERANGE, "post: partition %u of 1", partition);
    cz_post_sector *secs = calloc(st->p.sectors, sizeof *secs);
    uint64_t n_in = 1 + (uint64_t)st->p.sectors * cz_post_sector_inputs(&st->p);
    uint64_t n_aux = (uint64_t)st->p.sectors * cz_post_sector_aux(&st->p);
    cz_fr *in = malloc(n_in * sizeof *in), *ax = malloc(n_aux * sizeof *ax);
    int rc = !secs || !in || !ax ? cz_error(CZ_ENOMEM, "post witness: out of memory")
                                 : cz_post_partition_sectors(secs, &st->p, st->sp, st->n);
    if (!rc) rc = cz_post_witness_parallel(&st->p, secs, in, n_in, ax, n_aux, 0);
    free(secs);
    if (rc) {
        free(in), free(ax);
        return rc;
    }
    *inputs = in, *ni = n_in, *aux = ax, *na = n_aux;
    return 0;
}

int cz_post_circuit_inputs(const cz_circuit *c, void *state, uint32_t partition, cz_fr *out, uint64_t n) {
    (void)c;
    post_state *st = state;
    uint64_t want = (uint64_t)st->p.sectors * cz_post_sector_inputs(&st->p);
    if (partition != 0 || n != want)
        return cz_error(CZ_ERANGE, "post inputs: partition %u, %llu asked, the circuit has %llu", partition,
                        (unsigned long long)n, (unsigned long long)want);
    return cz_post_public_inputs(out, &st->p, st->v1_2, st->rnd, st->ids, st->comm_rs, st->n, st->k);
}
