#ifndef EMBER_SERIALIZE_ATOMIC_FILE_H_
#define EMBER_SERIALIZE_ATOMIC_FILE_H_

// Note [Atomic writes]: a file is written into a temporary file in the
// destination's directory (same filesystem, so rename is atomic), fsynced,
// renamed over the destination, and the directory is fsynced so that the
// rename itself survives a power cut. A process killed at any point leaves
// the previous file intact at `path` (and at worst a stale
// ".NAME.tmp-<host>-<pid>-XXXXXX" beside it, which the next save into that
// directory removes once process <pid> of this host is gone); readers never
// see a half-written file. A `path` that is a symlink is resolved first, so
// the file it points to is replaced (as torch.save, which opens the path,
// would overwrite it).

#include <cstddef>
#include <cstdint>
#include <string>

namespace ember {
namespace serialize_internal {

class AtomicFile {
 public:
  // Creates the temporary file; throws ember::Error when it cannot.
  explicit AtomicFile(const std::string& path);
  // Without commit(), closes and removes the temporary file.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Appends bytes (in chunks; see set_write_hook). Throws on I/O errors.
  void write(const void* data, size_t size);
  // fsync, close, rename over the destination, fsync the directory.
  void commit();

  const std::string& temp_path() const { return temp_path_; }

 private:
  std::string path_;
  std::string temp_path_;
  int fd_ = -1;
  int64_t written_ = 0;
  bool committed_ = false;
};

// Removes the temporary files in `dir` left by writers of this host whose
// process has exited (Note [Atomic writes]); AtomicFile calls it.
void sweep_stale_temporaries(const std::string& dir);

// For tests of interrupted writes only: called after every chunk written to
// any AtomicFile with the total bytes written to it so far. nullptr removes it.
using WriteHook = void (*)(int64_t bytes_written);
void set_write_hook(WriteHook hook);

}  // namespace serialize_internal
}  // namespace ember

#endif  // EMBER_SERIALIZE_ATOMIC_FILE_H_
