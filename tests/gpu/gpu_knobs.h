/* The GPU tests run every kernel path by setting the library's environment knobs (CZ_GPU_*) between calls:
 * one setting = a value per knob name, NULL = unset (the library's default). */
#ifndef CZ_TESTS_GPU_KNOBS_H
#define CZ_TESTS_GPU_KNOBS_H

#include <stdlib.h>
#include <string.h>

static void set_knobs(const char *const *names, const char *const *vals, int n) {
    for (int i = 0; i < n; i++) {
        if (vals[i]) setenv(names[i], vals[i], 1);
        else unsetenv(names[i]);
    }
}

/* Under compute-sanitizer initcheck (scripts/gpu-check.sh sets CZ_TEST_SANITIZER to the tool): its shadow memory
 * comes from the device's free memory, so checks of the free memory a call took are left out. */
static int under_initcheck(void) {
    const char *e = getenv("CZ_TEST_SANITIZER");
    return e && !strcmp(e, "initcheck");
}

/* Under any compute-sanitizer tool: a test's deliberate out-of-memory cudaMalloc calls are reported as API errors
 * (memcheck's "ERROR SUMMARY"), so such probes are left out. */
static inline int under_sanitizer(void) {
    const char *e = getenv("CZ_TEST_SANITIZER");
    return e && *e;
}

#endif
