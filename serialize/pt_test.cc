// .pt files: what PyTorch 1.13's torch.save wrote (serialize/testdata/pt/,
// made by tools/pt_interop.py make), what ember writes (byte for byte the
// files that script checked with torch.load), and hostile input.
#include "serialize/pt.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "serialize/checkpoint.h"
#include "serialize/interop_sample.h"
#include "serialize/pickle.h"
#include "serialize/pt_sample.h"
#include "serialize/test_util.h"
#include "serialize/zip.h"
#include "tensor/creation.h"
#include "tensor/cuda/cuda.h"
#include "tensor/error.h"
#include "tensor/indexing.h"
#include "tensor/quantize.h"
#include "tensor/shape.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using namespace std::string_literals;  // NOLINT: pickles hold NUL bytes

using ::ember::testing::error_of;
using serialize_testing::interop_sample;
using serialize_testing::kPtTestdata;
using serialize_testing::read_bytes;
using serialize_testing::same_tensor;
using serialize_testing::TempDir;
using serialize_testing::views_sample;
using serialize_testing::write_bytes;

std::string testdata(const std::string& name) { return std::string(kPtTestdata) + name; }

std::string load_error(const std::string& bytes) {
  return error_of([&] { pt::load(bytes); });
}

#define EXPECT_CONTAINS(text, part)                                         \
  do {                                                                      \
    const std::string text_ = (text);                                       \
    EXPECT_NE(text_.find(part), std::string::npos) << "message: " << text_; \
  } while (0)

const Tensor* find(const NamedTensors& t, const std::string& key) {
  for (const auto& kv : t) {
    if (kv.first == key) return &kv.second;
  }
  return nullptr;
}

const Storage& storage_of(const Tensor& t) { return t.unsafeGetTensorImpl()->storage(); }

// --- PyTorch -> ember ----------------------------------------------------------------

TEST(PtLoadTest, ReadsEveryDtypeTorchSavedInOrder) {
  const pt::Value v = pt::load_file(testdata("torch_sample.pt"));
  ASSERT_TRUE(v.is_ordered_dict());
  const NamedTensors want = interop_sample();
  ASSERT_EQ(v.entries().size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(v.entries()[i].first.string(), want[i].first);
    EXPECT_TRUE(same_tensor(v.entries()[i].second.tensor(), want[i].second)) << want[i].first;
    EXPECT_FALSE(v.entries()[i].second.requires_grad());
    EXPECT_EQ(v.entries()[i].second.saved_device(), Device(kCPU));
  }
  const NamedTensors flat = load(testdata("torch_sample.pt"));
  ASSERT_EQ(flat.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(flat[i].first, want[i].first);
    EXPECT_TRUE(same_tensor(flat[i].second, want[i].second)) << want[i].first;
  }
}

TEST(PtLoadTest, ViewsShareTheirStorageAsTorchLoadKeepsThem) {
  NamedTensors got = load(testdata("torch_views.pt"));
  const NamedTensors want = views_sample();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const std::string& k = want[i].first;
    EXPECT_EQ(got[i].first, k);
    EXPECT_TRUE(same_tensor(got[i].second, want[i].second)) << k;
    EXPECT_EQ(got[i].second.strides(), want[i].second.strides()) << k;
    EXPECT_EQ(got[i].second.storage_offset(), want[i].second.storage_offset()) << k;
  }
  const Tensor& base = *find(got, "base");
  for (const char* k : {"t", "row", "strided", "block", "element", "empty_tail"}) {
    EXPECT_EQ(storage_of(*find(got, k)), storage_of(base)) << k;
  }
  EXPECT_EQ(storage_of(*find(got, "tied")), storage_of(*find(got, "tied_again")));
  EXPECT_NE(storage_of(*find(got, "tied")), storage_of(base));
  EXPECT_EQ(storage_of(*find(got, "expanded"))->nbytes(), 3u * 2);  // 3 int16 under (2, 3)
  // Writing through the base shows in its views, as in PyTorch.
  Tensor b = base;
  b.index_put_({1, 2}, -7.0);
  EXPECT_EQ(find(got, "t")->index({2, 1}).item<float>(), -7.0f);
  EXPECT_EQ(find(got, "row")->index({2}).item<float>(), -7.0f);
}

