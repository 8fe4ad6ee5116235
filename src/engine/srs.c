#include "engine/srs.h"
#include "engine/param_digest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cz_error.h"
#include "engine/log.h"
#include "groth16/setup.h"
#include "util/mapguard.h"

#define T "cuzk::srs"

static uint64_t file_size(const char *path) {
    struct stat sb;
    return path[0] && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) ? (uint64_t)sb.st_size : 0;
}

/* The seed of c's seeded setup: its own (2 KiB, the test circuit), else under [testing] seeded_setup_any
 * FNV-1a of "cuzk-seeded:" and its id; 0 when it may not have one. */
static uint64_t setup_seed(const cz_srs_mgr *m, const cz_circuit *c) {
    if (c->setup_seed || !m->seeded_any) return c->setup_seed;
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *s = "cuzk-seeded:"; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    for (const char *s = c->id; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return h ? h : 1;
}

/* The file a circuit's parameters come from: the official one when present, else (seeded circuits) the
 * local cache file, present or not. "" when neither applies. */
static void find_file(const cz_srs_mgr *m, const cz_circuit *c, char *out, size_t cap, bool *seeded) {
    *out = 0;
    *seeded = false;
    if (c->params_file && *m->param_cache) {
        snprintf(out, cap, "%s/%s", m->param_cache, c->params_file);
        if (file_size(out)) return;
        *out = 0;
    }
    const uint64_t seed = setup_seed(m, c);
    if (seed && *m->local_cache) snprintf(out, cap, "%s/cuzk-test-%s.params", m->local_cache, c->id);
    *seeded = seed != 0;
}

/* <local_cache>/cuzk-r1cs-<id>.bytes: the R1CS size of c's last recording, so that a load after a restart
 * reserves it before recording without counting it (r1cs_counted: a circuit's first load on a host). */
static void r1cs_note_path(const cz_srs_mgr *m, const cz_circuit *c, char *out, size_t cap) {
    snprintf(out, cap, "%s/cuzk-r1cs-%s.bytes", m->local_cache, c->id);
}

static uint64_t r1cs_note_read(const cz_srs_mgr *m, const cz_circuit *c) {
    char path[700];
    unsigned long long n = 0;
    if (!*m->local_cache) return 0;
    r1cs_note_path(m, c, path, sizeof path);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    if (fscanf(f, "%llu", &n) != 1) n = 0;
    fclose(f);
    return n;
}

/* Best effort (the cache may be read-only: then every restart's first load counts the file alone). */
static void r1cs_note_write(const cz_srs_mgr *m, const cz_circuit *c, uint64_t n) {
    char path[700], tmp[720];
    if (!*m->local_cache || r1cs_note_read(m, c) == n) return;
    r1cs_note_path(m, c, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    bool ok = f && fprintf(f, "%llu\n", (unsigned long long)n) > 0;
    if (f && fclose(f)) ok = false;
    if (!ok || rename(tmp, path)) {
        unlink(tmp);
        cz_log(CZ_LOG_DEBUG, T, "cannot write %s: the next first load of %s counts its parameter file only", path, c->id);
    }
}

/* c's count, or NULL (with m->mu held) */
static const cz_srs_count *count_memo(const cz_srs_mgr *m, const cz_circuit *c) {
    const cz_srs_count *k = m->counts;
    while (k && k->circuit != c) k = k->next;
    return k;
}

/* c's R1CS bytes from its count_r1cs hook (0: no hook, or the count failed), counted once per manager: the
 * lock is not held while counting (another caller may count the same circuit meanwhile: the first result
 * is kept, the same number). Without a note, the first load's estimate: before counting was there, a
 * first load reserved the parameter file alone (32 GiB PoRep: ~26 GB short). */
static uint64_t r1cs_counted(cz_srs_mgr *m, const cz_circuit *c, uint64_t *params) {
    pthread_mutex_lock(&m->mu);
    const cz_srs_count *k = count_memo(m, c);
    uint64_t n = k ? k->bytes : 0, pb = k ? k->params : 0;
    pthread_mutex_unlock(&m->mu);
    if (params) *params = pb;
    if (k || !c->count_r1cs) return n;
    uint64_t t0 = cz_now_ms();
    cz_r1cs_shape sh;
    int rc = c->count_r1cs(c, &sh);
    uint64_t ms = cz_now_ms() - t0;
    char why[300] = "";
    if (rc) snprintf(why, sizeof why, "%s", cz_error_message());
    n = rc ? 0 : cz_r1cs_shape_bytes(&sh);
    pb = rc ? 0 : cz_groth16_params_bound(sh.num_inputs, sh.num_aux, sh.num_rows);
    if (params) *params = pb;
    cz_srs_count *nk = malloc(sizeof *nk); /* out of memory: not kept, counted again next time */
    pthread_mutex_lock(&m->mu);
    const bool first = !count_memo(m, c);
    if (first && nk) {
        *nk = (cz_srs_count){c, n, pb, m->counts};
        m->counts = nk, nk = NULL;
    }
    pthread_mutex_unlock(&m->mu);
    free(nk);
    if (first && rc)
        cz_log(CZ_LOG_WARN, T, "cannot count the R1CS of %s (%s): its first load on this host reserves its parameter "
               "file alone", c->id, why);
    else if (first)
        cz_log(CZ_LOG_INFO, T, "R1CS of %s counted: %llu bytes in %llu ms (first load on this host: no "
               "%s/cuzk-r1cs-%s.bytes yet), reserved with its parameters", c->id, (unsigned long long)n,
               (unsigned long long)ms, m->local_cache, c->id);
    return n;
}

/* c's entry, or NULL (with m->mu held) */
static cz_srs_entry *find(const cz_srs_mgr *m, const cz_circuit *c) {
    cz_srs_entry *e = m->head;
    while (e && e->circuit != c) e = e->next;
    return e;
}

/* c's entry, created when there is none */
static cz_srs_entry *entry(cz_srs_mgr *m, const cz_circuit *c) {
    cz_srs_entry *e = find(m, c);
    if (e) return e;
    e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->circuit = c;
    e->next = m->head;
    m->head = e;
    return e;
}

void cz_srs_init(cz_srs_mgr *m, const char *param_cache, const char *local_cache, int nthreads) {
    memset(m, 0, sizeof *m);
    pthread_mutex_init(&m->mu, NULL);
    pthread_cond_init(&m->cv, NULL);
    snprintf(m->param_cache, sizeof m->param_cache, "%s", param_cache ? param_cache : "");
    snprintf(m->local_cache, sizeof m->local_cache, "%s", local_cache && *local_cache ? local_cache : m->param_cache);
    m->nthreads = nthreads;
    m->verify_digest = true;
    m->seeded_cache = true;
    for (size_t i = 0; i < cz_circuit_count(); i++) { /* COLD: known on disk */
        const cz_circuit *c = cz_circuit_at(i);
        char path[700];
        bool seeded;
        if (!c->available) continue;
        find_file(m, c, path, sizeof path, &seeded);
        uint64_t n = file_size(path);
        if (!n) continue;
        cz_srs_entry *e = entry(m, c);
        if (!e) break;
        e->file_bytes = n, e->seeded = seeded;
        snprintf(e->path, sizeof e->path, "%s", path);
        cz_log(CZ_LOG_INFO, T, "SRS known on disk (cold) circuit_id=%s file=%s bytes=%llu%s", c->id, path,
               (unsigned long long)n, seeded ? " (seeded local setup: not for real sectors)" : "");
    }
}

static void unmap(cz_srs_entry *e) {
    if (e->map) munmap(e->map, e->map_len);
    if (e->map_fd1) close(e->map_fd1 - 1);
    e->map = NULL, e->map_len = 0, e->map_fd1 = 0;
}

/* Whether the mapped file still has the size and modification time it had when mapped. A file cut short in place
 * (a download restarted over it, a full disk) would turn the decode's reads past its new end into SIGBUS, which
 * kills the daemon; one rewritten in place is no longer what was checked. A file replaced by a rename leaves the
 * mapped one as it was (intact). *why names the change. */
static bool map_intact(const cz_srs_entry *e, char *why, size_t n) {
    struct stat sb;
    if (!e->map_fd1 || fstat(e->map_fd1 - 1, &sb)) {
        snprintf(why, n, "cannot check the mapped file: %s", e->map_fd1 ? strerror(errno) : "not open");
        return false;
    }
    if ((size_t)sb.st_size != e->map_len) {
        snprintf(why, n, "%lld bytes, %zu when it was mapped", (long long)sb.st_size, e->map_len);
        return false;
    }
    if (sb.st_mtim.tv_sec != e->map_mtime.tv_sec || sb.st_mtim.tv_nsec != e->map_mtime.tv_nsec) {
        snprintf(why, n, "modified in place since it was mapped");
        return false;
    }
    return true;
}

/* [testing] called before each read of a mapping (the digest, a decode, a restore): the tests cut the file short there */
static void (*g_read_hook)(const char *path);
void cz_srs_set_read_hook_for_test(void (*fn)(const char *path)) { g_read_hook = fn; }

/* A read of e's mapping guarded against the file being cut short meanwhile (util/mapguard.h): CZ_EFORMAT naming the
 * file when it was (what was read is not the file), else 0. */
static void guard_begin(const cz_srs_entry *e, cz_mapguard *g) {
    if (g_read_hook) g_read_hook(e->path);
    cz_mapguard_begin(g, e->map, e->map_len);
}
static int guard_end(const cz_srs_entry *e, cz_mapguard *g, const char *what) {
    const unsigned cut = cz_mapguard_end(g);
    return cut ? cz_error(CZ_EFORMAT, "%s was cut short on disk while %s (%u pages of it gone): not used", e->path,
                          what, cut)
               : 0;
}

/* HOT -> WARM (keeps the mapping, drops its pages) or COLD (no mapping). */
static void demote_hot(cz_srs_entry *e) {
    cz_groth16_pvk_free(&e->pvk);
    cz_groth16_params_free(&e->params);
    cz_r1cs_free(&e->r1cs);
    e->bytes = 0;
    e->bases_released = false, e->bases_bytes = 0;
    if (e->map) {
        madvise(e->map, e->map_len, MADV_DONTNEED);
        e->state = CZ_SRS_WARM;
    } else {
        e->state = CZ_SRS_COLD;
    }
}

void cz_srs_destroy(cz_srs_mgr *m) {
    cz_srs_entry *e = m->head;
    while (e) {
        cz_srs_entry *n = e->next;
        if (e->state == CZ_SRS_HOT) demote_hot(e);
        unmap(e);
        free(e);
        e = n;
    }
    while (m->counts) {
        cz_srs_count *k = m->counts->next;
        free(m->counts);
        m->counts = k;
    }
    pthread_mutex_destroy(&m->mu);
    pthread_cond_destroy(&m->cv);
}

int cz_srs_tier(const cz_srs_entry *e) {
    return e->state == CZ_SRS_HOT ? CZ_TIER_HOT : e->state == CZ_SRS_WARM ? CZ_TIER_WARM : CZ_TIER_COLD;
}

const char *cz_srs_stage_name(int stage) {
    static const char *const names[] = {NULL, "reading", "recording", "digest", "coding", "decoding", "setup"};
    return stage > 0 && stage < (int)(sizeof names / sizeof *names) ? names[stage] : NULL;
}

static int missing(const cz_srs_mgr *m, const cz_circuit *c) {
    if (!c->params_file) return cz_error(CZ_ENOPARAMS, "no parameters for circuit %s", c->id);
    return cz_error(CZ_ENOPARAMS,
                    "SRS for %s not found: expected %s/%s (srs.param_cache; fetch the official Filecoin parameters "
                    "there, e.g. with `curio fetch-params` or `paramfetch`)",
                    c->id, *m->param_cache ? m->param_cache : "<srs.param_cache unset>", c->params_file);
}

int cz_srs_check(cz_srs_mgr *m, const cz_circuit *c) {
    if (!c->available || !c->build_r1cs) return cz_error(CZ_EUNSUPPORTED, "circuit %s is not available yet", c->id);
    if (setup_seed(m, c)) return 0;
    pthread_mutex_lock(&m->mu);
    int resident = 0;
    for (cz_srs_entry *e = m->head; e; e = e->next)
        if (e->circuit == c) resident = e->state != CZ_SRS_COLD;
    pthread_mutex_unlock(&m->mu);
    if (resident) return 0;
    char path[700];
    bool seeded;
    find_file(m, c, path, sizeof path, &seeded);
    return file_size(path) ? 0 : missing(m, c);
}

/* A LOADING entry belongs to its loader, which runs without m->mu, but the status (cz_engine_status_get) reads its
 * file size and seeded flag under m->mu meanwhile: the loader changes those two under the lock. */
static void publish(cz_srs_mgr *m, cz_srs_entry *e, uint64_t file_bytes, bool seeded) {
    pthread_mutex_lock(&m->mu);
    e->file_bytes = file_bytes, e->seeded = seeded;
    pthread_mutex_unlock(&m->mu);
}

/* The mapping of e->path (WARM's resource). */
static int map_file(cz_srs_mgr *m, cz_srs_entry *e) {
    if (e->map) return 0;
    int fd = open(e->path, O_RDONLY);
    if (fd < 0) return cz_error(CZ_EIO, "cannot open %s: %s", e->path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) || sb.st_size <= 0) {
        close(fd);
        return cz_error(CZ_EIO, "%s is empty or unreadable", e->path);
    }
    void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
        const int err = errno;
        close(fd);
        return cz_error(CZ_EIO, "cannot mmap %s: %s", e->path, strerror(err));
    }
    e->map = p, e->map_len = (size_t)sb.st_size;
    publish(m, e, (uint64_t)sb.st_size, e->seeded);
    e->map_fd1 = fd + 1, e->map_mtime = sb.st_mtim;
    return 0;
}

