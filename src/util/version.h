/* The build's identity, from cmake/version.cmake at build time: what `cuzk --version` prints, the daemon logs at
 * start and /metrics exports as cuzk_build_info, so a farm can tell which build each of its daemons runs. */
#ifndef CZ_UTIL_VERSION_H
#define CZ_UTIL_VERSION_H

/* The project version ("0.1.0"). */
const char *cz_version(void);
/* The git commit the tree was built from (`git describe --always --dirty`: "433ea7f1a2b3", "...-dirty" with
 * uncommitted changes), "unknown" without git. */
const char *cz_build_commit(void);
/* The CUDA architectures the GPU backend was built for ("90"), "" when this build has none. */
const char *cz_build_cuda_arch(void);
/* One line: "0.1.0 (commit 433ea7f1a2b3, CUDA 90)" or "0.1.0 (commit ..., no GPU backend)". */
const char *cz_version_line(void);

#endif