TEST(PtLoadTest, ParametersLoadAsTensorsThatRememberWhatTheyWere) {
  const pt::Value v = pt::load_file(testdata("torch_parameters.pt"));
  const pt::Value& w = v.at("fc1.weight");
  EXPECT_TRUE(w.is_parameter());
  EXPECT_TRUE(w.requires_grad());
  EXPECT_EQ(w.tensor().sizes(), (std::vector<int64_t>{8, 4}));
  const pt::Value& leaf = v.at("leaf");
  EXPECT_FALSE(leaf.is_parameter());
  EXPECT_TRUE(leaf.requires_grad());
  EXPECT_TRUE(same_tensor(leaf.tensor(), ones({2})));
  const NamedTensors flat = load(testdata("torch_parameters.pt"));
  ASSERT_EQ(flat.size(), 7u);  // fc1, bn and fc2's weights and biases, and the leaf
  EXPECT_FALSE(flat[0].second.requires_grad());
  EXPECT_CONTAINS(error_of([&] { v.at("fc9.weight"); }),
                  "no key 'fc9.weight' in the OrderedDict (its keys: 'fc1.weight', ");
}

TEST(PtLoadTest, ABareTensorLoadsWithItsStrides) {
  Tensor t;
  load(t, testdata("torch_tensor.pt"));
  EXPECT_TRUE(same_tensor(t, arange(6, TensorOptions(kDouble)).reshape({2, 3}).t()));
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{1, 3}));
  EXPECT_CONTAINS(error_of([] { load(testdata("torch_tensor.pt")); }),
                  "holds a Tensor, not a state dict");
  Tensor u;
  EXPECT_CONTAINS(error_of([&] { load(u, testdata("torch_sample.pt")); }),
                  "holds an OrderedDict, not a tensor");
}

TEST(PtLoadTest, NestedDictsFlattenAsOptimizerStateKeysSay) {
  // torch.save({"model": ..., "optimizer": adam.state_dict(), "epoch": 2, ...}).
  const NamedTensors t = load(testdata("torch_checkpoint.pt"));
  auto at = [&](const std::string& k) -> Tensor {
    const Tensor* p = find(t, k);
    if (p == nullptr) ADD_FAILURE() << "no key " << k;
    return p != nullptr ? *p : Tensor();
  };
  EXPECT_EQ(at("model.fc1.weight").sizes(), (std::vector<int64_t>{8, 4}));
  EXPECT_TRUE(same_tensor(at("model.bn.num_batches_tracked"), tensor(int64_t{2}, kLong)));
  EXPECT_EQ(at("optimizer.state.0.step").dtype(), kFloat);  // PyTorch 1.13 keeps it a tensor
  EXPECT_EQ(at("optimizer.state.0.step").item<double>(), 2.0);
  EXPECT_EQ(at("optimizer.state.5.exp_avg").sizes(), (std::vector<int64_t>{3}));
  EXPECT_TRUE(same_tensor(at("optimizer.param_groups.0.lr"), tensor(0.01, kDouble)));
  EXPECT_TRUE(same_tensor(at("optimizer.param_groups.0.betas"), tensor({0.9, 0.999}, kDouble)));
  EXPECT_TRUE(same_tensor(at("optimizer.param_groups.0.amsgrad"), tensor(false)));
  EXPECT_TRUE(same_tensor(at("optimizer.param_groups.0.params"), arange(6, TensorOptions(kLong))));
  EXPECT_EQ(find(t, "optimizer.param_groups.0.foreach"), nullptr);  // None
  EXPECT_EQ(find(t, "scheduler"), nullptr);                         // None
  EXPECT_TRUE(same_tensor(at("epoch"), tensor(int64_t{2}, kLong)));
  EXPECT_EQ(at("loss").dtype(), kDouble);
  EXPECT_EQ(at("losses").sizes(), (std::vector<int64_t>{2}));
  EXPECT_TRUE(same_tensor(at("big"), tensor(int64_t{1} << 40, kLong)));
  EXPECT_TRUE(same_tensor(at("negative"), tensor(int64_t{-70000}, kLong)));
  EXPECT_TRUE(same_tensor(at("note"), tensor({'r', 'e', 's', 'u', 'm', 'e', 'd'}, kByte)));
}

TEST(PtLoadTest, DeflatedBigEndianAndProtocol4ArchivesRead) {
  for (const char* name : {"torch_deflated.pt", "torch_big_endian.pt", "torch_protocol4.pt"}) {
    const NamedTensors got = load(testdata(name));
    const NamedTensors want = interop_sample();
    ASSERT_EQ(got.size(), want.size()) << name;
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_TRUE(same_tensor(got[i].second, want[i].second)) << name << " " << want[i].first;
    }
  }
}

