// A main() for fuzz targets built without libFuzzer: runs
// LLVMFuzzerTestOneInput on every file named on the command line (or in a
// directory named there), so the seeds replay as an ordinary test.

#include <dirent.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

int run_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "cannot read " << path << "\n";
    return 1;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  std::string bytes = ss.str();
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  std::cout << "ran " << path << " (" << bytes.size() << " bytes)\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int failures = 0;
  int ran = 0;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (!arg.empty() && arg[0] == '-') continue;  // libFuzzer flags
    struct stat st;
    if (::stat(arg.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      DIR* d = ::opendir(arg.c_str());
      while (dirent* e = d != nullptr ? ::readdir(d) : nullptr) {
        if (e->d_name[0] == '.') continue;
        failures += run_file(arg + "/" + e->d_name);
        ++ran;
      }
      if (d != nullptr) ::closedir(d);
    } else {
      failures += run_file(arg);
      ++ran;
    }
  }
  std::cout << ran << " inputs, " << failures << " unreadable\n";
  return failures == 0 && ran > 0 ? 0 : 1;
}
