/* circom .r1cs / .wtns parsers on files written here byte by byte from the iden3 format description
 * (interop.md §3): a hand-checked circuit in every section order, random circuits against naive
 * dense rows, every rejection path by name, and random damage that must never crash the parser
 * (build with -DCZ_SANITIZE=ON to have ASan watch the reads). Real circom2/snarkjs files are
 * covered by tests/interop/test_circom_r1cs.sh. */
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "r1cs/circom.h"
#include "testutil.h"

typedef struct { uint8_t *p; size_t n, cap; } bytes;

static void put(bytes *b, const void *src, size_t n) {
    if (n == 0) return;
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}
static void put32(bytes *b, uint32_t v) {
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(b, x, 4);
}
static void put64(bytes *b, uint64_t v) {
    put32(b, (uint32_t)v);
    put32(b, (uint32_t)(v >> 32));
}
static void put_fr(bytes *b, const cz_fr *x) {
    uint8_t le[32];
    cz_fr_to_bytes_le(le, x);
    put(b, le, 32);
}
static void put_prime(bytes *b) {
    static const uint64_t r[4] = CZ_FR_MODULUS;
    for (int i = 0; i < 4; i++) put64(b, r[i]);
}
static void put_section(bytes *b, uint32_t type, const bytes *payload) {
    put32(b, type);
    put64(b, payload->n);
    put(b, payload->p, payload->n);
}

static cz_fr fr_u64(uint64_t v) {
    cz_fr r;
    cz_fr_set_u64(&r, v);
    return r;
}

typedef struct { uint32_t wire; cz_fr coeff; } term;
typedef struct {
    uint32_t n_wires, n_pub_out, n_pub_in, n_prv_in, n_constraints;
    uint32_t nterms[64][3];
    term t[64][3][8];
} circ;

static void header_payload(bytes *h, const circ *c, uint32_t n_wires) {
    put32(h, 32);
    put_prime(h);
    put32(h, n_wires);
    put32(h, c->n_pub_out);
    put32(h, c->n_pub_in);
    put32(h, c->n_prv_in);
    put64(h, c->n_wires);
    put32(h, c->n_constraints);
}

static void constraints_payload(bytes *s, const circ *c) {
    for (uint32_t i = 0; i < c->n_constraints; i++)
        for (int m = 0; m < 3; m++) {
            put32(s, c->nterms[i][m]);
            for (uint32_t k = 0; k < c->nterms[i][m]; k++) {
                put32(s, c->t[i][m][k].wire);
                put_fr(s, &c->t[i][m][k].coeff);
            }
        }
}

/* order lists section types (0-terminated); 9 is an unknown section the reader must skip. */
static bytes write_r1cs(const circ *c, const int *order) {
    bytes h = {0}, s = {0}, l = {0}, x = {0}, f = {0};
    header_payload(&h, c, c->n_wires);
    constraints_payload(&s, c);
    for (uint32_t w = 0; w < c->n_wires; w++) put64(&l, w);
    put32(&x, 0xdeadbeef);
    int n = 0;
    while (order[n]) n++;
    put(&f, "r1cs", 4);
    put32(&f, 1);
    put32(&f, (uint32_t)n);
    for (int i = 0; i < n; i++)
        put_section(&f, (uint32_t)order[i], order[i] == 1 ? &h : order[i] == 2 ? &s : order[i] == 3 ? &l : &x);
    free(h.p), free(s.p), free(l.p), free(x.p);
    return f;
}

static bytes write_wtns(const cz_fr *w, uint32_t n, uint32_t version) {
    bytes h = {0}, v = {0}, f = {0};
    put32(&h, 32);
    put_prime(&h);
    put32(&h, n);
    for (uint32_t i = 0; i < n; i++) put_fr(&v, &w[i]);
    put(&f, "wtns", 4);
    put32(&f, version);
    put32(&f, 2);
    put_section(&f, 1, &h);
    put_section(&f, 2, &v);
    free(h.p), free(v.p);
    return f;
}