/* The parameters must be this circuit's: a wrong file (another sector size, a stale cache) would otherwise
 * fail only at proving time. */
static int check_shape(const cz_srs_entry *e) {
    const cz_groth16_params *p = &e->params;
    uint64_t n = 1;
    while (n < e->r1cs.num_rows) n <<= 1;
    if (p->vk.ic_len != e->r1cs.num_inputs || p->l_len != e->r1cs.num_aux || p->h_len + 1 != n)
        return cz_error(CZ_EFORMAT,
                        "%s does not match circuit %s: %zu inputs, %zu aux, H %zu (the circuit: %llu, %llu, %llu)",
                        e->path, e->circuit->id, p->vk.ic_len, p->l_len, p->h_len,
                        (unsigned long long)e->r1cs.num_inputs, (unsigned long long)e->r1cs.num_aux,
                        (unsigned long long)(n - 1));
    return 0;
}

/* Between the stages of a load and inside its long reads: CZ_ECANCELED once the daemon is shutting down. */
static int stopped(cz_srs_mgr *m, const cz_srs_entry *e, const char *where) {
    if (!atomic_load(&m->aborting)) return 0;
    cz_log(CZ_LOG_INFO, T, "SRS load of %s stopped %s: shutting down", e->circuit->id, where);
    return cz_error(CZ_ECANCELED, "SRS load of %s stopped: the daemon is shutting down", e->circuit->id);
}

