#!/usr/bin/env bash
# tools/gpu_checks.sh: the checks a session with a GPU runs, in one call of
# the device tool, on what tools/gpu_bundle.sh packed here. Prepare here:
#
#   tools/gpu_bundle.sh $(tools/gpu_checks.sh --targets)
#   tools/gpu_checks.sh --data          # a Fashion-MNIST subset into .gpu/mnist
#
# then, through the device tool with carry [".gpu"]:
#
#   bash tools/gpu_checks.sh [tests] [sanitize] [bench] [train] [models] [profile]
#                            [tcpstore]           # none named: the first four
#
# It writes at most seven files under $OUT (tests.log, sanitize.log,
# bench.log, train.log, models.log, profile.log, tcpstore.log; tcpstore
# also brings back the PyTorch 2.x transcripts) and a one-line-per-check
# summary to stdout. Every check has a
# timeout, so one hung kernel costs its own time only.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Those never yet run on a GPU first.
TESTS=(//tensor/cuda:grid_sampler_test //tensor/cuda:distributions_test //nn:rnn_functional_test //tensor/cuda:no_fallback_test //tensor/cuda:stream_test //tensor/cuda:sort_test //tensor/cuda:indexing_test
  //nn/functional:dropout_cuda_test //tensor/cuda:graph_test //nn:cuda_graph_test
  //tensor/cuda:linalg_test //tensor/cuda:reduce_ops_test //tensor/cuda:index_ops_test //tensor:linalg_spectral_test
  //tensor/cuda:sort_ops_test //tensor/cuda:special_test //tensor:linalg_more_test //tensor:linalg_factor_test
  //profiler:profiler_test //nn:data_parallel_test //nn:clone_test
  //nn/functional:layer_norm_cuda_test
  //nn/functional:attention_cuda_test //nn/functional:batch_norm_cuda_test
  //models:resnet_test //models:gpt2_test
  //tensor/cuda:cuda_test //tensor/cuda:ops_test //tensor/cuda:ops_more_test
  //tensor:iterator_device_test //tensor:device_guard_test //tensor:print_test
  //autograd:cuda_test //autograd:autograd_test //optim:cuda_test //nn:module_test
  //data:collate_test //data:dataloader_test //serialize:checkpoint_test
  //serialize:safetensors_test //trainers:mnist_test //trainers:mnist_ddp_test
  //distributed:process_group_nccl_test //distributed:process_group_nccl_multigpu_test
  //tensor/cuda:random_test //amp:grad_scaler_test
  //tensor:precision_test //tensor:autocast_test //nn/functional:autocast_test
)
BINARIES=(//benchmarks:cuda_ops //benchmarks:models_cuda //benchmarks:allreduce //trainers:mnist
  //distributed:launch //distributed:tcp_store_tool
  //benchmarks:dataloader_cuda)

case "${1:-}" in
  --targets) echo "${TESTS[@]}" "${BINARIES[@]}"; exit 0 ;;
  --data)
    # 20000 training images (the header's count rewritten) and the whole
    # test set: small enough to travel beside the bundle.
    mkdir -p .gpu/mnist
    python3 - <<'EOF'
import gzip, shutil, struct
src, dst = '/usr/share/datasets/fashion-mnist/', '.gpu/mnist/'
def cut(name, n):
    d = gzip.open(src + name).read()
    magic = struct.unpack('>I', d[:4])[0]
    nd = magic & 0xff
    dims = struct.unpack('>' + 'I' * nd, d[4:4 + 4 * nd])
    per = 1
    for x in dims[1:]:
        per *= x
    head = struct.pack('>I', magic) + struct.pack('>' + 'I' * nd, n, *dims[1:])
    open(dst + name, 'wb').write(gzip.compress(head + d[4 + 4 * nd:4 + 4 * nd + n * per], 6))
cut('train-images-idx3-ubyte.gz', 20000)
cut('train-labels-idx1-ubyte.gz', 20000)
for f in ('t10k-images-idx3-ubyte.gz', 't10k-labels-idx1-ubyte.gz'):
    shutil.copy(src + f, dst)
EOF
    exit 0 ;;
esac

