/* FallbackPoSt circuit; see post_circuit.h and filecoin-circuits.md §3.2. */
#include "filecoin/post_circuit.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "cz_error.h"

int cz_post_params_for(cz_post_params *p, cz_post_kind kind, uint64_t sector_size) {
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->sector_size = sector_size;
    unsigned sub = 0, top = 0, window_sectors;
    switch (sector_size) {
    case 2048ull: p->nodes_log2 = 6, window_sectors = 2; break;
    case 8ull << 20: p->nodes_log2 = 18, window_sectors = 2; break;
    case 512ull << 20: p->nodes_log2 = 24, window_sectors = 2; break;
    case 32ull << 30: p->nodes_log2 = 30, window_sectors = 2349, sub = 8; break;
    case 64ull << 30: p->nodes_log2 = 31, window_sectors = 2300, sub = 8, top = 2; break;
    default:
        return cz_error(CZ_EINVAL, "post: sector size %llu is not a registered size",
                        (unsigned long long)sector_size);
    }
    static const char *names[2][5] = {
        {"WinningPoSt-2KiB", "WinningPoSt-8MiB", "WinningPoSt-512MiB", "WinningPoSt-32GiB",
         "WinningPoSt-64GiB"},
        {"WindowPoSt-2KiB", "WindowPoSt-8MiB", "WindowPoSt-512MiB", "WindowPoSt-32GiB", "WindowPoSt-64GiB"}};
    unsigned si = sector_size == 2048           ? 0
                  : sector_size == 8ull << 20   ? 1
                  : sector_size == 512ull << 20 ? 2
                  : sector_size == 32ull << 30  ? 3
                                                : 4;
    if (kind == CZ_POST_WINNING) {
        /* winning_post_setup_params: 66 challenges of one sector = 66 circuit sectors x 1 */
        p->sectors = 66, p->challenges = 1;
    } else if (kind == CZ_POST_WINDOW) {
        p->sectors = window_sectors, p->challenges = 10;
    } else {
        return cz_error(CZ_EINVAL, "post: unknown kind %d", (int)kind);
    }
    p->name = names[kind][si];
    unsigned base_bits = p->nodes_log2 - (sub ? 3 : 0) - (top ? 1 : 0);
    for (unsigned i = 0; i < base_bits / 3; i++) p->tree.levels[p->tree.nlevels++] = 8;
    if (sub) p->tree.levels[p->tree.nlevels++] = (uint8_t)sub, p->tree_extra++;
    if (top) p->tree.levels[p->tree.nlevels++] = (uint8_t)top, p->tree_extra++;
    p->tree.sha = false;
    return 0;
}

static const cz_fr *val(const cz_cs *cs, const cz_fr *v) { return cz_cs_needs_values(cs) ? v : NULL; }

/* Sector::synthesize */
static int sector_synth(cz_cs *cs, const cz_post_params *p, const cz_post_sector *s) {
    cz_num comm_r_last = cz_num_alloc(cs, s ? val(cs, &s->comm_r_last) : NULL);
    cz_num comm_c = cz_num_alloc(cs, s ? val(cs, &s->comm_c) : NULL);
    cz_num comm_r = cz_num_alloc(cs, s ? val(cs, &s->comm_r) : NULL);
    cz_num_inputize(cs, &comm_r);
    cz_num pre[2] = {comm_c, comm_r_last}, h;
    int rc = cz_poseidon_circuit(cs, &h, pre, 2);
    if (rc) return rc;
    cz_num_enforce_equal(cs, &comm_r, &h);
    unsigned plen = cz_tree_path_len(&p->tree);
    for (unsigned i = 0; i < p->challenges; i++) {
        const cz_merkle_proof *mp = s ? &s->proofs[i] : NULL;
        if (mp && mp->nsib != plen)
            return cz_error(CZ_EINVAL, "post: challenge %u path has %u siblings, the %s tree needs %u", i,
                            mp->nsib, p->name, plen);
        cz_cs_push_namespace(cs, "challenge_inclusion");
        cz_num leaf = cz_num_alloc(cs, mp ? val(cs, &mp->leaf) : NULL);
        rc = cz_por_circuit(cs, &p->tree, &leaf, &comm_r_last, mp ? mp->index : 0, mp ? mp->sib : NULL);
        cz_cs_pop_namespace(cs);
        if (rc) return rc;
    }
    return cz_cs_status(cs);
}