/* The stop of the digest's and the decodes' pieces (a shutdown need not wait for a 47 GB file's ~45 s hash or ~17 s
 * decode, only for the piece under way). */
static bool aborting(void *m) { return atomic_load(&((cz_srs_mgr *)m)->aborting); }

/* An official file must be the one parameters.json names (go-paramfetch's digest): a truncated download or a
 * file of another release decodes fine when its shape matches, and would give proofs nobody accepts. */
static int check_digest(cz_srs_mgr *m, cz_srs_entry *e) {
    if (!m->verify_digest || e->seeded || e->digest_ok) return 0;
    const char *want = cz_param_digest_expected(e->path);
    if (!want) {
        cz_log(CZ_LOG_WARN, T, "%s is not in parameters.json: its digest is not checked", e->path);
        return 0;
    }
    if (cz_param_digest_memo_ok(m->local_cache, e->path, want)) {
        cz_log(CZ_LOG_INFO, T, "digest of %s ok (%s): unchanged since it was checked (%s/cuzk-digest-*.ok)", e->path,
               want, m->local_cache);
        e->digest_ok = true;
        return 0;
    }
    uint64_t t0 = cz_now_ms();
    char got[33], id[200];
    const bool have_id = cz_param_digest_identity(e->path, id, sizeof id);
    cz_mapguard g;
    guard_begin(e, &g);
    const int halted = cz_param_digest_until(got, e->map, e->map_len, aborting, m);
    int cut = guard_end(e, &g, "its digest was computed");
    madvise(e->map, e->map_len, MADV_DONTNEED);
    if (cut) return cut; /* the load unmaps it */
    if (halted) return stopped(m, e, "during the digest"); /* nothing known of the file: no memo kept or dropped */
    if (strcmp(got, want)) {
        cz_param_digest_memo_drop(m->local_cache, e->path);
        return cz_error(CZ_EFORMAT,
                        "digest mismatch: got %s, parameters.json says %s (BLAKE2b-512, first 16 bytes) for %s: "
                        "corrupt or not the official file; fetch it again (srs.verify_digest = false skips this check)",
                        got, want, e->path);
    }
    cz_log(CZ_LOG_INFO, T, "digest of %s ok (%s, %.1f s)", e->path, got, (cz_now_ms() - t0) / 1000.0);
    const int memo = have_id ? cz_param_digest_memo_store(m->local_cache, e->path, id, got) : 1;
    if (memo == 1) /* the file changed while it was hashed: its identity is not the one the digest is of */
        cz_log(CZ_LOG_DEBUG, T, "%s changed while it was hashed: no digest memo, the next start hashes it again",
               e->path);
    else if (memo) /* a read-only srs.local_cache (it defaults to srs.param_cache, often a shared read-only mount) */
        cz_log(CZ_LOG_WARN, T, "digest of %s not remembered (%s): every daemon start hashes it again (%.1f s now; "
               "~45 s for 32 GiB PoRep's 47 GB); point srs.local_cache at a writable directory", e->path,
               cz_error_message(), (cz_now_ms() - t0) / 1000.0);
    e->digest_ok = true;
    return 0;
}

