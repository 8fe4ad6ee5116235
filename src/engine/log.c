#include "engine/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cz_error.h"

static int g_level = CZ_LOG_INFO;
static int g_json = 0;
static uint64_t g_epoch;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER; /* one line at a time */
static const char *names[] = {"ERROR", "WARN", "INFO", "DEBUG", "TRACE"};

uint64_t cz_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void cz_log_epoch_reset(void) { g_epoch = cz_now_ms(); }

/* A level's name (n bytes at s) as its number, -1 for off; -2 when unknown. */
static int level_of(const char *s, size_t n) {
    if (n == 3 && !strncasecmp(s, "off", 3)) return -1;
    if (n == 7 && !strncasecmp(s, "warning", 7)) return CZ_LOG_WARN;
    for (int i = 0; i < 5; i++)
        if (n == strlen(names[i]) && !strncasecmp(s, names[i], n)) return i;
    return -2;
}

int cz_log_set_level(const char *level) {
    int bare = -2, ours = -2;
    for (const char *p = level; *p;) {
        const char *end = strchr(p, ',');
        if (!end) end = p + strlen(p);
        while (p < end && (*p == ' ' || *p == '\t')) p++;
        const char *q = end;
        while (q > p && (q[-1] == ' ' || q[-1] == '\t')) q--;
        const char *eq = memchr(p, '=', (size_t)(q - p));
        const char *name = eq ? eq + 1 : p;
        const int v = q > p ? level_of(name, (size_t)(q - name)) : -3;
        if (v == -2)
            return cz_error(CZ_EINVAL, "unknown log level '%.*s' in '%s' (error, warn, info, debug, trace, off; or "
                            "a filter such as \"info,cuzk_core=debug\")", (int)(q - name), name, level);
        if (v != -3 && !eq) bare = v;
        else if (v != -3 && !strncmp(p, "cuzk", 4) && v > ours) ours = v;
        p = *end ? end + 1 : end;
    }
    if (bare == -2 && ours == -2) return cz_error(CZ_EINVAL, "no log level in '%s'", level);
    /* every target here is cuzk's: a cuzk* item (cuzk_core=debug: cuzk's engine) wins over the bare default, as
     * env_logger's more specific directive does for the modules it names */
    g_level = ours != -2 ? ours : bare;
    return 0;
}

int cz_log_set_format(const char *format) {
    if (!strcmp(format, "text") || !*format) g_json = 0;
    else if (!strcmp(format, "json")) g_json = 1;
    else return cz_error(CZ_EINVAL, "unknown log format '%s' (text, json)", format);
    return 0;
}

int cz_log_enabled(int level) { return level <= g_level; }

static void json_escape(FILE *f, const char *s) {
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch == '\n') fputs("\\n", f);
        else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
}

void cz_log(int level, const char *target, const char *fmt, ...) {
    if (level > g_level) return;
    char msg[2048], ts[40];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct tm tm;
    gmtime_r(&now.tv_sec, &tm);
    size_t n = strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(ts + n, sizeof ts - n, ".%03ldZ", now.tv_nsec / 1000000);
    pthread_mutex_lock(&g_mu);
    if (g_json) {
        fprintf(stderr, "{\"timestamp\":\"%s\",\"level\":\"%s\",\"target\":\"", ts, names[level]);
        json_escape(stderr, target);
        fputs("\",\"message\":\"", stderr);
        json_escape(stderr, msg);
        fputs("\"}\n", stderr);
    } else {
        fprintf(stderr, "%s %5s %s: %s\n", ts, names[level], target, msg);
    }
    fflush(stderr);
    pthread_mutex_unlock(&g_mu);
}

void cz_timeline(const char *event, const char *job_id, const char *fmt, ...) {
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&g_mu);
    fprintf(stderr, "TIMELINE,%llu,%s,%s,%s\n", (unsigned long long)(cz_now_ms() - g_epoch), event, job_id, detail);
    fflush(stderr);
    pthread_mutex_unlock(&g_mu);
}
