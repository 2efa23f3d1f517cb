"""ember_dependencies(): every external repository ember's build uses.

Nothing is downloaded. Bazel's own rule sets are small stand-ins kept in this
tree; libraries come from Debian packages (./bazelw installs them) and are
wired as local repositories whose BUILD files live beside this file. A
repository embedding ember calls this macro once from its WORKSPACE.
"""

load("//third_party:cuda_configure.bzl", "cuda_configure")
load("//third_party:opencv_configure.bzl", "opencv_configure")

def _in_tree_repository_impl(ctx):
    # The stand-in's directory, found through a label so that the path is
    # right both inside ember and in a repository that embeds it.
    src = ctx.path(ctx.attr.marker).dirname
    for entry in src.readdir():
        ctx.symlink(entry, entry.basename)

_in_tree_repository = repository_rule(
    implementation = _in_tree_repository_impl,
    attrs = {"marker": attr.label(mandatory = True, allow_single_file = True)},
    local = True,
)

def _system_library(name, build_file):
    if not native.existing_rule(name):
        native.new_local_repository(
            name = name,
            path = "/usr",
            build_file = str(build_file),
        )

def ember_dependencies():
    """Declares the repositories ember needs; call once from a WORKSPACE."""
    for name in ["rules_cc", "rules_java", "remote_coverage_tools"]:
        if not native.existing_rule(name):
            _in_tree_repository(
                name = name,
                marker = Label("//third_party/%s:WORKSPACE" % name),
            )
    _system_library("com_google_absl", Label("//third_party:absl.BUILD"))
    _system_library("com_google_googletest", Label("//third_party:gtest.BUILD"))
    _system_library("com_google_benchmark", Label("//third_party:benchmark.BUILD"))
    _system_library("gloo", Label("//third_party:gloo.BUILD"))
    _system_library("openblas", Label("//third_party:openblas.BUILD"))
    _system_library("dnnl", Label("//third_party:dnnl.BUILD"))
    _system_library("zlib", Label("//third_party:zlib.BUILD"))
    _system_library("libpng", Label("//third_party:libpng.BUILD"))
    _system_library("libtorch", Label("//third_party:libtorch.BUILD"))
    if not native.existing_rule("local_config_cuda"):
        cuda_configure(name = "local_config_cuda")
    if not native.existing_rule("local_config_opencv"):
        opencv_configure(name = "local_config_opencv")
