#include "engine/config.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "engine/log.h"
#include "engine/toml.h"
#include "util/file.h"

#define GiB (1ull << 30)

void cz_config_defaults(cz_config *c) {
    memset(c, 0, sizeof *c);
    snprintf(c->listen, sizeof c->listen, "unix:///run/curio/cuzk.sock");
    snprintf(c->param_cache, sizeof c->param_cache, "/data/zk/params");
    snprintf(c->backend, sizeof c->backend, "auto");
    c->safety_margin = 5 * GiB;
    c->eviction_min_idle_s = 300;
    c->gpu_workers_per_device = 2;
    c->max_batch_size = 1;
    c->max_batch_wait_ms = 10000;
    c->sort_by_type = true;
    c->max_pending = 256;
    c->pipeline_enabled = true;
    c->synthesis_lookahead = 1;
    c->synthesis_concurrency = 1;
    c->max_parallel_synthesis = 18;
    c->verify_digest = true;
    c->seeded_cache = true;
    c->compact_witness = true;
    c->pair_sums = true;
    snprintf(c->log_level, sizeof c->log_level, "info");
    snprintf(c->log_format, sizeof c->log_format, "text");
}

static int parse_suffixed(const char *s, uint64_t *out, const char *const *suf, const uint64_t *mul, int nsuf) {
    while (isspace((unsigned char)*s)) s++;
    if (!isdigit((unsigned char)*s)) return CZ_EINVAL;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    while (isspace((unsigned char)*end)) end++;
    uint64_t m = 1;
    if (*end) {
        int k = -1;
        for (int i = 0; i < nsuf; i++)
            if (!strcmp(end, suf[i])) k = i;
        if (k < 0) return CZ_EINVAL;
        m = mul[k];
    }
    if (m && v > UINT64_MAX / m) return CZ_EINVAL;
    *out = v * m;
    return 0;
}

int cz_parse_size(const char *s, uint64_t *out) {
    static const char *const suf[] = {"B", "KiB", "MiB", "GiB", "TiB", "KB", "MB", "GB", "TB"};
    static const uint64_t mul[] = {1, 1ull << 10, 1ull << 20, 1ull << 30, 1ull << 40, 1000, 1000000, 1000000000ull,
                                   1000000000000ull};
    if (parse_suffixed(s, out, suf, mul, 9)) return cz_error(CZ_EINVAL, "bad size '%s' (e.g. 32GiB, 512MiB, 5GB, 1024)", s);
    return 0;
}

int cz_parse_duration_s(const char *s, uint64_t *out) {
    static const char *const suf[] = {"s", "m", "h"};
    static const uint64_t mul[] = {1, 60, 3600};
    if (parse_suffixed(s, out, suf, mul, 3)) return cz_error(CZ_EINVAL, "bad duration '%s' (e.g. 5m, 30s, 300)", s);
    return 0;
}

uint64_t cz_config_budget(const cz_config *c) {
    if (c->total_budget) return c->total_budget;
    uint64_t total = 256 * GiB;
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[256];
        unsigned long long kb;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemTotal: %llu kB", &kb) == 1) total = kb * 1024ull;
        fclose(f);
    }
    return total > c->safety_margin ? total - c->safety_margin : total / 2;
}

/* The type a key takes. */
enum { T_STR, T_U32, T_U64, T_BOOL, T_SIZE, T_DUR, T_DEVICES, T_DEPRECATED };

typedef struct {
    const char *table, *key;
    int type;
    size_t off, len; /* into cz_config; len = buffer size for strings */
} keydef;

