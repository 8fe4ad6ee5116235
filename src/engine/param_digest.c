/* Digests of the official Filecoin parameter files: rust-fil-proofs' parameters.json (v28), the
 * "digest" of each .params / .vk: the first 16 bytes of the file's BLAKE2b-512, hex, as go-paramfetch
 * checks after a download. Generated from /work/shared/fixtures/real/filecoin-project+rust-fil-proofs/
 * parameters.json (44 files). */
#define _POSIX_C_SOURCE 200809L /* st_mtim, st_ctim */
#include "engine/param_digest.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cz_error.h"
#include "filecoin/graph.h"

static const struct {
    const char *name, *digest;
} table[] = {
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c.params",
     "c3ad7bb549470b82ad52ed070aebb4f4"},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c.vk",
     "994c5b7d450ca9da348c910689f2dc7f"},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63.params",
     "5aedd2cf3e5c0a15623d56a1b43110ad"},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63.vk",
     "abd80269054d391a734febdac0d2e687"},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.params",
     "311f92a3e75036ced01b1c0025f1fa0c"},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.vk",
     "eadad9784969890d30f2749708c79771"},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.params",
     "1b3cfd761a961543f9eb273e435a06a2"},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.vk",
     "3a6941983754737fde880d29c7094905"},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.params",
     "1a392e7b759fb18e036c7559b5ece816"},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.vk",
     "80e366df2f1011953c2d01c7b7c9ee8e"},
    {"v28-empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.params",
     "b69983b5d7a97a20f43b3d5ff2a4ed04"},
    {"v28-empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.vk",
     "1ac05784f304129f74c5184190c1ec78"},
    {"v28-empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.params",
     "a6d4f96e2b641a6d7a1a8e6dc1155c8a"},
    {"v28-empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.vk",
     "8e8fb9e2c56eb5d740d0de135305a7b8"},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0.params",
     "7610b9f82bfc88405b7a832b651ce2f6"},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0.vk",
     "0e0958009936b9d5e515ec97b8cb792d"},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0cfb4f178bbb71cf2ecfcd42accce558b27199ab4fb59cb78f2483fe21ef36d9.params",
     "1a7d4a9c8a502a497ed92a54366af33f"},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0cfb4f178bbb71cf2ecfcd42accce558b27199ab4fb59cb78f2483fe21ef36d9.vk",
     "4dae975de4f011f101f5a2f86d1daaba"},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e.params",
     "82c88066be968bb550a05e30ff6c2413"},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e.vk",
     "ffd79788d614d27919ae5bd2d94eacb6"},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-50c7368dea9593ed0989e70974d28024efa9d156d585b7eea1be22b2e753f331.params",
     "700171ecf7334e3199437c930676af82"},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-50c7368dea9593ed0989e70974d28024efa9d156d585b7eea1be22b2e753f331.vk",
     "79ebb55f56fda427743e35053edad8fc"},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-5294475db5237a2e83c3e52fd6c2b03859a1831d45ed08c4f35dbf9a803165a9.params",
     "c49499bb76a0762884896f9683403f55"},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-5294475db5237a2e83c3e52fd6c2b03859a1831d45ed08c4f35dbf9a803165a9.vk",
     "34d4feeacd9abf788d69ef1bb4d8fd00"},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-7d739b8cf60f1b0709eeebee7730e297683552e4b69cab6984ec0285663c5781.params",
     "827359440349fe8f5a016e7598993b79"},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-7d739b8cf60f1b0709eeebee7730e297683552e4b69cab6984ec0285663c5781.vk",
     "bd2cd62f65c1ab84f19ca27e97b7c731"},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc.params",
     "2cf49eb26f1fee94c85781a390ddb4c8"},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc.vk",
     "0f8ec542485568fa3468c066e9fed82b"},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e.params",
     "d84f79a16fe40e9e25a36e2107bb1ba0"},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e.vk",
     "fc02943678dd119e69e7fab8420e8819"},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def.params",
     "3810b7780ac0e299b22ae70f1f94c9bc"},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def.vk",
     "59d2bf1857adc59a4f08fcf2afaa916b"},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c.params",
     "2170a91ad5bae22ea61f2ea766630322"},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c.vk",
     "6d3789148fb6466d07ee1e24d6292fd6"},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params",
     "434fb1338ecfaf0f59256f30dde4968f"},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.vk",
     "dc1ade9929ade1708238f155343044ac"},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472.params",
     "6c77597eb91ab936c1cef4cf19eba1b3"},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472.vk",
     "065179da19fbe515507267677f02823e"},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb.params",
     "09e612e4eeb7a0eb95679a88404f960c"},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb.vk",
     "b687beb9adbd9dabe265a7e3620813e4"},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params",
     "6a388072a518cf46ebd661f5cc46900a"},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.vk",
     "0c7b4aac1c40fdb7eb82bc355b41addf"},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.params",
     "1801f8a6e1b00bceb00cc27314bb5ce3"},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.vk",
     "a89884252c04c298d0b3c81bfd884164"},
};