TEST(PtLoadTest, SaysWhyItCannotReadAFile) {
  const std::string legacy = testdata("torch_legacy.pt");
  EXPECT_EQ(error_of([&] { load(legacy); }),
            legacy +
                ": legacy (non-zip) torch.save format is not supported; re-save with "
                "torch.save(..., _use_new_zipfile_serialization=True)");
  const std::string script = testdata("torch_torchscript.pt");
  EXPECT_CONTAINS(error_of([&] { load(script); }),
                  script + ": this is a TorchScript archive (torch.jit.save");
  // torch.save of an object whose __reduce__ returns os.system: the global
  // is refused by name before anything could call it.
  const std::string evil = testdata("torch_os_system.pt");
  EXPECT_CONTAINS(error_of([&] { load(evil); }), evil + ": invalid .pt file: data.pkl byte ");
  EXPECT_CONTAINS(error_of([&] { load(evil); }),
                  ": pickled class posix.system is not allowed: ember loads only tensors, state "
                  "dicts and plain Python values from .pt files, as "
                  "torch.load(weights_only=True) does");
  // Checkpoint and module loading go through the same reader.
  EXPECT_CONTAINS(error_of([&] { Checkpoint::load(legacy); }), "legacy (non-zip)");
}

// --- ember -> PyTorch ----------------------------------------------------------------

TEST(PtSaveTest, EmberStillWritesTheFilesPyTorchChecked) {
  // serialize/testdata/pt/ember_*.pt were written by write_pt_samples and
  // read by torch.load(weights_only=True) in tools/pt_interop.py check.
  TempDir dir;
  for (const std::string& name : serialize_testing::write_ember_made_files(dir.path())) {
    EXPECT_EQ(read_bytes(dir.file(name)), read_bytes(testdata(name))) << name;
  }
}

TEST(PtSaveTest, WritesTheLayoutTorchSaveWrites) {
  const std::string bytes = pt::save(pt::from_state_dict({{"w", tensor({1.0f, 2.0f})}}));
  serialize_internal::MemorySource src(bytes);
  serialize_internal::ZipReader zip(src);
  std::vector<std::string> names;
  for (const auto& e : zip.entries()) {
    names.push_back(e.name);
    EXPECT_EQ(e.data_offset % 64, 0u) << e.name;  // aligned as torch.save aligns
    EXPECT_EQ(e.method, 0) << e.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"archive/data.pkl", "archive/byteorder",
                                             "archive/data/0", "archive/version"}));
  EXPECT_EQ(zip.read_string(*zip.find("archive/version")), "3\n");
  EXPECT_EQ(zip.read_string(*zip.find("archive/byteorder")), "little");
  // The pickle torch.save writes for OrderedDict([("w", tensor([1., 2.]))]).
  EXPECT_EQ(zip.read_string(*zip.find("archive/data.pkl")),
            "\x80\x02"
            "ccollections\nOrderedDict\nq\x00)R(X\x01\x00\x00\x00w"
            "ctorch._utils\n_rebuild_tensor_v2\nq\x01((X\x07\x00\x00\x00storage"
            "ctorch\nFloatStorage\nq\x02X\x01\x00\x00\x00"
            "0X\x03\x00\x00\x00"
            "cpu"
            "K\x02tQK\x00(K\x02t(K\x01t\x89h\x00)RtRu."s);
}

