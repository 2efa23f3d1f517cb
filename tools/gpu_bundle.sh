#!/usr/bin/env bash
# tools/gpu_bundle.sh TARGET... : builds Bazel test/binary targets here and
# copies them, with every shared library they load (Bazel's own _solib_k8
# libraries and the Debian ones: Abseil, OpenBLAS, oneDNN, gloo...), into
# one compressed archive, .gpu/bundle.tar.xz (ignored by git; OpenBLAS and
# oneDNN alone are 75 MB unpacked, over what the device tool carries), so
# that a machine with a GPU but none of those packages runs them:
#
#   tools/gpu_bundle.sh //tensor/cuda:cuda_test //tensor/cuda:ops_test  # here; carry .gpu
#   # on the GPU machine, from the repository root:
#   mkdir -p /tmp/g && tar -xJf .gpu/bundle.tar.xz -C /tmp/g
#   LD_LIBRARY_PATH=/tmp/g/lib /tmp/g/bin/tensor/cuda/cuda_test
#
# Binaries keep their package path under bin/ (//autograd:cuda_test and
# //tensor/cuda:cuda_test both exist), so bin/ is also the working
# directory for tests that run `distributed/launch` or `trainers/mnist`.
#
# The C library, the dynamic loader, the NVIDIA driver (libcuda) and the
# CUDA toolkit's libraries stay behind: the GPU machine's own are used. Test data under the source
# tree travels with the working tree; tests that read runfiles should be
# run from the repository root with TEST_SRCDIR unset.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

(($#)) || { echo "usage: $0 //pkg:target..." >&2; exit 2; }
./bazelw build "$@"
exclude=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "${exclude}")"
grep -qx '/.gpu/' "${exclude}" 2>/dev/null || echo '/.gpu/' >>"${exclude}"
rm -rf .gpu/stage .gpu/bundle.tar.xz  # keeps what else travels in .gpu (tools/gpu_checks.sh --data)
mkdir -p .gpu/stage/bin .gpu/stage/lib
bin=$(./bazelw info bazel-bin 2>/dev/null)
for t in "$@"; do
  pkg=${t#//}; pkg=${pkg%%:*}; name=${t##*:}
  [[ ${t} == *:* ]] || name=${pkg##*/}
  exe="${bin}/${pkg}/${name}"
  mkdir -p ".gpu/stage/bin/${pkg}"
  cp -L "${exe}" ".gpu/stage/bin/${pkg}/${name}"
  ldd "${exe}" | awk '/=> \// {print $1, $3}' | while read -r soname path; do
    case "${soname}" in
      # libmvec too: it is glibc's (it needs this glibc's loader's private
      # symbols and DT_RELR), so the GPU machine's own must serve (glibc
      # 2.35 or later: tools/gpu_checks.sh checks before the tests).
      libc.so*|libm.so*|libmvec.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*|libcuda.so*) continue ;;
      # The toolkit's libraries (cuBLAS alone is ~700 MB) are at
      # /usr/local/cuda on the GPU machine too; the rpath finds them there.
      libcudart.so*|libcublas*.so*|libcudnn*.so*|libnccl.so*) continue ;;
    esac
    [[ -e ".gpu/stage/lib/${soname}" ]] || cp -L "${path}" ".gpu/stage/lib/${soname}"
  done
done
XZ_OPT=-T2 tar -cJf .gpu/bundle.tar.xz -C .gpu/stage bin lib
rm -rf .gpu/stage
du -sh .gpu/bundle.tar.xz