#define F(f) offsetof(cz_config, f), sizeof(((cz_config *)0)->f)
static const keydef keys[] = {
    {"daemon", "listen", T_STR, F(listen)},
    {"daemon", "status_listen", T_STR, F(status_listen)},
    {"daemon", "drain_timeout", T_DUR, F(drain_timeout_s)},
    {"srs", "param_cache", T_STR, F(param_cache)},
    {"srs", "local_cache", T_STR, F(local_cache)},
    {"srs", "verify_digest", T_BOOL, F(verify_digest)},
    {"srs", "release_resident_bases", T_BOOL, F(release_resident_bases)},
    {"srs", "preload", T_DEPRECATED, 0, 0},
    {"testing", "builtin_test_circuit", T_BOOL, F(test_circuit)},
    {"testing", "seeded_setup_any", T_BOOL, F(seeded_any)},
    {"testing", "seeded_setup_cache", T_BOOL, F(seeded_cache)},
    {"gpus", "backend", T_STR, F(backend)},
    {"memory", "total_budget", T_SIZE, F(total_budget)},
    {"memory", "safety_margin", T_SIZE, F(safety_margin)},
    {"memory", "eviction_min_idle", T_DUR, F(eviction_min_idle_s)},
    {"memory", "pinned_budget", T_DEPRECATED, 0, 0},
    {"memory", "working_memory_budget", T_DEPRECATED, 0, 0},
    {"gpus", "devices", T_DEVICES, 0, 0},
    {"gpus", "gpu_threads", T_U32, F(gpu_threads)},
    {"gpus", "gpu_workers_per_device", T_U32, F(gpu_workers_per_device)},
    {"gpus", "max_resident_circuits", T_U32, F(gpu_max_resident)},
    {"gpus", "exit_when_all_lost", T_BOOL, F(exit_when_all_lost)},
    {"gpus", "h_lagrange", T_BOOL, F(h_lagrange)},
    {"gpus", "h_lagrange_cache", T_STR, F(h_lagrange_cache)},
    {"gpus", "pair_sums", T_BOOL, F(pair_sums)},
    {"scheduler", "max_batch_size", T_U32, F(max_batch_size)},
    {"scheduler", "max_batch_wait_ms", T_U64, F(max_batch_wait_ms)},
    {"scheduler", "sort_by_type", T_BOOL, F(sort_by_type)},
    {"scheduler", "max_pending", T_U32, F(max_pending)},
    {"synthesis", "threads", T_U32, F(synthesis_threads)},
    {"synthesis", "partition_workers", T_DEPRECATED, 0, 0},
    {"synthesis", "compact_witness", T_BOOL, F(compact_witness)},
    {"pipeline", "enabled", T_BOOL, F(pipeline_enabled)},
    {"pipeline", "synthesis_lookahead", T_U32, F(synthesis_lookahead)},
    {"pipeline", "synthesis_concurrency", T_U32, F(synthesis_concurrency)},
    {"pipeline", "max_parallel_synthesis", T_U32, F(max_parallel_synthesis)},
    {"pipeline", "slot_size", T_U64, F(slot_size)},
    {"pipeline", "max_gpu_queue_depth", T_U32, F(max_gpu_queue_depth)},
    {"logging", "level", T_STR, F(log_level)},
    {"logging", "format", T_STR, F(log_format)},
};

static int type_err(const char *name, const cz_toml_entry *e, const char *want) {
    return cz_error(CZ_EFORMAT, "%s:%d: key '%s.%s' must be %s, not %s", name, e->line, e->table, e->key, want,
                    cz_toml_type_name(e->v.type));
}

