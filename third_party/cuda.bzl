"""cuda_library: compiles .cu files with nvcc for sm_90 (plus PTX).

With no CUDA toolkit (@local_config_cuda's CUDA_ENABLED is False) the .cu
sources are left out and the library is built from `cpu_srcs` alone, so the
same target builds everywhere. The library's own sources can test the
EMBER_WITH_CUDA macro, defined when nvcc compiled them. It is deliberately not
passed to dependents: their compile commands stay the same in both
configurations, so switching (--config=nocuda) recompiles only the
cuda_library targets, not everything above them. Dependents ask at run time
(ember::cuda::is_built(), is_available()).

The toolkit's include directory is named by absolute path, only on the
targets whose sources include its headers (cuda_include_copts), as the
Debian libraries' headers under /usr/include are: a cc_library with
`includes` and `hdrs` would put its -isystem flag and its ~1000 header files
into the compile command and inputs of every target above //tensor/cuda, and
CI's CPU-only build then recompiled the whole tree after each core-header
change (933 s of a 34-minute run at stop 33).
"""

load("@local_config_cuda//:defs.bzl", "CUDA_ENABLED", "CUDA_ROOT", "NVCC")

CUDA_ARCH_FLAGS = [
    "-gencode=arch=compute_90,code=sm_90",
    "-gencode=arch=compute_90,code=compute_90",
]

def cuda_include_copts():
    """copts for a target whose own sources include the toolkit's headers.

    Bazel refuses an -isystem outside the execution root, and checks every
    absolute header path in a compile's .d file against the toolchain's
    built-in directories, which /usr/local/cuda/include is not in. So the
    directory is given as -idirafter, which Bazel does not parse, and -MMD
    (after the toolchain's -MD) leaves system headers out of the .d file:
    the toolkit is then a system library, as the Debian ones are.
    """
    return ["-idirafter", CUDA_ROOT + "/include", "-MMD"] if CUDA_ENABLED else []

def _nvcc_object_impl(ctx):
    obj = ctx.outputs.out
    dep = ctx.actions.declare_file(obj.basename + ".d", sibling = obj)
    unused = ctx.actions.declare_file(obj.basename + ".unused", sibling = obj)
    listing = ctx.actions.declare_file(obj.basename + ".headers", sibling = obj)
    ctx.actions.write(listing, "".join([h.path + "\n" for h in ctx.files.hdrs]))
    command = " ".join([
        # nvcc names its temporary files after its pid, which is the same
        # small number in every sandbox's pid namespace: with a shared
        # /tmp, two nvcc actions at once overwrote each other's files.
        # Each action gets a temporary folder of its own.
        "tmp=$(mktemp -d) && TMPDIR=$tmp",
        NVCC,
        "-std=c++17 -O3 -Xcompiler -fPIC -I%s -DEMBER_WITH_CUDA" % ctx.attr.root,
        " ".join(CUDA_ARCH_FLAGS),
        " ".join(ctx.attr.nvcc_flags),
        "-MD -MF %s -c %s -o %s" % (dep.path, ctx.file.src.path, obj.path),
        "; rc=$?; rm -rf $tmp; [ $rc -eq 0 ] || exit $rc;",
        # The headers the compile read, as exec paths; the others are
        # unused inputs, so that editing them does not rerun this action.
        "tr ' \\\\' '\\n\\n' < %s | grep -v ':$' | grep . | xargs -r realpath -ms --relative-to=. | sort -u > $tmp.used" % dep.path,
        "&& (grep -vxFf $tmp.used %s || true) > %s; rm -f $tmp.used" % (listing.path, unused.path),
    ])
    # actions.run, since run_shell takes no unused_inputs_list.
    ctx.actions.run(
        executable = "/bin/bash",
        arguments = ["-c", command],
        inputs = [ctx.file.src, listing] + ctx.files.hdrs,
        outputs = [obj, dep, unused],
        unused_inputs_list = unused,
        use_default_shell_env = True,  # PATH, for nvcc's host compiler
        mnemonic = "Nvcc",
        progress_message = "nvcc %s" % ctx.file.src.short_path,
    )
    return [DefaultInfo(files = depset([obj]))]

# One .cu file compiled by nvcc into `out`. Every header of the package (and
# nvcc_hdrs) is an input, but nvcc's dependency file names the ones the
# compile read and the rest are reported unused (unused_inputs_list): a
# local incremental build reruns the action only when a header it includes
# changed. (Remote and disk cache keys still cover every input.)
_nvcc_object = rule(
    implementation = _nvcc_object_impl,
    attrs = {
        "src": attr.label(allow_single_file = [".cu"], mandatory = True),
        "hdrs": attr.label_list(allow_files = True),
        "out": attr.output(mandatory = True),
        "root": attr.string(mandatory = True),
        "nvcc_flags": attr.string_list(),
    },
)

def cuda_library(name, srcs = [], hdrs = [], deps = [], cpu_srcs = [], nvcc_flags = [], nvcc_hdrs = [], **kwargs):
    """A cc_library whose .cu sources are compiled by nvcc when CUDA exists.

    Args:
      name: target name.
      srcs: .cu files (and any .cc compiled only with CUDA).
      hdrs: headers, available in both configurations.
      deps: cc deps of the library.
      cpu_srcs: .cc files compiled in both configurations (e.g. the stubs
        that report "CUDA is not available" in a CPU-only build).
      nvcc_flags: extra nvcc flags.
      nvcc_hdrs: headers of other packages that .cu files include (labels);
        the package's own *.h and *.cuh are inputs already.
      **kwargs: passed to cc_library.
    """
    if not CUDA_ENABLED:
        # What reaches dependents' compile actions stays as with CUDA:
        # the private headers of `srcs` (never compiled here) are still
        # listed, since Bazel makes them inputs of every dependent's
        # compiles, and cudart (an empty library here) is still a dep, for
        # the `-iquote external/local_config_cuda` Bazel adds above any
        # target of that repository.
        native.cc_library(
            name = name,
            srcs = cpu_srcs + [s for s in srcs if s.endswith(".h") or s.endswith(".cuh")],
            hdrs = hdrs,
            deps = deps + ["@local_config_cuda//:cudart"],
            **kwargs
        )
        return
    # nvcc runs in the execution root, where this repository's files are
    # under external/<name>/ when ember is embedded in another workspace.
    repo = native.repository_name()
    root = "." if repo == "@" else "external/" + repo[1:]
    objs = []
    cc_srcs = []
    for src in srcs:
        if not src.endswith(".cu"):
            cc_srcs.append(src)
            continue
        obj = "_%s_cuda/%s.o" % (name, src[:-3])
        _nvcc_object(
            name = "%s_%s_nvcc" % (name, src[:-3].replace("/", "_")),
            src = src,
            hdrs = {f: None for f in hdrs + nvcc_hdrs + native.glob(["**/*.h", "**/*.cuh"])}.keys(),
            out = obj,
            root = root,
            nvcc_flags = nvcc_flags,
        )
        objs.append(obj)
    native.cc_library(
        name = name,
        srcs = objs + cc_srcs + cpu_srcs,
        hdrs = hdrs,
        copts = kwargs.pop("copts", []) + cuda_include_copts(),
        local_defines = ["EMBER_WITH_CUDA"],
        deps = deps + ["@local_config_cuda//:cudart"],
        **kwargs
    )