/* Seeded setup, then (best effort) the cache file written atomically and mapped. */
static int seeded_setup(cz_srs_mgr *m, cz_srs_entry *e) {
    const cz_circuit *c = e->circuit;
    cz_log(CZ_LOG_WARN, T,
           "no official parameters for %s: running a seeded local setup (public seed: these parameters prove "
           "nothing about a real sector; test/demo use only)", c->id);
    cz_groth16_toxic tw;
    cz_groth16_toxic_from_seed(&tw, setup_seed(m, c));
    atomic_store(&e->stage, CZ_SRS_STAGE_SETUP);
    uint64_t t0 = cz_now_ms();
    cz_groth16_fb_ops ops = {0};
    if (m->fb_ops) ops = *m->fb_ops, ops.fail_count = 0;
    int rc = cz_groth16_setup_ex(&e->params, &e->r1cs, &tw, m->nthreads, m->fb_ops ? &ops : NULL);
    if (rc) return rc;
    cz_log(CZ_LOG_INFO, T, "seeded setup of %s done in %.1f s (fixed-base products on the %s%s)", c->id,
           (cz_now_ms() - t0) / 1000.0, m->fb_ops ? "GPU" : "CPU",
           ops.fail_count ? ", some on the CPU after the GPU failed" : "");
    publish(m, e, e->file_bytes, true);
    if (!m->seeded_cache) e->path[0] = 0; /* [testing] seeded_setup_cache = false: memory only */
    if (!e->path[0]) return 0;
    char tmp[720];
    snprintf(tmp, sizeof tmp, "%s.tmp%d", e->path, (int)getpid());
    mkdir(m->local_cache, 0755);
    if (cz_groth16_params_write_file(tmp, &e->params) == 0 && rename(tmp, e->path) == 0) {
        cz_log(CZ_LOG_INFO, T, "wrote seeded parameters %s (later loads read it)", e->path);
        if (map_file(m, e)) cz_log(CZ_LOG_WARN, T, "%s", cz_error_message());
        else madvise(e->map, e->map_len, MADV_DONTNEED);
    } else {
        cz_log(CZ_LOG_WARN, T, "cannot write %s (srs.local_cache): the setup will run again after eviction", tmp);
        unlink(tmp);
        e->path[0] = 0;
    }
    return 0;
}

void cz_srs_abort(cz_srs_mgr *m) {
    atomic_store(&m->aborting, true);
}

/* An official file's section counts, before its digest: one cut short (an interrupted download, a full disk) or of
 * another layout is refused at once by what is wrong with it, not after hashing 47 GB (~45 s) to a digest mismatch.
 * A few pages are read. The mapping is dropped on failure (the file must be fetched again). */
static int check_layout(cz_srs_entry *e) {
    cz_mapguard g;
    cz_groth16_params_layout lay;
    guard_begin(e, &g);
    int rc = cz_groth16_params_layout_of(&lay, e->map, e->map_len, e->path);
    const int cut = guard_end(e, &g, "its sections were counted");
    if (cut) rc = cut;
    else if (rc == CZ_EFORMAT) {
        char why[600];
        snprintf(why, sizeof why, "%s", cz_error_message());
        rc = cz_error(CZ_EFORMAT, "%s (%llu bytes: a download cut short or not a parameter file; fetch it again)", why,
                      (unsigned long long)e->map_len);
    }
    if (rc) unmap(e);
    return rc;
}

/* The digest on its own thread, beside the circuit recording (each ~1 min at 32 GiB PoRep): the check
 * reads only e->map and sets e->digest_ok, which nothing else touches while the entry is LOADING. */
typedef struct {
    cz_srs_mgr *m;
    cz_srs_entry *e;
    cz_error_kept err; /* its code and message, for the loading thread that joins it */
} digest_job;

static void *digest_thread(void *arg) {
    digest_job *j = arg;
    cz_error_keep(&j->err, check_digest(j->m, j->e));
    return NULL;
}