want=("$@")
((${#want[@]})) || want=(tests sanitize bench train)
OUT=${OUT:-/tmp/gpu_out}
mkdir -p "${OUT}" /tmp/g
tar -xJf .gpu/bundle.tar.xz -C /tmp/g
export LD_LIBRARY_PATH=/tmp/g/lib
B=/tmp/g/bin
# The trainer's tests read Fashion-MNIST where Debian installs it.
fm=/usr/share/datasets/fashion-mnist
if [[ -d .gpu/mnist && ! -e ${fm}/train-images-idx3-ubyte.gz ]]; then
  mkdir -p "${fm}" && cp .gpu/mnist/* "${fm}/" ||
    { mkdir -p /tmp/fm && cp .gpu/mnist/* /tmp/fm/ && mount --bind /tmp/fm "${fm}"; }
fi
ls -l "${fm}" .gpu/mnist | head -12
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
# The binaries call glibc's vector math (libmvec, symbols of glibc 2.35:
# Note [Vectorized libm]); the bundle leaves glibc's libraries to this
# machine. Say at once if they cannot load here, rather than per test.
ldd --version | head -1
missing=$(ldd -r "${B}/tensor/cuda/cuda_test" 2>&1 | grep -E 'not found|undefined symbol' | head -5)
if [[ -n ${missing} ]]; then
  echo "PREFLIGHT FAILED: the bundled binaries cannot load here (glibc older than 2.35?):"
  echo "${missing}"
fi

for w in "${want[@]}"; do
  case "${w}" in
    tests)
      # GPU_TESTS="//a:b //c:d" runs those alone.
      [[ -n ${GPU_TESTS:-} ]] && read -r -a TESTS <<<"${GPU_TESTS}"
      for t in "${TESTS[@]}"; do
        name=${t#//}; name=${name/://}
        dir=$PWD
        # The launcher test runs `distributed/launch ... trainers/mnist`
        # relative to its working directory, as under Bazel's runfiles.
        [[ ${name} == trainers/mnist_ddp_test ]] && dir=${B}
        start=${SECONDS}
        (cd "${dir}" && timeout 150 "${B}/${name}" --gtest_brief=1) >"${OUT}/t" 2>&1
        rc=$?
        skipped=$(grep -c '^\[  SKIPPED \]' "${OUT}/t")
        echo "${name} rc=${rc} skipped=${skipped} $((SECONDS - start))s"
        { echo "===== ${name} rc=${rc}"; cat "${OUT}/t"; } >>"${OUT}/tests.log"
        rm -f "${OUT}/t"
      done ;;
    sanitize)
      # compute-sanitizer's memcheck over the kernel tests: out-of-bounds and
      # misaligned accesses that a passing comparison can hide.
      cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
      for t in tensor/cuda/ops_test tensor/cuda/ops_more_test tensor/cuda/random_test \
        tensor/cuda/index_ops_test nn/functional/attention_cuda_test \
        nn/functional/batch_norm_cuda_test nn/functional/layer_norm_cuda_test; do
        start=${SECONDS}
        timeout 100 "${cs}" --tool memcheck --error-exitcode 3 "${B}/${t}" --gtest_brief=1 \
          >"${OUT}/t" 2>&1
        rc=$?
        echo "memcheck ${t} rc=${rc} $((SECONDS - start))s"
        { echo "===== memcheck ${t} rc=${rc}"; tail -c 20000 "${OUT}/t"; } >>"${OUT}/sanitize.log"
        rm -f "${OUT}/t"
      done ;;
    bench)
      # BENCH_ONLY=sort,random reruns those cuda_ops families alone (names:
      # benchmarks/cuda_ops.cc) and skips the rest of the section.
      {
        only=${BENCH_ONLY:+--only=${BENCH_ONLY}}
        echo "===== ember"; timeout 180 "${B}/benchmarks/cuda_ops" --iters=100 ${only}
        echo "===== torch"; timeout 180 python3 tools/cuda_ops_torch.py --iters=100 ${only}
        if [[ -z ${BENCH_ONLY:-} ]]; then
          # Issue 17: pin_memory batches + non_blocking uploads on a side
          # stream against pageable batches + blocking uploads.
          echo "===== ember dataloader_cuda"; timeout 90 "${B}/benchmarks/dataloader_cuda"
          echo "===== torch dataloader_cuda"; timeout 90 python3 tools/dataloader_cuda_torch.py
          # One GPU: a world of one checks the NCCL path and its #wrong count,
          # not bandwidth (busbw is 0 for one rank).
          echo "===== allreduce --backend nccl --nproc 1"
          timeout 60 "${B}/benchmarks/allreduce" --backend nccl --nproc 1 -b 8 -e 64M -f 8 -w 2 -n 10 -c 1
        fi
      } >"${OUT}/bench.log" 2>&1
      echo "bench rc=$?"; grep -E "^(=====|no usable|.*gain )" "${OUT}/bench.log" ;;
    train)
      {
        for d in cuda cpu; do
          echo "===== mnist --device=${d}, 20000 training images"
          start=${SECONDS}
          timeout 90 "${B}/trainers/mnist" --device="${d}" --epochs=1 --train_limit=20000
          echo "rc=$? wall $((SECONDS - start)) s"
        done
        echo "===== mnist --device=cuda --nproc=2 (both ranks on cuda:0)"
        start=${SECONDS}
        timeout 90 "${B}/trainers/mnist" --device=cuda --nproc=2 --epochs=1 --train_limit=20000
        echo "rc=$? wall $((SECONDS - start)) s"
      } >"${OUT}/train.log" 2>&1
      echo "train done" ;;
    models)
      # Issue 19's GPU figures, ember then PyTorch in the same call.
      {
        only=${MODELS_ONLY:+--only=${MODELS_ONLY}}  # gpt or resnet; both by default
        echo "===== ember"; timeout 150 "${B}/benchmarks/models_cuda" --iters=10 ${only}
        if [[ ${MODELS_ONLY:-gpt} == gpt ]]; then
          echo "===== ember, GPT-2 with the fused attention kernel"
          timeout 90 "${B}/benchmarks/models_cuda" --iters=10 --only=gpt --sdpa=flash
        fi
        echo "===== torch"; timeout 200 python3 tools/models_cuda_torch.py --iters=10 ${only}
      } >"${OUT}/models.log" 2>&1
      echo "models rc=$?"; grep -E "^(=====|gpt2|resnet)" "${OUT}/models.log" ;;
    tcpstore)
      # Issue 21 with the machine's PyTorch 2.x: its TCPStore transcripts
      # (distributed/testdata/tcpstore_transcripts_2X.inc come back under
      # $OUT), both directions live, and ember's mnist under real torchrun.
      {
        echo "===== transcripts"; timeout 60 python3 tools/golden/tcpstore_transcripts.py &&
          cp distributed/testdata/tcpstore_transcripts_[2-9]*.inc "${OUT}/"
        echo "===== interop"; timeout 120 python3 tools/tcpstore_interop.py "${B}/distributed/tcp_store_tool"
        echo "===== torchrun"
        (cd "${B}" && timeout 120 torchrun --no-python --nproc-per-node=2 trainers/mnist \
          --device=cpu --epochs=1 --train_limit=512 --test_limit=128 --batch_size=32 --threads=1)
        echo "torchrun rc=$?"
      } >"${OUT}/tcpstore.log" 2>&1
      echo "tcpstore rc=$?"; grep -E "^(=====|ok|FAILED|both|torchrun rc|wrote)" "${OUT}/tcpstore.log" ;;
    profile)
      # One bf16 step's kernels (GPT-2's, or PROFILE_MODEL=resnet),
      # ember's and PyTorch's, summed by name.
      ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
      for side in ${PROFILE_SIDES:-ember torch}; do
        cmd=("${B}/benchmarks/models_cuda")
        [[ ${side} == torch ]] && cmd=(python3 tools/models_cuda_torch.py)
        timeout 200 "${ncu}" --profile-from-start off --clock-control none \
          --metrics gpu__time_duration.sum --csv --page raw --print-units base \
          "${cmd[@]}" --iters=1 --only="${PROFILE_MODEL:-gpt}" --profile >"${OUT}/t.csv" 2>"${OUT}/t.err"
        echo "ncu ${side} rc=$?"
        { echo "===== ${side}"; tail -5 "${OUT}/t.err"
          python3 tools/ncu_kernels.py "${OUT}/t.csv" --top=45; } >>"${OUT}/profile.log" 2>&1
        rm -f "${OUT}/t.csv" "${OUT}/t.err"
      done ;;
  esac
done
