/* A GPU this build has no kernels for is refused by name (cz_gpu_arch_check, src/gpu/arch_probe.cu), not at
 * each proof's first launch. The probe is compiled twice more for this test, for sm_80 and for sm_90 only
 * (machine code, no PTX), under the names cz_test_arch_check_80 / _90: on an H200 the sm_80 build must be
 * refused with the GPU's name, its sm_90, the build's architectures and the -DCZ_CUDA_ARCH to rebuild with,
 * and the sm_90 build accepted; on an sm_8x GPU the other way round. After a refusal the device still works
 * (cz_gpu_device_check), and the daemon's device picking (cz_backend_pick_devices) refuses a listed device
 * with the same words. The refusal comes from the build's list (src/gpu/arch_list.h) before the GPU is opened:
 * first thing in the process, each GPU's primary context is still inactive after it (the driver API's
 * cuDevicePrimaryCtxGetState, from libcuda through dlopen), and after cz_gpu_peek (`cuzk --check-config`'s
 * description of the GPU, this build allowed on it). Exits 77 (skipped) without a GPU. */
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "engine/backend.h"
#include "engine/config.h"
#include "engine/log.h"
#include "gpu/gpu.h"
#include "testutil.h"

int cz_test_arch_check_80(int ordinal, char *why, size_t n);
int cz_test_arch_check_90(int ordinal, char *why, size_t n);

static void one_device(int d) {
    char desc[256] = "", why[400] = "x";
    CHECK(cz_gpu_set_device(d) == 0 && cz_gpu_describe(desc, sizeof desc) == 0);
    const char *sm = strstr(desc, "sm_");
    CHECK_MSG(sm && strlen(sm) >= 5, "%s", desc);
    if (!sm) return;
    const int major = atoi(sm + 3) / 10, minor = atoi(sm + 3) % 10;
    printf("GPU %d: %s (major %d, minor %d)\n", d, desc, major, minor);
    CHECK_MSG(cz_gpu_arch_check(d, why, sizeof why) == 0 && !why[0], "this build on GPU %d: %s", d, why);
    struct {
        int (*probe)(int, char *, size_t);
        int major, minor;
    } builds[2] = {{cz_test_arch_check_80, 8, 0}, {cz_test_arch_check_90, 9, 0}};
    for (int k = 0; k < 2; k++) {
        const int runs = major == builds[k].major && minor >= builds[k].minor;
        why[0] = 'x', why[1] = 0;
        const int rc = builds[k].probe(d, why, sizeof why);
        if (runs) {
            CHECK_MSG(rc == 0 && !why[0], "sm_%d%d build on %s: %d %s", builds[k].major, builds[k].minor, desc, rc, why);
            continue;
        }
        char want_sm[32], want_arch[64], want_fix[64];
        snprintf(want_sm, sizeof want_sm, "is sm_%d%d", major, minor);
        snprintf(want_arch, sizeof want_arch, "CZ_CUDA_ARCH=%d%d-real only", builds[k].major, builds[k].minor);
        snprintf(want_fix, sizeof want_fix, "rebuild with -DCZ_CUDA_ARCH=%d%d", major, minor);
        CHECK_MSG(rc == CZ_EUNSUPPORTED && strstr(why, want_sm) && strstr(why, want_arch) && strstr(why, want_fix) &&
                      strstr(cz_error_message(), why),
                  "sm_%d%d build on %s: %d \"%s\"", builds[k].major, builds[k].minor, desc, rc, why);
        printf("sm_%d%d build refused: %s\n", builds[k].major, builds[k].minor, why);
        /* a refusal leaves the context working */
        CHECK_MSG(cz_gpu_device_check(d, why, sizeof why) == 0, "GPU %d after the refusal: %s", d, why);
        CHECK(cz_gpu_arch_check(d, why, sizeof why) == 0);
        void *p = NULL;
        CHECK(cz_gpu_malloc(&p, 1 << 20) == 0 && cz_gpu_memset(p, 0, 1 << 20) == 0);
        cz_gpu_free(p);
        /* the daemon's picking: listed, the device is refused with the probe's words; found, it is skipped */
        cz_config cfg;
        cz_config_defaults(&cfg);
        cfg.ndevices = 1, cfg.devices[0] = d;
        int ords[CZ_CONFIG_MAX_DEVICES];
        CHECK(cz_backend_pick_devices(&cfg, d + 1, builds[k].probe, ords) == CZ_EUNSUPPORTED &&
              strstr(cz_error_message(), "gpus.devices lists GPU") && strstr(cz_error_message(), want_fix));
        CHECK(cz_backend_pick_devices(&cfg, d + 1, cz_gpu_arch_check, ords) == 1 && ords[0] == d);
    }
}

