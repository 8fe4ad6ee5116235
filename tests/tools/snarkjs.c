/* C side of the snarkjs / noble interop checks (tests/interop/test_groth16_snarkjs.sh) and of
 * bench/groth16_vs_snarkjs.sh.
 *   setup   R1CS ZKEY SEED                  .zkey from toxic waste derived from SEED (cz_snarkjs_setup)
 *   prove   ZKEY WTNS PROOF PUBLIC [R S]    our zkey prover (R, S decimal: fixed blinding) -> snarkjs JSON
 *   verify  VK.json PUBLIC PROOF            our verifier on snarkjs JSON files (exit 0 ok, 1 invalid)
 *   zverify ZKEY PUBLIC PROOF               the same with the vk taken from a zkey
 *   vkjson  ZKEY VK.json                    verification_key.json from a zkey
 *   check   ZKEY                            parse with subgroup checks (exit 2 + message when bad)
 *   bellman R1CS WTNS SEED DIR              bellperson path (setup.h + prover.h), writes DIR/{vk,proof,public}.json
 * Times go to stdout as "time NAME wall_s cpu_s". Errors: exit 2 with cz_error's message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cz_error.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "groth16/snarkjs.h"
#include "groth16/verify.h"
#include "r1cs/circom.h"

static double wall(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}
static double cpu(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}
static double w0, c0;
static void tstart(void) {
    w0 = wall();
    c0 = cpu();
}
static void tstop(const char *name) { printf("time %s %.3f %.3f\n", name, wall() - w0, cpu() - c0); }

static int die(int rc) {
    fprintf(stderr, "error: %s: %s\n", cz_error_name(rc), cz_error_message());
    return 2;
}

static int dec_fr(cz_fr *r, const char *s) {
    uint64_t v[4] = {0};
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return -1;
        unsigned __int128 carry = (unsigned)(*s - '0');
        for (int i = 0; i < 4; i++) {
            unsigned __int128 cur = (unsigned __int128)v[i] * 10 + carry;
            v[i] = (uint64_t)cur;
            carry = cur >> 64;
        }
        if (carry) return -1;
    }
    return cz_fr_from_raw(r, v);
}

static void print_proof_hex(const cz_groth16_proof *p) {
    uint8_t b[CZ_GROTH16_PROOF_BYTES];
    cz_groth16_proof_encode(b, p);
    printf("proof ");
    for (int i = 0; i < CZ_GROTH16_PROOF_BYTES; i++) printf("%02x", b[i]);
    printf("\n");
}

static int verify_files(const cz_groth16_vk *vk, const char *pubf, const char *prff) {
    cz_groth16_proof p;
    cz_fr *pub;
    size_t n;
    int rc;
    if ((rc = cz_snarkjs_proof_read_json(&p, prff)) || (rc = cz_snarkjs_public_read_json(&pub, &n, pubf))) return die(rc);
    cz_groth16_pvk pvk;
    if ((rc = cz_groth16_pvk_init(&pvk, vk))) return die(rc);
    tstart();
    rc = cz_groth16_verify(&pvk, &p, pub, n);
    tstop("verify");
    cz_groth16_pvk_free(&pvk);
    free(pub);
    if (rc == CZ_EVERIFY) {
        printf("INVALID\n");
        return 1;
    }
    if (rc) return die(rc);
    printf("OK\n");
    return 0;
}

int main(int argc, char **argv) {
    int rc;
    const char *cmd = argc > 1 ? argv[1] : "";
    if (!strcmp(cmd, "setup") && argc == 5) {
        cz_r1cs r;
        if ((rc = cz_circom_r1cs_read(&r, NULL, argv[2]))) return die(rc);
        cz_groth16_toxic t;
        cz_groth16_toxic_from_seed(&t, strtoull(argv[4], NULL, 10));
        cz_snarkjs_zkey z;
        tstart();
        if ((rc = cz_snarkjs_setup(&z, &r, &t, 0))) return die(rc);
        tstop("setup");
        if ((rc = cz_snarkjs_zkey_write(argv[3], &z))) return die(rc);
        printf("zkey: %u vars, %u public, domain %u, %zu coefficients\n", z.n_vars, z.n_public, z.domain_size, z.n_coef);
        cz_snarkjs_zkey_free(&z);
        cz_r1cs_free(&r);
        return 0;
    }
    if (!strcmp(cmd, "check") && argc == 3) {
        cz_snarkjs_zkey z;
        if ((rc = cz_snarkjs_zkey_read(&z, argv[2], CZ_ZKEY_CHECK_SUBGROUP))) return die(rc);
        printf("zkey: %u vars, %u public, domain %u, %zu coefficients\n", z.n_vars, z.n_public, z.domain_size, z.n_coef);
        cz_snarkjs_zkey_free(&z);
        return 0;
    }
    if (!strcmp(cmd, "prove") && (argc == 6 || argc == 8)) {
        cz_snarkjs_zkey z;
        cz_fr *w, r, s;
        uint64_t nw;
        if (argc == 8 && (dec_fr(&r, argv[6]) || dec_fr(&s, argv[7]))) {
            fprintf(stderr, "error: r, s must be decimal below the group order\n");
            return 2;
        }
        tstart();
        if ((rc = cz_snarkjs_zkey_read(&z, argv[2], 0))) return die(rc);
        tstop("zkey_read");
        if ((rc = cz_circom_wtns_read(&w, &nw, argv[3]))) return die(rc);
        cz_groth16_proof p;
        tstart();
        if ((rc = cz_snarkjs_prove(&p, &z, w, nw, argc == 8 ? &r : NULL, argc == 8 ? &s : NULL, 0))) return die(rc);
        tstop("prove");
        if ((rc = cz_snarkjs_proof_write_json(argv[4], &p)) || (rc = cz_snarkjs_public_write_json(argv[5], w + 1, z.n_public)))
            return die(rc);
        print_proof_hex(&p);
        free(w);
        cz_snarkjs_zkey_free(&z);
        return 0;
    }
    if (!strcmp(cmd, "verify") && argc == 5) {
        cz_groth16_vk vk;
        if ((rc = cz_snarkjs_vk_read_json(&vk, argv[2]))) return die(rc);
        rc = verify_files(&vk, argv[3], argv[4]);
        cz_groth16_vk_free(&vk);
        return rc;
    }
    if ((!strcmp(cmd, "zverify") && argc == 5) || (!strcmp(cmd, "vkjson") && argc == 4)) {
        cz_snarkjs_zkey z;
        cz_groth16_vk vk;
        if ((rc = cz_snarkjs_zkey_read(&z, argv[2], 0)) || (rc = cz_snarkjs_zkey_vk(&vk, &z))) return die(rc);
        cz_snarkjs_zkey_free(&z);
        if (argc == 4) {
            if ((rc = cz_snarkjs_vk_write_json(argv[3], &vk))) rc = die(rc);
        } else
            rc = verify_files(&vk, argv[3], argv[4]);
        cz_groth16_vk_free(&vk);
        return rc;
    }
    if (!strcmp(cmd, "bellman") && argc == 6) {
        cz_r1cs r;
        cz_fr *w;
        uint64_t nw;
        if ((rc = cz_circom_r1cs_read(&r, NULL, argv[2])) || (rc = cz_circom_wtns_read(&w, &nw, argv[3]))) return die(rc);
        if (nw != r.num_inputs + r.num_aux) {
            fprintf(stderr, "error: witness has %llu values, the r1cs %llu\n", (unsigned long long)nw,
                    (unsigned long long)(r.num_inputs + r.num_aux));
            return 2;
        }
        cz_groth16_toxic t;
        cz_groth16_toxic_from_seed(&t, strtoull(argv[4], NULL, 10));
        cz_groth16_params params;
        if ((rc = cz_groth16_setup(&params, &r, &t, 0))) return die(rc);
        cz_groth16_pending pend;
        cz_groth16_proof p;
        tstart();
        if ((rc = cz_groth16_prove_start(&pend, &params, &r, w, w + r.num_inputs, 0)) ||
            (rc = cz_groth16_prove_finish(&p, &pend, &params.vk, NULL, NULL)))
            return die(rc);
        tstop("prove");
        char path[4096];
        snprintf(path, sizeof path, "%s/vk.json", argv[5]);
        if ((rc = cz_snarkjs_vk_write_json(path, &params.vk))) return die(rc);
        snprintf(path, sizeof path, "%s/proof.json", argv[5]);
        if ((rc = cz_snarkjs_proof_write_json(path, &p))) return die(rc);
        snprintf(path, sizeof path, "%s/public.json", argv[5]);
        if ((rc = cz_snarkjs_public_write_json(path, w + 1, r.num_inputs - 1))) return die(rc);
        print_proof_hex(&p);
        cz_groth16_params_free(&params);
        cz_r1cs_free(&r);
        free(w);
        return 0;
    }
    fprintf(stderr, "usage: see the comment at the top of tests/tools/snarkjs.c\n");
    return 2;
}