typedef struct {
    const cz_post_params *p;
    const cz_post_sector *sectors;
} synth_ctx;

/* One sector: a block of cz_cs_record_blocks (on its own cs and thread when recording). */
static int sector_block(cz_cs *cs, unsigned i, void *arg) {
    const synth_ctx *x = arg;
    cz_cs_push_namespace(cs, "sector");
    int rc = sector_synth(cs, x->p, x->sectors ? &x->sectors[i] : NULL);
    cz_cs_pop_namespace(cs);
    return rc;
}

int cz_post_synthesize(cz_cs *cs, const cz_post_params *p, const cz_post_sector *sectors) {
    if (cz_cs_needs_values(cs) && !sectors)
        return cz_error(CZ_EINVAL, "post: witness mode needs the vanilla proofs");
    synth_ctx x = {p, cz_cs_needs_values(cs) ? sectors : NULL};
    int rc = cz_cs_record_blocks(cs, p->sectors, sector_block, &x);
    return rc ? rc : cz_cs_status(cs);
}

uint64_t cz_post_sector_aux(const cz_post_params *p) {
    /* comm_r_last, comm_c, comm_r + Poseidon2 (311); per challenge the leaf, per level the index
     * bits, arity-1 siblings, the insertion picks and the node hash (what por.c allocates) */
    uint64_t per = 1;
    for (unsigned l = 0; l < p->tree.nlevels; l++) {
        unsigned a = p->tree.levels[l];
        per += a == 8 ? 3 + 7 + 22 + 505 : a == 4 ? 2 + 3 + 8 + 377 : 1 + 1 + 2 + 311;
    }
    return 3 + 311 + per * p->challenges;
}

int cz_post_witness_parallel(const cz_post_params *p, const cz_post_sector *sectors, cz_fr *inputs,
                             uint64_t inputs_cap, cz_fr *aux, uint64_t aux_cap, int nthreads) {
    uint64_t s_in = cz_post_sector_inputs(p), s_aux = cz_post_sector_aux(p);
    uint64_t need_in = 1 + s_in * p->sectors, need_aux = s_aux * p->sectors;
    if (!sectors) return cz_error(CZ_EINVAL, "post witness: no sectors");
    if (inputs_cap < need_in || aux_cap < need_aux)
        return cz_error(CZ_ERANGE,
                        "post witness: buffers hold %llu inputs / %llu aux, the %s circuit needs %llu / %llu",
                        (unsigned long long)inputs_cap, (unsigned long long)aux_cap, p->name,
                        (unsigned long long)need_in, (unsigned long long)need_aux);
    inputs[0] = CZ_FR_ONE_V;
    int err = 0;
    char msg[256] = "";
    /* Sectors only share constants: each gets its own cs writing into its slice of aux (the layout
     * is fixed), and its inputs (after its private ONE) go to their slots. */
#pragma omp parallel for schedule(dynamic, 8) num_threads(nthreads > 0 ? nthreads : omp_get_max_threads())
    for (unsigned i = 0; i < p->sectors; i++) {
        cz_fr in[1 + 1 + 66];
        cz_cs *cs = NULL;
        int r = s_in + 1 > sizeof in / sizeof in[0] ? cz_error(CZ_ERANGE, "post witness: too many challenges")
                                                    : 0;
        if (!r) r = cz_cs_new(&cs, CZ_CS_WITNESS);
        if (!r) r = cz_cs_set_value_buffers(cs, in, 1 + s_in, aux + s_aux * i, s_aux);
        if (!r) r = sector_synth(cs, p, &sectors[i]);
        if (!r && (cz_cs_num_aux(cs) != s_aux || cz_cs_num_inputs(cs) != 1 + s_in))
            r = cz_error(CZ_EINVAL, "post witness: sector %u layout mismatch", i);
        if (!r) memcpy(inputs + 1 + s_in * i, in + 1, s_in * sizeof(cz_fr));
        if (cs) cz_cs_free(cs);
        if (r) {
#pragma omp critical
            if (!err) err = r, snprintf(msg, sizeof msg, "sector %u: %s", i, cz_error_message());
        }
    }
    return err ? cz_error(err, "post witness: %s", msg) : 0;
}
