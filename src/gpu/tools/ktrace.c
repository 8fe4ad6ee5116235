/* cz_ktrace: a kernel / copy timeline of any CUDA program, for the device machine, which has no nsys.
 *
 *   CZ_KTRACE=trace.csv LD_PRELOAD=libcz_ktrace.so cz_bench_prover --compact 27
 *   python3 scripts/ktrace-summary.py trace.csv          (per-kernel totals, idle time, per segment)
 *
 * It enables CUPTI's activity records for kernels (concurrent), copies and memsets before main runs and
 * writes one CSV line per record as the buffers complete, flushing at exit:
 *   K,start_ns,end_ns,stream,grid,block,regs,name     (name demangled, argument list dropped)
 *   C,start_ns,end_ns,stream,bytes,copy_kind          (1 = host to device, 2 = device to host, 8 = d2d)
 *   S,start_ns,end_ns,stream,bytes,memset
 * Without CZ_KTRACE it does nothing. Timestamps are CUPTI's (ns, one clock for every record). Records cost
 * the traced program ~1 us of device time per kernel, so figures from a traced run are not benchmarks. */
#include <cupti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define KT_BUF (8u << 20)

static FILE *kt_out;

static void CUPTIAPI kt_request(uint8_t **buf, size_t *size, size_t *max_records) {
    *buf = aligned_alloc(8, KT_BUF);
    *size = *buf ? KT_BUF : 0;
    *max_records = 0;
}

/* "void f<A, B>(int, ...)" -> "f<A, B>" (the return type and the arguments dropped) */
static void kt_name(const char *mangled, char *out, size_t cap) {
    int st = -1;
    char *d = mangled ? __cxa_demangle(mangled, NULL, NULL, &st) : NULL;
    const char *s = st == 0 && d ? d : mangled ? mangled : "?";
    const char *sp = strchr(s, ' '), *lt = strchr(s, '<'), *lp = strchr(s, '(');
    if (sp && (!lt || sp < lt) && (!lp || sp < lp)) s = sp + 1; /* a return type */
    size_t n = strlen(s);
    int depth = 0;
    for (size_t i = 0; i < n; i++) { /* cut at the argument list's '(' outside template brackets */
        if (s[i] == '<') depth++;
        else if (s[i] == '>') depth--;
        else if (s[i] == '(' && depth == 0) {
            n = i;
            break;
        }
    }
    if (n >= cap) n = cap - 1;
    for (size_t i = 0; i < n; i++) out[i] = s[i] == ',' ? ';' : s[i]; /* CSV-safe */
    out[n] = 0;
    free(d);
}

static void CUPTIAPI kt_complete(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size, size_t valid) {
    (void)ctx, (void)stream, (void)size;
    CUpti_Activity *r = NULL;
    char name[512];
    while (kt_out && cuptiActivityGetNextRecord(buf, valid, &r) == CUPTI_SUCCESS) {
        if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || r->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
            const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)r;
            kt_name(k->name, name, sizeof name);
            fprintf(kt_out, "K,%llu,%llu,%u,%d,%d,%u,%s\n", (unsigned long long)k->start, (unsigned long long)k->end,
                    k->streamId, k->gridX * k->gridY * k->gridZ, k->blockX * k->blockY * k->blockZ, k->registersPerThread,
                    name);
        } else if (r->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
            const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)r;
            fprintf(kt_out, "C,%llu,%llu,%u,%llu,%u\n", (unsigned long long)m->start, (unsigned long long)m->end, m->streamId,
                    (unsigned long long)m->bytes, (unsigned)m->copyKind);
        } else if (r->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
            const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)r;
            fprintf(kt_out, "S,%llu,%llu,%u,%llu,memset\n", (unsigned long long)m->start, (unsigned long long)m->end,
                    m->streamId, (unsigned long long)m->bytes);
        }
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped && kt_out)
        fprintf(kt_out, "D,%zu\n", dropped);
    free(buf);
}

static void kt_fini(void) {
    if (!kt_out) return;
    cuptiActivityFlushPeriod(0); /* no periodic flush from CUPTI's thread after the file is closed */
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    fclose(kt_out);
    kt_out = NULL;
}

__attribute__((constructor)) static void kt_init(void) {
    const char *path = getenv("CZ_KTRACE");
    if (!path || !*path) return;
    kt_out = fopen(path, "w");
    if (!kt_out) {
        fprintf(stderr, "cz_ktrace: cannot open %s\n", path);
        return;
    }
    setvbuf(kt_out, NULL, _IOFBF, 1 << 20);
    const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                        CUPTI_ACTIVITY_KIND_MEMSET};
    CUptiResult rc = cuptiActivityRegisterCallbacks(kt_request, kt_complete);
    for (size_t i = 0; rc == CUPTI_SUCCESS && i < sizeof kinds / sizeof kinds[0]; i++) rc = cuptiActivityEnable(kinds[i]);
    if (rc != CUPTI_SUCCESS) {
        const char *msg = "?";
        cuptiGetResultString(rc, &msg);
        fprintf(stderr, "cz_ktrace: CUPTI: %s\n", msg);
        fclose(kt_out);
        kt_out = NULL;
        return;
    }
    cuptiActivityFlushPeriod(250); /* a CUPTI thread hands over full and partial buffers every 250 ms */
    atexit(kt_fini);
}
