#include "data/progress.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>

namespace ember {
namespace data {
namespace {

using Clock = ProgressBar::Clock;

// A clock the test moves by hand.
struct FakeClock {
  Clock::time_point t{};
  void advance(double seconds) {
    t += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  }
};

ProgressBarOptions options(std::ostream& out, FakeClock& clock, bool terminal) {
  return ProgressBarOptions().stream(&out).is_terminal(terminal).clock([&clock] {
    return clock.t;
  });
}

TEST(ProgressBarTest, RendersAsTqdm) {
  std::ostringstream out;
  FakeClock clock;
  ProgressBar bar(938, options(out, clock, true));
  clock.advance(6.02);
  bar.update(422);
  bar.set_postfix({{"loss", 0.41234}});
  // tqdm 4.64.1's format_meter (tools/golden/progress.py): 422/938 is 35
  // eighths of the 10 cells, hence 4 full blocks and a 3/8 one.
  EXPECT_EQ(bar.render(),
            " 45%|\u2588\u2588\u2588\u2588\u258d     | 422/938 [00:06<00:07, 70.10it/s, "
            "loss=0.412]");
}

TEST(ProgressBarTest, DescriptionSlowRatesUnknownTotalAndHours) {
  std::ostringstream out;
  FakeClock clock;
  ProgressBar slow(10, options(out, clock, false).desc("Epoch 1"));
  clock.advance(4);
  slow.update(2);
  EXPECT_EQ(slow.render(), "Epoch 1:  20%|\u2588\u2588        | 2/10 [00:04<00:16,  2.00s/it]");
  ProgressBar open(0, options(out, clock, false));
  clock.advance(3729);
  open.update(5);
  EXPECT_EQ(open.render(), "5it [1:02:09, 745.80s/it]");
  EXPECT_EQ(format_interval(59.9), "00:59");
  EXPECT_EQ(format_interval(3600), "1:00:00");
}

TEST(ProgressBarTest, PostfixNumbersAsTqdmFormatsThem) {
  std::ostringstream out;
  FakeClock clock;
  ProgressBar bar(4, options(out, clock, false));
  bar.set_postfix({{"loss", 0.5}, {"lr", 1e-05}, {"acc", 97.2531}});
  EXPECT_NE(bar.render().find(", loss=0.5, lr=1e-5, acc=97.3]"), std::string::npos)
      << bar.render();
}

TEST(ProgressBarTest, TerminalRedrawsInPlaceAndEndsTheLineAtClose) {
  std::ostringstream out;
  FakeClock clock;
  {
    ProgressBar bar(2, options(out, clock, true));
    clock.advance(1);
    bar.update();  // redrawn: more than min_interval since the first draw
    clock.advance(0.01);
    bar.update();  // too soon to redraw; close() draws the end
  }
  const std::string s = out.str();
  EXPECT_EQ(s.front(), '\r');
  EXPECT_EQ(std::count(s.begin(), s.end(), '\r'), 3);
  EXPECT_EQ(std::count(s.begin(), s.end(), '\n'), 1);
  EXPECT_NE(s.find("100%|"), std::string::npos) << s;
}

TEST(ProgressBarTest, LogsAPlainLineEveryIntervalWhenNotATerminal) {
  std::ostringstream out;
  FakeClock clock;
  ProgressBar bar(100, options(out, clock, false).log_interval(10));
  for (int i = 0; i < 100; ++i) {
    clock.advance(0.5);  // 50 s in all: a line at 10, 20, 30, 40, 50 s
    bar.update();
  }
  bar.close();
  const std::string s = out.str();
  EXPECT_EQ(s.find('\r'), std::string::npos);
  EXPECT_EQ(std::count(s.begin(), s.end(), '\n'), 5 + 1) << s;
  EXPECT_NE(s.find(" 20%|"), std::string::npos) << s;
}

TEST(ProgressBarTest, DisabledPrintsNothing) {
  std::ostringstream out;
  FakeClock clock;
  ProgressBar bar(5, options(out, clock, true).disable(true));
  clock.advance(100);
  bar.update(5);
  bar.close();
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace data
}  // namespace ember
