/* The SnapDeals (EmptySectorUpdate) circuit of rust-fil-proofs (storage-proofs-update circuit.rs
 * EmptySectorUpdateCircuit::synthesize and gadgets.rs), one partition, in upstream's allocation
 * and constraint order for every mode of the cs (filecoin-circuits.md §3.3).
 *
 * Order: k_and_h_select (+ input) and its (partition_bits + 6) bits with one packing constraint,
 * pack_bits(partition bits); comm_r_old, comm_d_new, comm_r_new (+ inputs); phi = H_tag(comm_d_new,
 * comm_r_old); comm_c, root_r_old, root_r_new, apex leaves, partition-path siblings;
 * H(comm_c, root_r_old) * ONE = comm_r_old, same for new; apex tree (SHA pairs) and its path to
 * comm_d_new; gen_challenge_bits; per challenge: c_high selection, rho = H_tag(phi, c_high),
 * leaf_r_old, leaf_d_new, leaf_r_new = leaf_r_old + leaf_d_new * rho, tree_r_old siblings + path,
 * tree_r_new siblings + path (index bits = the challenge bits, no input), apex-leaf select, tree_d
 * siblings + path to the apex leaf. H_tag = Poseidon arity 2 with the domain tag 2^40
 * (HashType::Custom(Arbitrary(1))). */
#ifndef CZ_FILECOIN_SNAP_CIRCUIT_H
#define CZ_FILECOIN_SNAP_CIRCUIT_H

#include <stdint.h>

#include "gadgets/por.h"
#include "r1cs/wcompact.h"

typedef struct {
    const char *name;
    uint64_t sector_size;
    unsigned nodes_log2; /* challenge_bit_len */
    unsigned partitions, partition_bits;
    unsigned challenges; /* per partition */
    unsigned apex_leaves, apex_bits;
    unsigned hs[6];        /* the allowed h values (h_select picks one) */
    cz_tree_shape tree_r;  /* Poseidon: arity-8 base, then sub / top */
    unsigned tree_r_extra; /* sub / top levels at the end of tree_r */
    cz_tree_shape tree_d;  /* SHA-256 binary, nodes_log2 levels */
} cz_snap_params;

/* Parameters for the registered sizes (2 KiB, 8 MiB, 512 MiB, 32 GiB, 64 GiB) and upstream's test
 * sizes (1, 4, 8, 16, 32 KiB). 0 or CZ_EINVAL. */
int cz_snap_params_for(cz_snap_params *p, uint64_t sector_size);
/* The h_select bit of h: index of h in p->hs, or -1. */
int cz_snap_h_index(const cz_snap_params *p, unsigned h);
/* The public input k_and_h_select = k | (1 << h_index) << partition_bits. 0 or CZ_EINVAL. */
int cz_snap_k_and_h_select(uint64_t *out, const cz_snap_params *p, unsigned k, unsigned h);

/* One challenge: the three leaves and the three paths' siblings (tree_r shapes, tree_d). */
typedef struct {
    cz_fr leaf_r_old, leaf_d_new, leaf_r_new;
    const cz_fr *path_r_old, *path_d_new, *path_r_new;
} cz_snap_challenge;

typedef struct {
    unsigned k, h; /* partition, high-bit count */
    cz_fr comm_r_old, comm_d_new, comm_r_new, comm_c, root_r_old, root_r_new;
    const cz_fr *apex_leafs;     /* p->apex_leaves */
    const cz_snap_challenge *ch; /* p->challenges; ch[0].path_d_new's top partition_bits
                                              siblings are the partition path */
} cz_snap_witness;

/* Synthesizes one partition. w is read only in witness mode (may be NULL otherwise). 0, CZ_EINVAL
 * or the cs's sticky error. */
int cz_snap_synthesize(cz_cs *cs, const cz_snap_params *p, const cz_snap_witness *w);

/* Inputs including ONE: k_and_h_select, comm_r_old, comm_d_new, comm_r_new. */
#define CZ_SNAP_INPUTS 5

/* Aux variables before the challenge loop and per challenge (counted once per sector size). */
int cz_snap_shape(const cz_snap_params *p, uint64_t *top_aux, uint64_t *ch_aux);

/* Witness of one partition, challenges in parallel on nthreads (<= 0: OpenMP's default), written
 * straight into caller buffers (inputs: CZ_SNAP_INPUTS, aux: top + challenges * per challenge):
 * the same values in the same order as cz_snap_synthesize in witness mode. 0, CZ_ERANGE (buffers
 * too small) or the first failing challenge's error. */
int cz_snap_witness_parallel(const cz_snap_params *p, const cz_snap_witness *w, cz_fr *inputs,
                             uint64_t inputs_cap, cz_fr *aux, uint64_t aux_cap, int nthreads);
/* The same witness with aux in compact form (r1cs/wcompact.h: ~98 % of a Snap witness is 0 or 1), written
 * without ever holding 32 bytes per aux value; aux is cleared first. 0, CZ_ERANGE, CZ_ENOMEM or the first
 * failing challenge's error. */
int cz_snap_witness_compact(const cz_snap_params *p, const cz_snap_witness *w, cz_fr *inputs, uint64_t inputs_cap,
                            cz_wcompact *aux, int nthreads);

/* Vanilla helpers shared by the witness, the verifier and the generator. */
/* H_tag(a, b): Poseidon arity 2, domain tag 2^40 (phi, rho, challenge digests). */
void cz_snap_hash_tag(cz_fr *out, const cz_fr *a, const cz_fr *b);
/* The challenges of partition k (Challenges::new): p->challenges node indices. */
void cz_snap_challenges(uint32_t *out, const cz_snap_params *p, const cz_fr *comm_r_new, unsigned k);

#endif
