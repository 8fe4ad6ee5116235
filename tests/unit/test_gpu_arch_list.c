/* src/gpu/arch_list.h: whether a build's architecture list runs on a GPU, decided before the device is opened
 * (arch_probe.cu refuses a GPU without a CUDA context when the list says no). Table of CMake lists against compute
 * capabilities, with the binary-compatibility rules NVIDIA documents: machine code within a major version at the
 * same or a higher minor, PTX on the same or a newer GPU, arch-specific ("a") targets on their own GPU only. */
#include <stdio.h>

#include "gpu/arch_list.h"
#include "testutil.h"

int main(void) {
    static const struct {
        const char *list;
        int major, minor, want;
    } t[] = {
        /* the default build: sm_90 code and compute_90 PTX */
        {"90", 9, 0, 1},          /* H100 / H200 */
        {"90", 8, 0, 0},          /* A100: older than both */
        {"90", 8, 9, 0},          /* RTX 4090 / L40S */
        {"90", 8, 6, 0},          /* RTX 3090 / A6000 */
        {"90", 10, 0, 1},         /* B200: the PTX, compiled at load */
        {"90", 12, 0, 1},         /* RTX 5090 */
        {"90-real", 10, 0, 0},    /* no PTX: machine code does not cross majors */
        {"90-real", 9, 0, 1},
        {"90-virtual", 9, 0, 1},  /* PTX alone */
        {"90-virtual", 8, 9, 0},
        {"80-real", 9, 0, 0},     /* test_gpu_arch's sm_80 build on an H200 */
        {"80-real", 8, 6, 1},     /* sm_80 code on an sm_86 GPU */
        {"80-real", 8, 9, 1},
        {"86-real", 8, 0, 0},     /* not to a lower minor */
        {"80", 9, 0, 1},          /* compute_80 PTX on sm_90 */
        {"80,89,120", 8, 9, 1},   /* the README's multi-GPU build */
        {"80,89,120", 8, 6, 1},
        {"80,89,120", 7, 5, 0},   /* a T4 */
        {"80,89,120", 9, 0, 1},   /* via compute_80 / compute_89 PTX */
        {"89-real,120-real", 9, 0, 0},
        {"89-real,120-real", 12, 0, 1},
        {"89-real,120-real", 12, 1, 1},
        {"90a", 9, 0, 1},         /* arch-specific: sm_90 alone */
        {"90a-real", 10, 0, 0},
        {"90a", 10, 0, 0},        /* its PTX is not portable either */
        {"100f-real", 10, 3, 1},  /* a family target: its major, minor at least its own */
        {"100f-real", 12, 0, 0},
        /* not understood: the device decides */
        {"?", 9, 0, -1},
        {"", 9, 0, -1},
        {"all", 9, 0, -1},
        {"native", 8, 9, -1},
        {"90-rea", 9, 0, -1},
        {"90,", 9, 0, -1},
        {"9", 9, 0, -1},
        {"90;80", 9, 0, -1},      /* CMake's own separator: the build replaces it with ',' */
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        const int got = cz_gpu_arch_list_allows(t[i].list, t[i].major, t[i].minor);
        CHECK_MSG(got == t[i].want, "\"%s\" on sm_%d%d: %d, want %d", t[i].list, t[i].major, t[i].minor, got, t[i].want);
    }
    CHECK(cz_gpu_arch_list_allows(NULL, 9, 0) == -1);
    return cz_test_finish();
}
