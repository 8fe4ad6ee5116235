/* Seeded setups beyond 2 KiB and through a backend's fixed-base products (srs.c, groth16/setup.c):
 * - [testing] seeded_setup_any off: a circuit without its official file (WindowPoSt 8 MiB) is refused with
 *   CZ_ENOPARAMS naming the file; on: it loads from a seeded setup, its seed derived from its id (two
 *   managers give the same parameters), and seeded_setup_cache decides whether cuzk-test-wpost-8m.params is written;
 * - fixed-base products through cz_groth16_fb_ops (what the GPU backend plugs in), on WindowPoSt 2 KiB:
 *   a fake computes each k G by walking the table it is handed (so the table must be the documented
 *   one: (j + 1) 2^(c w) G; sampled entries are also checked against a scalar multiplication), and the
 *   parameters equal the CPU setup's byte for byte; every G1 query and B_G2 go through it; a fake that
 *   fails makes the setup compute the same bytes on the CPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../testutil.h"
#include "cz_error.h"
#include "ec/msm_internal.h"
#include "engine/circuit.h"
#include "engine/log.h"
#include "engine/srs.h"

static int file_exists(const char *p) {
    struct stat sb;
    return stat(p, &sb) == 0;
}

static int calls_g1, calls_g2, bad_table;

/* tab[w 2^(c-1) + j] == (j + 1) 2^(c w) G for a few (w, j) */
static void check_table(int g2, const void *tab, unsigned c, unsigned windows) {
    const size_t half = (size_t)1 << (c - 1);
    const unsigned ws[3] = {0, windows / 2, windows - 1};
    const size_t js[3] = {0, 1, half - 1};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            uint64_t k[5] = {0};
            unsigned sh = c * ws[a];
            k[sh / 64] = (uint64_t)(js[b] + 1) << (sh % 64); /* (j + 1) < 2^11: may straddle two words */
            if (sh % 64 && sh / 64 + 1 < 5) k[sh / 64 + 1] = (uint64_t)(js[b] + 1) >> (64 - sh % 64);
            if (!g2) {
                cz_g1_affine g, want;
                cz_g1_jac gj, r;
                cz_g1_generator(&g);
                cz_g1_jac_from_affine(&gj, &g);
                cz_g1_mul_raw(&r, &gj, k, 320);
                cz_g1_to_affine(&want, &r);
                if (memcmp(&want, (const cz_g1_affine *)tab + ws[a] * half + js[b], sizeof want)) bad_table++;
            } else {
                cz_g2_affine g, want;
                cz_g2_jac gj, r;
                cz_g2_generator(&g);
                cz_g2_jac_from_affine(&gj, &g);
                cz_g2_mul_raw(&r, &gj, k, 320);
                cz_g2_to_affine(&want, &r);
                if (memcmp(&want, (const cz_g2_affine *)tab + ws[a] * half + js[b], sizeof want)) bad_table++;
            }
        }
}

/* out[i] = k[i] G by the table alone: the signed digits' table points summed in jacobian form */
static int walk_mul_many(void *ctx, int g2, void *out, const void *tab, unsigned c, unsigned windows, const cz_fr *k,
                         size_t n) {
    (void)ctx;
    g2 ? calls_g2++ : calls_g1++;
    check_table(g2, tab, c, windows);
    const size_t half = (size_t)1 << (c - 1);
#pragma omp parallel for schedule(dynamic, 256)
    for (size_t i = 0; i < n; i++) {
        uint64_t raw[4];
        cz_fr_to_raw(raw, &k[i]);
        if (!g2) {
            cz_g1_jac acc;
            cz_g1_jac_set_infinity(&acc);
            for (unsigned w = 0; w < windows; w++) {
                int d = cz_msm_digit_(raw, w, c);
                if (!d) continue;
                cz_g1_affine q = ((const cz_g1_affine *)tab)[w * half + (size_t)(d > 0 ? d : -d) - 1];
                if (d < 0) cz_g1_affine_neg(&q, &q);
                cz_g1_jac_add_affine(&acc, &acc, &q);
            }
            cz_g1_to_affine((cz_g1_affine *)out + i, &acc);
        } else {
            cz_g2_jac acc;
            cz_g2_jac_set_infinity(&acc);
            for (unsigned w = 0; w < windows; w++) {
                int d = cz_msm_digit_(raw, w, c);
                if (!d) continue;
                cz_g2_affine q = ((const cz_g2_affine *)tab)[w * half + (size_t)(d > 0 ? d : -d) - 1];
                if (d < 0) cz_g2_affine_neg(&q, &q);
                cz_g2_jac_add_affine(&acc, &acc, &q);
            }
            cz_g2_to_affine((cz_g2_affine *)out + i, &acc);
        }
    }
    return 0;
}

static int failing_mul_many(void *ctx, int g2, void *out, const void *tab, unsigned c, unsigned windows,
                            const cz_fr *k, size_t n) {
    (void)ctx, (void)out, (void)tab, (void)c, (void)windows, (void)k, (void)n;
    g2 ? calls_g2++ : calls_g1++;
    return cz_error(CZ_EDEVICE, "fake device failure");
}

