/* The parsers that read what a client sends (C1 JSON, the --vanilla list, PoSt and Snap bincode proofs) and the
 * config's TOML, on randomly damaged copies of valid inputs made from a fresh seed each run (a synthetic 2 KiB C1,
 * plus the real gpuproxy 2KiB.json when the fixtures are there; a Winning and a Window PoSt sector proof and a Snap
 * partition proof of 2 KiB sectors; a config of every table). Each input is damaged 1-4 times (bits flipped, cut
 * short, a span deleted or repeated elsewhere, a JSON / TOML token inserted, a byte replaced) into a buffer of
 * exactly its length, so the ASan build (scripts/test.sh) catches a read past it. Every parse must:
 * - return 0 or one of the input errors (CZ_EFORMAT, CZ_ERANGE, CZ_EINVAL), with a message, and the same result
 *   and message when parsed again;
 * - on error leave nothing behind (a C1 all zeros, as c1.h promises);
 * - on success hold a value that survives its writer: a bincode proof re-encodes to exactly the input bytes (its
 *   fields have one encoding each, and a value >= r is refused), a C1 writes JSON that parses and writes the
 *   same JSON again, a verifying key (random points, 3 IC) re-encodes to the bytes it consumed.
 * The undamaged inputs are checked the same way first, so a parser that refused everything would fail. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../testutil.h"
#include "cz_error.h"
#include "engine/config.h"
#include "engine/log.h"
#include "engine/toml.h"
#include "filecoin/c1.h"
#include "filecoin/post_circuit.h"
#include "filecoin/post_synth.h"
#include "filecoin/post_vanilla.h"
#include "filecoin/snap_circuit.h"
#include "filecoin/snap_vanilla.h"
#include "filecoin/synth.h"
#include "groth16/params.h"
#include "util/json.h"

#define ROUNDS 600 /* damaged copies of each input */

static cz_rng rng;

static size_t rnd(size_t n) { return n ? (size_t)(cz_rng_next(&rng) % n) : 0; }

/* A damaged copy of src[0..n) in a block of exactly *m bytes (m >= 1 allocated, so an empty result is a valid
 * pointer to nothing). */
static uint8_t *damage(const uint8_t *src, size_t n, size_t *m) {
    static const char *const toks[] = {"[", "]", "{", "}", ",", ":", "\"", "0", "255", "256", "-1", "1e9", "null",
                                       "true", "18446744073709551616", "\\", "\\u0000", " ", "=", "\n", "[[x]]",
                                       "\"\"\"", "0x", "inf"};
    const size_t cap = 2 * n + 64;
    uint8_t *t = malloc(cap), *tmp = malloc(cap);
    memcpy(t, src, n);
    size_t len = n;
    for (int k = 1 + (int)rnd(4); k > 0; k--) {
        const size_t a = rnd(len + 1), b = a + rnd(len - a + 1), c = rnd(len + 1);
        switch (rnd(6)) {
        case 0: /* a bit flipped */
            if (len) t[rnd(len)] ^= (uint8_t)(1u << rnd(8));
            break;
        case 1: /* cut short */
            len = rnd(len + 1);
            break;
        case 2: /* a span deleted */
            memmove(t + a, t + b, len - b);
            len -= b - a;
            break;
        case 3: { /* a token inserted */
            const char *s = toks[rnd(sizeof toks / sizeof toks[0])];
            const size_t sl = strlen(s);
            if (len + sl > cap) break;
            memmove(t + c + sl, t + c, len - c);
            memcpy(t + c, s, sl);
            len += sl;
            break;
        }
        case 4: /* a span repeated elsewhere */
            if (len + (b - a) > cap) break;
            memcpy(tmp, t + a, b - a);
            memmove(t + c + (b - a), t + c, len - c);
            memcpy(t + c, tmp, b - a);
            len += b - a;
            break;
        default: /* a byte replaced */
            if (len) t[rnd(len)] = (uint8_t)"0123456789[]{},\"x\x01\xff"[rnd(19)];
        }
    }
    uint8_t *out = malloc(len ? len : 1);
    memcpy(out, t, len);
    free(t), free(tmp);
    *m = len;
    return out;
}

static int input_error(int rc) { return rc == CZ_EFORMAT || rc == CZ_ERANGE || rc == CZ_EINVAL; }

