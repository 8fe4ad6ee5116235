/* cz_bench_ff: ns/op of the CPU field and group-law primitives every prover layer sits on (medians of
 * 15 rounds, wall and thread-CPU time; on a shared machine the CPU column is the one to compare).
 * Multiplications run as dependent chains (x = x*y), so the numbers are latencies, the figure that
 * matters for MSM bucket accumulation. Usage: cz_bench_ff [scale] (scales the op counts; default 0.3,
 * about 8 s of CPU; 1.0 for a log entry). Output: a Markdown table for docs/perf.md. */
#include "bench_util.h"

enum { NPTS = 256 };

int main(int argc, char **argv) {
    double scale = argc > 1 ? atof(argv[1]) : 0.3;
    if (!(scale > 0)) scale = 0.3;
    cz_rng rng;
    if (cz_rng_seed_os(&rng)) cz_rng_seed(&rng, (uint64_t)time(NULL));
    char cpu[256];
    cz_bench_cpu_name(cpu, sizeof cpu);
    printf("cz_bench_ff on %s (one thread, scale %.2f)\n\n", cpu, scale);
#define N(x) ((long)((x)*scale) + 1)

    cz_fr fr_x, fr_y;
    cz_fr_random(&fr_x, &rng);
    cz_fr_random(&fr_y, &rng);
    cz_fp fp_x, fp_y;
    cz_fp_random(&fp_x, &rng);
    cz_fp_random(&fp_y, &rng);
    cz_fp2 f2_x, f2_y;
    cz_fp2_random(&f2_x, &rng);
    cz_fp2_random(&f2_y, &rng);

    /* Points: affine bases as an MSM reads them, and jacobian points with random Z (not Z = 1). */
    static cz_g1_affine g1a[NPTS];
    static cz_g1_jac g1j[NPTS];
    static cz_g2_affine g2a[NPTS];
    static cz_g2_jac g2j[NPTS];
    for (int i = 0; i < NPTS; i++) {
        cz_bench_g1_point(&g1a[i], &rng);
        cz_fp z, z2, z3;
        cz_fp_random(&z, &rng);
        cz_fp_sqr(&z2, &z);
        cz_fp_mul(&z3, &z2, &z);
        cz_fp_mul(&g1j[i].x, &g1a[i].x, &z2);
        cz_fp_mul(&g1j[i].y, &g1a[i].y, &z3);
        g1j[i].z = z;
        cz_bench_g2_point(&g2a[i], &rng);
        cz_fp2 w, w2, w3;
        cz_fp2_random(&w, &rng);
        cz_fp2_sqr(&w2, &w);
        cz_fp2_mul(&w3, &w2, &w);
        cz_fp2_mul(&g2j[i].x, &g2a[i].x, &w2);
        cz_fp2_mul(&g2j[i].y, &g2a[i].y, &w3);
        g2j[i].z = w;
    }

    CZ_BENCH_HEADER();
    CZ_BENCH("Fr mul", N(2e6), NULL, cz_fr_mul(&fr_x, &fr_x, &fr_y));
    CZ_BENCH("Fr sqr", N(2e6), NULL, cz_fr_sqr(&fr_x, &fr_x));
    CZ_BENCH("Fr add", N(5e6), NULL, cz_fr_add(&fr_x, &fr_x, &fr_y));
    CZ_BENCH("Fp mul", N(1e6), NULL, cz_fp_mul(&fp_x, &fp_x, &fp_y));
    CZ_BENCH("Fp sqr", N(1e6), NULL, cz_fp_sqr(&fp_x, &fp_x));
    CZ_BENCH("Fp add", N(5e6), NULL, cz_fp_add(&fp_x, &fp_x, &fp_y));
    CZ_BENCH("Fp2 mul", N(3e5), NULL, cz_fp2_mul(&f2_x, &f2_x, &f2_y));
    CZ_BENCH("Fp2 sqr", N(3e5), NULL, cz_fp2_sqr(&f2_x, &f2_x));
    CZ_BENCH("Fp inv (Fermat)", N(2e3), NULL, {
        cz_fp_inv(&fp_x, &fp_x);
        cz_fp_add(&fp_x, &fp_x, &fp_y);
    });
    CZ_BENCH("Fr inv (Fermat)", N(4e3), NULL, {
        cz_fr_inv(&fr_x, &fr_x);
        cz_fr_add(&fr_x, &fr_x, &fr_y);
    });

    cz_g1_jac acc1;
    cz_g1_jac_from_affine(&acc1, &g1a[0]);
    CZ_BENCH("G1 mixed add (jac+affine)", N(2e5), NULL,
             cz_g1_jac_add_affine(&acc1, &acc1, &g1a[i & (NPTS - 1)]));
    CZ_BENCH("G1 jacobian add", N(1e5), NULL, cz_g1_jac_add(&acc1, &acc1, &g1j[i & (NPTS - 1)]));
    CZ_BENCH("G1 jacobian double", N(2e5), NULL, cz_g1_jac_double(&acc1, &acc1));
    cz_g1_xyzz x1 = {g1a[0].x, g1a[0].y, CZ_FP_ONE_V, CZ_FP_ONE_V};
    CZ_BENCH("G1 xyzz mixed add (bucket)", N(2e5), NULL,
             cz_g1_xyzz_add_affine(&x1, &x1, &g1a[i & (NPTS - 1)]));

    cz_g2_jac acc2;
    cz_g2_jac_from_affine(&acc2, &g2a[0]);
    CZ_BENCH("G2 mixed add (jac+affine)", N(6e4), NULL,
             cz_g2_jac_add_affine(&acc2, &acc2, &g2a[i & (NPTS - 1)]));
    CZ_BENCH("G2 jacobian add", N(4e4), NULL, cz_g2_jac_add(&acc2, &acc2, &g2j[i & (NPTS - 1)]));
    CZ_BENCH("G2 jacobian double", N(6e4), NULL, cz_g2_jac_double(&acc2, &acc2));

    /* Consume every chain so none is optimized away (and show they stayed finite/nonzero). */
    uint64_t sink = fr_x.l[0] ^ fp_x.l[0] ^ f2_x.c0.l[0] ^ acc1.x.l[0] ^ x1.x.l[0] ^ acc2.x.c0.l[0];
    printf("\n(checksum %016llx)\n", (unsigned long long)sink);
    return 0;
}
