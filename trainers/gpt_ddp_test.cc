// The GPT trainer data-parallel: two ranks in real processes over gloo,
// rank 0 reporting and checkpointing, every rank returning its figures,
// and a single process resuming from the checkpoint; then the binary as a
// user runs it: forked ranks, --sample, and bad flags.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

#include "distributed/gloo_test_util.h"
#include "distributed/testing/multiprocess.h"
#include "serialize/checkpoint.h"
#include "trainers/gpt_train.h"

namespace ember {
namespace trainers {
namespace {

namespace dist = distributed;
using dist::testing::ProgramRun;
using dist::testing::read_file;
using dist::testing::run_program;

GptConfig tiny(const std::string& dir) {
  std::string text;
  for (int i = 0; i < 40; ++i) text += "the quick brown fox jumps over the lazy dog.\n";
  std::ofstream(dir + "/text.txt") << text;
  GptConfig c;
  c.data = dir + "/text.txt";
  c.n_layer = 1;
  c.n_embd = 32;
  c.n_head = 2;
  c.block_size = 16;
  c.batch_size = 8;  // per rank
  c.steps = 20;
  c.warmup_steps = 2;
  c.lr = 1e-2;
  c.min_lr = 1e-3;
  c.eval_interval = 10;
  c.eval_batches = 2;
  c.log_interval = 10;
  c.threads = 1;
  c.checkpoint_dir = dir + "/ckpt";
  return c;
}

TEST(GptDataParallelTest, TwoRanksTrainRankZeroReportsAndCheckpoints) {
  const std::string dir = dist::testing::make_temp_dir();
  dist::testing::run_world(
      2,
      [&](int rank, int) {
        GptConfig c = tiny(dir);
        std::ostringstream out;
        GptResult r = train_gpt(c, out);
        EXPECT_EQ(r.step, 20);
        ASSERT_EQ(r.val_losses.size(), 2u);
        EXPECT_LT(r.val_loss, r.unigram_baseline - 0.5) << out.str();
        std::ofstream(dir + "/figures" + std::to_string(rank)) << r.train_loss << " " << r.val_loss;
        if (rank == 0) {
          EXPECT_NE(out.str().find("step 20/20 | val loss "), std::string::npos) << out.str();
        } else {
          EXPECT_EQ(out.str(), "");
        }
      },
      std::chrono::milliseconds(60000));
  ASSERT_FALSE(::testing::Test::HasFailure());
  // Every rank returns rank 0's figures.
  EXPECT_EQ(read_file(dir + "/figures0"), read_file(dir + "/figures1"));

  // Rank 0's checkpoint holds the plain model's keys: one process resumes it.
  const std::string ckpt = dir + "/ckpt/step_20.safetensors";
  EXPECT_EQ(Checkpoint::load(ckpt).state_dict("model").front().first, "transformer.wte.weight");
  GptConfig r = tiny(dir);
  r.checkpoint_dir = "";
  r.steps = 22;
  r.resume = ckpt;
  std::ostringstream out;
  GptResult resumed = train_gpt(r, out);
  EXPECT_EQ(resumed.step, 22);
  EXPECT_NE(out.str().find("Resumed from " + ckpt + " at step 20"), std::string::npos) << out.str();
  dist::testing::remove_tree(dir);
}

// The flags of tiny(), for the binary.
std::vector<std::string> tiny_flags(const std::string& dir, std::vector<std::string> more) {
  tiny(dir);
  std::vector<std::string> args = {"trainers/gpt",     "--data=" + dir + "/text.txt",
                                   "--n_layer=1",      "--n_embd=32",
                                   "--n_head=2",       "--block_size=16",
                                   "--batch_size=8",   "--steps=4",
                                   "--warmup_steps=2", "--eval_interval=2",
                                   "--eval_batches=2", "--log_interval=2",
                                   "--threads=1"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST(GptProgramTest, ForkedRanksTrainAndSampleRepeatsUnderASeed) {
  const std::string dir = dist::testing::make_temp_dir();
  ProgramRun run = run_program(tiny_flags(dir, {"--nproc=2", "--checkpoint_dir=" + dir + "/ckpt"}),
                               std::chrono::seconds(60));
  ASSERT_TRUE(WIFEXITED(run.status)) << run.out;
  EXPECT_EQ(WEXITSTATUS(run.status), 0) << run.out;
  // Rank 0 alone prints.
  const size_t first = run.out.find("unigram baseline: ");
  EXPECT_EQ(first, 0u) << run.out;
  EXPECT_EQ(run.out.find("unigram baseline: ", first + 1), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("step 4/4 | val loss "), std::string::npos) << run.out;

  const std::vector<std::string> sample = {"trainers/gpt",
                                           "--sample=" + dir + "/ckpt/step_4.safetensors",
                                           "--prompt=the ", "--max_new_tokens=20", "--seed=3"};
  ProgramRun a = run_program(sample, std::chrono::seconds(30));
  ProgramRun b = run_program(sample, std::chrono::seconds(30));
  ASSERT_TRUE(WIFEXITED(a.status) && WEXITSTATUS(a.status) == 0) << a.out;
  EXPECT_EQ(a.out.size(), 25u) << a.out;  // the prompt, 20 characters, a newline
  EXPECT_EQ(a.out.rfind("the ", 0), 0u) << a.out;
  EXPECT_EQ(a.out, b.out);
  dist::testing::remove_tree(dir);
}

TEST(GptProgramTest, BadFlagsFailWithTheReason) {
  const std::string dir = dist::testing::make_temp_dir();
  ProgramRun run = run_program(tiny_flags(dir, {"--batch_size=0"}), std::chrono::seconds(30));
  ASSERT_TRUE(WIFEXITED(run.status)) << run.out;
  EXPECT_EQ(WEXITSTATUS(run.status), 1) << run.out;
  EXPECT_NE(run.out.find("batch_size must be positive, got 0"), std::string::npos) << run.out;

  run = run_program({"trainers/gpt", "--sample=" + dir + "/none.safetensors"},
                    std::chrono::seconds(30));
  ASSERT_TRUE(WIFEXITED(run.status)) << run.out;
  EXPECT_EQ(WEXITSTATUS(run.status), 1) << run.out;
  EXPECT_NE(run.out.find("cannot sample from '" + dir + "/none.safetensors': "), std::string::npos)
      << run.out;
  dist::testing::remove_tree(dir);
}

}  // namespace
}  // namespace trainers
}  // namespace ember
