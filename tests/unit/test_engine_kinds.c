/* The daemon's PoRep hooks (src/engine/circuit_porep.c) for every 2 KiB kind: V1_1 (id 5), Synthetic
 * PoRep (10) and NI-PoRep (15), on C1s sealed here in memory (cz_porep_sealed_c1, fresh seed each run)
 * sent as raw C1 JSON and in Curio's Commit2In wrapper. For each: prepare accepts it, the job has the
 * kind's partition count (1 / 1 / 13: partitions_of), the witness of a random partition carries exactly
 * the public inputs that public_inputs derives from public values alone (the check the engine runs
 * before COMPLETED), and those differ from the inputs of the other kinds' rules. Rejections: the C1
 * relabelled as another kind (its challenges are not that kind's: the vanilla check names partition and
 * challenge; where they coincide, its porep_id derives another replica_id), an NI C1 with a partition missing
 * (12 of 13), a request whose registered_proof names another sector size, a request for another sector
 * number or miner than the C1 was sealed for (cz_porep_check_sector). A full proof of each kind is
 * tests/e2e/slow_porep_kinds.py. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../testutil.h"
#include "cz_error.h"
#include "engine/circuit.h"
#include "engine/engine.h"
#include "filecoin/c1.h"
#include "filecoin/porep_inputs.h"
#include "filecoin/synth.h"
#include "util/rng.h"

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* {"SectorNum":1,"Phase1Out":"<base64 of json>","SectorSize":2048}, as lotus / Curio send it */
static char *wrap(const char *json, size_t len, size_t *out_len) {
    size_t cap = 64 + 4 * (len / 3 + 1) + 64;
    char *o = malloc(cap), *p = o;
    if (!o) return NULL;
    p += sprintf(p, "{\"SectorNum\":1,\"Phase1Out\":\"");
    const unsigned char *s = (const unsigned char *)json;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)s[i] << 16 | (i + 1 < len ? (uint32_t)s[i + 1] << 8 : 0) | (i + 2 < len ? s[i + 2] : 0);
        *p++ = B64[v >> 18 & 63], *p++ = B64[v >> 12 & 63];
        *p++ = i + 1 < len ? B64[v >> 6 & 63] : '=';
        *p++ = i + 2 < len ? B64[v & 63] : '=';
    }
    p += sprintf(p, "\",\"SectorSize\":2048}");
    *out_len = (size_t)(p - o);
    return o;
}

/* prepare() of a request for miner f0<miner>'s sector <sector> */
static int prep_for(const cz_circuit *c, const char *text, size_t len, uint64_t reg, uint64_t miner, uint64_t sector,
                    void **st) {
    cz_submit s = {0};
    s.kind = CZ_KIND_POREP, s.sector_size = 2048, s.registered_proof = reg;
    s.miner_id = miner, s.sector_number = sector;
    s.vanilla = (const uint8_t *)text, s.vanilla_len = len;
    return c->prepare(c, &s, st);
}

/* ... of the sector the C1s here are sealed for */
static int prep(const cz_circuit *c, const char *text, size_t len, uint64_t reg, void **st) {
    return prep_for(c, text, len, reg, 1000, 1, st);
}

