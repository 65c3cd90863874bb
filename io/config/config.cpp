#include "io/config/config.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "io/config/detail.hpp"

namespace eddy::config {

using namespace detail;

namespace {

/// Parent of a key path: "a.b[2]" -> "a.b" -> "a" -> "".
std::string parent(const std::string& path) {
  const auto cut = path.find_last_of(".[");
  return cut == std::string::npos ? "" : path.substr(0, cut);
}

// ---------------------------------------------------------------- writing and comparing

std::string emit(const std::string* v) { return yaml_string(*v); }
std::string emit(const double* v) { return fmt(*v); }
std::string emit(const long* v) { return fmt(*v); }
std::string emit(const bool* v) { return *v ? "true" : "false"; }
std::string emit(const Schedule* v) { return v->time > 0 ? fmt(v->time) + "t" : fmt(v->steps); }
template <class T>
std::string emit(const std::vector<T>* v);
/// A list entry (a body, a slice) as a one-line YAML map of every key.
template <class S, std::enable_if_t<is_entry<S>, int> = 0>
std::string emit(const S* v) {
  S copy = *v;
  EntryKeys keys;
  visit(copy, keys);
  std::vector<std::string> items;
  for (const auto& k : keys.keys)
    items.push_back(k.first + ": " + std::visit([](const auto* ref) { return emit(ref); }, k.second.first));
  return "{" + join(items, ", ") + "}";
}
template <class T>
std::string emit(const std::vector<T>* v) {
  std::vector<std::string> items;
  for (const T& x : *v) items.push_back(emit(&x));
  return "[" + join(items, ", ") + "]";
}

template <class T>
bool same(const T& a, const T& b) {
  return a == b;
}
bool same(const Schedule& a, const Schedule& b) { return a.steps == b.steps && a.time == b.time; }
/// Lists of entries (bodies, slices) are equal when their resolved YAML is (shortest round-trip numbers:
/// exact).
template <class S, std::enable_if_t<is_entry<S>, int> = 0>
bool same(const std::vector<S>& a, const std::vector<S>& b) {
  return emit(&a) == emit(&b);
}

}  // namespace

bool KeyOrigins::has(const std::string& path) const { return set.count(path) || marks.count(path); }

std::string KeyOrigins::at(const std::string& path) const {
  for (std::string p = path; !p.empty(); p = parent(p))
    if (auto o = set.find(p); o != set.end()) return o->second;
  for (std::string p = path; !p.empty(); p = parent(p))
    if (auto m = marks.find(p); m != marks.end()) return m->second;
  return file.empty() ? "the config" : file;
}

int slice_axis(const SliceSpec& slice) { return slice.axis == "x" ? 0 : slice.axis == "y" ? 1 : 2; }

long slice_layer(const RunSpec& spec, const SliceSpec& slice) {
  const auto a = static_cast<std::size_t>(slice_axis(slice));
  const long n = spec.domain.cells[a];
  const double dx = spec.domain.length[a] / double(n);
  return std::min(static_cast<long>(std::floor(slice.position / dx)), n - 1);
}

void fail(const KeyOrigins& origins, const std::string& key, const std::string& message) {
  throw InputError(origins.at(key) + ": " + key + ": " + message);
}

std::vector<Field> fields(RunSpec& spec) {
  std::vector<Field> out;
  Flattener f(out);
  visit(spec, f);
  return out;
}

std::string to_yaml(const RunSpec& spec) {
  RunSpec copy = spec;
  std::ostringstream out;
  std::vector<std::string> open;  // sections of the previous key
  for (const Field& f : fields(copy)) {
    std::vector<std::string> sections = split(f.path, '.');
    const std::string leaf = sections.back();
    sections.pop_back();
    std::size_t common = 0;
    while (common < open.size() && common < sections.size() && open[common] == sections[common]) ++common;
    for (std::size_t i = common; i < sections.size(); ++i) {
      out << std::string(2 * i, ' ') << sections[i] << ":\n";
    }
    open = sections;
    out << std::string(2 * sections.size(), ' ') << leaf << ": "
        << std::visit([](const auto* ref) { return emit(ref); }, f.ref) << "\n";
  }
  return out.str();
}

bool same_settings(const RunSpec& a, const RunSpec& b) {
  RunSpec ca = a, cb = b;
  const std::vector<Field> fa = fields(ca), fb = fields(cb);
  for (std::size_t i = 0; i < fa.size(); ++i) {
    const bool eq =
        std::visit([&](auto* ra) { return same(*ra, *std::get<decltype(ra)>(fb[i].ref)); }, fa[i].ref);
    if (!eq) return false;
  }
  return true;
}

}  // namespace eddy::config