TEST(PtSaveTest, RoundTripsEveryKindOfValue) {
  using V = pt::Value;
  const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  V::Items ints;
  for (int64_t i : {int64_t{0}, int64_t{255}, int64_t{256}, int64_t{65535}, int64_t{65536},
                    int64_t{-1}, int64_t{INT32_MAX}, int64_t{INT32_MIN}, int64_t{1} << 31,
                    -(int64_t{1} << 31) - 1, int64_t{1} << 40, lo, hi, int64_t{-129}}) {
    ints.emplace_back(i);
  }
  const V value = V::dict({
      {V("none"), V()},
      {V("flags"), V::tuple({V(true), V(false)})},
      {V("ints"), V::list(ints)},
      {V("floats"), V::list({V(0.1), V(-0.0), V(1e300), V(std::nan(""))})},
      {V("text"), V("caf\xc3\xa9 \xe2\x9c\x93")},
      {V("tuples"), V::list({V::tuple({}), V::tuple({V(1)}), V::tuple({V(1), V(2)}),
                             V::tuple({V(1), V(2), V(3)}), V::tuple({V(1), V(2), V(3), V(4)})})},
      {V(7), V::dict({{V("deep"), V(tensor({1, 2}, kShort))}}, /*ordered=*/true)},
      {V("empty"), V::dict({})},
  });
  const V got = pt::load(pt::save(value));
  ASSERT_TRUE(got.is_dict());
  EXPECT_FALSE(got.is_ordered_dict());
  EXPECT_TRUE(got.at("none").is_none());
  EXPECT_TRUE(got.at("flags").items()[0].to_bool());
  EXPECT_EQ(got.at("flags").kind(), V::Kind::kTuple);
  ASSERT_EQ(got.at("ints").items().size(), ints.size());
  for (size_t i = 0; i < ints.size(); ++i) {
    EXPECT_EQ(got.at("ints").items()[i].to_int(), ints[i].to_int());
  }
  const V::Items& f = got.at("floats").items();
  EXPECT_EQ(f[0].to_double(), 0.1);
  EXPECT_TRUE(std::signbit(f[1].to_double()));
  EXPECT_EQ(f[2].to_double(), 1e300);
  EXPECT_TRUE(std::isnan(f[3].to_double()));
  EXPECT_EQ(got.at("text").string(), "caf\xc3\xa9 \xe2\x9c\x93");
  for (size_t n = 0; n < 5; ++n) EXPECT_EQ(got.at("tuples").items()[n].items().size(), n);
  const V& seven = got.entries()[6].first;
  EXPECT_EQ(seven.to_int(), 7);
  EXPECT_TRUE(got.entries()[6].second.is_ordered_dict());
  EXPECT_TRUE(same_tensor(got.entries()[6].second.at("deep").tensor(), tensor({1, 2}, kShort)));
  EXPECT_TRUE(got.at("empty").entries().empty());
}

TEST(PtSaveTest, SaveChoosesTheFormatByNameAndLoadByContent) {
  TempDir dir;
  const NamedTensors sd = {{"w", tensor({1.5f})}};
  for (const char* name : {"a.pt", "b.PTH", "c.pth"}) {
    save(sd, dir.file(name));
    EXPECT_EQ(read_bytes(dir.file(name)).substr(0, 4), "PK\x03\x04") << name;
  }
  save(sd, dir.file("d.safetensors"));
  EXPECT_NE(read_bytes(dir.file("d.safetensors")).substr(0, 4), "PK\x03\x04");
  // A .pt file under another name (pytorch_model.bin) loads all the same.
  write_bytes(dir.file("pytorch_model.bin"), read_bytes(dir.file("a.pt")));
  for (const char* name : {"a.pt", "d.safetensors", "pytorch_model.bin"}) {
    const NamedTensors got = load(dir.file(name));
    ASSERT_EQ(got.size(), 1u) << name;
    EXPECT_TRUE(same_tensor(got[0].second, sd[0].second)) << name;
  }
  // Atomic writes: overwriting leaves no temporary file behind.
  save(sd, dir.file("a.pt"));
  EXPECT_EQ(dir.files().size(), 5u);
  // One tensor, both formats.
  Tensor t;
  save(tensor({3, 4}, kChar), dir.file("t.pt"));
  load(t, dir.file("t.pt"));
  EXPECT_TRUE(same_tensor(t, tensor({3, 4}, kChar)));
  save(tensor({5}, kChar), dir.file("t.safetensors"));
  load(t, dir.file("t.safetensors"));
  EXPECT_TRUE(same_tensor(t, tensor({5}, kChar)));
}

TEST(PtSaveTest, SharedStoragesStaySharedThroughAFile) {
  TempDir dir;
  save(views_sample(), dir.file("v.pt"));
  NamedTensors got = load(dir.file("v.pt"));
  const NamedTensors want = views_sample();
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_TRUE(same_tensor(got[i].second, want[i].second)) << want[i].first;
    EXPECT_EQ(got[i].second.strides(), want[i].second.strides()) << want[i].first;
  }
  EXPECT_EQ(storage_of(*find(got, "t")), storage_of(*find(got, "base")));
  // Only one copy of each storage is written.
  const std::string bytes = read_bytes(dir.file("v.pt"));
  serialize_internal::MemorySource mem(bytes);
  serialize_internal::ZipReader zip(mem);
  EXPECT_EQ(zip.entries().size(),
            3u + 3u);  // base, expanded's, tied's; + data.pkl, byteorder, version
}

TEST(PtSaveTest, RefusesWhatPyTorchCouldNotRead) {
  TempDir dir;
  EXPECT_CONTAINS(error_of([&] {
                    save({{"q", quantize_per_tensor(ones({2}), 0.5, 0, kQInt8)}}, dir.file("q.pt"));
                  }),
                  "cannot save a tensor of dtype");
  EXPECT_CONTAINS(error_of([&] {
                    save({{"\xff", ones({1})}}, dir.file("k.pt"));
                  }),
                  "is not valid UTF-8");
  EXPECT_TRUE(dir.files().empty());  // nothing left behind
  EXPECT_CONTAINS(error_of([&] {
                    pt::save(pt::Value::dict({{pt::Value(1.5), pt::Value()}}));
                  }),
                  "dict keys must be strings or ints, not float");
}

