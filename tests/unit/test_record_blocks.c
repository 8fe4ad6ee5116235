/* cz_cs_record_blocks: repeated blocks recorded on threads, each into its own slot of the matrices, must give
 * the bytes of the plain serial loop. Oracle: the serial loop (record_threads = 1), whose matrices the
 * circuit-count tests check against filecoin-circuits.md.
 *   - the real circuits with blocks (PoRep challenges, PoSt sectors, Snap challenges) at 2 KiB (and
 *     8 MiB Window PoSt): the blocks really run in parallel (no fallback) and every byte is the serial one;
 *   - random synthetic blocks (each draws its own shape from a seed common to all blocks): equal bytes at
 *     1..97 blocks and 1..5 threads;
 *   - blocks that do not share a shape (one more constraint, a term more or less, an input more) or that
 *     use another block's variable: cz_cs_record_blocks says so (blocks_differ, CZ_EUNSUPPORTED) and
 *     cz_cs_record_circuit records them serially, to the serial bytes;
 *   - a block using a variable that does not exist: the serial loop's error (CZ_EINVAL, the lowest such
 *     block), not a fallback;
 *   - witness mode: the serial loop, values as before;
 *   - a stop (cz_cs_record_circuit's; a daemon's shutdown): once it says so, the blocks not yet begun are skipped
 *     and the recording fails with CZ_ECANCELED naming the block, serially and on threads; asked inside a long
 *     block (every 65,536 constraints), it ends that block there; a stop that never says so records every block,
 *     to the bytes of the recording without one. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "filecoin/porep_circuit.h"
#include "filecoin/post_circuit.h"
#include "filecoin/snap_circuit.h"
#include "r1cs/cs.h"
#include "r1cs/r1cs.h"
#include "testutil.h"

static bool csr_equal(const cz_csr *x, const cz_csr *y) {
    if (x->rows != y->rows || memcmp(x->row_ptr, y->row_ptr, (x->rows + 1) * sizeof *x->row_ptr)) return false;
    uint64_t n = cz_r1cs_nnz(x);
    return !n || (!memcmp(x->col, y->col, n * sizeof *x->col) && !memcmp(x->val, y->val, n * sizeof *x->val));
}

static bool r1cs_equal(const cz_r1cs *x, const cz_r1cs *y) {
    if (x->num_inputs != y->num_inputs || x->num_aux != y->num_aux || x->num_constraints != y->num_constraints ||
        x->num_rows != y->num_rows || x->a_aux_popcount != y->a_aux_popcount ||
        x->b_aux_popcount != y->b_aux_popcount || x->b_input_popcount != y->b_input_popcount)
        return false;
    if (!csr_equal(&x->a, &y->a) || !csr_equal(&x->b, &y->b) || !csr_equal(&x->c, &y->c)) return false;
    size_t wa = (x->num_aux + 63) / 64 * 8, wi = (x->num_inputs + 63) / 64 * 8;
    return !memcmp(x->a_aux_density, y->a_aux_density, wa) && !memcmp(x->b_aux_density, y->b_aux_density, wa) &&
           !memcmp(x->b_input_density, y->b_input_density, wi);
}

/* synth on a record-mode cs with record_threads = threads, finalized; *differ: the blocks said they differ. */
static int record(cz_r1cs *out, int (*synth)(cz_cs *, const void *), const void *arg, int threads, bool *differ) {
    memset(out, 0, sizeof *out);
    cz_cs *cs;
    int rc = cz_cs_new(&cs, CZ_CS_RECORD);
    if (rc) return rc;
    cs->record_threads = threads;
    if (!(rc = synth(cs, arg)) && !(rc = cz_cs_finalize(cs))) rc = cz_cs_take_r1cs(cs, out);
    if (differ) *differ = cs->blocks_differ;
    cz_cs_free(cs);
    return rc;
}

/* ---------------------------------------------------------------- the real circuits */

static int porep(cz_cs *cs, const void *p) { return cz_porep_synthesize(cs, p, NULL); }
static int post(cz_cs *cs, const void *p) { return cz_post_synthesize(cs, p, NULL); }
static int snap(cz_cs *cs, const void *p) { return cz_snap_synthesize(cs, p, NULL); }