static int same_params(const cz_groth16_params *a, const cz_groth16_params *b) {
    if (a->h_len != b->h_len || a->l_len != b->l_len || a->a_len != b->a_len || a->b_len != b->b_len ||
        a->vk.ic_len != b->vk.ic_len)
        return 0;
    return !memcmp(a->h, b->h, a->h_len * sizeof *a->h) && !memcmp(a->l, b->l, a->l_len * sizeof *a->l) &&
           !memcmp(a->a, b->a, a->a_len * sizeof *a->a) && !memcmp(a->b_g1, b->b_g1, a->b_len * sizeof *a->b_g1) &&
           !memcmp(a->b_g2, b->b_g2, a->b_len * sizeof *a->b_g2) &&
           !memcmp(a->vk.ic, b->vk.ic, a->vk.ic_len * sizeof *a->vk.ic) &&
           !memcmp(&a->vk.alpha_g1, &b->vk.alpha_g1, sizeof a->vk.alpha_g1) &&
           !memcmp(&a->vk.beta_g2, &b->vk.beta_g2, sizeof a->vk.beta_g2) &&
           !memcmp(&a->vk.delta_g1, &b->vk.delta_g1, sizeof a->vk.delta_g1) &&
           !memcmp(&a->vk.delta_g2, &b->vk.delta_g2, sizeof a->vk.delta_g2);
}

/* a load of c in a fresh manager over dir; *out HOT (release with the manager) */
static int load(cz_srs_mgr *m, const char *dir, const cz_circuit *c, bool any, bool cache, const cz_groth16_fb_ops *ops,
                cz_srs_entry **out) {
    cz_srs_init(m, "", dir, 2);
    m->seeded_any = any, m->seeded_cache = cache, m->fb_ops = ops;
    uint64_t ms;
    return cz_srs_acquire(m, c, out, &ms);
}

int main(void) {
    cz_log_set_level("error");
    char dir[] = "/tmp/cz_srs_seeded_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    const cz_circuit *w8 = cz_circuit_find("wpost-8m"), *w2 = cz_circuit_find("wpost-2k");
    CHECK(w8 && w2 && w8->setup_seed == 0 && w2->setup_seed != 0);
    if (!w8 || !w2) return cz_test_finish();
    char file8[800];
    snprintf(file8, sizeof file8, "%s/cuzk-test-wpost-8m.params", dir);

    /* seeded_setup_any off: refused */
    cz_srs_mgr m;
    cz_srs_init(&m, "", dir, 2);
    int rc = cz_srs_check(&m, w8);
    CHECK_MSG(rc == CZ_ENOPARAMS && strstr(cz_error_message(), "v28-proof-of-spacetime"), "without any: rc %d (%s)", rc,
              cz_error_message());
    cz_srs_destroy(&m);

    /* on, memory only, then cached: the same parameters (the seed comes from the id), the file only when cached */
    cz_srs_mgr m1, m2;
    cz_srs_entry *e1 = NULL, *e2 = NULL;
    rc = load(&m1, dir, w8, true, false, NULL, &e1);
    CHECK_MSG(rc == 0, "seeded wpost-8m: %s", cz_error_message());
    CHECK(rc || (e1->seeded && !file_exists(file8)));
    rc = load(&m2, dir, w8, true, true, NULL, &e2);
    CHECK_MSG(rc == 0, "seeded wpost-8m, cached: %s", cz_error_message());
    CHECK(file_exists(file8));
    if (e1 && e2) {
        CHECK_MSG(same_params(&e1->params, &e2->params), "two seeded setups of one circuit differ");
        printf("wpost-8m seeded: %llu constraints, h %zu, l %zu\n", (unsigned long long)e1->r1cs.num_constraints,
               (size_t)e1->params.h_len, (size_t)e1->params.l_len);
    }
    if (e1) cz_srs_release(&m1, e1);
    if (e2) cz_srs_release(&m2, e2);
    cz_srs_destroy(&m1);
    cz_srs_destroy(&m2);
    unlink(file8);

    /* fixed-base products through ops: the CPU's bytes, every query through the hook; a failing hook falls back */
    cz_srs_entry *ec = NULL, *ew = NULL, *ef = NULL;
    cz_srs_mgr mc, mw, mf;
    CHECK(load(&mc, dir, w2, false, false, NULL, &ec) == 0);
    cz_groth16_fb_ops walk = {walk_mul_many, NULL, 0}, fail = {failing_mul_many, NULL, 0};
    calls_g1 = calls_g2 = 0;
    CHECK(load(&mw, dir, w2, false, false, &walk, &ew) == 0);
    CHECK_MSG(calls_g1 == 5 && calls_g2 == 1, "hook calls: %d G1 (H, IC, L, A, B_G1), %d G2", calls_g1, calls_g2);
    CHECK_MSG(bad_table == 0, "%d table entries are not (j + 1) 2^(c w) G", bad_table);
    calls_g1 = calls_g2 = 0;
    CHECK(load(&mf, dir, w2, false, false, &fail, &ef) == 0);
    CHECK(calls_g1 == 5 && calls_g2 == 1);
    CHECK(walk.fail_count == 0 && fail.fail_count == 0); /* the manager counts on its own copy */
    if (ec && ew && ef) {
        CHECK_MSG(same_params(&ec->params, &ew->params), "the hook's parameters differ from the CPU's");
        CHECK_MSG(same_params(&ec->params, &ef->params), "after the hook failed the parameters differ from the CPU's");
    }
    if (ec) cz_srs_release(&mc, ec);
    if (ew) cz_srs_release(&mw, ew);
    if (ef) cz_srs_release(&mf, ef);
    cz_srs_destroy(&mc);
    cz_srs_destroy(&mw);
    cz_srs_destroy(&mf);
    rmdir(dir);
    return cz_test_finish();
}
