#!/usr/bin/python3
"""Lists torch.Tensor's public methods (PyTorch 1.13) that ember's Tensor
lacks, as issue 22 asks ("a generated list from PyTorch's Tensor methods
compared with ember's header"). A method counts as present when tensor.h,
after the preprocessor (macros expand to methods), declares a member of that
name. Methods of features ember does not have (sparse and quantized
tensors, named tensors, complex numbers, storages, other backends) are
listed apart, not as missing.

Run from the repository root: /usr/bin/python3 tools/parity/missing_methods.py
(needs Debian's python3-torch and g++)."""
import re
import subprocess
import sys

import torch

OUT_OF_SCOPE = {
    # sparse / compressed layouts
    "ccol_indices", "coalesce", "col_indices", "crow_indices", "dense_dim", "indices",
    "is_coalesced", "is_sparse", "is_sparse_csr", "resize_as_sparse_", "row_indices", "smm",
    "sparse_dim", "sparse_mask", "sparse_resize_", "sparse_resize_and_clear_", "sspaddmm",
    "to_dense", "to_sparse", "to_sparse_bsc", "to_sparse_bsr", "to_sparse_coo", "to_sparse_csc",
    "to_sparse_csr", "values", "to_padded_tensor", "is_nested",
    # quantized tensors (ember's quantization is its own API: tensor/quantize.h)
    "q_per_channel_axis", "q_per_channel_scales", "q_per_channel_zero_points", "qscheme",
    "int_repr", "dequantize", "q_scale", "q_zero_point",
    # named tensors
    "align_as", "align_to", "has_names", "names", "refine_names", "rename", "rename_", "name",
    # complex numbers
    "adjoint", "cdouble", "cfloat", "chalf", "conj", "conj_physical",
    "conj_physical_", "imag", "is_conj", "is_neg", "mH", "real", "resolve_conj", "resolve_neg",
    "H", "istft", "stft",
    # other backends, storages, Python-only protocol
    "ipu", "is_ipu", "is_meta", "is_mkldnn", "is_mps", "is_ort", "is_vulkan", "is_xpu", "xpu",
    "to_mkldnn", "storage", "storage_type", "share_memory_", "is_shared", "record_stream",
    "apply_", "map_", "map2_", "numpy", "tolist", "type", "new", "as_subclass", "reinforce",
    "volatile", "is_distributed", "is_set_to", "set_",
    # C++ keywords: libtorch spells these to(kFloat) etc. too
    "bool", "byte", "char", "double", "float", "half", "int", "long", "short", "bfloat16",
    # Removed in 1.13 (each raises "deprecated since version 1.9 and is now
    # removed"): their torch.linalg replacements are in ember.
    "eig", "lstsq", "solve",
    # Python-only (torch/_tensor.py); libtorch's Tensor has no such methods:
    # ember, like libtorch, has resize_/resize_as_, tensor(), and unique /
    # unique_consecutive as free functions.
    "new_tensor", "resize", "resize_as", "unique", "unique_consecutive",
}


def main():
    pp = subprocess.run(["g++", "-std=c++17", "-E", "-P", "-I.", "tensor/tensor.h"],
                        check=True, capture_output=True, text=True).stdout
    body = pp[pp.find("class Tensor {"):]
    names = sorted(n for n in dir(torch.Tensor) if not n.startswith("_"))
    missing = [n for n in names
               if n not in OUT_OF_SCOPE and not re.search(r"\b%s\s*\(" % re.escape(n), body)]
    print("torch.Tensor %s: %d public names, %d out of ember's scope, %d missing:"
          % (torch.__version__, len(names), len(OUT_OF_SCOPE & set(names)), len(missing)))
    for i in range(0, len(missing), 8):
        print("  " + " ".join(missing[i:i + 8]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