// --- hostile input ----------------------------------------------------------------

// A torch.save-like archive around `pkl`, with extra records.
std::string archive(const std::string& pkl,
                    const std::vector<std::pair<std::string, std::string>>& records = {},
                    bool version = true) {
  std::string out;
  serialize_internal::ZipWriter zip(
      [&](const void* d, size_t n) { out.append(static_cast<const char*>(d), n); });
  zip.add("a/data.pkl", pkl.data(), pkl.size());
  for (const auto& r : records) zip.add("a/" + r.first, r.second.data(), r.second.size());
  if (version) zip.add("a/version", "3\n", 2);
  zip.finish();
  return out;
}

std::string le32(uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }
std::string unicode(const std::string& s) { return "X" + le32(s.size()) + s; }
// _rebuild_tensor_v2 of storage '0' (FloatStorage, `numel`, `location`) with
// size, stride and offset, as the top-level value.
std::string tensor_pickle(const std::string& size, const std::string& stride, int offset = 0,
                          int numel = 4, const std::string& location = "cpu",
                          const std::string& storage_type = "FloatStorage") {
  return "\x80\x02"
         "ctorch._utils\n_rebuild_tensor_v2\n((" +
         unicode("storage") + "ctorch\n" + storage_type + "\n" + unicode("0") + unicode(location) +
         "K" + std::string(1, static_cast<char>(numel)) + "tQK" +
         std::string(1, static_cast<char>(offset)) + size + stride +
         "\x89"
         "ccollections\nOrderedDict\n)RtR.";
}
const std::string kFloats4(16, '\0');

