/* Synthetic C1 at 8 MiB and 512 MiB: every constraint of the circuit satisfied (record + witness
 * needs ~1-1.5 GB and tens of seconds on a small machine, hence the slow label). */
#include "../unit/porep_synth_check.h"

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    porep_synth_check(8ull << 20, cz_rng_next(&rng));
    porep_synth_check(512ull << 20, cz_rng_next(&rng));
    return cz_test_finish();
}
