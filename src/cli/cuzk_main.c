/* cuzk: the proving daemon. `cuzk [-c|--config PATH] [-l|--listen ADDR] [--log-level LEVEL] [--check-config]`.
 * Startup: config -> engine -> HTTP status (optional) -> gRPC. SIGTERM/SIGINT: stop accepting calls, with
 * daemon.drain_timeout let the accepted jobs finish for that long (a second signal cuts it short), then cancel queued
 * work and running work at the next partition boundary, answer every waiting call, exit 0 (cuzk kept running after
 * SIGINT and ignored SIGTERM, and had no drain). With gpus.exit_when_all_lost, the loss of the
 * last GPU does the same and exits 75 (EX_TEMPFAIL), for a supervisor to restart the daemon. */
#include <errno.h>
#include <grpc/grpc.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cz_error.h"
#include "engine/backend.h"
#include "engine/circuit.h"
#include "engine/config.h"
#include "engine/engine.h"
#include "engine/log.h"
#include "groth16/params.h"
#include "server/http.h"
#include "server/rpc.h"
#include "util/version.h"

#define DEFAULT_CONFIG "/data/zk/cuzk.toml"

#ifdef CZ_HAVE_CUDA
/* The GPU seam (engine/backend.h): with CUDA in the build, gpus.backend auto/gpu proves on the GPUs
 * (gpu_provider.c); auto falls back to the CPU backend when no device is found. */
#include "gpu/gpu.h"
#include "gpu_provider.h"
#endif

static atomic_bool all_gpus_lost;

/* The engine's all-lost hook: wakes the main thread's sigwait (every thread blocks SIGUSR1). */
static void all_lost(void *arg) {
    (void)arg;
    atomic_store(&all_gpus_lost, true);
    kill(getpid(), SIGUSR1);
}

/* daemon.drain_timeout: the jobs already accepted run on (the gRPC server takes no new calls), at most timeout_s, and
 * a second SIGTERM/SIGINT ends the wait; what is left is cancelled by the shutdown after. The loss of the last GPU
 * meanwhile (SIGUSR1 with all_gpus_lost) ends it too and sets the exit status. */
static void drain(cz_engine *e, const sigset_t *sigs, uint64_t timeout_s, int *status) {
    const uint64_t t0 = cz_now_ms(), end = t0 + timeout_s * 1000;
    uint32_t left = cz_engine_drain(e, 0);
    cz_log(CZ_LOG_INFO, "cuzk", "draining: %u job(s) in flight may finish within %llu s (daemon.drain_timeout); no new "
           "calls; a second SIGTERM or SIGINT cancels them", left, (unsigned long long)timeout_s);
    const struct timespec now = {0, 0};
    while (left) {
        const uint64_t t = cz_now_ms();
        if (t >= end) {
            cz_log(CZ_LOG_WARN, "cuzk", "drain: %u job(s) unfinished after %llu s: cancelling them", left,
                   (unsigned long long)timeout_s);
            return;
        }
        left = cz_engine_drain(e, end - t < 100 ? end - t : 100);
        const int sig = sigtimedwait(sigs, NULL, &now);
        if (sig == SIGUSR1 && atomic_load(&all_gpus_lost)) {
            *status = 75;
            cz_log(CZ_LOG_ERROR, "cuzk", "every GPU is lost during the drain: exit with status 75");
            return;
        }
        if (sig == SIGTERM || sig == SIGINT) {
            cz_log(CZ_LOG_INFO, "cuzk", "received %s again: cancelling the %u job(s) left",
                   sig == SIGTERM ? "SIGTERM" : "SIGINT", left);
            return;
        }
    }
    cz_log(CZ_LOG_INFO, "cuzk", "drained in %.1f s: every accepted job ended", (cz_now_ms() - t0) / 1000.0);
}

/* Whether the daemon can write files in dir: "" when it can (or can create it: its parent is writable), else why
 * not (the system's reason). */
