#pragma once
/// Internal to io/config (needs yaml-cpp, which only this library sees): what the loader (load.cpp), the
/// cross-key checks (checks.cpp), the YAML-subset pre-check (yaml_subset.cpp) and the writer (config.cpp)
/// share. Nothing outside io/config includes it.
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "io/config/config.hpp"
#include "io/config/schema.hpp"

namespace eddy::config::detail {

// ---------------------------------------------------------------- the schema as a flat list

/// Visitor that records every leaf of the schema with its dotted path.
class Flattener {
 public:
  explicit Flattener(std::vector<Field>& out) : out_(out) {}
  template <class T>
  void field(const char* key, T& value, const Rule& rule = {}) {
    out_.push_back({prefix_ + key, FieldRef(&value), rule});
  }
  template <class S>
  void section(const char* key, S& s) {
    const std::string saved = prefix_;
    prefix_ += std::string(key) + ".";
    visit(s, *this);
    prefix_ = saved;
  }

 private:
  std::vector<Field>& out_;
  std::string prefix_;
};

/// Visitor that collects the faces of BoundarySpec in schema order (x_min, x_max, y_min, ...).
struct FaceCollector {
  std::vector<std::pair<std::string, FaceSpec*>> faces;
  template <class T>
  void field(const char*, T&, const Rule& = {}) {}
  void section(const char* key, FaceSpec& face) { faces.emplace_back(key, &face); }
};

/// The structs that are entries of a list key, each a map of keys of its own visit(): geometry.bodies
/// (BodySpec), output.slices (SliceSpec). Loading, checking, writing and comparing them is one template
/// for all (load.cpp, checks.cpp, config.cpp); a new one is its struct, its visit() and its name here.
template <class S>
inline constexpr bool is_entry = std::is_same_v<S, BodySpec> || std::is_same_v<S, SliceSpec>;

/// The keys of one list entry with their rules (schema.hpp's visit(BodySpec&), visit(SliceSpec&)).
struct EntryKeys {
  using Ref = std::variant<std::string*, double*, std::vector<double>*, Schedule*, std::vector<std::string>*>;
  std::vector<std::pair<std::string, std::pair<Ref, Rule>>> keys;
  template <class T>
  void field(const char* key, T& value, const Rule& rule = {}) {
    keys.push_back({key, {Ref(&value), rule}});
  }
  std::string names() const;
};

// ---------------------------------------------------------------- small text helpers (text.cpp)

std::vector<std::string> split(const std::string& s, char sep);
std::string join(const std::vector<std::string>& items, const std::string& sep);
std::string trim(const std::string& s);
std::string lower(std::string s);
/// Shortest text that reads back as exactly `x`, always with a '.' so that any YAML reader sees a float.
std::string fmt(double x);
std::string fmt(long x);
/// Number for a message: short, not necessarily exact.
std::string short_num(double x);
std::optional<double> to_double(std::string s);
/// Integer parse: nullopt if not an integer; `overflow` set if it is one but does not fit.
std::optional<long> to_long(std::string s, bool* overflow = nullptr);
/// A string as YAML: plain when no YAML reader could take it for anything else, double-quoted otherwise.
std::string yaml_string(const std::string& s);
/// Optimal-string-alignment distance (Levenshtein plus adjacent transpositions).
std::size_t edit_distance(const std::string& a, const std::string& b);
/// "a list", "a map", "'x'", "the quoted string 'x'" or "nothing", for messages.
std::string describe(const YAML::Node& n);

/// What a key of each type takes, for messages ("a number", "one of a, b", ...).
std::string expected(const std::string*, const Rule& rule);
std::string expected(const double*, const Rule&);
std::string expected(const long*, const Rule&);
std::string expected(const bool*, const Rule&);
std::string expected(const std::vector<double>*, const Rule& rule);
std::string expected(const std::vector<long>*, const Rule&);
std::string expected(const std::vector<std::string>*, const Rule& rule);
std::string expected(const std::vector<std::vector<double>>*, const Rule&);
std::string expected(const std::vector<BodySpec>*, const Rule&);
std::string expected(const BodySpec*, const Rule&);
std::string expected(const std::vector<SliceSpec>*, const Rule&);
std::string expected(const SliceSpec*, const Rule&);
/// What one entry of a list key is, for messages: "a body", "a slice".
std::string entry_name(const BodySpec*);
std::string entry_name(const SliceSpec*);
std::string expected(const Schedule*, const Rule&);

// ---------------------------------------------------------------- where a value came from

/// Records where each key's value came from (file line:column or a --set argument) while loading; the
/// record goes into RunSpec::origins for the checks after loading (config::fail).
class Where {
 public:
  explicit Where(std::string file) { origins_.file = std::move(file); }

  void set_origin(const std::string& path, const std::string& label) { origins_.set[path] = label; }
  void mark(const std::string& path, const YAML::Mark& m) {
    if (!m.is_null()) origins_.marks[path] = at_mark(m);
  }
  bool has(const std::string& path) const { return origins_.has(path); }
  /// "--set a.b=c", "file:line:col" (the key or its closest enclosing section), or "file".
  std::string at(const std::string& path) const { return origins_.at(path); }
  std::string at_mark(const YAML::Mark& m) const {
    if (m.is_null()) return origins_.file;
    return origins_.file + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
  }
  [[noreturn]] void fail(const std::string& path, const std::string& msg) const {
    config::fail(origins_, path, msg);
  }
  const KeyOrigins& origins() const { return origins_; }

 private:
  KeyOrigins origins_;
};

// ---------------------------------------------------------------- the steps of loading

/// The YAML-subset pre-checks (yaml_subset.cpp), before yaml-cpp parses the text: no control characters,
/// only the line structures eddy's configs use. InputError naming file:line:column.
void check_characters(const std::string& text, const std::string& file_name);
void check_line_structure(const std::string& text, const std::string& file_name);

/// Every value against its schema rule, then the cross-key checks; fills the defaults that depend on
/// other keys (the lattice, the lengths per dimension, the spectral solver's periodic faces) (checks.cpp).
void validate(RunSpec& s, const std::vector<Field>& fields, const Where& w);

}  // namespace eddy::config::detail
