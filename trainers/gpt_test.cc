// The GPT trainer on a tiny text: vocabulary, schedule, training, resume,
// sampling and the errors of bad input.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "serialize/checkpoint.h"
#include "tensor/all.h"
#include "trainers/gpt_text.h"
#include "trainers/gpt_train.h"

namespace ember {
namespace trainers {
namespace {

std::string temp_dir() {
  std::string t = ::testing::TempDir() + "gpt_XXXXXX";
  EXPECT_NE(mkdtemp(t.data()), nullptr);
  return t;
}

std::string write_text(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string pangrams() {
  std::string text;
  for (int i = 0; i < 40; ++i) {
    text += "the quick brown fox jumps over the lazy dog.\npack my box with five dozen jugs.\n";
  }
  return text;
}

// A model and run small enough for a few steps per second on one thread.
GptConfig tiny(const std::string& data) {
  GptConfig c;
  c.data = data;
  c.n_layer = 1;
  c.n_embd = 32;
  c.n_head = 2;
  c.block_size = 16;
  c.batch_size = 8;
  c.steps = 6;
  c.warmup_steps = 2;
  c.eval_interval = 3;
  c.eval_batches = 2;
  c.log_interval = 3;
  c.checkpoint_every = 3;
  // Bit-exact resume needs the same reduction order each time.
  c.threads = 1;
  return c;
}

std::string error_of(const GptConfig& c) {
  std::ostringstream out;
  try {
    train_gpt(c, out);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::string sample_error(const SampleConfig& s) {
  try {
    sample_gpt(s);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(CharVocabTest, EncodingRoundTrips) {
  const std::string text = "hello, world\n\xc3\xa9t\xc3\xa9";  // "été": two bytes each é
  CharVocab v = CharVocab::from_text(text);
  EXPECT_EQ(v.size(), 13);  // \n space , d e h l o r t w 0xa9 0xc3
  std::vector<int64_t> ids = v.encode(text);
  EXPECT_EQ(ids.size(), text.size());
  EXPECT_EQ(v.decode(ids), text);
  // Ids follow byte order: '\n' (0x0a) is 0, 0xc3 and 0xa9 come last.
  EXPECT_EQ(v.encode("\n"), std::vector<int64_t>{0});
  EXPECT_EQ(v.encode("\xc3"), std::vector<int64_t>{v.size() - 1});
  EXPECT_EQ(v.encode("\xa9"), std::vector<int64_t>{v.size() - 2});
  // Through the tensor a checkpoint stores.
  CharVocab back = CharVocab::from_tensor(v.to_tensor());
  EXPECT_TRUE(back == v);
  EXPECT_EQ(back.decode(ids), text);
}

TEST(CharVocabTest, Errors) {
  CharVocab v = CharVocab::from_text("abc");
  EXPECT_THROW(v.encode("abz"), ValueError);
  try {
    v.encode("abz");
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "byte 0x7a at offset 2 is not in the vocabulary");
  }
  try {
    v.decode({0, 3});
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "token id 3 is outside the vocabulary of 3");
  }
  EXPECT_THROW(CharVocab::from_text(""), ValueError);
  EXPECT_THROW(CharVocab::from_tensor(tensor({3, 2, 1}, kByte)), ValueError);
}

TEST(GptTextTest, UnigramEntropy) {
  EXPECT_NEAR(unigram_entropy({0, 0, 1, 1}, 2), std::log(2.0), 1e-12);
  EXPECT_NEAR(unigram_entropy({1, 1, 1}, 3), 0.0, 1e-12);
  EXPECT_NEAR(unigram_entropy({0, 1, 2, 3}, 4), std::log(4.0), 1e-12);
}

TEST(GptTextTest, ReadsAFolderWithoutIndexFilesOrLinks) {
  const std::string dir = temp_dir();
  write_text(dir, "b", "second\n");
  write_text(dir, "a", "first\n");
  write_text(dir, "a.dat", "\x01\x02 index");
  ASSERT_EQ(symlink((dir + "/a").c_str(), (dir + "/a.u8").c_str()), 0);
  EXPECT_EQ(read_text(dir), "first\nsecond\n");
  EXPECT_EQ(read_text(dir + "/b"), "second\n");
}

TEST(GptScheduleTest, WarmupThenCosine) {
  GptConfig c;
  c.lr = 1e-2;
  c.min_lr = 1e-3;
  c.warmup_steps = 10;
  c.steps = 110;
  EXPECT_DOUBLE_EQ(gpt_lr_at(c, 0), 1e-3);
  EXPECT_DOUBLE_EQ(gpt_lr_at(c, 4), 5e-3);
  EXPECT_DOUBLE_EQ(gpt_lr_at(c, 10), 1e-2);
  EXPECT_NEAR(gpt_lr_at(c, 60), 5.5e-3, 1e-15);  // halfway down the cosine
  EXPECT_DOUBLE_EQ(gpt_lr_at(c, 110), 1e-3);
}

TEST(GptTrainTest, LossFallsBelowTheUnigramBaseline) {
  const std::string dir = temp_dir();
  GptConfig c = tiny(write_text(dir, "text.txt", pangrams()));
  c.steps = 60;
  c.eval_interval = 20;
  c.log_interval = 20;
  c.lr = 1e-2;
  c.min_lr = 1e-3;
  std::ostringstream out;
  GptResult r = train_gpt(c, out);
  EXPECT_EQ(r.step, 60);
  ASSERT_EQ(r.val_losses.size(), 3u) << out.str();
  // The distinct characters of the two pangrams, about evenly spread.
  EXPECT_NEAR(r.unigram_baseline, 3.2, 0.2) << out.str();
  EXPECT_GT(r.val_losses[0], r.val_losses[2]) << out.str();
  EXPECT_LT(r.val_loss, r.unigram_baseline - 1.0) << out.str();
  EXPECT_EQ(out.str().rfind("unigram baseline: ", 0), 0u) << out.str();
  EXPECT_NE(out.str().find("step 20/60 | loss "), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("step 60/60 | val loss "), std::string::npos) << out.str();
}

NamedTensors model_of(const std::string& checkpoint) {
  return Checkpoint::load(checkpoint).state_dict("model");
}

TEST(GptTrainTest, ResumeContinuesAtTheStepWithTheSameParameters) {
  const std::string dir = temp_dir();
  GptConfig c = tiny(write_text(dir, "text.txt", pangrams()));
  c.checkpoint_dir = dir + "/a";
  c.keep_checkpoints = 0;
  std::ostringstream out;
  GptResult full = train_gpt(c, out);
  EXPECT_EQ(full.step, 6);

  GptConfig r = c;
  r.checkpoint_dir = dir + "/b";
  r.resume = dir + "/a/step_3.safetensors";
  std::ostringstream resumed_out;
  GptResult resumed = train_gpt(r, resumed_out);
  EXPECT_NE(resumed_out.str().find("Resumed from " + r.resume + " at step 3"), std::string::npos)
      << resumed_out.str();
  EXPECT_EQ(resumed.step, 6);
  EXPECT_EQ(resumed.val_losses.size(), 1u);  // at step 6 only
  EXPECT_EQ(resumed.val_loss, full.val_loss);
  EXPECT_EQ(resumed.train_loss, full.train_loss);
  NamedTensors a = model_of(dir + "/a/step_6.safetensors");
  NamedTensors b = model_of(dir + "/b/step_6.safetensors");
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].first, b[i].first);
    EXPECT_TRUE(a[i].second.equal(b[i].second)) << a[i].first;
  }
  // Resuming at the end trains nothing.
  r.resume = dir + "/a/step_6.safetensors";
  GptResult none = train_gpt(r, resumed_out);
  EXPECT_EQ(none.step, 6);
  EXPECT_TRUE(none.val_losses.empty());
}

TEST(GptTrainTest, KeepsTheNewestCheckpoints) {
  const std::string dir = temp_dir();
  GptConfig c = tiny(write_text(dir, "text.txt", pangrams()));
  c.checkpoint_dir = dir + "/ckpt";
  c.checkpoint_every = 1;
  c.keep_checkpoints = 2;
  std::ostringstream out;
  train_gpt(c, out);
  for (int step = 1; step <= 6; ++step) {
    const std::string path = dir + "/ckpt/step_" + std::to_string(step) + ".safetensors";
    EXPECT_EQ(std::ifstream(path).good(), step >= 5) << path;
  }
}

TEST(GptSampleTest, GeneratesFromACheckpointDeterministically) {
  const std::string dir = temp_dir();
  GptConfig c = tiny(write_text(dir, "text.txt", pangrams()));
  c.checkpoint_dir = dir + "/ckpt";
  std::ostringstream out;
  train_gpt(c, out);
  SampleConfig s;
  s.checkpoint = dir + "/ckpt/step_6.safetensors";
  s.prompt = "the ";
  s.max_new_tokens = 24;
  s.seed = 7;
  const std::string a = sample_gpt(s);
  EXPECT_EQ(a.size(), 28u);
  EXPECT_EQ(a.rfind("the ", 0), 0u);
  EXPECT_EQ(sample_gpt(s), a);
  s.seed = 8;
  EXPECT_NE(sample_gpt(s), a);
  // Greedy decoding ignores the seed; top_k = 1 is greedy too.
  s.temperature = 0;
  const std::string greedy = sample_gpt(s);
  s.seed = 9;
  EXPECT_EQ(sample_gpt(s), greedy);
  s.temperature = 1.0;
  s.top_k = 1;
  EXPECT_EQ(sample_gpt(s), greedy);
  // A prompt longer than the context (16) conditions on its end.
  s.prompt = "the quick brown fox jumps over the lazy dog.\npack my box ";
  EXPECT_EQ(sample_gpt(s).size(), s.prompt.size() + 24);

  s.prompt = "THE";
  EXPECT_EQ(sample_error(s),
            "the prompt does not fit the checkpoint's vocabulary: byte 0x54 at offset 0 is not in "
            "the vocabulary");
  s.prompt = "";
  EXPECT_EQ(sample_error(s), "the prompt is empty: generation needs a character to start from");
  s.prompt = "the";
  s.temperature = -1;
  EXPECT_EQ(sample_error(s), "temperature must be non-negative (0: greedy), got -1");
}

TEST(GptErrorsTest, BadData) {
  const std::string dir = temp_dir();
  EXPECT_EQ(error_of(tiny(dir + "/missing.txt")),
            "cannot open '" + dir + "/missing.txt': No such file or directory");
  const std::string empty = write_text(dir, "empty.txt", "");
  EXPECT_EQ(error_of(tiny(empty)), "'" + empty + "' is empty: there is nothing to train on");
  const std::string folder = dir + "/folder";
  ASSERT_EQ(mkdir(folder.c_str(), 0755), 0);
  EXPECT_EQ(error_of(tiny(folder)), "'" + folder + "' holds no text file to train on");
  // 100 characters: 90 to train on and 10 held out, under a context of 16.
  const std::string short_text = write_text(dir, "short.txt", std::string(100, 'a'));
  EXPECT_EQ(error_of(tiny(short_text)),
            "the text of '" + short_text +
                "' (100 characters) is too short for a context of 16: its training split has "
                "90 characters and its validation split 10, and each needs at least 16");
}

TEST(GptErrorsTest, BadSettings) {
  const std::string dir = temp_dir();
  const GptConfig good = tiny(write_text(dir, "text.txt", pangrams()));
  GptConfig c = good;
  c.batch_size = 0;
  EXPECT_EQ(error_of(c), "batch_size must be positive, got 0");
  c = good;
  c.n_embd = 30;
  c.n_head = 4;
  EXPECT_EQ(error_of(c), "n_embd (30) must be a multiple of n_head (4)");
  c = good;
  c.block_size = 1;
  EXPECT_EQ(error_of(c), "block_size must be at least 2, got 1");
  c = good;
  c.val_fraction = 1;
  EXPECT_EQ(error_of(c), "val_fraction must be in (0, 1), got 1");
  c = good;
  c.min_lr = 1;
  EXPECT_EQ(error_of(c), "min_lr must be in [0, lr], got 1");
  c = good;
  c.steps = -1;
  EXPECT_EQ(error_of(c), "steps must be non-negative, got -1");
  c = good;
  c.checkpoint_dir = good.data;  // a file
  EXPECT_EQ(error_of(c), "checkpoint_dir '" + good.data + "' is a regular file, not a directory");
}

TEST(GptErrorsTest, UnusableCheckpoints) {
  const std::string dir = temp_dir();
  GptConfig c = tiny(write_text(dir, "text.txt", pangrams()));
  c.checkpoint_dir = dir + "/ckpt";
  std::ostringstream out;
  train_gpt(c, out);
  const std::string ckpt = dir + "/ckpt/step_6.safetensors";

  // Another text's vocabulary.
  GptConfig other = tiny(write_text(dir, "other.txt", pangrams() + "0123456789"));
  other.resume = ckpt;
  EXPECT_EQ(error_of(other), "cannot resume from '" + ckpt +
                                 "': its vocabulary is not the one of '" + other.data + "'");
  // Another model shape.
  GptConfig wider = c;
  wider.checkpoint_dir = "";
  wider.n_embd = 64;
  wider.resume = ckpt;
  EXPECT_EQ(error_of(wider).rfind("cannot resume from '" + ckpt + "': ", 0), 0u) << error_of(wider);
  // Not a checkpoint at all.
  const std::string junk = write_text(dir, "junk.safetensors", "not a checkpoint");
  wider.n_embd = 32;
  wider.resume = junk;
  EXPECT_EQ(error_of(wider).rfind("cannot resume from '" + junk + "': ", 0), 0u) << error_of(wider);
  SampleConfig s;
  s.checkpoint = junk;
  EXPECT_EQ(sample_error(s).rfind("cannot sample from '" + junk + "': ", 0), 0u) << sample_error(s);
  s.checkpoint = dir + "/missing.safetensors";
  EXPECT_EQ(sample_error(s).rfind("cannot sample from '" + s.checkpoint + "': ", 0), 0u)
      << sample_error(s);
}

}  // namespace
}  // namespace trainers
}  // namespace ember