/* COLD/WARM -> HOT. Runs without the manager lock (the entry is LOADING, owned by this thread). */
static int load(cz_srs_mgr *m, cz_srs_entry *e) {
    const cz_circuit *c = e->circuit;
    if (!c->available || !c->build_r1cs) return cz_error(CZ_EUNSUPPORTED, "circuit %s is not available yet", c->id);
    char why[200];
    if (e->map && !map_intact(e, why, sizeof why)) { /* WARM over a file changed in place: read it again, checked again */
        cz_log(CZ_LOG_WARN, T, "%s changed on disk (%s): mapping it again", e->path, why);
        unmap(e);
        e->digest_ok = false;
    }
    if (!e->map) {
        bool seeded;
        find_file(m, c, e->path, sizeof e->path, &seeded);
        if (!file_size(e->path) && !seeded) return missing(m, c);
        publish(m, e, e->file_bytes, seeded);
    }
    /* An official file's digest is computed beside the circuit recording (one thread each; at 32 GiB
     * both take about a minute, which a serial load paid twice); a bad digest fails the load when both are
     * done, before anything is decoded. */
    int rc = stopped(m, e, "before it began");
    if (!rc && !e->map && e->path[0] && file_size(e->path)) rc = map_file(m, e);
    if (rc) return rc;
    if (e->map && !e->seeded && (rc = check_layout(e))) return rc;
    digest_job dj = {m, e, {0, ""}};
    pthread_t dth;
    const bool dig = e->map && m->verify_digest && !e->seeded && !e->digest_ok;
    const bool beside = dig && pthread_create(&dth, NULL, digest_thread, &dj) == 0;
    if (dig && !beside) { /* no thread: first, as before */
        atomic_store(&e->stage, CZ_SRS_STAGE_DIGEST);
        digest_thread(&dj);
    }
    uint64_t t0 = cz_now_ms();
    atomic_store(&e->stage, CZ_SRS_STAGE_RECORDING);
    rc = !beside && dj.err.code ? dj.err.code : c->build_r1cs(c, &e->r1cs, aborting, m); /* beside: after the join */
    const bool recorded = rc == 0; /* the recording ran and succeeded (not beside: only when the digest passed) */
    if (beside) { /* the recording is done, the digest may not be */
        atomic_store(&e->stage, CZ_SRS_STAGE_DIGEST);
        pthread_join(dth, NULL);
    }
    if (rc == CZ_ECANCELED && !dj.err.code) /* the shutdown's message (the recording's names the block) */
        (void)stopped(m, e, "during the circuit recording");
    if (dj.err.code) {
        if (recorded) cz_r1cs_free(&e->r1cs);
        unmap(e);
        return cz_error_take(&dj.err, NULL);
    }
    if (rc) return rc;
    if ((rc = stopped(m, e, "after recording the circuit"))) {
        cz_r1cs_free(&e->r1cs);
        return rc;
    }
    cz_log(CZ_LOG_INFO, T, "circuit %s recorded in %.2f s: %llu constraints, %llu inputs, %llu aux", c->id,
           (cz_now_ms() - t0) / 1000.0, (unsigned long long)e->r1cs.num_constraints,
           (unsigned long long)e->r1cs.num_inputs, (unsigned long long)e->r1cs.num_aux);
    /* what the recording holds (the count's formula: a value a term) before its coefficients are coded, here,
     * before the parameters are decoded: a load's peak is the larger of that and the HOT size (the parameters and
     * the coded R1CS), which is the HOT size for Filecoin's circuits (32 GiB PoRep: 26 GB against 47 + 8) */
    const cz_r1cs_shape shape = cz_r1cs_shape_of(&e->r1cs);
    const uint64_t rb_full = cz_r1cs_shape_bytes(&shape);
    t0 = cz_now_ms();
    atomic_store(&e->stage, CZ_SRS_STAGE_CODING);
    if (cz_r1cs_code(&e->r1cs, m->nthreads)) /* out of memory: the matrices not coded stay values */
        cz_log(CZ_LOG_WARN, T, "R1CS of %s: coefficients not all coded (%s)", c->id, cz_error_message());
    cz_log(CZ_LOG_INFO, T, "R1CS of %s: coefficients coded in %.2f s (%u / %u / %u distinct in A / B / C), %.2f GB "
           "-> %.2f GB", c->id, (cz_now_ms() - t0) / 1000.0, e->r1cs.a.ncoeffs, e->r1cs.b.ncoeffs, e->r1cs.c.ncoeffs,
           rb_full / 1e9, cz_r1cs_host_bytes(&e->r1cs) / 1e9);
    if (!rc && e->map) {
        cz_mapguard g;
        atomic_store(&e->stage, CZ_SRS_STAGE_DECODING);
        guard_begin(e, &g);
        rc = cz_groth16_params_decode_until(&e->params, e->map, e->map_len, e->path, 0, aborting, m);
        const int cut = guard_end(e, &g, "it was decoded");
        if (cut && !rc) cz_groth16_params_free(&e->params);
        if (cut) rc = cut; /* unmapped below (its missing pages are zero pages now) */
        madvise(e->map, e->map_len, MADV_DONTNEED); /* decoded: the file pages are not needed while HOT */
        if (rc == CZ_ECANCELED) /* stopped by a shutdown, not the file's fault: it stays mapped (WARM), not unlinked */
            rc = stopped(m, e, "during the decode");
        else if (!rc && (rc = check_shape(e))) cz_groth16_params_free(&e->params);
        if (!rc && (rc = stopped(m, e, "after the decode"))) cz_groth16_params_free(&e->params);
        else if (rc && rc != CZ_ECANCELED) {
            unmap(e);
            if (e->seeded) { /* a stale or truncated cache file: redo the setup */
                cz_log(CZ_LOG_WARN, T, "ignoring %s: %s", e->path, cz_error_message());
                unlink(e->path);
                rc = stopped(m, e, "before the seeded setup");
                if (!rc) rc = seeded_setup(m, e);
            }
        }
    } else if (!rc) {
        rc = stopped(m, e, "before the seeded setup");
        if (!rc) rc = seeded_setup(m, e);
    }
    if (!rc && (rc = cz_groth16_pvk_init(&e->pvk, &e->params.vk))) cz_groth16_params_free(&e->params);
    if (rc) {
        cz_r1cs_free(&e->r1cs);
        return rc;
    }
    /* the R1CS is charged with its parameters as it is held, coded (cz_r1cs_host_bytes): 32 GiB PoRep's ~722 M
     * terms at 8 bytes, ~8 GB with the row pointers (26 GB at 36 bytes, as a count's formula and rb_full say); a
     * load after a restart reserves that (r1cs_note_write) */
    const uint64_t rb = cz_r1cs_host_bytes(&e->r1cs);
    uint64_t counted = 0;
    pthread_mutex_lock(&m->mu);
    const cz_srs_count *k = count_memo(m, c);
    if (k) counted = k->bytes;
    pthread_mutex_unlock(&m->mu);
    if (counted && counted != rb_full) /* the count's blocks were not all of block 0's shape (cz_cs_record_blocks) */
        cz_log(CZ_LOG_WARN, T, "R1CS of %s: recorded %llu bytes, its count said %llu: the count is wrong (its first "
               "load reserved the count; later loads reserve the recorded size)", c->id, (unsigned long long)rb_full,
               (unsigned long long)counted);
    else if (!counted && !e->hot_bytes && !r1cs_note_read(m, c))
        cz_log(CZ_LOG_INFO, T, "R1CS of %s: %llu bytes, charged to the memory budget with its parameters from now on "
               "(this first load was estimated from the parameter file alone)", c->id, (unsigned long long)rb);
    r1cs_note_write(m, c, rb);
    e->bytes = e->hot_bytes = cz_groth16_params_size(&e->params) + rb;
    return 0;
}

