/* Whether a build's CUDA architecture list can run on a GPU, from the list alone (arch_probe.cu asks it before it
 * opens the device, so a GPU the build cannot use gets no CUDA context). Plain C, header only: the CPU unit test
 * tests/unit/test_gpu_arch_list.c checks it. */
#ifndef CZ_GPU_ARCH_LIST_H
#define CZ_GPU_ARCH_LIST_H

/* list: CMake's CUDA_ARCHITECTURES with ',' between entries (src/gpu/CMakeLists.txt: CZ_ARCH_LIST), each
 * "XY[a|f][-real|-virtual]" (XY = major * 10 + minor: 80, 89, 90, 100, 120). Machine code (no "-virtual") runs on
 * the same major at the same or a higher minor ("XYa": on XY alone); PTX (no "-real") is compiled at load for XY or
 * any newer GPU ("XYa" / "XYf" PTX: XY alone). Returns 1 when some entry runs on sm_<major><minor>, 0 when none
 * does, -1 when an entry is not of that form ("all", "native", "?", empty): then only the device can tell. */
static inline int cz_gpu_arch_list_allows(const char *list, int major, int minor) {
    const int dev = major * 10 + minor;
    int any = 0;
    const char *p = list;
    if (!p || !*p) return -1;
    for (;;) {
        int num = 0, digits = 0;
        while (*p >= '0' && *p <= '9' && digits < 4) num = num * 10 + (*p++ - '0'), digits++;
        if (digits < 2) return -1;
        char suffix = 0;
        if (*p == 'a' || *p == 'f') suffix = *p++;
        int real = 1, ptx = 1;
        if (*p == '-') {
            const char *r = "-real", *v = "-virtual";
            int i = 0;
            while (r[i] && p[i] == r[i]) i++;
            if (!r[i]) {
                ptx = 0, p += i;
            } else {
                for (i = 0; v[i] && p[i] == v[i]; i++) {}
                if (v[i]) return -1;
                real = 0, p += i;
            }
        }
        if (*p != ',' && *p) return -1;
        const int em = num / 10, en = num % 10;
        if (real && (suffix == 'a' ? num == dev : em == major && en <= minor)) any = 1;
        if (ptx && (suffix ? num == dev : num <= dev)) any = 1;
        if (!*p) return any;
        p++;
    }
}

#endif
