/* CPU verification of the vanilla PoRep proofs in a C1 (what the circuit will prove, checked
 * natively first so that a bad C1 is rejected with a message naming the partition, challenge and
 * field rather than an unsatisfied constraint row). */
#ifndef CZ_FILECOIN_VANILLA_H
#define CZ_FILECOIN_VANILLA_H

#include <stdbool.h>

#include "filecoin/c1.h"

/* Vanilla create_label: SHA256(replica_id ‖ layer u32 BE ‖ node u64 BE ‖ 20 zero bytes ‖ 37
 * parents, parent k = parents[k % nparents] (6 for layer 1, 14 after)), byte 31 &= 0x3f. */
void cz_porep_label(cz_fr *out, const uint8_t replica_id[32], uint32_t layer, uint64_t node, const cz_fr *parents,
                    unsigned nparents);

/* Checks partition k: every tree_d path to comm_d, every column path to comm_c, the challenged
 * node's labels recomputed from its parents' rows and their column hash included in tree_c, the
 * encoded node (label_L + data) included in tree_r_last, comm_r = Poseidon(comm_c, comm_r_last),
 * the three path indices equal to the challenge. With graph, also the challenges (from the seed)
 * and the parents (from the graph), as cz_porep_public_inputs. 0, or CZ_EVERIFY naming partition,
 * challenge and field (CZ_EINVAL / CZ_EUNSUPPORTED for a bad k or an unsupported proof). */
int cz_c1_verify(const cz_c1 *c1, unsigned k, bool graph);
/* cz_c1_verify's parts, for threads: challenge i of partition k (its paths, labels and comm_r), and the graph part
 * (challenges and parents, cz_porep_public_inputs). cz_c1_verify is challenges 0.. in order, then the graph. */
int cz_c1_verify_challenge(const cz_c1 *c1, unsigned k, unsigned i);
int cz_c1_verify_graph(const cz_c1 *c1, unsigned k);

#endif
