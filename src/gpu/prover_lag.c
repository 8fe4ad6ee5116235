/* The prover's Lagrange-form H bases (prover_priv.h lag; groth16/h_lagrange.h): the switch, and the bases at
 * creation, loaded from a cache file or built on the device from H, checked against H either way.
 *
 * Cache: one file per H in the directory named by cz_gpu_prover_set_lagrange (the daemon's
 * gpus.h_lagrange_cache) or CZ_GPU_PROVER_LAGRANGE_CACHE, "cuzk-lagrange-h-2^<log_n>-<fingerprint>.bin": a 64-byte
 * header (magic, log_n, H's length, the fingerprint, the bytes after the header), then Lc and Lh (n affine points
 * each, the device's bytes). The fingerprint (FNV-1a over H's length and 65,536 of its points spread over it)
 * only names the file: what is loaded passes cz_gpu_h_lagrange_check (a random linear combination of every
 * point against H: an MSM a basis and one over H) or is built again and the file rewritten, so a stale, truncated
 * or corrupted file costs a rebuild, never a wrong proof. Writes go to a temporary name, renamed when complete. */
#include <errno.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cz_error.h"
#include "gpu/gpu.h"
#include "gpu/prover_priv.h"

static int g_lag = -1; /* cz_gpu_prover_set_lagrange: -1 unset (off) */
static char g_lag_dir[4096];

void cz_gpu_prover_set_lagrange(int on, const char *cache_dir) {
    g_lag = on ? 1 : 0;
    snprintf(g_lag_dir, sizeof g_lag_dir, "%s", cache_dir ? cache_dir : "");
}

int cz_gpu_prover_lagrange_knob_(void) {
    const char *e = getenv("CZ_GPU_PROVER_LAGRANGE");
    if (e && *e) return e[0] == '1';
    return g_lag > 0;
}

static const char *cache_dir(void) {
    const char *e = getenv("CZ_GPU_PROVER_LAGRANGE_CACHE");
    return e && *e ? e : g_lag_dir[0] ? g_lag_dir : NULL;
}

#define LAG_MAGIC "CZLAGH1"
typedef struct {
    char magic[8];
    uint32_t log_n, pad;
    uint64_t h_len, fp, bytes;
    uint8_t rest[24];
} lag_header;
#define LAG_CHUNK ((size_t)64 << 20)

static uint64_t fingerprint(const cz_g1_affine *h, size_t len) {
    uint64_t x = 0xcbf29ce484222325ull;
    const size_t k = len < 65536 ? len : 65536;
#define FNV(b) (x = (x ^ (b)) * 0x100000001b3ull)
    for (int i = 0; i < 8; i++) FNV((len >> (8 * i)) & 0xff);
    for (size_t j = 0; j < k; j++) {
        const uint8_t *p = (const uint8_t *)&h[k > 1 ? j * (len - 1) / (k - 1) : 0];
        for (size_t b = 0; b < sizeof *h; b++) FNV(p[b]);
    }
#undef FNV
    return x;
}

/* The file is read in chunks (64 MiB; CZ_GPU_LAG_CHUNK bytes for tests) by up to LAG_LOAD_THREADS threads, each
 * with its own pinned chunk: a thread's read of one chunk runs beside another's copy to the device. One thread's
 * fread then copy, chunk after chunk, took 4.7 s for a 32 GiB PoRep's 25.8 GB on an H200's host (5.5 GB/s). */
#define LAG_LOAD_THREADS 4

static size_t lag_chunk(void) {
    const char *e = getenv("CZ_GPU_LAG_CHUNK");
    const long v = e && *e ? atol(e) : 0;
    return v > 0 && (size_t)v < LAG_CHUNK ? (size_t)v : LAG_CHUNK;
}