TEST(PtHostileTest, AHandMadeTensorPickleLoads) {
  // The helpers above make a valid file; the cases below break one thing each.
  const pt::Value v =
      pt::load(archive(tensor_pickle("(K\x02K\x02t", "(K\x01K\x02t"), {{"data/0", kFloats4}}));
  EXPECT_EQ(v.tensor().sizes(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(v.tensor().strides(), (std::vector<int64_t>{1, 2}));
}

TEST(PtHostileTest, ForbiddenGlobalsAreNamed) {
  const std::string call = unicode("echo pwned") + "\x85R.";
  EXPECT_CONTAINS(load_error(archive("\x80\x02"
                                     "cos\nsystem\n" +
                                     call)),
                  "pickled class os.system is not allowed");
  EXPECT_CONTAINS(load_error(archive("\x80\x02"
                                     "cbuiltins\neval\n" +
                                     call)),
                  "pickled class builtins.eval is not allowed");
  // Protocol 4's STACK_GLOBAL is checked the same way.
  EXPECT_CONTAINS(
      load_error(archive("\x80\x04" + unicode("subprocess") + unicode("Popen") + "\x93" + call)),
      "pickled class subprocess.Popen is not allowed");
  EXPECT_CONTAINS(load_error(archive("\x80\x02"
                                     "ctorch\nComplexFloatStorage\n.")),
                  "torch.ComplexFloatStorage: ember has no tensors of this dtype");
  EXPECT_CONTAINS(load_error(archive("\x80\x02"
                                     "ctorch._utils\n_rebuild_qtensor\n.")),
                  "pickled class torch._utils._rebuild_qtensor is not allowed");
  // A name with control characters is shown escaped.
  EXPECT_CONTAINS(load_error(archive("\x80\x02"
                                     "cos\x01\nx\n.")),
                  "pickled class os\\x01.x");
}

TEST(PtHostileTest, OpcodesOutsideTheRestrictedSetAreRefused) {
  EXPECT_CONTAINS(load_error(archive("\x80\x02(cos\nsystem\ni.")), "pickled class os.system");
  EXPECT_CONTAINS(load_error(archive("\x80\x02(i.")),
                  "data.pkl byte 3: pickle opcode INST (0x69) is not allowed in a .pt file");
  EXPECT_CONTAINS(load_error(archive("\x80\x02N\x81.")), "pickle opcode NEWOBJ (0x81)");
  EXPECT_CONTAINS(load_error(archive("\x80\x02"
                                     "S'a'\n.")),
                  "pickle opcode STRING (0x53)");
  EXPECT_CONTAINS(load_error(archive("\x80\x02\xff.")), "unknown pickle opcode 0xff");
  EXPECT_CONTAINS(load_error(archive("\x80\x09N.")), "pickle protocol 9 is not supported");
  EXPECT_CONTAINS(load_error(archive("\x80\x02]}b.")),
                  "BUILD of a list from a dict is not allowed");
  EXPECT_CONTAINS(load_error(archive("\x80\x02}Na.")), "APPEND to a dict, not a list");
  EXPECT_CONTAINS(load_error(archive("\x80\x02]NNs.")), "SETITEM(S) on a list, not a dict");
  EXPECT_CONTAINS(load_error(archive("\x80\x02}]Ns.")), "dict keys must be str or int, not list");
  EXPECT_CONTAINS(load_error(archive("\x80\x02"
                                     "ccollections\nOrderedDict\nK\x01\x85R.")),
                  "only OrderedDict() without arguments");
  EXPECT_CONTAINS(load_error(archive("\x80\x02K\x01K\x02R.")), "REDUCE calls an int");
}

TEST(PtHostileTest, MalformedPicklesAreErrorsNotCrashes) {
  EXPECT_CONTAINS(load_error(archive("\x80\x02"
                                     "a.")),
                  "APPEND needs 1 value on the stack");
  EXPECT_CONTAINS(load_error(archive("\x80\x02N(a.")), "APPEND needs 1 value");  // not past MARK
  EXPECT_CONTAINS(load_error(archive("\x80\x02N")), "the pickle ends without STOP");
  EXPECT_CONTAINS(load_error(archive("\x80\x02X\xff\xff\xff\x7f"
                                     "abc.")),
                  "a length of 2147483647 goes past the end of the pickle");
  EXPECT_CONTAINS(load_error(archive("\x80\x02NN.")), "STOP leaves 1 values");
  EXPECT_CONTAINS(load_error(archive("\x80\x02N.N")), "1 bytes follow STOP");
  EXPECT_CONTAINS(load_error(archive("\x80\x02h\x05.")), "memo entry 5 is read before");
  EXPECT_CONTAINS(load_error(archive("\x80\x02t.")), "TUPLE without a MARK");
  EXPECT_CONTAINS(load_error(archive("\x80\x02(NNNu.")), "SETITEMS with an odd number");
  EXPECT_CONTAINS(load_error(archive("\x80\x02X\x02\x00\x00\x00\xc3\x28."s)),
                  "a string is not valid UTF-8");
  EXPECT_CONTAINS(load_error(archive("\x80\x02\x8a\x09" + std::string(8, '\0') + "\x01.")),
                  "an integer of 9 bytes does not fit in 64 bits");
  EXPECT_EQ(pt::load(archive("\x80\x02\x8a\x09" + std::string(8, '\xff') + "\xff.")).to_int(), -1);
  EXPECT_EQ(pt::load(archive("\x80\x02\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x80."s)).to_int(),
            std::numeric_limits<int64_t>::min());
  EXPECT_CONTAINS(load_error(archive("\x80\x02"
                                     "cos\nsystem")),
                  "GLOBAL's name has no end of line");
}

TEST(PtHostileTest, RecursionAndExpansionBombsAreBounded) {
  // 100000 nested lists: refused at kMaxDepth, without deep recursion.
  std::string deep = "\x80\x02" + std::string(100000, ']') + std::string(99999, 'a') + ".";
  EXPECT_CONTAINS(load_error(archive(deep)), "containers nest more than 256 deep");
  // A list that contains itself.
  EXPECT_CONTAINS(load_error(archive("\x80\x02]q\x00h\x00"
                                     "a."s)),
                  "a list contains itself");
  // x0 = []; x(k+1) = (xk, xk) through the memo: 60 levels would expand to
  // 2**60 values.
  std::string bomb = "\x80\x02]";
  for (int k = 0; k < 60; ++k) {
    const std::string index(1, static_cast<char>(k));
    bomb += "q" + index + "h" + index + "\x86";
  }
  bomb += ".";
  EXPECT_CONTAINS(load_error(archive(bomb)), "shared references expand to more than");
}

TEST(PtHostileTest, TensorExtentsAreCheckedAgainstTheirStorage) {
  auto err = [](const std::string& pkl, const std::string& data = kFloats4) {
    return load_error(archive(pkl, {{"data/0", data}}));
  };
  EXPECT_CONTAINS(err(tensor_pickle("(K\x03t", "(K\x01t", 2)),
                  "a tensor of size (3), stride (1) at offset 2 reaches element 4 of storage '0', "
                  "which has 4");
  EXPECT_CONTAINS(err(tensor_pickle("(K\x02K\x02t", "(K\x02K\x02t")),
                  "size (2, 2), stride (2, 2) at offset 0 reaches element 4");
  EXPECT_CONTAINS(err(tensor_pickle("(K\x00t"s, "(K\x01t", 5)), "at offset 5 reaches element 5");
  EXPECT_EQ(pt::load(archive(tensor_pickle("(K\x00t"s, "(K\x01t", 4), {{"data/0", kFloats4}}))
                .tensor()
                .numel(),
            0);  // an empty tail (x[4:]) may sit at the end
  const std::string huge = "(\x8a\x08" + std::string(7, '\0') +
                           "\x40"
                           "K\x04t";  // 2**62 x 4
  EXPECT_CONTAINS(err(tensor_pickle(huge, "(K\x01K\x01t")), "overflows");
  EXPECT_CONTAINS(err(tensor_pickle("(J\xff\xff\xff\xfft", "(K\x01t")),
                  "sizes and strides must be non-negative ints");
  EXPECT_CONTAINS(err(tensor_pickle("(K\x01t", "(J\xff\xff\xff\xfft")),
                  "sizes and strides must be non-negative ints");
  EXPECT_CONTAINS(err(tensor_pickle("(K\x01K\x01t", "(K\x01t")),
                  "size has 2 dims but stride has 1");
  // The storage's record must hold exactly numel elements.
  EXPECT_CONTAINS(err(tensor_pickle("(K\x01t", "(K\x01t"), std::string(15, '\0')),
                  "record a/data/0 has 15 bytes but storage '0' needs 4 elements of 4 bytes");
  EXPECT_CONTAINS(load_error(archive(tensor_pickle("(K\x01t", "(K\x01t"))),
                  "storage '0' has no record a/data/0");
  EXPECT_CONTAINS(
      err(tensor_pickle("(K\x01t", "(K\x01t", 0, 4, "cpu", "BoolStorage"), "\x00\x01\x02\x00"s),
      "storage '0' (bool) has element 2 = 2, not 0 or 1");
  EXPECT_CONTAINS(err(tensor_pickle("(K\x01t", "(K\x01t", 0, 4, "mps")),
                  "storage location 'mps' is not supported");
  EXPECT_CONTAINS(err("\x80\x02(" + unicode("module") + "K\x01tQ."),
                  "a persistent id must be ('storage', storage type, key, location, numel)");
}

TEST(PtHostileTest, ArchivesMissingTheirPartsSaySo) {
  EXPECT_CONTAINS(load_error(""), "it is not a zip archive");
  EXPECT_CONTAINS(load_error("hello world"), "it is not a zip archive");
  EXPECT_CONTAINS(load_error(archive("\x80\x02N.", {}, /*version=*/false)),
                  "the archive has no a/version record");
  EXPECT_CONTAINS(load_error(archive("\x80\x02N.", {{"../version", "3\n"}}, false)),
                  "the archive has no a/version record");
  std::string no_pkl;
  {
    serialize_internal::ZipWriter zip(
        [&](const void* d, size_t n) { no_pkl.append(static_cast<const char*>(d), n); });
    zip.add("a/version", "3\n", 2);
    zip.add("b/data.pkl", "N.", 2);
    zip.finish();
  }
  EXPECT_CONTAINS(load_error(no_pkl),
                  "records 'a/version' and 'b/data.pkl' are in different folders");
  EXPECT_CONTAINS(load_error(archive("\x80\x02N.", {{"constants.pkl", ""}})),
                  "this is a TorchScript archive");
  std::string bad_version = archive("\x80\x02N.", {{"version", "99\n"}}, false);
  EXPECT_CONTAINS(load_error(bad_version), "file format version '99\\n' is not one ember reads");
  EXPECT_CONTAINS(load_error(archive("\x80\x02N.", {{"byteorder", "middle"}})),
                  "byteorder is 'middle'");
  EXPECT_EQ(pt::load(archive("\x80\x02N.")).kind(), pt::Value::Kind::kNone);
}

TEST(PtHostileTest, EveryTruncationAndEveryFlippedByteIsAnErrorOrLoads) {
  const std::string sample = read_bytes(testdata("torch_views.pt"));
  for (size_t n = 0; n < sample.size(); ++n) {
    EXPECT_NE(load_error(sample.substr(0, n)), "") << "truncated to " << n;
  }
  for (size_t i = 0; i < sample.size(); ++i) {
    std::string bad = sample;
    bad[i] = static_cast<char>(bad[i] ^ 0x5A);
    try {
      pt::load(bad);
      pt::load(bad, /*verify_checksums=*/false);
    } catch (const Error&) {
    }
  }
}

TEST(PtHostileTest, ACorruptRecordIsCaughtByItsCrc) {
  std::string bytes = read_bytes(testdata("torch_tensor.pt"));
  serialize_internal::MemorySource src(bytes);
  serialize_internal::ZipReader zip(src);
  const auto* e = zip.find("torch_tensor/data/0");
  ASSERT_NE(e, nullptr);
  bytes[e->data_offset + 3] ^= 1;
  EXPECT_CONTAINS(load_error(bytes),
                  "invalid zip archive: entry 'torch_tensor/data/0': CRC-32 mismatch");
  EXPECT_EQ(pt::load(bytes, /*verify_checksums=*/false).tensor().numel(), 6);
}

// --- where tensors go ---------------------------------------------------------------

TEST(PtPlaceTest, CudaLocationsNeedAMapLocationWithoutCuda) {
  if (cuda::is_available()) GTEST_SKIP() << "a CUDA device is available";
  TempDir dir;
  // {"w": a tensor whose storage was saved from cuda:0}
  const std::string t = tensor_pickle("(K\x02t", "(K\x01t", 0, 4, "cuda:0");
  write_bytes(dir.file("c.pt"),
              archive("\x80\x02}(" + unicode("w") + t.substr(2, t.size() - 3) + "u.",
                      {{"data/0", kFloats4}}));
  EXPECT_CONTAINS(error_of([&] { load(dir.file("c.pt")); }),
                  "Attempting to deserialize 'w' on a CUDA device (cuda:0)");
  const NamedTensors got = load(dir.file("c.pt"), "cpu");
  EXPECT_TRUE(same_tensor(got[0].second, zeros({2})));
}

TEST(PtPlaceTest, SharedStoragesMoveToCudaTogether) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const NamedTensors want = views_sample();
  const NamedTensors got = load(testdata("torch_views.pt"), "cuda");
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_TRUE(got[i].second.is_cuda()) << want[i].first;
    EXPECT_TRUE(same_tensor(got[i].second.cpu(), want[i].second)) << want[i].first;
  }
  EXPECT_EQ(storage_of(*find(got, "t")), storage_of(*find(got, "base")));
  // Saved from the GPU, the file says "cuda:0" and loads back there.
  TempDir dir;
  save(got, dir.file("g.pt"));
  EXPECT_EQ(pt::load_file(dir.file("g.pt")).at("t").saved_device(), Device("cuda:0"));
  const NamedTensors back = load(dir.file("g.pt"));
  EXPECT_TRUE(back[0].second.is_cuda());
  EXPECT_EQ(storage_of(*find(back, "t")), storage_of(*find(back, "base")));
  EXPECT_TRUE(load(dir.file("g.pt"), "cpu")[0].second.is_cpu());
}

