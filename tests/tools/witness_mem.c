/* cz_tool_witness_mem <2048|8388608> <dense|compact> [seed]: the host memory one PoRep partition's witness
 * takes in the engine. Seals a C1 here (cz_porep_sealed_c1, V1_1), prepares it with the engine's porep
 * hook, resets the peak RSS (/proc/self/clear_refs 5), synthesizes partition 0 the way the engine does
 * (cz_witness_synthesize) and prints the witness bytes, the RSS growth while it is held and the peak
 * growth during its synthesis. Measures what every partition synthesized ahead of the prover costs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "engine/circuit.h"
#include "engine/witness.h"
#include "filecoin/c1.h"
#include "filecoin/synth.h"

static long status_kb(const char *key) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, n)) v = strtol(line + n + 1, NULL, 10);
    if (f) fclose(f);
    return v;
}

int main(int argc, char **argv) {
    if (argc < 3 || (strcmp(argv[2], "dense") && strcmp(argv[2], "compact"))) {
        fprintf(stderr, "usage: %s <2048|8388608> <dense|compact> [seed]\n", argv[0]);
        return 2;
    }
    uint64_t size = strtoull(argv[1], NULL, 10), seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 1;
    const cz_circuit *c = NULL;
    for (size_t i = 0; i < cz_circuit_count(); i++)
        if (cz_circuit_at(i)->kind == CZ_KIND_POREP && cz_circuit_at(i)->sector_size == size && !cz_circuit_at(i)->is_test)
            c = cz_circuit_at(i);
    if (!c) return fprintf(stderr, "no PoRep circuit for %llu\n", (unsigned long long)size), 2;
    cz_c1 c1;
    int rc = cz_porep_sealed_c1(&c1, size == 2048 ? 5 : 6, seed, 1000, 1); /* V1_1 2 KiB / 8 MiB */
    char *json = NULL;
    size_t len = 0;
    if (!rc) rc = cz_c1_to_json(&c1, &json, &len);
    cz_c1_free(&c1);
    cz_submit s = {0};
    s.kind = CZ_KIND_POREP, s.sector_size = size, s.registered_proof = size == 2048 ? 5 : 6;
    s.miner_id = 1000, s.sector_number = 1; /* the C1's sector */
    s.vanilla = (const uint8_t *)json, s.vanilla_len = len;
    void *st = NULL;
    if (!rc) rc = c->prepare(c, &s, &st);
    free(json);
    if (rc) return fprintf(stderr, "%s\n", cz_error_message()), 1;
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) fputs("5", f), fclose(f);
    long rss0 = status_kb("VmRSS:"), hwm0 = status_kb("VmHWM:");
    cz_witness w;
    rc = cz_witness_synthesize(c, st, 0, !strcmp(argv[2], "compact"), &w);
    if (rc) return fprintf(stderr, "%s\n", cz_error_message()), 1;
    long rss1 = status_kb("VmRSS:"), hwm1 = status_kb("VmHWM:");
    printf("%s %s: %llu inputs, %llu aux; witness %llu B (dense form %llu B); RSS held +%.1f MB, peak during "
           "synthesis +%.1f MB (peak reset %s)\n",
           c->id, w.compact ? "compact" : "dense", (unsigned long long)w.ni, (unsigned long long)w.na,
           (unsigned long long)cz_witness_bytes(&w), (unsigned long long)cz_witness_dense_bytes(&w),
           (rss1 - rss0) / 1024.0, (hwm1 - rss0) / 1024.0, hwm0 <= rss0 + 64 ? "ok" : "FAILED: peak includes sealing");
    cz_witness_free(&w);
    c->release(c, st);
    return 0;
}