static void kind(unsigned id, cz_rng *rng) {
    const cz_circuit *c = cz_circuit_find("porep-2k");
    cz_c1 c1;
    int rc = cz_porep_sealed_c1(&c1, id, cz_rng_next(rng), 1000, 1);
    CHECK_MSG(rc == 0, "sealed %u: %s", id, cz_error_message());
    if (rc) return;
    char *json;
    size_t len = 0, wlen = 0;
    CHECK(cz_c1_to_json(&c1, &json, &len) == 0);
    char *w = wrap(json, len, &wlen);
    unsigned want_parts = id >= 15 ? 13 : 1;
    void *st = NULL;
    /* raw C1 and the wrapper are both accepted; registered_proof in the request names the kind's id */
    rc = prep(c, json, len, id, &st);
    CHECK_MSG(rc == 0, "prepare raw %s: %s", c1.registered_proof, cz_error_message());
    if (!rc) c->release(c, st);
    rc = prep(c, w, wlen, id, &st);
    CHECK_MSG(rc == 0, "prepare wrapped %s: %s", c1.registered_proof, cz_error_message());
    if (!rc) {
        CHECK(c->partitions_of && c->partitions_of(c, st) == want_parts);
        unsigned k = (unsigned)(cz_rng_next(rng) % want_parts);
        cz_fr *in = NULL, *aux = NULL, pub[39];
        uint64_t ni = 0, na = 0;
        rc = c->synthesize(c, st, k, &in, &ni, &aux, &na);
        CHECK_MSG(rc == 0 && ni == 40, "synthesize %s partition %u: %s", c1.registered_proof, k, cz_error_message());
        CHECK(c->public_inputs(c, st, k, pub, 39) == 0);
        int same = rc == 0;
        for (int i = 0; same && i < 39; i++) same &= cz_fr_equal(&pub[i], &in[1 + i]);
        CHECK_MSG(same, "%s partition %u: public inputs from public values == the witness's", c1.registered_proof, k);
        /* another kind's rule gives other inputs (the challenges are what tells the kinds apart) */
        uint8_t pid[32];
        cz_porep_id(pid, c1.proof_id);
        cz_porep_kind mine = cz_porep_kind_of(id), other = mine == CZ_POREP_NI ? CZ_POREP_INTERACTIVE : CZ_POREP_NI;
        cz_fr alt[39];
        CHECK(cz_porep_inputs_from_public(alt, &c1.params, pid, false, other, c1.replica_id, c1.comm_d, c1.comm_r,
                                          c1.seed, k) == 0);
        int differ = 0;
        for (int i = 0; i < 39; i++) differ |= !cz_fr_equal(&alt[i], &pub[i]);
        CHECK_MSG(differ || want_parts == 1, "%s: the other kind's inputs differ", c1.registered_proof);
        free(in), free(aux);
        c->release(c, st);
    }
    /* the request's registered_proof must name the sector size (kinds of one size share the circuit) */
    CHECK(prep(c, w, wlen, id + 1, &st) == CZ_EINVAL && strstr(cz_error_message(), "8MiB"));
    /* a sound C1 of another sector: the request's sector number or miner is not the one its replica_id derives
     * from (both named; the chain would reject the proof) */
    static const uint64_t other[3][2] = {{1000, 2}, {1001, 1}, {0, 0}};
    for (int i = 0; i < 3; i++) {
        char want[64];
        snprintf(want, sizeof want, "not that of miner f0%llu sector %llu", (unsigned long long)other[i][0],
                 (unsigned long long)other[i][1]);
        rc = prep_for(c, w, wlen, id, other[i][0], other[i][1], &st);
        CHECK_MSG(rc == CZ_EINVAL && strstr(cz_error_message(), want) && strstr(cz_error_message(), "replica_id"),
                  "%s for f0%llu sector %llu: rc %d %s", c1.registered_proof, (unsigned long long)other[i][0],
                  (unsigned long long)other[i][1], rc, cz_error_message());
        if (!rc) c->release(c, st);
    }
    printf("%s for another sector -> %s\n", c1.registered_proof, cz_error_message());
    free(w), free(json);

    /* relabelled as another kind: the challenges are not that kind's (or, NI, the partition count) */
    unsigned keep = c1.proof_id;
    char name[64];
    snprintf(name, sizeof name, "%s", c1.registered_proof);
    unsigned as = id == 10 ? 15 : 10;
    c1.proof_id = as;
    snprintf(c1.registered_proof, sizeof c1.registered_proof, "%s",
             as == 10 ? "StackedDrg2KiBV1_1_Feat_SyntheticPoRep" : "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep");
    /* at 2 KiB (64 nodes) two rules may pick the same 2 nodes: then the relabelled C1 is valid */
    uint64_t alt_ch[2];
    cz_porep_partition_challenges(alt_ch, cz_porep_kind_of(as), 2, 0, 64, c1.replica_id, c1.comm_r, c1.seed);
    bool coincide = c1.partitions == 1 && alt_ch[0] == c1.ch[0].challenge && alt_ch[1] == c1.ch[1].challenge &&
                    as != 15;
    if (cz_c1_to_json(&c1, &json, &len) == 0) {
        rc = prep(c, json, len, as, &st);
        /* when the challenges coincide the C1 verifies, but the other porep_id derives another replica_id */
        CHECK_MSG(rc == CZ_EINVAL && strstr(cz_error_message(), coincide ? "replica_id" : "partition"),
                  "%s relabelled as %u: rc %d %s", name, as, rc, cz_error_message());
        if (!rc) c->release(c, st);
        printf("%s relabelled as id %u -> %s\n", name, as, cz_error_message());
        free(json);
    }
    c1.proof_id = keep;
    snprintf(c1.registered_proof, sizeof c1.registered_proof, "%s", name);
    if (id >= 15) { /* 12 of NI's 13 partitions */
        c1.partitions = 12;
        if (cz_c1_to_json(&c1, &json, &len) == 0) {
            rc = prep(c, json, len, id, &st);
            CHECK_MSG(rc == CZ_EINVAL, "NI with 12 partitions: rc %d %s", rc, cz_error_message());
            if (!rc) c->release(c, st);
            printf("NI-PoRep with 12 partitions -> %s\n", cz_error_message());
            free(json);
        }
        c1.partitions = 13;
    }
    cz_c1_free(&c1);
}

