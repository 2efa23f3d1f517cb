// The tables of tensor/lapack_kernels.h; their entries register from the
// device backends.

#include "tensor/lapack_kernels.h"

namespace ember {

EMBER_DEFINE_KERNEL_TABLE(lapack_getrf, LapackGetrfFn);
EMBER_DEFINE_KERNEL_TABLE(lapack_getrs, LapackGetrsFn);
EMBER_DEFINE_KERNEL_TABLE(lapack_potrf, LapackPotrfFn);
EMBER_DEFINE_KERNEL_TABLE(lapack_potrs, LapackPotrsFn);
EMBER_DEFINE_KERNEL_TABLE(lapack_trsm, LapackTrsmFn);
EMBER_DEFINE_KERNEL_TABLE(lapack_syevd, LapackSyevdFn);
EMBER_DEFINE_KERNEL_TABLE(lapack_geqrf, LapackGeqrfFn);
EMBER_DEFINE_KERNEL_TABLE(lapack_orgqr, LapackOrgqrFn);
EMBER_DEFINE_KERNEL_TABLE(lapack_ormqr, LapackOrmqrFn);
EMBER_DEFINE_KERNEL_TABLE(lapack_gesvd, LapackGesvdFn);
EMBER_DEFINE_KERNEL_TABLE(lu_permutation_kernel, LuPermutationFn);

}  // namespace ember
