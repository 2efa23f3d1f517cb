#include "data/data_loader.h"

namespace ember {
namespace data {
namespace internal {

FullDataLoaderOptions::FullDataLoaderOptions(const DataLoaderOptions& o)
    : enforce_ordering(o.enforce_ordering()), drop_last(o.drop_last()) {
  EMBER_CHECK_VALUE(o.batch_size() > 0, "make_data_loader: batch_size must be positive, got ",
                    o.batch_size());
  EMBER_CHECK_VALUE(o.num_workers() >= 0, "make_data_loader: workers must be non-negative, got ",
                    o.num_workers());
  EMBER_CHECK_VALUE(!o.max_jobs().has_value() || *o.max_jobs() > 0,
                    "make_data_loader: max_jobs must be positive, got ", o.max_jobs().value_or(0));
  EMBER_CHECK_VALUE(o.timeout() >= 0, "make_data_loader: timeout must be non-negative");
  EMBER_CHECK_VALUE(o.sampler() == nullptr && o.batch_sampler() == nullptr && !o.shuffle() &&
                        !o.prefetch_factor().has_value(),
                    "make_data_loader takes its sampler as an argument (samplers::RandomSampler "
                    "by default); sampler, batch_sampler, shuffle and prefetch_factor are "
                    "DataLoader's options");
  batch_size = static_cast<size_t>(o.batch_size());
  workers = static_cast<size_t>(o.num_workers());
  max_jobs = static_cast<size_t>(o.max_jobs().value_or(2 * o.num_workers()));
  timeout = o.timeout();
}

uint64_t libtorch_epoch_seed(uint64_t epoch) {
  // splitmix64 of the epoch: distinct, well-mixed seeds per epoch.
  uint64_t z = epoch + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return (z ^ (z >> 31)) % (uint64_t{1} << 63);
}

}  // namespace internal
}  // namespace data
}  // namespace ember
