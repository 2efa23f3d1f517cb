"""fuzz_target: a libFuzzer target and the test that replays its seeds."""

def fuzz_target(name, src, seeds, dict, deps):
    """Defines cc_binary `name` and sh_test `name`_replay_test.

    Under --config=fuzz (clang, .bazelrc) the binary links libFuzzer;
    otherwise fuzz_main.cc replays the inputs named on its command line, and
    the test replays every file in `seeds` (a folder of this package) that
    way: each must load or fail with ember::Error, never crash.

    Args:
      name: the binary's name.
      src: the file defining LLVMFuzzerTestOneInput.
      seeds: the seed corpus folder, relative to this package.
      dict: the libFuzzer dictionary (kept beside the seeds as test data).
      deps: what src needs.
    """
    native.cc_binary(
        name = name,
        srcs = [src] + select({
            ":fuzz": [],
            "//conditions:default": ["fuzz_main.cc"],
        }),
        linkopts = select({
            ":fuzz": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
        deps = deps,
    )
    native.sh_test(
        name = name + "_replay_test",
        size = "small",
        srcs = ["fuzzer_replay_test.sh"],
        args = [
            "$(location :%s)" % name,
            "%s/%s" % (native.package_name(), seeds),
        ],
        data = [":" + name, dict] + native.glob([seeds + "/*"]),
    )
