/* The real StackedDrg PoRep C2 circuits in the engine (src/filecoin does the circuit, the C1 parser, the
 * vanilla verifier and the public inputs; this file adapts them to the registry's hooks).
 *
 * prepare (at submit, before anything is queued): parses the C1 / Commit2In JSON as Curio sends it,
 * checks it against the request (sector size, registered proof, partition count) and verifies every
 * partition's vanilla proofs natively (paths, labels, comm_r, challenges from the seed, parents from the
 * graph), so a bad C1 is an INVALID_ARGUMENT naming partition, challenge and field instead of a failed
 * proof minutes later. The parsed C1 is the job's state: partitions never re-parse the JSON.
 * public_inputs: the verifier's view (challenges from replica_id + seed, parents from porep_id's graph),
 * never the witness.
 *
 * Every registered seal proof 0..19 (V1, V1_1, V1_1_Feat_SyntheticPoRep, V1_2_Feat_NonInteractivePoRep)
 * proves with the same circuit and parameters per sector size; the kind only changes how the
 * challenges are derived (interactive: replica_id + seed; synthetic: selected by the seed among the
 * synthetic challenges of replica_id + comm_r; NI: replica_id + comm_r) and, for NI-PoRep, the
 * partition count (13 up to 1 GiB, 126 above: partitions_of). The proof is 192 bytes per partition in
 * partition order, as cuzk and seal_commit_phase2 return it (NI 2 KiB: 2,496 B; NI 32 GiB: 24,192 B). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "engine/circuit.h"
#include "filecoin/c1.h"
#include "filecoin/porep_circuit.h"
#include "filecoin/porep_inputs.h"
#include "filecoin/sector.h"
#include "filecoin/vanilla.h"
#include "r1cs/cs.h"
#include "util/par.h"

typedef struct {
    cz_c1 c1;
    uint8_t porep_id[32];
} porep_state;

static bool all_zero(const uint8_t b[32]) {
    for (int i = 0; i < 32; i++)
        if (b[i]) return false;
    return true;
}

static int record_porep(cz_cs *cs, const void *p) { return cz_porep_synthesize(cs, p, NULL); }

int cz_porep_circuit_build(const cz_circuit *c, cz_r1cs *out, bool (*stop)(void *), void *stop_arg) {
    cz_porep_params p;
    int rc = cz_porep_params_for(&p, c->sector_size);
    /* the challenges on every thread */
    return rc ? rc : cz_cs_record_circuit(out, record_porep, &p, 0, stop, stop_arg);
}

/* build's R1CS counted: the top and one challenge synthesized, the other challenges have its shape. */
int cz_porep_circuit_count(const cz_circuit *c, cz_r1cs_shape *out) {
    cz_porep_params p;
    int rc = cz_porep_params_for(&p, c->sector_size);
    return rc ? rc : cz_cs_count_circuit(out, record_porep, &p);
}

/* Task t of a C1's check: partition t / (challenges + 1), its challenge t % (challenges + 1), or its graph part
 * for the last: the serial order of cz_c1_verify over the partitions, so the lowest failing task is the error
 * the one-by-one loop names. */
static int verify_task(void *ctx, unsigned t) {
    const cz_c1 *c1 = ctx;
    const unsigned per = c1->challenges + 1, k = t / per, i = t % per;
    return i < c1->challenges ? cz_c1_verify_challenge(c1, k, i) : cz_c1_verify_graph(c1, k);
}

int cz_porep_circuit_prepare(const cz_circuit *c, const cz_submit *s, void **state) {
    int six = cz_sector_index(c->sector_size);
    /* registered_proof is Curio's abi.RegisteredSealProof: V1 0-4, V1_1 5-9, Synthetic 10-14, NI 15-19,
     * size = id % 5. cuzk ignores it; a value naming another sector size is a client bug worth a clear no. */
    if (s->registered_proof > 19)
        return cz_error(CZ_EINVAL, "registered_proof %llu is not a seal proof (0..19)",
                        (unsigned long long)s->registered_proof);
    if ((int)(s->registered_proof % 5) != six)
        return cz_error(CZ_EINVAL, "registered_proof %llu is a %s seal proof, sector_size %llu is %s",
                        (unsigned long long)s->registered_proof, cz_sector_names[s->registered_proof % 5],
                        (unsigned long long)c->sector_size, cz_sector_names[six]);
    if (!s->vanilla || !s->vanilla_len) return cz_error(CZ_EINVAL, "empty vanilla_proof (the C1 output JSON)");
    porep_state *st = calloc(1, sizeof *st);
    if (!st) return cz_error(CZ_ENOMEM, "out of memory");
    int rc = cz_c1_parse(&st->c1, (const char *)s->vanilla, s->vanilla_len);
    if (rc) {
        char why[400];
        snprintf(why, sizeof why, "%s", cz_error_message());
        free(st);
        return cz_error(rc == CZ_ENOMEM ? CZ_ENOMEM : CZ_EINVAL, "vanilla_proof: %s", why);
    }
    cz_c1 *c1 = &st->c1;
    if (c1->params.sector_size != c->sector_size) {
        rc = cz_error(CZ_EINVAL, "vanilla_proof: the C1 is a %s proof (%s), the request says sector_size %llu",
                      c1->params.name, c1->registered_proof, (unsigned long long)c->sector_size);
    } else if (c1->partitions != cz_porep_kind_partitions(&c1->params, cz_porep_kind_of(c1->proof_id))) {
        rc = cz_error(CZ_EINVAL, "vanilla_proof: %u partitions, a %s %s has %u", c1->partitions, c1->params.name,
                      c1->registered_proof, cz_porep_kind_partitions(&c1->params, cz_porep_kind_of(c1->proof_id)));
    } else if (c1->partitions > CZ_MAX_PARTITIONS) {
        rc = cz_error(CZ_EINVAL, "vanilla_proof: %u partitions (at most %d)", c1->partitions, CZ_MAX_PARTITIONS);
    } else if (all_zero(c1->comm_d) || all_zero(c1->comm_r) ||
               (cz_porep_kind_of(c1->proof_id) != CZ_POREP_NI && all_zero(c1->seed))) {
        /* NI-PoRep derives its challenges from replica_id and comm_r: its seed is unused */
        rc = cz_error(CZ_EINVAL, "vanilla_proof: comm_d, comm_r or seed is all zeros");
    }
    /* the challenges of every partition, and each partition's graph part, on OpenMP threads (a 32 GiB C1's ten
     * partitions took ~2.7 s one by one on the H200 host; ten tasks left 6 of its 16 cores idle); the lowest
     * failing task is named, as one by one */
    if (!rc && (rc = cz_par_check(c1->partitions * (c1->challenges + 1), 0, verify_task, c1, NULL))) {
        char why[400];
        snprintf(why, sizeof why, "%s", cz_error_message());
        rc = cz_error(rc == CZ_EUNSUPPORTED ? rc : CZ_EINVAL, "vanilla proof does not verify: %s", why);
    }
    /* a sound C1 of another sector (a wrong sector_number or miner_id in the request, or the C1 of another task)
     * proves and verifies here against its own replica_id, yet the chain, which derives replica_id from the
     * miner and sector, rejects it: refused now instead of after the partitions' GPU time (cuzk's self-check,
     * verify_seal with prover and sector id, failed it only after proving) */
    if (!rc && (rc = cz_porep_check_sector(c1, s->miner_id, s->sector_number))) {
        char why[400];
        snprintf(why, sizeof why, "%s", cz_error_message());
        rc = cz_error(CZ_EINVAL, "vanilla_proof: %s", why);
    }
    if (rc) {
        cz_c1_free(c1);
        free(st);
        return rc;
    }
    cz_porep_id(st->porep_id, c1->proof_id);
    *state = st;
    return 0;
}