static const char *unwritable(const char *dir) {
    if (!access(dir, W_OK)) return "";
    if (errno == ENOENT) {
        char parent[600];
        snprintf(parent, sizeof parent, "%s", dir);
        char *slash = strrchr(parent, '/');
        if (slash) *(slash == parent ? slash + 1 : slash) = 0;
        if (slash && !access(parent, W_OK)) return "";
    }
    return strerror(errno);
}

static void put_line(void *ctx, const char *text) {
    (void)ctx;
    printf("%s\n", text);
}

/* --check-config: the config as the daemon would take it (its errors were printed and exit 1 before this), the
 * listen addresses' syntax (not bound), the GPUs it would prove on (none opened: cz_backend_check), the memory
 * budget it resolves to, whether srs.local_cache is writable (a warning), and which official parameter files
 * srs.param_cache holds, each one's sections counted (a file cut short is NOT OK). 0 when the daemon would start on
 * it and every file found is whole, else 1. */
static int check_config(const cz_config *cfg, const char *path) {
    int bad = 0;
    printf("cuzk %s\n", cz_version_line());
    printf("config: %s\n", path ? path : "(none: the built-in defaults)");
    if (cz_rpc_check_listen(cfg->listen)) bad = 1, fprintf(stderr, "cuzk: %s\n", cz_error_message());
    else printf("daemon.listen: %s\n", cfg->listen);
    if (*cfg->status_listen && cz_http_check_listen(cfg->status_listen))
        bad = 1, fprintf(stderr, "cuzk: %s\n", cz_error_message());
    else printf("daemon.status_listen: %s\n", *cfg->status_listen ? cfg->status_listen : "(off)");
    printf("daemon.drain_timeout: %llu s%s\n", (unsigned long long)cfg->drain_timeout_s,
           cfg->drain_timeout_s ? "" : " (SIGTERM cancels the proofs in flight)");
    /* the GPUs as the daemon would pick them, none opened (a daemon may be proving on them) */
    printf("gpus.backend: %s\n", cfg->backend);
    if (cz_backend_check(cfg, put_line, NULL)) bad = 1;
    const uint64_t budget = cz_config_budget(cfg);
    printf("memory.total_budget: %.1f GiB%s\n", budget / 1073741824.0,
           cfg->total_budget ? "" : " (auto: MemTotal less memory.safety_margin)");
    struct stat sb;
    const bool dir = stat(cfg->param_cache, &sb) == 0 && S_ISDIR(sb.st_mode);
    printf("srs.param_cache: %s%s\n", cfg->param_cache, dir ? "" : " (not a directory: no official parameters)");
    /* where the daemon remembers digests, seeded setups and R1CS sizes: srs.param_cache unless set, and that is often
     * a read-only mount shared by a farm's hosts; a warning, not an error (the daemon runs, it redoes work) */
    const char *lc = *cfg->local_cache ? cfg->local_cache : cfg->param_cache, *why = unwritable(lc);
    printf("srs.local_cache: %s%s%s%s\n", lc, *why ? " (not writable: " : "", why,
           *why ? "; every start hashes each official file again, ~45 s at 32 GiB PoRep: set srs.local_cache to a "
                  "writable directory)" : "");
    if (cfg->h_lagrange && *cfg->h_lagrange_cache && *(why = unwritable(cfg->h_lagrange_cache)))
        printf("gpus.h_lagrange_cache: %s (not writable: %s; a Lagrange prover's bases are built again at each "
               "creation, 8.3 minutes at 32 GiB PoRep on an H200)\n", cfg->h_lagrange_cache, why);
    unsigned have = 0, known = 0;
    for (size_t i = 0; i < cz_circuit_count(); i++) {
        const cz_circuit *c = cz_circuit_at(i);
        if (!c->available || !c->params_file) continue;
        known++;
        char p[1200];
        snprintf(p, sizeof p, "%s/%s", cfg->param_cache, c->params_file);
        if (!dir || stat(p, &sb) || !S_ISREG(sb.st_mode)) continue;
        have++;
        /* its section counts (a few pages read): a download cut short is named now, not at the first proof of the
         * kind after a 47 GB hash; the contents are checked by the load (digest, every point) */
        cz_groth16_params_layout lay;
        uint64_t size = 0;
        const int lrc = cz_groth16_params_file_layout(&lay, &size, p);
        if (!lrc && lay.end == size) {
            printf("  %-12s %s (%.2f GB: H %zu, L %zu, A %zu, B %zu points, %zu inputs)\n", c->id, c->params_file,
                   sb.st_size / 1e9, lay.h_len, lay.l_len, lay.a_len, lay.b_len, lay.ic_len);
            continue;
        }
        bad = 1;
        printf("  %-12s %s (%.2f GB): NOT OK\n", c->id, c->params_file, sb.st_size / 1e9);
        if (lrc) fprintf(stderr, "cuzk: %s (fetch it again)\n", cz_error_message());
        else /* bellperson would read it; the official file has nothing there, so its digest would not match */
            fprintf(stderr, "cuzk: %s: %llu bytes after its last section (B_G2 ends at byte %llu): not the official "
                    "file, whose digest would not match (fetch it again)\n", p,
                    (unsigned long long)(size - lay.end), (unsigned long long)lay.end);
    }
    printf("official parameter files: %u of %u circuits%s\n", have, known,
           have < known ? " (a circuit without its file is refused FAILED_PRECONDITION; fetch those the host proves)"
                        : "");
    printf(bad ? "config: NOT OK\n" : "config: OK\n");
    return bad;
}