const char *cz_param_digest_expected(const char *file_name) {
    const char *base = strrchr(file_name, '/');
    base = base ? base + 1 : file_name;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(table[i].name, base)) return table[i].digest;
    return NULL;
}

int cz_param_digest_until(char hex[33], const void *data, size_t len, bool (*stop)(void *), void *arg) {
    uint8_t h[64];
    if (cz_blake2b_512_until(h, data, len, stop, arg)) return 1;
    for (int i = 0; i < 16; i++) snprintf(hex + 2 * i, 3, "%02x", h[i]);
    return 0;
}

void cz_param_digest(char hex[33], const void *data, size_t len) { cz_param_digest_until(hex, data, len, NULL, NULL); }

static void memo_path(char *out, size_t cap, const char *dir, const char *path) {
    const char *base = strrchr(path, '/');
    snprintf(out, cap, "%s/cuzk-digest-%s.ok", dir, base ? base + 1 : path);
}

bool cz_param_digest_identity(const char *path, char *out, size_t cap) {
    struct stat st;
    if (stat(path, &st)) return false;
    snprintf(out, cap, "cuzk-digest-v1 %llu %llu %llu %lld.%09ld %lld.%09ld", (unsigned long long)st.st_dev,
             (unsigned long long)st.st_ino, (unsigned long long)st.st_size, (long long)st.st_mtim.tv_sec,
             st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
    return true;
}

bool cz_param_digest_memo_ok(const char *dir, const char *path, const char *want) {
    char mp[1100], id[200], line[300], expect[300];
    if (!dir || !*dir || !want || !cz_param_digest_identity(path, id, sizeof id)) return false;
    memo_path(mp, sizeof mp, dir, path);
    FILE *f = fopen(mp, "r");
    if (!f) return false;
    const bool got = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    snprintf(expect, sizeof expect, "%s %s\n", id, want);
    return got && !strcmp(line, expect);
}

int cz_param_digest_memo_store(const char *dir, const char *path, const char *id_before, const char *hex) {
    char mp[1100], tmp[1120], id[200];
    if (!cz_param_digest_identity(path, id, sizeof id) || strcmp(id, id_before)) return 1;
    if (!dir || !*dir) return cz_error(CZ_EIO, "no directory for the digest memo");
    memo_path(mp, sizeof mp, dir, path);
    snprintf(tmp, sizeof tmp, "%s.tmp%d", mp, (int)getpid());
    FILE *f = fopen(tmp, "w");
    int err = f ? 0 : errno;
    bool ok = f && fprintf(f, "%s %s\n", id, hex) > 0;
    if (f && fclose(f)) ok = false;
    if (ok && rename(tmp, mp)) ok = false;
    if (!ok) {
        if (!err) err = errno;
        unlink(tmp);
        return cz_error(CZ_EIO, "cannot write %s: %s", f ? mp : tmp, strerror(err ? err : EIO));
    }
    return 0;
}

void cz_param_digest_memo_drop(const char *dir, const char *path) {
    char mp[1100];
    if (!dir || !*dir) return;
    memo_path(mp, sizeof mp, dir, path);
    unlink(mp);
}