/* With m->mu held: waits out another loader, loads when not HOT. */
static int ensure(cz_srs_mgr *m, cz_srs_entry *e, uint64_t *load_ms, bool *already) {
    while (e->state == CZ_SRS_LOADING) pthread_cond_wait(&m->cv, &m->mu);
    if (already) *already = e->state == CZ_SRS_HOT;
    *load_ms = 0;
    if (e->state == CZ_SRS_HOT) {
        e->reserved = 0;
        return 0;
    }
    int from = e->state;
    e->state = CZ_SRS_LOADING;
    uint64_t t0 = e->load_began_ms = cz_now_ms();
    atomic_store(&e->stage, CZ_SRS_STAGE_READING);
    pthread_mutex_unlock(&m->mu);
    int rc = load(m, e);
    uint64_t dt = cz_now_ms() - t0;
    pthread_mutex_lock(&m->mu);
    atomic_store(&e->stage, CZ_SRS_STAGE_NONE);
    e->state = rc ? (e->map ? CZ_SRS_WARM : CZ_SRS_COLD) : CZ_SRS_HOT;
    e->reserved = 0; /* from here its real size counts (or nothing) */
    pthread_cond_broadcast(&m->cv);
    if (rc) return rc;
    e->load_ms = *load_ms = dt;
    cz_log(CZ_LOG_INFO, T, "SRS loaded successfully circuit_id=%s from=%s bytes=%llu load_ms=%llu%s", e->circuit->id,
           from == CZ_SRS_WARM ? "warm" : "cold", (unsigned long long)e->bytes, (unsigned long long)dt,
           e->circuit->is_test ? " (built-in TEST circuit: seeded parameters, not for real sectors)"
           : e->seeded         ? " (seeded local setup: not for real sectors)"
                               : "");
    return 0;
}

int cz_srs_acquire(cz_srs_mgr *m, const cz_circuit *c, cz_srs_entry **out, uint64_t *load_ms) {
    pthread_mutex_lock(&m->mu);
    cz_srs_entry *e = entry(m, c);
    int rc = e ? 0 : cz_error(CZ_ENOMEM, "out of memory");
    if (!rc) e->refs++; /* held across the load so an evict cannot race it */
    if (!rc && (rc = ensure(m, e, load_ms, NULL))) e->refs--;
    if (!rc) {
        e->last_used_ms = cz_now_ms();
        *out = e;
    }
    pthread_mutex_unlock(&m->mu);
    return rc;
}

bool cz_srs_try_acquire(cz_srs_mgr *m, const cz_circuit *c, cz_srs_entry **out) {
    pthread_mutex_lock(&m->mu);
    cz_srs_entry *e = find(m, c);
    bool hot = e && e->state == CZ_SRS_HOT;
    if (hot) e->refs++, e->last_used_ms = cz_now_ms(), *out = e;
    pthread_mutex_unlock(&m->mu);
    return hot;
}

bool cz_srs_hot(cz_srs_mgr *m, const cz_circuit *c) {
    pthread_mutex_lock(&m->mu);
    const cz_srs_entry *e = find(m, c);
    bool hot = e && e->state == CZ_SRS_HOT;
    pthread_mutex_unlock(&m->mu);
    return hot;
}

void cz_srs_release(cz_srs_mgr *m, cz_srs_entry *e) {
    pthread_mutex_lock(&m->mu);
    e->refs--;
    e->last_used_ms = cz_now_ms();
    pthread_mutex_unlock(&m->mu);
}

int cz_srs_preload_ref(cz_srs_mgr *m, const cz_circuit *c, bool *already, uint64_t *load_ms, cz_srs_entry **ref,
                       uint32_t nrefs) {
    pthread_mutex_lock(&m->mu);
    cz_srs_entry *e = entry(m, c);
    int rc = e ? ensure(m, e, load_ms, already) : cz_error(CZ_ENOMEM, "out of memory");
    if (!rc) e->last_used_ms = cz_now_ms();
    if (ref) *ref = rc ? NULL : e;
    if (!rc && ref) e->refs += nrefs;
    pthread_mutex_unlock(&m->mu);
    return rc;
}

int cz_srs_preload(cz_srs_mgr *m, const cz_circuit *c, bool *already, uint64_t *load_ms) {
    return cz_srs_preload_ref(m, c, already, load_ms, NULL, 0);
}