static int apply(cz_config *c, const keydef *k, const cz_toml_entry *e, const char *name) {
    char *base = (char *)c + k->off;
    const cz_toml_value *v = &e->v;
    switch (k->type) {
    case T_DEPRECATED:
        cz_log(CZ_LOG_WARN, "cuzk::config", "%s:%d: '%s.%s' is deprecated and ignored", name, e->line, e->table, e->key);
        return 0;
    case T_STR:
        if (v->type != CZ_TOML_STRING) return type_err(name, e, "a string");
        if (strlen(v->s) >= k->len)
            return cz_error(CZ_EFORMAT, "%s:%d: '%s.%s' is longer than %zu bytes", name, e->line, e->table, e->key,
                            k->len - 1);
        strcpy(base, v->s);
        return 0;
    case T_BOOL:
        if (v->type != CZ_TOML_BOOL) return type_err(name, e, "a boolean");
        *(bool *)base = v->i != 0;
        return 0;
    case T_U32:
    case T_U64:
        if (v->type != CZ_TOML_INT) return type_err(name, e, "an integer");
        if (v->i < 0 || (k->type == T_U32 && v->i > (int64_t)UINT32_MAX))
            return cz_error(CZ_EFORMAT, "%s:%d: '%s.%s' = %lld is out of range", name, e->line, e->table, e->key,
                            (long long)v->i);
        if (k->type == T_U32) *(uint32_t *)base = (uint32_t)v->i;
        else *(uint64_t *)base = (uint64_t)v->i;
        return 0;
    case T_SIZE:
    case T_DUR: {
        uint64_t x;
        if (v->type == CZ_TOML_INT && v->i >= 0) {
            x = (uint64_t)v->i;
        } else if (v->type == CZ_TOML_STRING) {
            if (k->type == T_SIZE && !strcmp(v->s, "auto") && !strcmp(k->key, "total_budget")) {
                x = 0;
            } else if (k->type == T_SIZE ? cz_parse_size(v->s, &x) : cz_parse_duration_s(v->s, &x)) {
                char why[256]; /* cz_error's buffer is about to be rewritten */
                snprintf(why, sizeof why, "%s", cz_error_message());
                return cz_error(CZ_EFORMAT, "%s:%d: '%s.%s': %s", name, e->line, e->table, e->key, why);
            }
        } else {
            return type_err(name, e, k->type == T_SIZE ? "a size string or an integer" : "a duration string or an integer");
        }
        *(uint64_t *)base = x;
        return 0;
    }
    case T_DEVICES:
        if (v->type != CZ_TOML_ARRAY) return type_err(name, e, "an array of integers");
        if (v->n > CZ_CONFIG_MAX_DEVICES)
            return cz_error(CZ_EFORMAT, "%s:%d: more than %d devices", name, e->line, CZ_CONFIG_MAX_DEVICES);
        for (size_t i = 0; i < v->n; i++) {
            if (v->items[i].type != CZ_TOML_INT || v->items[i].i < 0 || v->items[i].i > 1023)
                return cz_error(CZ_EFORMAT, "%s:%d: 'gpus.devices' must be an array of GPU ordinals (integers)", name,
                                e->line);
            c->devices[i] = (int)v->items[i].i;
        }
        c->ndevices = (int)v->n;
        return 0;
    }
    return 0;
}

int cz_config_load_text(cz_config *c, const char *text, const char *name) {
    cz_toml_doc d;
    int rc = cz_toml_parse(&d, text, name);
    if (rc) return rc;
    /* The log format first, so the warnings below already come out in it. */
    for (size_t i = 0; i < d.n; i++)
        if (!strcmp(d.e[i].table, "logging") && !strcmp(d.e[i].key, "format") && d.e[i].v.type == CZ_TOML_STRING)
            cz_log_set_format(d.e[i].v.s); /* an invalid one is reported after the loop */
    for (size_t i = 0; i < d.n && !rc; i++) {
        const cz_toml_entry *e = &d.e[i];
        const keydef *k = NULL;
        for (size_t j = 0; j < sizeof keys / sizeof keys[0]; j++)
            if (!strcmp(keys[j].table, e->table) && !strcmp(keys[j].key, e->key)) k = &keys[j];
        if (!k) {
            cz_log(CZ_LOG_WARN, "cuzk::config", "%s:%d: unknown key '%s%s%s' ignored", name, e->line, e->table,
                   *e->table ? "." : "", e->key);
            continue;
        }
        rc = apply(c, k, e, name);
    }
    cz_toml_free(&d);
    char why[256];
    if (!rc && cz_log_set_level(c->log_level)) {
        snprintf(why, sizeof why, "%s", cz_error_message());
        rc = cz_error(CZ_EFORMAT, "%s: logging.level: %s", name, why);
    }
    if (!rc && strcmp(c->backend, "auto") && strcmp(c->backend, "cpu") && strcmp(c->backend, "gpu"))
        rc = cz_error(CZ_EFORMAT, "%s: gpus.backend must be \"auto\", \"cpu\" or \"gpu\", not \"%s\"", name, c->backend);
    if (!rc && cz_log_set_format(c->log_format)) {
        snprintf(why, sizeof why, "%s", cz_error_message());
        rc = cz_error(CZ_EFORMAT, "%s: logging.format: %s", name, why);
    }
    return rc;
}

int cz_config_load_file(cz_config *c, const char *path) {
    char *buf;
    size_t got;
    int rc = cz_file_read(path, 16 << 20, &buf, &got);
    if (rc) return rc;
    rc = strlen(buf) != got ? cz_error(CZ_EFORMAT, "%s: contains a NUL byte", path) : cz_config_load_text(c, buf, path);
    free(buf);
    return rc;
}