static void check_real(const char *name, int (*synth)(cz_cs *, const void *), const void *p, bool api_too) {
    cz_r1cs ser, par, api = {0};
    bool differ = true;
    int rc1 = record(&ser, synth, p, 1, NULL), rc2 = record(&par, synth, p, 3, &differ);
    int rc3 = api_too ? cz_cs_record_circuit(&api, synth, p, 0, NULL, NULL) : 0;
    CHECK_MSG(rc1 == 0 && rc2 == 0 && rc3 == 0, "%s: %d %d %d: %s", name, rc1, rc2, rc3, cz_error_message());
    CHECK_MSG(!differ, "%s: its blocks were not recorded in parallel", name);
    CHECK_MSG(!rc1 && !rc2 && r1cs_equal(&ser, &par), "%s: the parallel recording differs from the serial one", name);
    if (api_too)
        CHECK_MSG(!rc1 && !rc3 && r1cs_equal(&ser, &api), "%s: cz_cs_record_circuit differs from the serial recording",
                  name);
    printf("%s: %llu constraints, %llu inputs, %llu aux, %llu + %llu + %llu terms\n", name,
           (unsigned long long)ser.num_constraints, (unsigned long long)ser.num_inputs, (unsigned long long)ser.num_aux,
           (unsigned long long)cz_r1cs_nnz(&ser.a), (unsigned long long)cz_r1cs_nnz(&ser.b),
           (unsigned long long)cz_r1cs_nnz(&ser.c));
    cz_r1cs_free(&ser), cz_r1cs_free(&par), cz_r1cs_free(&api);
}

/* ---------------------------------------------------------------- synthetic blocks */

enum { ODD_NONE, ODD_CONSTRAINT, ODD_TERM_MORE, ODD_TERM_LESS, ODD_INPUT, ODD_OTHER_BLOCK, ODD_MISSING };

typedef struct {
    unsigned nblocks, top_inputs, top_aux;
    uint64_t seed;   /* every block's shape: the same for all */
    int odd;         /* ODD_*: what block odd_at does differently */
    unsigned odd_at;
} synth_spec;

static uint64_t mix(uint64_t x) {
    x ^= x >> 31, x *= 0x7fb5d329728ea185ull, x ^= x >> 27, x *= 0x81dadef4bc2dd44dull;
    return x ^ (x >> 33);
}

/* Block i: a few inputs and aux, then constraints over the shared top variables, the block's own and
 * ONE, with coefficients that depend on i (so blocks are not byte copies of each other). */
static int synth_block(cz_cs *cs, unsigned i, void *arg) {
    const synth_spec *s = arg;
    const bool odd = s->odd != ODD_NONE && i == s->odd_at;
    uint64_t st = s->seed;
    unsigned nin = 1 + (unsigned)(mix(st++) % 3) + (odd && s->odd == ODD_INPUT);
    unsigned naux = 4 + (unsigned)(mix(st++) % 40), ncons = 3 + (unsigned)(mix(st++) % 30);
    cz_var own[64], in[8];
    for (unsigned k = 0; k < nin; k++) in[k] = cz_cs_alloc_input(cs, NULL);
    for (unsigned k = 0; k < naux; k++) own[k] = cz_cs_alloc(cs, NULL);
    const uint32_t first_aux = cz_var_index(own[0]);
    cz_cs_push_namespace(cs, "block");
    for (unsigned c = 0; c < ncons + (odd && s->odd == ODD_CONSTRAINT); c++) {
        cz_lc lc[3] = {CZ_LC_ZERO, CZ_LC_ZERO, CZ_LC_ZERO};
        for (int m = 0; m < 3; m++) {
            const bool slot = odd && c == 1 && m == 1;
            unsigned nt = (unsigned)(mix(st++) % 5);
            for (unsigned t = 0; t < nt; t++) {
                uint64_t r = mix(st++); /* drawn even when dropped: the rest of the block stays the same */
                cz_var v;
                switch (r % 4) {
                case 0: v = CZ_CS_ONE; break;
                case 1: v = s->top_aux ? cz_var_aux((uint32_t)(r >> 8) % s->top_aux) : CZ_CS_ONE; break;
                case 2: v = in[(r >> 8) % (nin - (odd && s->odd == ODD_INPUT))]; break;
                default: v = own[(r >> 8) % (naux - 1)]; /* own[naux - 1] only as the odd extra term */
                }
                cz_fr coeff;
                cz_fr_set_u64(&coeff, ((r >> 20) % 7) + 1 + i); /* nonzero, block-dependent */
                if (!(slot && s->odd == ODD_TERM_LESS)) cz_lc_add(cs, &lc[m], v, &coeff);
            }
            if (slot && s->odd == ODD_TERM_MORE) cz_lc_add(cs, &lc[m], own[naux - 1], NULL);
            if (odd && c == 2 && m == 0 && s->odd == ODD_OTHER_BLOCK)
                cz_lc_add(cs, &lc[m], cz_var_aux(first_aux - 1), NULL); /* the previous block's last aux */
            if (odd && c == 2 && m == 0 && s->odd == ODD_MISSING)
                cz_lc_add(cs, &lc[m], cz_var_aux(first_aux + naux + 5), NULL); /* never allocated */
        }
        cz_cs_enforce(cs, &lc[0], &lc[1], &lc[2]);
        for (int m = 0; m < 3; m++) cz_lc_free(cs, &lc[m]);
    }
    cz_cs_pop_namespace(cs);
    return cz_cs_status(cs);
}