int cz_srs_evict(cz_srs_mgr *m, const cz_circuit *c, bool *was_loaded, uint64_t *freed) {
    pthread_mutex_lock(&m->mu);
    *was_loaded = false, *freed = 0;
    int rc = 0;
    for (cz_srs_entry *e = m->head; e; e = e->next) {
        if (e->circuit != c) continue;
        if (e->state == CZ_SRS_LOADING) { /* answered now: a 32 GiB load takes minutes, and a job holds what it loads */
            const char *stage = cz_srs_stage_name(atomic_load(&e->stage));
            rc = cz_error(CZ_EBUSY, "SRS %s is loading (%s): evict it once it is loaded", c->id,
                          stage ? stage : "under way");
            break;
        }
        if (e->state == CZ_SRS_HOT) {
            if (e->refs) {
                rc = cz_error(CZ_EBUSY, "SRS %s is in use (%u reference(s): jobs, or a GPU prover's build after "
                              "a PreloadSRS)", c->id, e->refs);
                break;
            }
            *was_loaded = true;
            *freed = e->bytes;
            demote_hot(e);
            cz_log(CZ_LOG_INFO, T, "SRS evicted circuit_id=%s freed_bytes=%llu tier=%s", c->id,
                   (unsigned long long)*freed, e->state == CZ_SRS_WARM ? "warm" : "cold");
        } else if (e->state == CZ_SRS_WARM) {
            unmap(e);
            e->state = CZ_SRS_COLD;
            cz_log(CZ_LOG_INFO, T, "SRS unmapped circuit_id=%s tier=cold", c->id);
        }
        break;
    }
    pthread_mutex_unlock(&m->mu);
    return rc;
}

uint64_t cz_srs_loaded_bytes(cz_srs_mgr *m) {
    pthread_mutex_lock(&m->mu);
    uint64_t n = 0;
    for (cz_srs_entry *e = m->head; e; e = e->next) n += e->state == CZ_SRS_HOT ? e->bytes : e->reserved;
    pthread_mutex_unlock(&m->mu);
    return n;
}

uint64_t cz_srs_pinned_bytes(cz_srs_mgr *m) {
    pthread_mutex_lock(&m->mu);
    uint64_t n = 0;
    for (cz_srs_entry *e = m->head; e; e = e->next) n += e->state == CZ_SRS_HOT ? (e->refs ? e->bytes : 0) : e->reserved;
    pthread_mutex_unlock(&m->mu);
    return n;
}

static bool evictable(const cz_srs_entry *e, uint64_t now, uint64_t min_idle_ms) {
    return e->state == CZ_SRS_HOT && !e->refs && now - e->last_used_ms >= min_idle_ms;
}

/* With m->mu held. */
static uint64_t evict_idle_locked(cz_srs_mgr *m, uint64_t need, uint64_t min_idle_ms) {
    uint64_t freed = 0, now = cz_now_ms();
    while (freed < need) {
        cz_srs_entry *lru = NULL;
        for (cz_srs_entry *e = m->head; e; e = e->next)
            if (evictable(e, now, min_idle_ms) && (!lru || e->last_used_ms < lru->last_used_ms)) lru = e;
        if (!lru) break;
        freed += lru->bytes;
        cz_log(CZ_LOG_INFO, T, "SRS demoted for memory pressure circuit_id=%s bytes=%llu idle_ms=%llu",
               lru->circuit->id, (unsigned long long)lru->bytes, (unsigned long long)(now - lru->last_used_ms));
        demote_hot(lru);
    }
    return freed;
}

uint64_t cz_srs_evict_idle(cz_srs_mgr *m, uint64_t need, uint64_t min_idle_ms) {
    pthread_mutex_lock(&m->mu);
    uint64_t freed = evict_idle_locked(m, need, min_idle_ms);
    pthread_mutex_unlock(&m->mu);
    return freed;
}

int cz_srs_reserve(cz_srs_mgr *m, const cz_circuit *c, uint64_t bytes) {
    pthread_mutex_lock(&m->mu);
    cz_srs_entry *e = entry(m, c);
    if (e && e->state != CZ_SRS_HOT) e->reserved = bytes;
    pthread_mutex_unlock(&m->mu);
    return e ? 0 : cz_error(CZ_ENOMEM, "out of memory");
}

uint64_t cz_srs_make_room(cz_srs_mgr *m, uint64_t need, uint64_t min_idle_ms) {
    pthread_mutex_lock(&m->mu);
    uint64_t idle = 0, now = cz_now_ms(), freed = 0;
    for (cz_srs_entry *e = m->head; e; e = e->next) idle += evictable(e, now, min_idle_ms) ? e->bytes : 0;
    if (idle >= need) freed = evict_idle_locked(m, need, min_idle_ms);
    pthread_mutex_unlock(&m->mu);
    return freed;
}

bool cz_srs_needs_load(cz_srs_mgr *m, const cz_circuit *c, uint64_t *bytes) {
    uint64_t n = 0;
    pthread_mutex_lock(&m->mu);
    const cz_srs_entry *e = find(m, c);
    bool load = !e || (e->state != CZ_SRS_HOT && e->state != CZ_SRS_LOADING && !e->reserved);
    if (e && load) n = e->hot_bytes ? e->hot_bytes : e->file_bytes;
    bool known = load && e && e->hot_bytes;
    pthread_mutex_unlock(&m->mu);
    if (!bytes) return load; /* the answer alone: no file looked at */
    bool seeded = false;
    if (load && !n) { /* not known to the manager yet: the file it would be read from */
        char path[700];
        find_file(m, c, path, sizeof path, &seeded);
        n = file_size(path);
    }
    if (load && !known && !n && seeded) { /* a seeded setup with no file (first, or uncached): its count's bound */
        uint64_t pb = 0, r = r1cs_counted(m, c, &pb);
        n = pb ? pb + r : 0;
    } else if (load && !known && n) { /* the file's size: plus the R1CS recorded, else counted */
        const uint64_t noted = r1cs_note_read(m, c);
        n += noted ? noted : r1cs_counted(m, c, NULL);
    }
    *bytes = n;
    return load;
}

/* ---- the bases' host copy released while GPUs hold them (srs.release_resident_bases) ---- */