/* Lc into d_h and Lh into d_lh (n points each); buf is one pinned chunk, the other threads' are allocated here */
static int load(cz_gpu_prover *pr, FILE *f, const lag_header *want, void *buf) {
    lag_header hd;
    if (fread(&hd, sizeof hd, 1, f) != 1) return cz_error(CZ_EFORMAT, "Lagrange H cache: no header");
    if (memcmp(hd.magic, want->magic, 8) || hd.log_n != want->log_n || hd.h_len != want->h_len || hd.fp != want->fp ||
        hd.bytes != want->bytes)
        return cz_error(CZ_EFORMAT, "Lagrange H cache: the header does not match this H");
    const int fd = fileno(f);
    struct stat sb;
    const size_t half = pr->n * sizeof(cz_g1_affine), chunk = lag_chunk(), per = (half + chunk - 1) / chunk;
    if (fstat(fd, &sb)) return cz_error(CZ_EIO, "Lagrange H cache: stat: %s", strerror(errno));
    if ((uint64_t)sb.st_size < sizeof hd + 2 * (uint64_t)half)
        return cz_error(CZ_EFORMAT, "Lagrange H cache: truncated at byte %llu of %llu",
                        (unsigned long long)(sb.st_size > (off_t)sizeof hd ? sb.st_size - (off_t)sizeof hd : 0),
                        (unsigned long long)(2 * half));
    void *bufs[LAG_LOAD_THREADS] = {buf};
    int nt = 1;
    for (; nt < LAG_LOAD_THREADS && (size_t)nt < 2 * per; nt++) { /* counted in the budget before allocated */
        cz_gpu_prover_transient_add_(chunk);
        if (cz_gpu_host_alloc(&bufs[nt], chunk)) {
            cz_gpu_prover_transient_sub_(chunk);
            break;
        }
    }
    _Atomic int failed = 0;
    int rc = 0;
    char why[256] = "";
#pragma omp parallel num_threads(nt)
    { /* the team may have fewer threads than asked for (nested in another region): stride by its size */
        const int t = omp_get_thread_num(), tn = omp_get_num_threads();
        int trc = cz_gpu_set_device(pr->device);
        for (size_t k = (size_t)t; !trc && k < 2 * per && !atomic_load(&failed); k += (size_t)tn) {
            const size_t off = (k % per) * chunk, m = half - off < chunk ? half - off : chunk;
            const size_t pos = k / per * half + off; /* in the file, after the header */
            size_t got = 0;
            while (!trc && got < m) {
                const ssize_t r = pread(fd, (uint8_t *)bufs[t] + got, m - got, (off_t)(sizeof hd + pos + got));
                if (r > 0) got += (size_t)r;
                else if (r < 0 && errno == EINTR) continue;
                else trc = cz_error(r < 0 ? CZ_EIO : CZ_EFORMAT, "Lagrange H cache: read at byte %llu: %s",
                                    (unsigned long long)(pos + got), r < 0 ? strerror(errno) : "truncated");
            }
            uint8_t *dst = (uint8_t *)(k / per ? (void *)pr->d_lh : (void *)pr->d_h) + off;
            if (!trc) trc = cz_gpu_memcpy_htod(dst, bufs[t], m);
        }
        if (trc) {
#pragma omp critical(lag_load)
            if (!rc) rc = trc, snprintf(why, sizeof why, "%s", cz_error_message());
            atomic_store(&failed, 1);
        }
    }
    for (int t = 1; t < nt; t++) cz_gpu_host_free(bufs[t]), cz_gpu_prover_transient_sub_(chunk);
    return rc ? cz_error(rc, "%s", why) : 0;
}

static int save(const cz_gpu_prover *pr, const char *path, const lag_header *hd, void *buf) {
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%.4200s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) return cz_error(CZ_EIO, "Lagrange H cache: cannot create %s: %s", tmp, strerror(errno));
    int rc = fwrite(hd, sizeof *hd, 1, f) == 1 ? 0 : cz_error(CZ_EIO, "Lagrange H cache: write %s", tmp);
    const size_t half = pr->n * sizeof(cz_g1_affine);
    for (int b = 0; b < 2 && !rc; b++)
        for (size_t off = 0; off < half && !rc; off += LAG_CHUNK) {
            const size_t m = half - off < LAG_CHUNK ? half - off : LAG_CHUNK;
            rc = cz_gpu_memcpy_dtoh(buf, (const uint8_t *)(b ? (void *)pr->d_lh : (void *)pr->d_h) + off, m);
            if (!rc && fwrite(buf, 1, m, f) != m) rc = cz_error(CZ_EIO, "Lagrange H cache: write %s: %s", tmp, strerror(errno));
        }
    if (fclose(f) && !rc) rc = cz_error(CZ_EIO, "Lagrange H cache: close %s", tmp);
    if (!rc && rename(tmp, path)) rc = cz_error(CZ_EIO, "Lagrange H cache: rename to %s: %s", path, strerror(errno));
    if (rc) unlink(tmp);
    return rc;
}

/* appends ", what in T s" (or the first entry without the comma) to the note */
static void note_time(cz_gpu_prover *pr, const char *what, double ms) {
    const size_t l = strlen(pr->lag_note);
    snprintf(pr->lag_note + l, sizeof pr->lag_note - l, "%s%s %.2f s", l ? ", " : "", what, ms / 1e3);
}