static int synth_all(cz_cs *cs, const void *arg) {
    const synth_spec *s = arg;
    for (unsigned k = 0; k < s->top_inputs; k++) cz_cs_alloc_input(cs, NULL);
    cz_var top[16];
    for (unsigned k = 0; k < s->top_aux; k++) top[k] = cz_cs_alloc(cs, NULL);
    if (s->top_aux >= 2) { /* a top constraint, so the blocks' rows do not start at 0 */
        cz_lc a = CZ_LC_ZERO, b = CZ_LC_ZERO;
        cz_lc_add(cs, &a, top[0], NULL);
        cz_lc_add(cs, &b, top[1], NULL);
        cz_cs_enforce(cs, &a, &b, NULL);
        cz_lc_free(cs, &a), cz_lc_free(cs, &b);
    }
    return cz_cs_record_blocks(cs, s->nblocks, synth_block, (void *)s);
}

static void check_synthetic(cz_rng *rng) {
    static const unsigned counts[] = {1, 2, 3, 16, 17, 97};
    for (unsigned ci = 0; ci < sizeof counts / sizeof *counts; ci++)
        for (int threads = 0; threads <= 5; threads++) {
            if (threads == 1) continue;
            synth_spec s = {counts[ci], (unsigned)(cz_rng_next(rng) % 4), (unsigned)(cz_rng_next(rng) % 17),
                            cz_rng_next(rng), ODD_NONE, 0};
            cz_r1cs ser, par;
            bool differ = true;
            int rc1 = record(&ser, synth_all, &s, 1, NULL), rc2 = record(&par, synth_all, &s, threads, &differ);
            CHECK_MSG(!rc1 && !rc2 && !differ && r1cs_equal(&ser, &par), "%u blocks, %d threads: %d %d %d", s.nblocks,
                      threads, rc1, rc2, differ);
            cz_r1cs_free(&ser), cz_r1cs_free(&par);
        }
}

static void check_odd(cz_rng *rng) {
    static const int kinds[] = {ODD_CONSTRAINT, ODD_TERM_MORE, ODD_TERM_LESS, ODD_INPUT, ODD_OTHER_BLOCK};
    for (unsigned k = 0; k < sizeof kinds / sizeof *kinds; k++)
        for (unsigned at = 1; at < 20; at += 6) {
            synth_spec s = {20, 2, 5, cz_rng_next(rng), kinds[k], at};
            cz_r1cs ser, par, api;
            bool differ = false;
            int rc1 = record(&ser, synth_all, &s, 1, NULL), rc2 = record(&par, synth_all, &s, 4, &differ);
            /* ODD_TERM_LESS may draw a block whose term count was already 0: then it is no odd block */
            bool really = kinds[k] != ODD_TERM_LESS || rc2 == CZ_EUNSUPPORTED;
            CHECK_MSG(rc1 == 0, "odd %d at %u: the serial loop failed: %s", kinds[k], at, cz_error_message());
            if (really) {
                CHECK_MSG(rc2 == CZ_EUNSUPPORTED && differ, "odd %d at %u: rc %d differ %d", kinds[k], at, rc2, differ);
            }
            int rc3 = cz_cs_record_circuit(&api, synth_all, &s, 4, NULL, NULL);
            CHECK_MSG(rc3 == 0 && !rc1 && r1cs_equal(&ser, &api), "odd %d at %u: the fallback differs (%d)", kinds[k], at, rc3);
            cz_r1cs_free(&ser), cz_r1cs_free(&api);
            if (!rc2) cz_r1cs_free(&par);
        }
}

