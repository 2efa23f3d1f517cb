"""Golden tables for //profiler:profiler_test.

Builds PyTorch 1.13's own profiler events (torch.autograd.profiler_util
FunctionEvent, legacy CUDA timing) from a fixed set of ranges, and writes the
ranges and the tables PyTorch prints for them (EventList.table and
key_averages().table, with and without memory, CUDA times, input shapes,
headers and sorting) to profiler/testdata/profiler_table_golden.inc. The test
builds the same ranges as ember's RawSession and compares its tables to these
strings byte for byte.

Run: /usr/bin/python3 tools/golden/profiler_table.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
from torch.autograd.profiler_util import EventList, FunctionEvent  # noqa: E402

from golden_util import write_inc  # noqa: E402

# name, kind (ember's RangeKind), thread, parent index, start ns, end ns,
# self CPU bytes, self CUDA bytes, device start us, device end us, shapes.
# Times are multiples of 250 ns so every microsecond value is exact.
RANGES = [
    ("model_inference", "kUser", 1, -1, 0, 2_750_500, 0, 0, 0.0, 2600.0, []),
    ("convolution", "kOp", 1, 0, 1_000, 1_201_250, 4096, 0, 1.0, 1150.25, [[8, 3, 32, 32], [16, 3, 3, 3], [16]]),
    ("copy_", "kInplaceOp", 1, 1, 2_000, 52_000, 0, 0, 2.0, 40.5, [[16, 3, 3, 3], [16, 3, 3, 3]]),
    ("add", "kInplaceOp", 1, 0, 1_300_000, 1_350_750, -2048, 0, 1200.0, 1210.0, [[8, 16, 30, 30], [8, 16, 30, 30]]),
    ("relu", "kOp", 1, 0, 1_400_000, 1_600_250, 1_572_864, 3 * 1024 * 1024, 1300.0, 1500.0, [[8, 16, 30, 30]]),
    ("mm", "kOp", 1, 0, 1_700_000, 2_700_000, 2 * 1024 ** 3, 0, 1550.0, 2550.0, [[8, 14400], [14400, 10]]),
    ("relu", "kOp", 1, 0, 2_700_250, 2_700_750, 320, 0, 2550.0, 2551.0, [[8, 10]]),
    ("a_long_user_range_name_that_is_longer_than_the_name_column_is_wide", "kUser", 2, -1,
     100_000, 900_000, 0, 0, -1.0, -1.0, []),
    ("convolution", "kOp", 2, 7, 150_000, 850_250, 4096, 0, -1.0, -1.0, [[8, 3, 32, 32], [16, 3, 3, 3], [16]]),
    ("MulBackward0", "kBackward", 2, -1, 950_000, 990_000, 1024, 0, -1.0, -1.0, []),
    ("mul", "kOp", 2, 9, 960_000, 980_000, 1024, 0, -1.0, -1.0, [[4, 4], [4, 4]]),
    ("relu", "kOp", 2, -1, 995_000, 996_000, 0, 0, -1.0, -1.0, [[16]]),
]


def display(name, kind):
    if kind == "kOp":
        return "aten::" + name
    if kind == "kInplaceOp":
        n = "aten::" + name
        return n if n.endswith("_") else n + "_"
    return name


def events(with_cuda, with_shapes):
    # Memory totals include the children's, as PyTorch's events hold them.
    total_cpu = [r[6] for r in RANGES]
    total_cuda = [r[7] for r in RANGES]
    for i in reversed(range(len(RANGES))):
        p = RANGES[i][3]
        if p >= 0:
            total_cpu[p] += total_cpu[i]
            total_cuda[p] += total_cuda[i]
    evs = []
    for i, (name, kind, thread, parent, s, e, _, _, ds, de, shapes) in enumerate(RANGES):
        ev = FunctionEvent(
            id=i, name=display(name, kind), thread=thread, start_us=s / 1000.0, end_us=e / 1000.0,
            input_shapes=shapes if with_shapes else [], cpu_memory_usage=total_cpu[i],
            cuda_memory_usage=total_cuda[i], is_legacy=True, stack=[])
        if with_cuda and ds >= 0:
            ev.append_kernel(ev.name, 0, de - ds)
        evs.append(ev)
    for i, r in enumerate(RANGES):
        if r[3] >= 0:
            evs[i].set_cpu_parent(evs[r[3]])
            evs[r[3]].append_cpu_child(evs[i])
    return evs


def event_list(with_cuda=False, with_shapes=False, profile_memory=False):
    evs = events(with_cuda, with_shapes)
    # The order torch.autograd.profiler gives its events.
    evs.sort(key=lambda evt: [evt.time_range.start, -evt.time_range.end])
    el = EventList(evs, use_cuda=with_cuda,
                   profile_memory=profile_memory)
    el._tree_built = True  # the parents above are the tree
    return el


def cpp_string(s):
    lines = s.split("\n")
    out = []
    for i, line in enumerate(lines):
        if i == len(lines) - 1 and line == "":
            break
        esc = line.replace("\\", "\\\\").replace('"', '\\"')
        out.append('    "%s\\n"' % esc)
    return "\n".join(out) if out else '    ""'


def main():
    lines = ["// The ranges:"]
    lines.append("#define EMBER_PROFILER_GOLDEN_RANGES \\")
    for (name, kind, thread, parent, s, e, cm, gm, ds, de, shapes) in RANGES:
        shp = "{" + ", ".join("{" + ", ".join(str(d) for d in sh) + "}" for sh in shapes) + "}"
        lines.append('  {"%s", RangeKind::%s, %d, %d, %d, %d, %d, %d, %r, %r, %s}, \\'
                     % (name, kind, thread, parent, s, e, cm, gm, ds, de, shp))
    lines.append("")
    cases = [
        # (case name, with_cuda, with_shapes, profile_memory, averaged, group, table kwargs)
        ("raw", False, False, False, False, False, {}),
        ("averages_by_self_cpu", False, False, False, True, False,
         dict(sort_by="self_cpu_time_total", row_limit=4)),
        ("shapes_by_cpu_total", False, True, False, True, True, dict(sort_by="cpu_time_total")),
        ("memory", False, False, True, True, False, dict(sort_by="cpu_memory_usage")),
        ("cuda", True, False, False, True, False, dict(sort_by="self_cuda_time_total")),
        ("header_top_level", False, False, False, False, False,
         dict(header="my header", top_level_events_only=True, max_name_column_width=30)),
        ("by_count", False, False, False, True, False, dict(sort_by="count")),
    ]
    lines.append("// {case, with_cuda, with_shapes, profile_memory, averaged, group_by_shapes,")
    lines.append("//  sort_by, row_limit, max_name_column_width, header, top_level_only, table}")
    lines.append("#define EMBER_PROFILER_GOLDEN_TABLES \\")
    for name, cuda, shapes, mem, avg, group, kw in cases:
        el = event_list(cuda, shapes, mem)
        if avg:
            el = el.key_averages(group_by_input_shapes=group)
        table = el.table(**kw)
        lines.append('  {"%s", %s, %s, %s, %s, %s, "%s", %d, %d, "%s", %s,' % (
            name, str(cuda).lower(), str(shapes).lower(), str(mem).lower(), str(avg).lower(),
            str(group).lower(), kw.get("sort_by", ""), kw.get("row_limit", 100),
            kw.get("max_name_column_width", 55), kw.get("header", ""),
            str(kw.get("top_level_events_only", False)).lower()) + " \\")
        lines.append(cpp_string(table).replace("\n", " \\\n") + "}, \\")
    lines.append("")
    write_inc("profiler_table_golden.inc", "profiler_table",
              "Ranges and PyTorch's tables for them (see the generator).", lines, "lines",
              package="profiler")


if __name__ == "__main__":
    main()