/* Wires: 0 ONE, 1 out, 2 public in, 3 and 4 private in, 5 internal.
 *   c0: w3 * w4 = w5
 *   c1: (w5 + 2 w2 + 3 w5) * w0 = w1 + 0 w3     (unsorted, repeated wire 5, a zero coefficient) */
static void hand_circ(circ *c) {
    memset(c, 0, sizeof *c);
    c->n_wires = 6, c->n_pub_out = 1, c->n_pub_in = 1, c->n_prv_in = 2, c->n_constraints = 2;
    c->nterms[0][0] = c->nterms[0][1] = c->nterms[0][2] = 1;
    c->t[0][0][0] = (term){3, CZ_FR_ONE_V};
    c->t[0][1][0] = (term){4, CZ_FR_ONE_V};
    c->t[0][2][0] = (term){5, CZ_FR_ONE_V};
    c->nterms[1][0] = 3, c->nterms[1][1] = 1, c->nterms[1][2] = 2;
    c->t[1][0][0] = (term){5, CZ_FR_ONE_V};
    c->t[1][0][1] = (term){2, fr_u64(2)};
    c->t[1][0][2] = (term){5, fr_u64(3)};
    c->t[1][1][0] = (term){0, CZ_FR_ONE_V};
    c->t[1][2][0] = (term){1, CZ_FR_ONE_V};
    c->t[1][2][1] = (term){3, CZ_FR_ZERO_V};
}

static bool row_is(const cz_csr *m, uint64_t r, const uint32_t *cols, const uint64_t *vals, size_t n) {
    if (m->row_ptr[r + 1] - m->row_ptr[r] != n) return false;
    for (size_t i = 0; i < n; i++) {
        cz_fr v = fr_u64(vals[i]);
        if (m->col[m->row_ptr[r] + i] != cols[i] || !cz_fr_equal(&m->val[m->row_ptr[r] + i], &v)) return false;
    }
    return true;
}

static void test_hand(cz_rng *rng) {
    circ c;
    hand_circ(&c);
    static const int orders[4][6] = {{2, 1, 3, 0}, {1, 2, 0}, {3, 9, 2, 1, 0}, {1, 3, 2, 9, 0}};
    for (int o = 0; o < 4; o++) {
        bytes f = write_r1cs(&c, orders[o]);
        cz_r1cs r;
        cz_circom_header h;
        int rc = cz_circom_r1cs_parse(&r, &h, f.p, f.n, "hand.r1cs");
        CHECK_MSG(rc == 0, "order %d: %s", o, cz_error_message());
        free(f.p);
        if (rc) continue;
        CHECK(h.n_wires == 6 && h.n_pub_out == 1 && h.n_pub_in == 1 && h.n_prv_in == 2 && h.n_constraints == 2);
        CHECK(r.num_inputs == 3 && r.num_aux == 3 && r.num_constraints == 2 && r.num_rows == 5);
        static const uint32_t a0c[] = {3}, a1c[] = {2, 5}, b0c[] = {4}, b1c[] = {0}, c0c[] = {5}, c1c[] = {1};
        static const uint64_t one[] = {1}, a1v[] = {2, 4};
        CHECK(row_is(&r.a, 0, a0c, one, 1) && row_is(&r.a, 1, a1c, a1v, 2));
        for (uint32_t i = 0; i < 3; i++) CHECK(row_is(&r.a, 2 + i, &i, one, 1));
        CHECK(row_is(&r.b, 0, b0c, one, 1) && row_is(&r.b, 1, b1c, one, 1));
        CHECK(row_is(&r.c, 0, c0c, one, 1) && row_is(&r.c, 1, c1c, one, 1));
        for (int i = 2; i < 5; i++) CHECK(r.b.row_ptr[i + 1] == r.b.row_ptr[i] && r.c.row_ptr[i + 1] == r.c.row_ptr[i]);
        CHECK(r.a_aux_density[0] == 0x5 && r.b_input_density[0] == 0x1 && r.b_aux_density[0] == 0x2);

        /* A witness for it: w3 = x, w4 = y, w5 = xy, w2 = p, w1 = 4xy + 2p. */
        cz_fr w[6], t;
        w[0] = CZ_FR_ONE_V;
        cz_fr_random(&w[2], rng);
        cz_fr_random(&w[3], rng);
        cz_fr_random(&w[4], rng);
        cz_fr_mul(&w[5], &w[3], &w[4]);
        cz_fr four = fr_u64(4), two = fr_u64(2);
        cz_fr_mul(&w[1], &w[5], &four);
        cz_fr_mul(&t, &w[2], &two);
        cz_fr_add(&w[1], &w[1], &t);
        bytes wf = write_wtns(w, 6, 2);
        cz_fr *vals;
        uint64_t n;
        CHECK(cz_circom_wtns_parse(&vals, &n, wf.p, wf.n, "hand.wtns") == 0 && n == 6);
        CHECK(memcmp(vals, w, sizeof w) == 0);
        CHECK(cz_r1cs_check(NULL, &r, vals, vals + 3, 1) == 0);
        cz_fr_add(&vals[1], &vals[1], &CZ_FR_ONE_V);
        uint64_t bad = 9;
        CHECK(cz_r1cs_check(&bad, &r, vals, vals + 3, 1) == CZ_EVERIFY && bad == 1);
        free(vals);
        free(wf.p);
        cz_r1cs_free(&r);
    }
}