static void check_missing(cz_rng *rng) {
    for (unsigned at = 0; at < 12; at += 5) {
        synth_spec s = {12, 1, 3, cz_rng_next(rng), ODD_MISSING, at};
        cz_r1cs ser, par;
        bool differ = true;
        int rc1 = record(&ser, synth_all, &s, 1, NULL);
        char m1[256];
        snprintf(m1, sizeof m1, "%s", cz_error_message());
        int rc2 = record(&par, synth_all, &s, 3, &differ);
        CHECK_MSG(rc1 == CZ_EINVAL && rc2 == CZ_EINVAL && !differ, "missing at %u: %d %d %d", at, rc1, rc2, differ);
        CHECK_MSG(!strcmp(m1, cz_error_message()), "missing at %u: serial \"%s\", parallel \"%s\"", at, m1,
                  cz_error_message());
        CHECK(strstr(cz_error_message(), "never allocated") != NULL);
    }
}

/* Witness mode takes the serial loop and keeps its values. */
static int wit_block(cz_cs *cs, unsigned i, void *arg) {
    (void)arg;
    cz_fr v;
    cz_fr_set_u64(&v, 1000 + i);
    cz_var x = cz_cs_alloc(cs, &v);
    cz_lc a = CZ_LC_ZERO;
    cz_lc_add(cs, &a, x, NULL);
    cz_cs_enforce(cs, &a, &a, NULL);
    cz_lc_free(cs, &a);
    return cz_cs_status(cs);
}

static void check_witness(void) {
    for (unsigned mode = CZ_CS_WITNESS; mode <= (CZ_CS_WITNESS | CZ_CS_RECORD); mode |= CZ_CS_RECORD) {
        cz_cs *cs;
        CHECK(cz_cs_new(&cs, mode) == 0);
        cs->record_threads = 0;
        CHECK(cz_cs_record_blocks(cs, 9, wit_block, NULL) == 0);
        CHECK(cz_cs_num_aux(cs) == 9 && cz_cs_num_constraints(cs) == 9);
        for (unsigned i = 0; i < 9; i++) {
            cz_fr v;
            cz_fr_set_u64(&v, 1000 + i);
            const cz_fr *got = cz_cs_value(cs, cz_var_aux(i));
            CHECK(got && cz_fr_equal(got, &v));
        }
        cz_cs_free(cs);
        if (mode & CZ_CS_RECORD) break;
    }
}

/* ---------------------------------------------------------------- stopped recordings */

typedef struct {
    atomic_uint asked, ran;
    unsigned after; /* the stop says so from its (after + 1)-th question on */
    unsigned rows;  /* constraints a block (0: 1) */
    bool no_blocks;
} stop_spec;

static bool stop_after(void *arg) {
    stop_spec *t = arg;
    return atomic_fetch_add(&t->asked, 1) >= t->after;
}

/* a block of `rows` constraints x * x = x (stop_spec.rows; 1 in stop_synth's blocks) */
static int stop_block(cz_cs *cs, unsigned i, void *arg) {
    stop_spec *t = arg;
    atomic_fetch_add(&t->ran, 1);
    cz_fr v;
    cz_fr_set_u64(&v, i + 1);
    cz_var x = cz_cs_alloc(cs, &v);
    cz_lc a = CZ_LC_ZERO;
    cz_lc_add(cs, &a, x, NULL);
    for (unsigned r = 0; r < (t->rows ? t->rows : 1); r++) cz_cs_enforce(cs, &a, &a, &a);
    cz_lc_free(cs, &a);
    return cz_cs_status(cs);
}

enum { STOP_BLOCKS = 40 };
static int stop_synth(cz_cs *cs, const void *arg) {
    return cz_cs_record_blocks(cs, STOP_BLOCKS, stop_block, (void *)arg);
}
/* 3 blocks of 70,000 constraints, or (no_blocks) one block's worth three times over, without blocks */
static int stop_big(cz_cs *cs, const void *arg) {
    const stop_spec *t = arg;
    if (!t->no_blocks) return cz_cs_record_blocks(cs, 3, stop_block, (void *)arg);
    for (unsigned i = 0; i < 3; i++)
        if (stop_block(cs, i, (void *)arg)) break;
    return cz_cs_status(cs);
}

