#ifndef EMBER_BENCHMARKS_PEAK_RSS_H_
#define EMBER_BENCHMARKS_PEAK_RSS_H_

#include <sys/resource.h>

namespace ember::bench {

// The process's peak resident set size so far, in MiB.
inline double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB
}

}  // namespace ember::bench

#endif  // EMBER_BENCHMARKS_PEAK_RSS_H_