TEST(FlattenTest, RulesOfNoteFlatteningPtValues) {
  using V = pt::Value;
  const V v = V::dict({
      {V("a"), V::dict({{V(0), V(tensor({1.0f}))}, {V("b"), V::list({V(tensor({2.0f})), V()})}})},
      {V("ints"), V::list({V(1), V(true)})},
      {V("bools"), V::tuple({V(true), V(false)})},
      {V("mixed"), V::list({V(1), V(2.5)})},
      {V("s"), V("hi")},
      {V("none"), V()},
      {V("empty"), V::list({})},
  });
  std::vector<Device> devices;
  const NamedTensors t = pt::flatten(v, &devices);
  std::vector<std::string> keys;
  for (const auto& kv : t) keys.push_back(kv.first);
  EXPECT_EQ(keys, (std::vector<std::string>{"a.0", "a.b.0", "ints", "bools", "mixed", "s"}));
  EXPECT_EQ(devices.size(), t.size());
  EXPECT_TRUE(same_tensor(t[2].second, tensor({int64_t{1}, int64_t{1}}, kLong)));
  EXPECT_TRUE(same_tensor(t[3].second, tensor({true, false})));
  EXPECT_TRUE(same_tensor(t[4].second, tensor({1.0, 2.5}, kDouble)));
  EXPECT_TRUE(same_tensor(t[5].second, tensor({'h', 'i'}, kByte)));
  EXPECT_CONTAINS(error_of([] {
                    pt::flatten(V::dict({{V("a.b"), V(1)}, {V("a"), V::dict({{V("b"), V(2)}})}}));
                  }),
                  "key 'a.b' comes out twice");
  EXPECT_CONTAINS(error_of([] { pt::flatten(V(3)); }), "holds an int, not a state dict");
}

}  // namespace
}  // namespace ember
