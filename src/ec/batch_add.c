/* CPU 0/1 batch addition for G1 and G2: the two instantiations of batch_add_impl.h. */
#include <omp.h>
#include <stdlib.h>

#include "ec/msm.h"
#include "ec/msm_internal.h"

/* How a pair of buffered points is added: distinct x, doubling, or opposite points. */
enum { CZ_BADD_ADD, CZ_BADD_DBL, CZ_BADD_INF };

#include "ec/ec_group_g1.h"
#include "ec/batch_add_impl.h"
#include "ec/ec_group_end.h"

#include "ec/ec_group_g2.h"
#include "ec/batch_add_impl.h"
#include "ec/ec_group_end.h"
