"""copts for targets that include libtorch's C++ frontend (<torch/torch.h>).

Debian's libtorch-dev puts the frontend's headers in
/usr/include/torch/csrc/api/include, which is not on the compiler's path;
each such target (the manual *_vs_libtorch benchmarks, //tools/parity:sweep)
adds it with these copts and depends on @libtorch for the libraries.
"""

LIBTORCH_COPTS = ["-isystem", "/usr/include/torch/csrc/api/include"]