static void check_stop(void) {
    for (int threads = 1; threads <= 4; threads += 3) {
        cz_r1cs plain, kept, cut;
        stop_spec t = {0, 0, STOP_BLOCKS + 100, 0, false};
        CHECK(cz_cs_record_circuit(&plain, stop_synth, &t, threads, NULL, NULL) == 0);
        atomic_store(&t.asked, 0), atomic_store(&t.ran, 0);
        const int rk = cz_cs_record_circuit(&kept, stop_synth, &t, threads, stop_after, &t);
        CHECK_MSG(rk == 0 && r1cs_equal(&plain, &kept), "%d threads, never stopped: rc %d", threads, rk);
        CHECK_MSG(atomic_load(&t.asked) >= STOP_BLOCKS, "%d threads: the stop asked %u times for %d blocks", threads,
                  atomic_load(&t.asked), STOP_BLOCKS);
        t = (stop_spec){0, 0, 5, 0, false};
        const int rc = cz_cs_record_circuit(&cut, stop_synth, &t, threads, stop_after, &t);
        const unsigned ran = atomic_load(&t.ran);
        /* each block asks first, so 5 blocks ran; on threads also block 0 alone first, to learn the shape */
        CHECK_MSG(rc == CZ_ECANCELED && strstr(cz_error_message(), "recording stopped before block"),
                  "%d threads, stopped: rc %d (%s)", threads, rc, cz_error_message());
        CHECK_MSG(ran == (threads == 1 ? 5u : 6u), "%d threads: %u blocks ran", threads, ran);
        if (!rc) cz_r1cs_free(&cut);
        cz_r1cs_free(&plain), cz_r1cs_free(&kept);
    }
    /* inside a block (asked every 65,536 constraints): the first question stops it, in the block that learns the
     * shape on threads, in the loop without blocks; unstopped, the same bytes */
    for (int nb = 0; nb < 2; nb++) {
        cz_r1cs plain, kept, cut;
        stop_spec t = {0, 0, 1u << 30, 70000, nb};
        CHECK(cz_cs_record_circuit(&plain, stop_big, &t, 3, NULL, NULL) == 0);
        const int rk = cz_cs_record_circuit(&kept, stop_big, &t, 3, stop_after, &t);
        CHECK_MSG(rk == 0 && r1cs_equal(&plain, &kept) && plain.num_constraints == 210000,
                  "%s, never stopped: rc %d, %llu rows", nb ? "no blocks" : "blocks", rk,
                  (unsigned long long)plain.num_constraints);
        t = (stop_spec){0, 0, 0, 70000, nb};
        const int rc = cz_cs_record_circuit(&cut, stop_big, &t, 3, stop_after, &t);
        CHECK_MSG(rc == CZ_ECANCELED && strstr(cz_error_message(), "recording stopped at constraint 65536") &&
                      atomic_load(&t.ran) == 1 && atomic_load(&t.asked) == 1,
                  "%s, stopped: rc %d (%s), %u blocks ran, %u questions", nb ? "no blocks" : "blocks", rc,
                  cz_error_message(), atomic_load(&t.ran), atomic_load(&t.asked));
        if (!rc) cz_r1cs_free(&cut);
        cz_r1cs_free(&plain), cz_r1cs_free(&kept);
    }
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    cz_porep_params pp;
    cz_post_params wp, np;
    cz_snap_params sp;
    CHECK(cz_porep_params_for(&pp, 2048) == 0);
    check_real("porep-2k", porep, &pp, false);
    CHECK(cz_post_params_for(&wp, CZ_POST_WINDOW, 2048) == 0);
    check_real("wpost-2k", post, &wp, true);
    CHECK(cz_post_params_for(&wp, CZ_POST_WINDOW, 8u << 20) == 0);
    check_real("wpost-8m", post, &wp, true);
    CHECK(cz_post_params_for(&np, CZ_POST_WINNING, 2048) == 0);
    { /* one sector: the serial loop, nothing to compare in parallel beyond equality */
        cz_r1cs a, b;
        CHECK(record(&a, post, &np, 1, NULL) == 0 && record(&b, post, &np, 3, NULL) == 0 && r1cs_equal(&a, &b));
        cz_r1cs_free(&a), cz_r1cs_free(&b);
    }
    CHECK(cz_snap_params_for(&sp, 2048) == 0);
    check_real("snap-2k", snap, &sp, false);
    check_synthetic(&rng);
    check_odd(&rng);
    check_missing(&rng);
    check_witness();
    check_stop();
    return cz_test_finish();
}