/* rc and the message of a first parse, against a second's */
typedef struct {
    int rc;
    char msg[256];
} outcome;
static void note(outcome *o, int rc) {
    o->rc = rc;
    snprintf(o->msg, sizeof o->msg, "%s", rc ? cz_error_message() : "");
}
static void same_twice(const char *what, const outcome *a, const outcome *b) {
    CHECK_MSG(a->rc == 0 || (input_error(a->rc) && a->msg[0]), "%s: rc %d, \"%s\"", what, a->rc, a->msg);
    CHECK_MSG(a->rc == b->rc && !strcmp(a->msg, b->msg), "%s: parsed twice: %d \"%s\" / %d \"%s\"", what, a->rc,
              a->msg, b->rc, b->msg);
}

static int all_zero(const void *p, size_t n) {
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i]) return 0;
    return 1;
}

/* One C1 text: parsed twice; on error nothing left; on success its JSON parses and writes the same again. */
static int c1_case(const char *what, const uint8_t *t, size_t m) {
    cz_c1 c, d;
    outcome a, b;
    memset(&c, 0xa5, sizeof c);
    note(&a, cz_c1_parse(&c, (const char *)t, m));
    if (a.rc) CHECK_MSG(all_zero(&c, sizeof c), "%s: a refused C1 leaves fields set (%s)", what, a.msg);
    note(&b, cz_c1_parse(&d, (const char *)t, m));
    same_twice(what, &a, &b);
    if (!b.rc) cz_c1_free(&d);
    if (a.rc) return 0;
    char *j1 = NULL, *j2 = NULL;
    size_t n1 = 0, n2 = 0;
    int rc = cz_c1_to_json(&c, &j1, &n1);
    cz_c1_free(&c);
    CHECK_MSG(rc == 0, "%s: parsed C1 not written: %s", what, cz_error_message());
    if (!rc && !(rc = cz_c1_parse(&d, j1, n1))) {
        rc = cz_c1_to_json(&d, &j2, &n2);
        cz_c1_free(&d);
    }
    CHECK_MSG(rc == 0 && n1 == n2 && !memcmp(j1, j2, n1), "%s: the written C1 does not read back the same (rc %d)",
              what, rc);
    free(j1), free(j2);
    return 1;
}

static int post_case(const char *what, const uint8_t *t, size_t m, const cz_post_params *p) {
    cz_post_sector_proof sp, sq;
    outcome a, b;
    note(&a, cz_post_sector_proof_parse(&sp, t, m, p));
    note(&b, cz_post_sector_proof_parse(&sq, t, m, p));
    same_twice(what, &a, &b);
    if (!b.rc) cz_post_sector_proof_free(&sq);
    if (a.rc) return 0;
    uint8_t *e = NULL;
    size_t el = 0;
    const int rc = cz_post_sector_proof_encode(&sp, p, &e, &el);
    CHECK_MSG(rc == 0 && el == m && !memcmp(e, t, m), "%s: parsed proof re-encodes to other bytes (%zu / %zu)", what,
              el, m);
    free(e);
    cz_post_sector_proof_free(&sp);
    return 1;
}

static int snap_case(const char *what, const uint8_t *t, size_t m, const cz_snap_params *p) {
    cz_snap_partition_proof pp, pq;
    outcome a, b;
    note(&a, cz_snap_partition_proof_parse(&pp, t, m, p));
    note(&b, cz_snap_partition_proof_parse(&pq, t, m, p));
    same_twice(what, &a, &b);
    if (!b.rc) cz_snap_partition_proof_free(&pq);
    if (a.rc) return 0;
    uint8_t *e = NULL;
    size_t el = 0;
    const int rc = cz_snap_partition_proof_encode(&pp, p, &e, &el);
    CHECK_MSG(rc == 0 && el == m && !memcmp(e, t, m), "%s: parsed proof re-encodes to other bytes (%zu / %zu)", what,
              el, m);
    free(e);
    cz_snap_partition_proof_free(&pp);
    return 1;
}

static int vk_case(const char *what, const uint8_t *t, size_t m) {
    cz_groth16_vk a_vk, b_vk;
    size_t used = SIZE_MAX, used2 = 0;
    outcome a, b;
    note(&a, cz_groth16_vk_decode(&a_vk, t, m, "damaged.vk", &used));
    note(&b, cz_groth16_vk_decode(&b_vk, t, m, "damaged.vk", &used2));
    if (a.rc == CZ_ECURVE || a.rc == CZ_ESUBGROUP) a.rc = CZ_EFORMAT; /* points off the curve: input errors too */
    if (b.rc == CZ_ECURVE || b.rc == CZ_ESUBGROUP) b.rc = CZ_EFORMAT;
    same_twice(what, &a, &b);
    if (!b.rc) cz_groth16_vk_free(&b_vk);
    if (a.rc) return 0;
    uint8_t *e = malloc(cz_groth16_vk_size(&a_vk));
    cz_groth16_vk_encode(e, &a_vk);
    CHECK_MSG(used <= m && used == cz_groth16_vk_size(&a_vk) && !memcmp(e, t, used),
              "%s: decoded vk re-encodes to other bytes (%zu consumed of %zu)", what, used, m);
    free(e);
    cz_groth16_vk_free(&a_vk);
    return 1;
}