int cz_gpu_prover_lagrange_bases_(cz_gpu_prover *pr, const cz_groth16_params *p,
                                  int (*htod)(void *ctx, void *dst, const void *src, size_t bytes), void *ctx) {
    const double t0 = cz_gpu_now_ms_();
    pr->lag_src = 0;
    pr->lag_note[0] = 0;
    int rc = cz_gpu_prover_dalloc_(pr, (void **)&pr->d_h, pr->n * sizeof(cz_g1_affine), "Lc (Lagrange H)");
    if (!rc) rc = cz_gpu_prover_dalloc_(pr, (void **)&pr->d_lh, pr->n * sizeof(cz_g1_affine), "Lh (Lagrange H)");
    void *d_src = NULL, *buf = NULL;
    const size_t hb = p->h_len * sizeof(cz_g1_affine);
    if (!rc) rc = cz_gpu_malloc(&d_src, hb); /* H, for the build and the check */
    /* copies into this prover's own buffers need no device lock: a caller that holds it (the backend's creation)
     * lets other provers' partitions run meanwhile */
    int held = cz_gpu_lock_drop_();
    if (!rc) rc = htod ? htod(ctx, d_src, p->h, hb) : cz_gpu_memcpy_htod(d_src, p->h, hb);
    cz_gpu_lock_retake_(held);
    if (rc) {
        cz_gpu_free(d_src);
        return rc;
    }
    double t = cz_gpu_now_ms_();
    char what[64];
    snprintf(what, sizeof what, "H (%.2f GB) copied in", hb / 1e9);
    note_time(pr, what, t - t0);
    lag_header hd;
    memset(&hd, 0, sizeof hd);
    memcpy(hd.magic, LAG_MAGIC, 8);
    hd.log_n = pr->log_n, hd.h_len = p->h_len, hd.fp = fingerprint(p->h, p->h_len);
    hd.bytes = 2 * pr->n * sizeof(cz_g1_affine);
    const char *dir = cache_dir();
    char path[4200] = "";
    if (dir && strlen(dir) > 4000) dir = NULL; /* no room for the name: no cache */
    if (dir)
        snprintf(path, sizeof path, "%.4000s/cuzk-lagrange-h-2^%u-%016llx.bin", dir, pr->log_n, (unsigned long long)hd.fp);
    const uint64_t seed = (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)pr;
    if (dir) cz_gpu_prover_transient_add_(LAG_CHUNK);
    if (dir && (rc = cz_gpu_host_alloc(&buf, LAG_CHUNK))) buf = NULL, rc = 0; /* no pinned chunk: no cache */
    FILE *f = buf ? fopen(path, "rb") : NULL;
    if (f) {
        held = cz_gpu_lock_drop_();
        int lr = load(pr, f, &hd, buf);
        cz_gpu_lock_retake_(held);
        fclose(f);
        double t2 = cz_gpu_now_ms_();
        if (!lr) note_time(pr, "loaded in", t2 - t), t = t2;
        if (!lr) lr = cz_gpu_h_lagrange_check(pr->d_h, pr->d_lh, d_src, pr->log_n, seed, pr->st);
        t2 = cz_gpu_now_ms_();
        if (!lr) note_time(pr, "checked in", t2 - t), pr->lag_src = 1;
        else {
            const size_t l = strlen(pr->lag_note);
            snprintf(pr->lag_note + l, sizeof pr->lag_note - l, "; cache %s refused (%s)", path, cz_error_message());
        }
        t = t2;
    }
    if (!pr->lag_src) {
        rc = cz_gpu_h_lagrange_bases(pr->d_h, pr->d_lh, d_src, pr->log_n, pr->st);
        double t2 = cz_gpu_now_ms_();
        if (!rc) note_time(pr, "built in", t2 - t), t = t2;
        if (!rc) rc = cz_gpu_h_lagrange_check(pr->d_h, pr->d_lh, d_src, pr->log_n, seed, pr->st);
        t2 = cz_gpu_now_ms_();
        if (!rc) note_time(pr, "checked in", t2 - t), t = t2;
        if (!rc && buf) {
            const int sr = save(pr, path, &hd, buf);
            const size_t l = strlen(pr->lag_note);
            if (sr) snprintf(pr->lag_note + l, sizeof pr->lag_note - l, "; not saved: %s", cz_error_message());
            else snprintf(pr->lag_note + l, sizeof pr->lag_note - l, "; written in %.1f s, saved to %s", (cz_gpu_now_ms_() - t) / 1e3, path);
        }
    }
    cz_gpu_free(d_src);
    cz_gpu_host_free(buf);
    if (dir) cz_gpu_prover_transient_sub_(LAG_CHUNK);
    pr->lag_ms = cz_gpu_now_ms_() - t0;
    return rc;
}