/* Random circuits: the CSR rows must equal dense rows summed from the raw terms (zeros dropped). */
static void test_random(cz_rng *rng) {
    static circ c;
    static const int order[] = {2, 1, 3, 0};
    for (int iter = 0; iter < 100; iter++) {
        memset(&c, 0, sizeof c);
        c.n_pub_out = (uint32_t)(cz_rng_next(rng) % 3);
        c.n_pub_in = (uint32_t)(cz_rng_next(rng) % 3);
        c.n_prv_in = (uint32_t)(cz_rng_next(rng) % 4);
        c.n_wires = 1 + c.n_pub_out + c.n_pub_in + c.n_prv_in + (uint32_t)(cz_rng_next(rng) % 20);
        c.n_constraints = (uint32_t)(cz_rng_next(rng) % 64);
        for (uint32_t i = 0; i < c.n_constraints; i++)
            for (int m = 0; m < 3; m++) {
                c.nterms[i][m] = (uint32_t)(cz_rng_next(rng) % 9);
                for (uint32_t k = 0; k < c.nterms[i][m]; k++) {
                    c.t[i][m][k].wire = (uint32_t)(cz_rng_next(rng) % c.n_wires);
                    uint64_t kind = cz_rng_next(rng) % 4;
                    if (kind == 0) c.t[i][m][k].coeff = CZ_FR_ZERO_V;
                    else if (kind == 1) c.t[i][m][k].coeff = CZ_FR_ONE_V;
                    else cz_fr_random(&c.t[i][m][k].coeff, rng);
                }
            }
        bytes f = write_r1cs(&c, order);
        cz_r1cs r;
        int rc = cz_circom_r1cs_parse(&r, NULL, f.p, f.n, "random.r1cs");
        free(f.p);
        CHECK_MSG(rc == 0, "%s", cz_error_message());
        if (rc) continue;
        uint32_t ni = 1 + c.n_pub_out + c.n_pub_in;
        CHECK(r.num_inputs == ni && r.num_aux == c.n_wires - ni && r.num_rows == c.n_constraints + ni);
        const cz_csr *mats[3] = {&r.a, &r.b, &r.c};
        bool ok = true;
        for (uint32_t i = 0; i < c.n_constraints; i++)
            for (int m = 0; m < 3; m++) {
                cz_fr d[32];
                memset(d, 0, sizeof d);
                for (uint32_t k = 0; k < c.nterms[i][m]; k++)
                    cz_fr_add(&d[c.t[i][m][k].wire], &d[c.t[i][m][k].wire], &c.t[i][m][k].coeff);
                uint64_t k = mats[m]->row_ptr[i], end = mats[m]->row_ptr[i + 1];
                for (uint32_t wv = 0; wv < c.n_wires; wv++) {
                    if (cz_fr_is_zero(&d[wv])) continue;
                    if (k >= end || mats[m]->col[k] != wv || !cz_fr_equal(&mats[m]->val[k], &d[wv])) ok = false;
                    k++;
                }
                ok &= k == end;
            }
        for (uint32_t i = 0; i < ni; i++) {
            uint64_t k = r.a.row_ptr[c.n_constraints + i];
            ok &= r.a.row_ptr[c.n_constraints + i + 1] == k + 1 && r.a.col[k] == i;
        }
        CHECK_MSG(ok, "random circuit %d: CSR differs from the naive rows", iter);
        cz_r1cs_free(&r);
    }
}