/* The --vanilla list: parsed twice alike; every entry inside the text's decoded bounds */
static int list_case(const char *what, const uint8_t *t, size_t m) {
    cz_vanilla_blob *x = NULL, *y = NULL;
    unsigned nx = 0, ny = 0;
    outcome a, b;
    note(&a, cz_vanilla_list_parse(&x, &nx, t, m));
    note(&b, cz_vanilla_list_parse(&y, &ny, t, m));
    same_twice(what, &a, &b);
    int same = a.rc || nx == ny;
    for (unsigned i = 0; !a.rc && same && i < nx; i++) same = x[i].len == y[i].len && !memcmp(x[i].p, y[i].p, x[i].len);
    CHECK_MSG(same, "%s: two parses of one list differ", what);
    free(x), free(y);
    return !a.rc;
}

/* A TOML text (NUL-terminated copy) through the parser and the config mapping */
static int toml_case(const char *what, const uint8_t *t, size_t m) {
    char *z = malloc(m + 1);
    memcpy(z, t, m);
    z[m] = 0;
    cz_toml_doc d;
    outcome a, b;
    memset(&d, 0, sizeof d);
    note(&a, cz_toml_parse(&d, z, "damaged.toml"));
    if (!a.rc) cz_toml_free(&d);
    memset(&d, 0, sizeof d);
    note(&b, cz_toml_parse(&d, z, "damaged.toml"));
    if (!b.rc) cz_toml_free(&d);
    same_twice(what, &a, &b);
    cz_config c1, c2;
    cz_config_defaults(&c1), cz_config_defaults(&c2);
    note(&a, cz_config_load_text(&c1, z, "damaged.toml"));
    cz_log_set_level("error"); /* whatever [logging] the damaged text set (the default's "info" included) */
    note(&b, cz_config_load_text(&c2, z, "damaged.toml"));
    cz_log_set_level("error");
    same_twice(what, &a, &b);
    free(z);
    return !a.rc;
}

static const char CONFIG[] = "# every table\n[daemon]\nlisten = \"unix:///run/cuzk.sock\"\n"
                             "status_listen = \"0.0.0.0:9821\"\n"
                             "[srs]\nparam_cache = \"/var/tmp/filecoin-proof-parameters\"\n"
                             "[memory]\ntotal_budget = \"auto\"\nsafety_margin = \"5GiB\"\n"
                             "[gpus]\nbackend = \"gpu\"\ngpu_workers_per_device = 2\nh_lagrange = true\n"
                             "[scheduler]\nmax_pending = 64\n[synthesis]\nthreads = 0\ncompact_witness = true\n"
                             "[pipeline]\nenabled = true\nsynthesis_lookahead = 1\n[logging]\nlevel = \"error\"\n";

typedef int (*case_fn)(const char *, const uint8_t *, size_t, const void *);
static int c1_fn(const char *w, const uint8_t *t, size_t m, const void *p) { return (void)p, c1_case(w, t, m); }
static int post_fn(const char *w, const uint8_t *t, size_t m, const void *p) { return post_case(w, t, m, p); }
static int snap_fn(const char *w, const uint8_t *t, size_t m, const void *p) { return snap_case(w, t, m, p); }
static int list_fn(const char *w, const uint8_t *t, size_t m, const void *p) { return (void)p, list_case(w, t, m); }
static int vk_fn(const char *w, const uint8_t *t, size_t m, const void *p) { return (void)p, vk_case(w, t, m); }
static int toml_fn(const char *w, const uint8_t *t, size_t m, const void *p) { return (void)p, toml_case(w, t, m); }

/* the undamaged input must parse; then ROUNDS damaged copies */
static void run(const char *what, case_fn f, const uint8_t *src, size_t n, const void *p) {
    CHECK_MSG(f(what, src, n, p), "%s: the undamaged input does not parse: %s", what, cz_error_message());
    unsigned ok = 0;
    for (int r = 0; r < ROUNDS; r++) {
        size_t m;
        uint8_t *t = damage(src, n, &m);
        ok += (unsigned)f(what, t, m, p);
        free(t);
    }
    printf("%s: %zu bytes, %d damaged copies, %u still parse\n", what, n, ROUNDS, ok);
}

