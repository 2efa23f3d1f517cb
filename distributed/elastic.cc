#include "distributed/elastic.h"

#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <typeinfo>

#include "absl/strings/str_cat.h"
#include "serialize/json.h"

namespace ember::distributed {
namespace {

std::string type_name(const std::exception& e) {
  const char* mangled = typeid(e).name();
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(mangled, nullptr, nullptr, &status),
                                           std::free);
  return status == 0 && d ? d.get() : mangled;
}

// The member `key` of an object, or nullptr.
const json::Value* member(const json::Value& v, const std::string& key) {
  if (!v.is_object()) return nullptr;
  for (const auto& kv : v.object()) {
    if (kv.first == key) return &kv.second;
  }
  return nullptr;
}

}  // namespace

bool write_error_file(const std::exception& e) {
  const char* path = std::getenv("TORCHELASTIC_ERROR_FILE");
  if (path == nullptr || *path == '\0') return false;
  std::string json = "{\"message\": {\"message\": ";
  json::append_quoted(&json, absl::StrCat(type_name(e), ": ", e.what()));
  json += ", \"extraInfo\": {\"py_callstack\": ";
  json::append_quoted(&json, absl::StrCat("(a C++ exception: no Python call stack)\n",
                                          type_name(e), ": ", e.what()));
  json += ", \"timestamp\": ";
  json::append_quoted(&json, absl::StrCat(static_cast<int64_t>(std::time(nullptr))));
  json += "}}}";
  std::ofstream f(path, std::ios::trunc);
  f << json;
  return f.good();
}

std::string read_error_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) return "";
  std::stringstream ss;
  ss << f.rdbuf();
  try {
    const json::Value v = json::parse(ss.str());
    const json::Value* outer = member(v, "message");
    if (outer != nullptr && outer->is_string()) return outer->string();
    const json::Value* inner = outer != nullptr ? member(*outer, "message") : nullptr;
    return inner != nullptr && inner->is_string() ? inner->string() : "";
  } catch (const std::exception&) {
    return "";
  }
}

int record(const std::function<int()>& body, const std::string& program) {
  try {
    return body();
  } catch (const std::exception& e) {
    write_error_file(e);
    std::cerr << program << ": " << e.what() << std::endl;
    return 1;
  }
}

}  // namespace ember::distributed