/* Before anything opens GPU d: the builds that cannot run there refuse it, and its primary context stays
 * inactive (nothing of this process on that GPU). */
static CUresult (*drv_init)(unsigned), (*drv_get)(CUdevice *, int), (*drv_attr)(int *, CUdevice_attribute, CUdevice),
    (*drv_state)(CUdevice, unsigned *, int *);
#define cuInit drv_init
#define cuDeviceGet drv_get
#define cuDeviceGetAttribute drv_attr
#define cuDevicePrimaryCtxGetState drv_state

static int load_driver(void) {
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return 0;
    *(void **)&drv_init = dlsym(h, "cuInit");
    *(void **)&drv_get = dlsym(h, "cuDeviceGet");
    *(void **)&drv_attr = dlsym(h, "cuDeviceGetAttribute");
    *(void **)&drv_state = dlsym(h, "cuDevicePrimaryCtxGetState");
    return drv_init && drv_get && drv_attr && drv_state;
}

static void refused_unopened(int d) {
    CUdevice dev;
    int major = 0, minor = 0, active = -1;
    unsigned flags = 0;
    CHECK(cuInit(0) == CUDA_SUCCESS && cuDeviceGet(&dev, d) == CUDA_SUCCESS);
    CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) == CUDA_SUCCESS &&
          cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) == CUDA_SUCCESS);
    CHECK_MSG(cuDevicePrimaryCtxGetState(dev, &flags, &active) == CUDA_SUCCESS && active == 0,
              "GPU %d opened before the probes (%d)", d, active);
    /* cuzk --check-config's description (cz_gpu_peek): the GPU's sm_XY, this build allowed, and still no context */
    char desc[200] = "", pwhy[300] = "x", want_sm[16];
    snprintf(want_sm, sizeof want_sm, "sm_%d%d", major, minor);
    const int prc = cz_gpu_peek(d, desc, sizeof desc, pwhy, sizeof pwhy);
    CHECK_MSG(prc == 0 && !pwhy[0] && strstr(desc, want_sm) && strstr(desc, " SMs, ") && strstr(desc, " GiB, "),
              "cz_gpu_peek(%d): %d \"%s\" \"%s\"", d, prc, desc, pwhy);
    CHECK_MSG(cuDevicePrimaryCtxGetState(dev, &flags, &active) == CUDA_SUCCESS && active == 0,
              "GPU %d opened by cz_gpu_peek (%d)", d, active);
    printf("GPU %d peeked without a context: %s\n", d, desc);
    int (*const probe[2])(int, char *, size_t) = {cz_test_arch_check_80, cz_test_arch_check_90};
    const int bmaj[2] = {8, 9};
    for (int k = 0; k < 2; k++) {
        if (major == bmaj[k]) continue; /* this build runs there: the probe opens it (checked in one_device) */
        char why[400] = "x";
        CHECK_MSG(probe[k](d, why, sizeof why) == CZ_EUNSUPPORTED && strstr(why, "was not opened"),
                  "sm_%d0 build on sm_%d%d: \"%s\"", bmaj[k], major, minor, why);
        active = -1;
        CHECK_MSG(cuDevicePrimaryCtxGetState(dev, &flags, &active) == CUDA_SUCCESS && active == 0,
                  "GPU %d (sm_%d%d) opened by the sm_%d0 build's refusal (%d)", d, major, minor, bmaj[k], active);
        printf("GPU %d: sm_%d0 build refused without a context\n", d, bmaj[k]);
    }
}

int main(void) {
    const int n = cz_gpu_device_count();
    char why[300] = "x";
    cz_gpu_no_device_why(why, sizeof why);
    if (n <= 0) {
        printf("no CUDA device (%s): skipped\n", why);
        return 77;
    }
    CHECK_MSG(!why[0], "devices exist, yet: %s", why);
    cz_log_set_level("error");
    CHECK_MSG(load_driver(), "a GPU, yet no driver API in libcuda.so.1: %s", dlerror());
    for (int d = 0; d < n && d < 8 && drv_state; d++) refused_unopened(d);
    for (int d = 0; d < n && d < 8; d++) one_device(d);
    /* every device through the picking with this build's probe */
    cz_config cfg;
    cz_config_defaults(&cfg);
    int ords[CZ_CONFIG_MAX_DEVICES];
    CHECK(cz_backend_pick_devices(&cfg, n, cz_gpu_arch_check, ords) == (n < CZ_CONFIG_MAX_DEVICES ? n : CZ_CONFIG_MAX_DEVICES));
    return cz_test_finish();
}