int cz_porep_circuit_synth(const cz_circuit *c, void *state, uint32_t partition, cz_fr **inputs, uint64_t *ni,
                           cz_fr **aux, uint64_t *na) {
    (void)c;
    porep_state *st = state;
    const cz_porep_params *p = &st->c1.params;
    cz_porep_witness w;
    uint64_t top, per;
    int rc = cz_c1_witness(&st->c1, partition, &w);
    if (!rc) rc = cz_porep_shape(p, &top, &per);
    if (rc) return rc;
    uint64_t n_in = CZ_POREP_TOP_INPUTS + (uint64_t)CZ_POREP_CHALLENGE_INPUTS * p->challenges;
    uint64_t n_aux = top + per * p->challenges;
    cz_fr *in = malloc(n_in * sizeof *in), *ax = malloc(n_aux * sizeof *ax);
    if (!in || !ax) {
        free(in), free(ax);
        return cz_error(CZ_ENOMEM, "porep witness: out of memory (%llu aux)", (unsigned long long)n_aux);
    }
    if ((rc = cz_porep_witness_parallel(p, &w, in, n_in, ax, n_aux, 0))) {
        free(in), free(ax);
        return rc;
    }
    *inputs = in, *ni = n_in, *aux = ax, *na = n_aux;
    return 0;
}

/* The same witness, aux written compact by the cs (cz_porep_witness_compact): a 32 GiB partition holds
 * ~87 MB instead of 4.17 GB, and its synthesis peaks at ~93 MB RSS. */
int cz_porep_circuit_synth_compact(const cz_circuit *c, void *state, uint32_t partition, cz_fr **inputs,
                                   uint64_t *ni, cz_wcompact *aux) {
    (void)c;
    porep_state *st = state;
    const cz_porep_params *p = &st->c1.params;
    cz_porep_witness w;
    int rc = cz_c1_witness(&st->c1, partition, &w);
    if (rc) return rc;
    uint64_t n_in = CZ_POREP_TOP_INPUTS + (uint64_t)CZ_POREP_CHALLENGE_INPUTS * p->challenges;
    cz_fr *in = malloc(n_in * sizeof *in);
    if (!in) return cz_error(CZ_ENOMEM, "porep witness: out of memory");
    if ((rc = cz_porep_witness_compact(p, &w, in, n_in, aux, 0))) {
        free(in);
        return rc;
    }
    cz_wcompact_shrink(aux); /* the dense part grew geometrically; the partition may wait in the queue */
    *inputs = in, *ni = n_in;
    return 0;
}

int cz_porep_circuit_inputs(const cz_circuit *c, void *state, uint32_t partition, cz_fr *out, uint64_t n) {
    (void)c;
    porep_state *st = state;
    const cz_c1 *c1 = &st->c1;
    if (n != 3 + 18ull * c1->params.challenges)
        return cz_error(CZ_ERANGE, "porep inputs: %llu asked, the circuit has %u", (unsigned long long)n,
                        3 + 18 * c1->params.challenges);
    return cz_porep_inputs_from_public(out, &c1->params, st->porep_id, c1->proof_id < 5,
                                       cz_porep_kind_of(c1->proof_id), c1->replica_id, c1->comm_d, c1->comm_r,
                                       c1->seed, partition);
}

uint32_t cz_porep_circuit_partitions(const cz_circuit *c, void *state) {
    (void)c;
    return ((const porep_state *)state)->c1.partitions;
}

void cz_porep_circuit_release(const cz_circuit *c, void *state) {
    (void)c;
    porep_state *st = state;
    if (!st) return;
    cz_c1_free(&st->c1);
    free(st);
}