/* The vanilla check runs every challenge of every partition as its own task on OpenMP threads (circuit_porep.c
 * verify_task); whatever the threads' order, the error is the one the serial loop meets first. An NI-PoRep C1
 * (13 partitions) with a label row damaged in two random challenges, and with one in the last challenge only. */
static void first_error(cz_rng *rng) {
    const cz_circuit *c = cz_circuit_find("porep-2k");
    cz_c1 c1;
    int rc = cz_porep_sealed_c1(&c1, 15, cz_rng_next(rng), 1000, 1);
    CHECK_MSG(rc == 0, "sealed 15: %s", cz_error_message());
    if (rc) return;
    const unsigned n = c1.partitions * c1.challenges;
    for (int round = 0; round < 4; round++) {
        unsigned a = (unsigned)(cz_rng_next(rng) % n), b = (unsigned)(cz_rng_next(rng) % n);
        if (round == 3) a = b = n - 1;
        cz_fr keep[2] = {c1.ch[a].drg[0].rows[0], c1.ch[b].drg[0].rows[0]}, one;
        cz_fr_set_u64(&one, 1);
        cz_fr_add(&c1.ch[a].drg[0].rows[0], &c1.ch[a].drg[0].rows[0], &one);
        if (b != a) cz_fr_add(&c1.ch[b].drg[0].rows[0], &c1.ch[b].drg[0].rows[0], &one);
        char *json = NULL, want[80];
        size_t len = 0;
        void *st = NULL;
        CHECK(cz_c1_to_json(&c1, &json, &len) == 0);
        rc = json ? prep(c, json, len, 15, &st) : CZ_ENOMEM;
        const unsigned f = a < b ? a : b;
        snprintf(want, sizeof want, "partition %u challenge %u:", f / c1.challenges, f % c1.challenges);
        CHECK_MSG(rc == CZ_EINVAL && strstr(cz_error_message(), want), "damaged challenges %u and %u: want \"%s\", rc %d: %s",
                  a, b, want, rc, rc ? cz_error_message() : "accepted");
        if (!rc) c->release(c, st);
        free(json);
        c1.ch[a].drg[0].rows[0] = keep[0], c1.ch[b].drg[0].rows[0] = keep[1];
    }
    cz_c1_free(&c1);
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    unsigned ids[] = {5, 10, 15};
    for (int i = 0; i < 3; i++) kind(ids[i], &rng);
    first_error(&rng);
    return cz_test_finish();
}