static void usage(FILE *f) {
    fprintf(f,
            "usage: cuzk [-c|--config PATH] [-l|--listen ADDR] [--log-level LEVEL] [--check-config] [-V|--version]\n"
            "  -c, --config PATH    TOML config (default " DEFAULT_CONFIG "; built-in defaults when that is absent)\n"
            "  -l, --listen ADDR    gRPC address(es): unix:///abs/path or IP:port, comma-separated\n"
            "      --log-level LVL  error|warn|info|debug|trace|off, or a filter such as info,cuzk_core=debug\n"
            "                       (overrides logging.level; RUST_LOG overrides both)\n"
            "      --check-config   check the config (and what srs.param_cache holds), print it, exit 0 or 1\n"
            "  -V, --version        the version, the git commit built and the CUDA architectures, then exit\n");
}

int main(int argc, char **argv) {
    const char *config = NULL, *listen = NULL, *level = NULL;
    bool check = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **dst = NULL;
        const char *val = NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
            printf("cuzk %s\n", cz_version_line());
            return 0;
        }
        if (!strcmp(a, "-c") || !strcmp(a, "--config")) dst = &config;
        else if (!strcmp(a, "-l") || !strcmp(a, "--listen")) dst = &listen;
        else if (!strcmp(a, "--log-level")) dst = &level;
        else if (!strcmp(a, "--check-config")) check = true;
        else if (!strncmp(a, "--config=", 9)) config = a + 9;
        else if (!strncmp(a, "--listen=", 9)) listen = a + 9;
        else if (!strncmp(a, "--log-level=", 12)) level = a + 12;
        else {
            fprintf(stderr, "cuzk: unknown argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
        if (dst) {
            if (i + 1 >= argc) {
                fprintf(stderr, "cuzk: %s needs a value\n", a);
                return 2;
            }
            val = argv[++i];
            *dst = val;
        }
    }
#ifdef CZ_HAVE_CUDA
    cz_gpu_load_kernels_eagerly(); /* before any CUDA call: no kernel loads in the middle of a partition */
    cz_backend_set_gpu_provider(&cz_daemon_gpu_provider);
#endif
    cz_config cfg;
    cz_config_defaults(&cfg);
    if (config || access(DEFAULT_CONFIG, F_OK) == 0) {
        const char *path = config ? config : DEFAULT_CONFIG;
        if (cz_config_load_file(&cfg, path)) {
            fprintf(stderr, "cuzk: config error: %s\n", cz_error_message());
            return 1;
        }
    }
    if (listen) snprintf(cfg.listen, sizeof cfg.listen, "%s", listen);
    if (level) {
        if (cz_log_set_level(level)) {
            fprintf(stderr, "cuzk: --log-level: %s\n", cz_error_message());
            return 2;
        }
        snprintf(cfg.log_level, sizeof cfg.log_level, "%s", level);
    }
    const char *rust_log = getenv("RUST_LOG"); /* wins over both, as in cuzk */
    if (rust_log && *rust_log) {
        if (cz_log_set_level(rust_log))
            fprintf(stderr, "cuzk: RUST_LOG ignored: %s\n", cz_error_message()); /* whatever the level */
        else
            snprintf(cfg.log_level, sizeof cfg.log_level, "%.*s", (int)sizeof cfg.log_level - 1, rust_log);
    }
    if (!cfg.pipeline_enabled)
        cz_log(CZ_LOG_WARN, "cuzk", "pipeline.enabled=false (monolithic mode) is not implemented; using the pipeline");
    if (cfg.max_batch_size > 1)
        cz_log(CZ_LOG_WARN, "cuzk", "scheduler.max_batch_size>1 (cross-sector batching) is not implemented; ignored");
    if (check) return check_config(&cfg, config ? config : access(DEFAULT_CONFIG, F_OK) == 0 ? DEFAULT_CONFIG : NULL);
#ifdef CZ_HAVE_CUDA
    {
        const char *ml = getenv("CUDA_MODULE_LOADING");
        cz_log(CZ_LOG_INFO, "cuzk::gpu", "CUDA_MODULE_LOADING=%s%s", ml ? ml : "(unset)",
               ml && !strcmp(ml, "EAGER") ? "" : " (from the environment: kernels may load mid-partition)");
    }
#endif

    /* Signals are taken by sigwait in this thread only: block them before any thread starts. */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGUSR1); /* the engine's all-lost hook (gpus.exit_when_all_lost) */
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);

    grpc_init();
    cz_engine *e;
    if (cz_engine_new(&e, &cfg)) {
        fprintf(stderr, "cuzk: engine: %s\n", cz_error_message());
        return 1;
    }
    cz_http_server *http = NULL;
    if (*cfg.status_listen && cz_http_start(&http, e, cfg.status_listen)) {
        fprintf(stderr, "cuzk: %s\n", cz_error_message());
        cz_engine_free(e);
        return 1;
    }
    cz_rpc_server *rpc;
    if (cz_rpc_server_start(&rpc, e, cfg.listen)) {
        fprintf(stderr, "cuzk: %s\n", cz_error_message());
        cz_http_stop(http);
        cz_engine_free(e);
        return 1;
    }
    cz_log(CZ_LOG_INFO, "cuzk", "cuzk daemon ready (listen=%s, status_listen=%s, pid=%d; cuzk %s)", cfg.listen,
           *cfg.status_listen ? cfg.status_listen : "off", (int)getpid(), cz_version_line());
    if (cfg.exit_when_all_lost) cz_engine_on_all_lost(e, all_lost, NULL);
    int sig = 0;
    for (;;) { /* a SIGUSR1 from elsewhere is not the engine's: ignored */
        sigwait(&sigs, &sig);
        if (sig != SIGUSR1 || atomic_load(&all_gpus_lost)) break;
    }
    int status = 0;
    if (sig == SIGUSR1) {
        status = 75; /* EX_TEMPFAIL */
        cz_log(CZ_LOG_ERROR, "cuzk", "every GPU is lost and gpus.exit_when_all_lost is set: stop accepting, answer "
               "the waiting calls, exit with status %d so that a supervisor restarts the daemon", status);
    } else {
        cz_log(CZ_LOG_INFO, "cuzk", "received %s: stop accepting, %s, exit", sig == SIGTERM ? "SIGTERM" : "SIGINT",
               cfg.drain_timeout_s ? "let accepted work finish (drain), cancel what is left" : "cancel pending work");
    }
    cz_rpc_server_stop_accepting(rpc);
    if (!status && cfg.drain_timeout_s) drain(e, &sigs, cfg.drain_timeout_s, &status);
    cz_engine_shutdown(e, true);
    cz_rpc_server_destroy(rpc);
    cz_http_stop(http);
    cz_engine_free(e);
    grpc_shutdown();
    cz_log(CZ_LOG_INFO, "cuzk", status ? "exit %d" : "clean exit", status);
    return status;
}