static int parse_r1cs(const bytes *f) {
    cz_r1cs r;
    int rc = cz_circom_r1cs_parse(&r, NULL, f->p, f->n, "bad.r1cs");
    if (rc == 0) cz_r1cs_free(&r);
    return rc;
}

static void expect(int rc, int want, const char *needle, const char *what) {
    CHECK_MSG(rc == want && strstr(cz_error_message(), needle) != NULL && strstr(cz_error_message(), "bad.") != NULL,
              "%s: got %s \"%s\", want %s with \"%s\"", what, cz_error_name(rc), cz_error_message(), cz_error_name(want),
              needle);
}

static void test_rejections(void) {
    circ c;
    hand_circ(&c);
    bytes h = {0}, s = {0}, f = {0};
    header_payload(&h, &c, c.n_wires);
    constraints_payload(&s, &c);

#define FILE_WITH(nsec, ...)                 \
    do {                                     \
        f.n = 0;                             \
        put(&f, "r1cs", 4);                  \
        put32(&f, 1);                        \
        put32(&f, nsec);                     \
        __VA_ARGS__;                         \
    } while (0)

    FILE_WITH(3, put_section(&f, 1, &h); put_section(&f, 2, &s); put_section(&f, 1, &h));
    expect(parse_r1cs(&f), CZ_EFORMAT, "appears twice", "duplicate header");
    FILE_WITH(3, put_section(&f, 1, &h); put_section(&f, 2, &s); put_section(&f, 4, &h));
    expect(parse_r1cs(&f), CZ_EUNSUPPORTED, "custom gates", "custom gates section");
    FILE_WITH(1, put_section(&f, 1, &h));
    expect(parse_r1cs(&f), CZ_EFORMAT, "no constraint section", "missing constraints");
    FILE_WITH(1, put_section(&f, 2, &s));
    expect(parse_r1cs(&f), CZ_EFORMAT, "no header section", "missing header");
    FILE_WITH(2, put_section(&f, 1, &h); put_section(&f, 2, &s); put32(&f, 0));
    expect(parse_r1cs(&f), CZ_EFORMAT, "after the last", "trailing bytes");
    FILE_WITH(3, put_section(&f, 1, &h); put_section(&f, 2, &s));
    expect(parse_r1cs(&f), CZ_EFORMAT, "truncated", "fewer sections than announced");

    bytes s2 = {0};
    put(&s2, s.p, s.n);
    put32(&s2, 0);
    FILE_WITH(2, put_section(&f, 1, &h); put_section(&f, 2, &s2));
    expect(parse_r1cs(&f), CZ_EFORMAT, "left after", "constraint section longer than its constraints");
    s2.n = s.n - 36; /* drop the last term: the LC's count now runs past the section */
    FILE_WITH(2, put_section(&f, 1, &h); put_section(&f, 2, &s2));
    expect(parse_r1cs(&f), CZ_EFORMAT, "past the section end", "constraint section cut inside an LC");
    s2.n = s.n - 4 - 36 * 2; /* the whole C of constraint 1 missing */
    FILE_WITH(2, put_section(&f, 1, &h); put_section(&f, 2, &s2));
    expect(parse_r1cs(&f), CZ_EFORMAT, "truncated", "constraint section cut between LCs");

    bytes h2 = {0};
    circ c2 = c;
    c2.n_constraints = 0xffffffffu;
    header_payload(&h2, &c2, c2.n_wires);
    FILE_WITH(2, put_section(&f, 1, &h2); put_section(&f, 2, &s));
    expect(parse_r1cs(&f), CZ_EFORMAT, "cannot hold", "huge constraint count");
    c2 = c;
    c2.n_prv_in = 5;
    h2.n = 0;
    header_payload(&h2, &c2, c2.n_wires);
    FILE_WITH(2, put_section(&f, 1, &h2); put_section(&f, 2, &s));
    expect(parse_r1cs(&f), CZ_EFORMAT, "exceed", "more inputs than wires");
    h2.n = 0;
    header_payload(&h2, &c, c.n_wires);
    put32(&h2, 0);
    FILE_WITH(2, put_section(&f, 1, &h2); put_section(&f, 2, &s));
    expect(parse_r1cs(&f), CZ_EFORMAT, "expected 64", "header section too long");
    h2.n = 0;
    header_payload(&h2, &c, c.n_wires);
    h2.p[4] ^= 2; /* prime + 2 */
    FILE_WITH(2, put_section(&f, 1, &h2); put_section(&f, 2, &s));
    expect(parse_r1cs(&f), CZ_EFORMAT, "prime", "another prime");
    bytes l = {0};
    put64(&l, 0);
    FILE_WITH(3, put_section(&f, 1, &h); put_section(&f, 2, &s); put_section(&f, 3, &l));
    expect(parse_r1cs(&f), CZ_EFORMAT, "wire-to-label", "label section of the wrong size");
    c2 = c;
    c2.t[1][0][1].wire = 6;
    s2.n = 0;
    constraints_payload(&s2, &c2);
    FILE_WITH(2, put_section(&f, 1, &h); put_section(&f, 2, &s2));
    expect(parse_r1cs(&f), CZ_EFORMAT, "wire 6", "wire id = nWires");
    /* coefficient r: the hand circuit's first term coefficient, set to the modulus itself */
    s2.n = 0;
    constraints_payload(&s2, &c);
    static const uint64_t rm[4] = CZ_FR_MODULUS;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) s2.p[8 + i * 8 + j] = (uint8_t)(rm[i] >> (8 * j));
    FILE_WITH(2, put_section(&f, 1, &h); put_section(&f, 2, &s2));
    expect(parse_r1cs(&f), CZ_EFORMAT, "coefficient >= r", "coefficient = r");

    /* wtns */
    cz_fr w[3] = {CZ_FR_ONE_V, CZ_FR_ONE_V, CZ_FR_ZERO_V}, *vals;
    uint64_t n;
    bytes wf = write_wtns(w, 3, 1);
    expect(cz_circom_wtns_parse(&vals, &n, wf.p, wf.n, "bad.wtns"), CZ_EFORMAT, "version", "wtns version 1");
    free(wf.p);
    w[0] = fr_u64(2);
    wf = write_wtns(w, 3, 2);
    expect(cz_circom_wtns_parse(&vals, &n, wf.p, wf.n, "bad.wtns"), CZ_EFORMAT, "value 0 is not 1", "wtns w0 = 2");
    wf.p[12 + 12] = 48; /* n8 */
    expect(cz_circom_wtns_parse(&vals, &n, wf.p, wf.n, "bad.wtns"), CZ_EFORMAT, "n8 = 48", "wtns n8");
    free(wf.p);
    w[0] = CZ_FR_ONE_V;
    wf = write_wtns(w, 3, 2);
    wf.p[12 + 12 + 36] = 4; /* count 4, 3 values */
    expect(cz_circom_wtns_parse(&vals, &n, wf.p, wf.n, "bad.wtns"), CZ_EFORMAT, "expected 32 x 4", "wtns count");
    free(wf.p);
    wf = write_wtns(w, 0, 2);
    expect(cz_circom_wtns_parse(&vals, &n, wf.p, wf.n, "bad.wtns"), CZ_EFORMAT, "empty", "wtns without values");
    free(wf.p);
    cz_r1cs r;
    expect(cz_circom_r1cs_read(&r, NULL, "/nonexistent/bad.r1cs"), CZ_EIO, "cannot open", "missing file");
    free(h.p), free(s.p), free(f.p), free(s2.p), free(h2.p), free(l.p);
}