int main(void) {
    cz_test_rng(&rng);
    cz_log_set_level("error"); /* the config's warnings for damaged keys */
    const uint64_t seed = cz_rng_next(&rng);

    cz_c1 c1;
    char *text = NULL;
    size_t tn = 0;
    CHECK(cz_porep_synthetic_c1(&c1, 2048, 1, seed, 1000, 1) == 0 && cz_c1_to_json(&c1, &text, &tn) == 0);
    cz_c1_free(&c1);
    if (text) run("synthetic 2 KiB C1", c1_fn, (const uint8_t *)text, tn, NULL);
    free(text);
    char path[1024];
    size_t fl = 0;
    char *real = cz_test_read_fixture("ipfs-force-community+gpuproxy/2KiB.json", path, sizeof path, &fl);
    if (real) run("real 2 KiB C1 (Commit2In wrapper)", c1_fn, (const uint8_t *)real, fl, NULL);
    else printf("%s not found: the real C1's rounds skipped\n", path);
    free(real);

    const uint8_t rand32[32] = {(uint8_t)seed, (uint8_t)(seed >> 8), 3};
    uint8_t *enc[2] = {NULL, NULL};
    size_t el[2] = {0, 0};
    cz_post_params pp[2];
    for (int k = 0; k < 2; k++) {
        cz_post_sector_proof sp;
        CHECK(cz_post_params_for(&pp[k], k ? CZ_POST_WINDOW : CZ_POST_WINNING, 2048) == 0);
        int rc = cz_post_synthetic_sector(&sp, &pp[k], true, rand32, 1000 + (uint64_t)k, 0, seed + (uint64_t)k);
        CHECK_MSG(rc == 0, "%s", cz_error_message());
        if (rc) continue;
        CHECK(cz_post_sector_proof_encode(&sp, &pp[k], &enc[k], &el[k]) == 0);
        cz_post_sector_proof_free(&sp);
        run(k ? "Window PoSt 2 KiB sector proof" : "Winning PoSt 2 KiB sector proof", post_fn, enc[k], el[k], &pp[k]);
    }
    /* the --vanilla list of both proofs in base64 */
    const size_t b0 = cz_base64_encoded_len(el[0]), b1 = cz_base64_encoded_len(el[1]);
    char *list = malloc(b0 + b1 + 16);
    list[0] = '[', list[1] = '"';
    cz_base64_encode(list + 2, enc[0], el[0]);
    memcpy(list + 2 + b0, "\",\"", 3);
    cz_base64_encode(list + 5 + b0, enc[1], el[1]);
    memcpy(list + 5 + b0 + b1, "\"]", 3);
    run("--vanilla list of 2 base64 proofs", list_fn, (const uint8_t *)list, strlen(list), NULL);
    free(list), free(enc[0]), free(enc[1]);

    cz_snap_sector sec;
    int rc = cz_snap_synthetic_sector(&sec, 2048, 1, seed);
    CHECK_MSG(rc == 0, "%s", cz_error_message());
    if (!rc) {
        cz_snap_partition_proof p;
        uint8_t *buf = NULL;
        size_t len = 0;
        CHECK(cz_snap_sector_partition_proof(&p, &sec, 0) == 0);
        CHECK(cz_snap_partition_proof_encode(&p, &sec.p, &buf, &len) == 0);
        cz_snap_partition_proof_free(&p);
        run("Snap 2 KiB partition proof", snap_fn, buf, len, &sec.p);
        free(buf);
        cz_snap_sector_free(&sec);
    }
    cz_groth16_vk vk;
    memset(&vk, 0, sizeof vk);
    cz_g1_random(&vk.alpha_g1, &rng), cz_g1_random(&vk.beta_g1, &rng), cz_g1_random(&vk.delta_g1, &rng);
    cz_g2_random(&vk.beta_g2, &rng), cz_g2_random(&vk.gamma_g2, &rng), cz_g2_random(&vk.delta_g2, &rng);
    cz_g1_affine ic[3];
    for (int i = 0; i < 3; i++) cz_g1_random(&ic[i], &rng);
    vk.ic = ic, vk.ic_len = 3;
    uint8_t *vkb = malloc(cz_groth16_vk_size(&vk));
    cz_groth16_vk_encode(vkb, &vk);
    run("verifying key", vk_fn, vkb, cz_groth16_vk_size(&vk), NULL);
    free(vkb);
    run("config TOML", toml_fn, (const uint8_t *)CONFIG, strlen(CONFIG), NULL);
    return cz_test_finish();
}