int cz_srs_release_bases(cz_srs_mgr *m, cz_srs_entry *e, uint64_t *freed) {
    *freed = 0;
    pthread_mutex_lock(&m->mu);
    int rc = 0;
    if (e->state != CZ_SRS_HOT || e->restoring)
        rc = cz_error(CZ_EBUSY, "SRS %s is not loaded (or its bases are being restored)", e->circuit->id);
    else if (!e->map)
        rc = cz_error(CZ_EUNSUPPORTED, "SRS %s has no parameter file to decode its bases from again", e->circuit->id);
    if (!rc && !e->bases_released) {
        cz_groth16_params *p = &e->params;
        free(p->h), free(p->l), free(p->a), free(p->b_g1), free(p->b_g2);
        p->h = p->l = p->a = p->b_g1 = NULL, p->b_g2 = NULL;
        e->bases_bytes = cz_groth16_params_bases_bytes(p);
        e->bytes -= e->bases_bytes < e->bytes ? e->bases_bytes : e->bytes;
        e->bases_released = true;
        *freed = e->bases_bytes;
    }
    pthread_mutex_unlock(&m->mu);
    return rc;
}

bool cz_srs_releasable(cz_srs_mgr *m, cz_srs_entry *e) {
    pthread_mutex_lock(&m->mu);
    const bool r = e->state == CZ_SRS_HOT && e->map && !e->bases_released && !e->restoring;
    pthread_mutex_unlock(&m->mu);
    return r;
}

bool cz_srs_with_params(cz_srs_mgr *m, cz_srs_entry *e, bool (*fn)(void *ctx, const cz_groth16_params *p,
                                                                   const cz_r1cs *r), void *ctx) {
    pthread_mutex_lock(&m->mu);
    const bool r = fn(ctx, &e->params, &e->r1cs);
    pthread_mutex_unlock(&m->mu);
    return r;
}

uint64_t cz_srs_released_bytes(cz_srs_mgr *m, cz_srs_entry *e) {
    pthread_mutex_lock(&m->mu);
    const uint64_t n = e->bases_released ? e->bases_bytes : 0;
    pthread_mutex_unlock(&m->mu);
    return n;
}

static bool vk_same(const cz_groth16_vk *a, const cz_groth16_vk *b) {
    const size_t n = cz_groth16_vk_size(a);
    if (n != cz_groth16_vk_size(b)) return false;
    uint8_t *x = malloc(2 * n);
    if (!x) return false;
    cz_groth16_vk_encode(x, a);
    cz_groth16_vk_encode(x + n, b);
    const bool same = memcmp(x, x + n, n) == 0;
    free(x);
    return same;
}

int cz_srs_restore_bases(cz_srs_mgr *m, cz_srs_entry *e, void (*publish_begin)(void *), void (*publish_end)(void *),
                         void *ctx, uint64_t *ms) {
    *ms = 0;
    pthread_mutex_lock(&m->mu);
    while (e->restoring) pthread_cond_wait(&m->cv, &m->mu);
    if (!e->bases_released) { /* never released, or restored by the caller waited for */
        pthread_mutex_unlock(&m->mu);
        return 0;
    }
    e->restoring = true;
    pthread_mutex_unlock(&m->mu);
    const uint64_t t0 = cz_now_ms();
    cz_groth16_params d;
    memset(&d, 0, sizeof d);
    /* the mapping stays while HOT (the entry is referenced by the caller's job, so it is not demoted meanwhile); a file
     * changed in place since is not read (cut short, its pages past the new end would raise SIGBUS) */
    char why[200];
    int rc = map_intact(e, why, sizeof why) ? 0 : cz_error(CZ_EFORMAT, "%s changed on disk (%s) since circuit %s loaded "
                                                           "it: its bases cannot be restored", e->path, why, e->circuit->id);
    if (!rc) {
        cz_mapguard g;
        guard_begin(e, &g);
        rc = cz_groth16_params_decode_until(&d, e->map, e->map_len, e->path, 0, aborting, m);
        /* cut short: a later restore finds it changed (map_intact) and never reads the zero pages put there */
        const int cut = guard_end(e, &g, "its bases were decoded again");
        if (cut) cz_groth16_params_free(&d), rc = cut;
    }
    madvise(e->map, e->map_len, MADV_DONTNEED);
    const cz_groth16_params *p = &e->params;
    if (!rc && (d.h_len != p->h_len || d.l_len != p->l_len || d.a_len != p->a_len || d.b_len != p->b_len ||
                !vk_same(&d.vk, &p->vk)))
        rc = cz_error(CZ_EFORMAT, "%s changed since circuit %s loaded it: its bases cannot be restored (H %zu / %zu, "
                      "L %zu / %zu, A %zu / %zu, B %zu / %zu, vk %s)", e->path, e->circuit->id, d.h_len, p->h_len,
                      d.l_len, p->l_len, d.a_len, p->a_len, d.b_len, p->b_len,
                      vk_same(&d.vk, &p->vk) ? "the same" : "another");
    else if (rc) {
        char why[512];
        snprintf(why, sizeof why, "%s", cz_error_message());
        rc = cz_error(rc, "restoring the bases of circuit %s: %s", e->circuit->id, why);
    }
    if (!rc) {
        publish_begin(ctx);
        pthread_mutex_lock(&m->mu);
        e->params.h = d.h, e->params.l = d.l, e->params.a = d.a, e->params.b_g1 = d.b_g1, e->params.b_g2 = d.b_g2;
        d.h = d.l = d.a = d.b_g1 = NULL, d.b_g2 = NULL;
        e->bytes += e->bases_bytes;
        e->bases_released = false, e->bases_bytes = 0;
        pthread_mutex_unlock(&m->mu);
        publish_end(ctx);
        *ms = cz_now_ms() - t0;
        cz_log(CZ_LOG_INFO, T, "SRS bases restored circuit_id=%s bytes=%llu load_ms=%llu (decoded again from %s)",
               e->circuit->id, (unsigned long long)cz_groth16_params_bases_bytes(&e->params), (unsigned long long)*ms, e->path);
    }
    cz_groth16_params_free(&d);
    pthread_mutex_lock(&m->mu);
    e->restoring = false;
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->mu);
    return rc;
}