/* Random damage (byte changes, truncation, both) never crashes the parsers, and whatever they
 * accept is internally consistent. */
static void test_fuzz(cz_rng *rng) {
    circ c;
    hand_circ(&c);
    static const int order[] = {2, 1, 3, 0};
    bytes good = write_r1cs(&c, order);
    cz_fr w[6] = {CZ_FR_ONE_V};
    for (int i = 1; i < 6; i++) cz_fr_random(&w[i], rng);
    bytes goodw = write_wtns(w, 6, 2);
    uint8_t *buf = malloc(good.n > goodw.n ? good.n : goodw.n);
    int accepted = 0, rejected = 0;
    bool sane = true, codes = true;
    for (int iter = 0; iter < 4000; iter++) {
        bool is_w = iter & 1;
        const bytes *src = is_w ? &goodw : &good;
        size_t n = src->n;
        memcpy(buf, src->p, n);
        int flips = (int)(cz_rng_next(rng) % 4);
        for (int k = 0; k < flips; k++) buf[cz_rng_next(rng) % n] ^= (uint8_t)(1u << (cz_rng_next(rng) % 8));
        if (flips == 0 || cz_rng_next(rng) % 3 == 0) n = cz_rng_next(rng) % n;
        /* An exact-size heap copy lets ASan catch any read past the end. */
        uint8_t *exact = malloc(n ? n : 1);
        memcpy(exact, buf, n);
        int rc;
        if (is_w) {
            cz_fr *vals;
            uint64_t cnt;
            rc = cz_circom_wtns_parse(&vals, &cnt, exact, n, "fuzz.wtns");
            if (rc == 0) free(vals);
        } else {
            cz_r1cs r;
            rc = cz_circom_r1cs_parse(&r, NULL, exact, n, "fuzz.r1cs");
            if (rc == 0) {
                uint64_t nc = r.num_inputs + r.num_aux;
                const cz_csr *mats[3] = {&r.a, &r.b, &r.c};
                for (int m = 0; m < 3; m++) {
                    sane &= mats[m]->rows == r.num_rows;
                    for (uint64_t k = 0; k < cz_r1cs_nnz(mats[m]); k++) sane &= mats[m]->col[k] < nc;
                }
                cz_r1cs_free(&r);
            }
        }
        free(exact);
        if (rc == 0) accepted++;
        else rejected++;
        codes &= rc == 0 || rc == CZ_EFORMAT || rc == CZ_EUNSUPPORTED;
    }
    CHECK(sane && codes);
    CHECK(rejected > 1000); /* the damage is real: most variants must be refused */
    printf("fuzz: %d damaged files accepted (changed values), %d rejected\n", accepted, rejected);
    free(buf);
    free(good.p);
    free(goodw.p);
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    test_hand(&rng);
    test_random(&rng);
    test_rejections();
    test_fuzz(&rng);
    return cz_test_finish();
}
