#include "io/config/config.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "core/error.hpp"
#include "core/file_kind.hpp"
#include "io/config/schema.hpp"

namespace eddy::config {
namespace {

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

// ---------------------------------------------------------------- small text helpers

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string::size_type start = 0;
  while (true) {
    const auto end = s.find(sep, start);
    parts.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// Shortest text that reads back as exactly `x`, always with a '.' so that any YAML reader sees a float.
std::string fmt(double x) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof(buf), x);
  std::string s(buf, res.ptr);
  if (s.find('.') != std::string::npos) return s;
  const auto e = s.find('e');
  return e == std::string::npos ? s + ".0" : s.insert(e, ".0");
}

std::string fmt(long x) { return std::to_string(x); }

/// Number for a message: short, not necessarily exact.
std::string short_num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", x);
  return buf;
}

std::optional<double> to_double(std::string s) {
  if (!s.empty() && s[0] == '+') s.erase(0, 1);
  double x = 0;
  const auto res = std::from_chars(s.data(), s.data() + s.size(), x);
  if (s.empty() || res.ec != std::errc() || res.ptr != s.data() + s.size() || !std::isfinite(x)) return {};
  return x;
}

/// Integer parse: nullopt if not an integer; `overflow` set if it is one but does not fit.
std::optional<long> to_long(std::string s, bool* overflow = nullptr) {
  if (!s.empty() && s[0] == '+') s.erase(0, 1);
  long x = 0;
  const auto res = std::from_chars(s.data(), s.data() + s.size(), x);
  if (overflow) *overflow = res.ec == std::errc::result_out_of_range && res.ptr == s.data() + s.size();
  if (s.empty() || res.ec != std::errc() || res.ptr != s.data() + s.size()) return {};
  return x;
}

/// A string as YAML: plain when no YAML reader could take it for anything else, double-quoted otherwise.
std::string yaml_string(const std::string& s) {
  static const std::set<std::string> reserved{"true", "false", "yes", "no", "on",
                                              "off",  "null",  "y",   "n",  "~"};
  bool plain = !s.empty() && std::isalpha(static_cast<unsigned char>(s[0])) && !reserved.count(lower(s));
  for (char c : s) plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_./-", c));
  if (plain) return s;
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

/// Optimal-string-alignment distance (Levenshtein plus adjacent transpositions).
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

std::string describe(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Scalar:
      return n.Tag() == "!" ? "the quoted string '" + n.Scalar() + "'" : "'" + n.Scalar() + "'";
    default:
      return "nothing";
  }
}

/// Parent of a key path: "a.b[2]" -> "a.b" -> "a" -> "".
std::string parent(const std::string& path) {
  const auto cut = path.find_last_of(".[");
  return cut == std::string::npos ? "" : path.substr(0, cut);
}

// ---------------------------------------------------------------- where a value came from

/// Maps key paths to their origin (file line:column or a --set argument) for error messages.
class Where {
 public:
  explicit Where(std::string file) : file_(std::move(file)) {}

  void set_origin(const std::string& path, const std::string& label) { origin_[path] = label; }
  void mark(const std::string& path, const YAML::Mark& m) {
    if (!m.is_null()) marks_[path] = m;
  }
  bool has(const std::string& path) const { return origin_.count(path) || marks_.count(path); }

  /// "--set a.b=c", "file:line:col" (the key or its closest enclosing section), or "file".
  std::string at(const std::string& path) const {
    for (std::string p = path; !p.empty(); p = parent(p)) {
      if (auto o = origin_.find(p); o != origin_.end()) return o->second;
    }
    for (std::string p = path; !p.empty(); p = parent(p)) {
      if (auto m = marks_.find(p); m != marks_.end()) return at_mark(m->second);
    }
    return file_;
  }
  std::string at_mark(const YAML::Mark& m) const {
    if (m.is_null()) return file_;
    return file_ + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
  }

  [[noreturn]] void fail(const std::string& path, const std::string& msg) const {
    throw InputError(at(path) + ": " + path + ": " + msg);
  }

 private:
  std::string file_;
  std::map<std::string, std::string> origin_;
  std::map<std::string, YAML::Mark> marks_;
};

// ---------------------------------------------------------------- reading one value

std::string expected(const std::string*, const Rule& rule) {
  return rule.one_of.empty() ? "a string" : "one of " + join(rule.one_of, ", ");
}
std::string expected(const double*, const Rule&) { return "a number"; }
std::string expected(const long*, const Rule&) { return "an integer"; }
std::string expected(const bool*, const Rule&) { return "true or false"; }
std::string expected(const std::vector<double>*, const Rule& rule) {
  return rule.scalar_ok ? "a number or a list of numbers (e.g. 1.0 or [1.0, 2.0])"
                        : "a list of numbers (e.g. [1.0, 0.0])";
}
std::string expected(const std::vector<long>*, const Rule&) { return "a list of integers (e.g. [64, 64])"; }
std::string expected(const std::vector<std::string>*, const Rule& rule) {
  return "a list of names" +
         (rule.one_of.empty() ? std::string() : ", each one of " + join(rule.one_of, ", "));
}
std::string expected(const std::vector<std::vector<double>>*, const Rule&) {
  return "a list of points, each a list of coordinates (e.g. [[0.5, 0.5], [0.25, 0.75]])";
}
std::string expected(const std::vector<BodySpec>*, const Rule&) {
  return "a list of bodies (e.g. [{type: cylinder, center: [0.2, 0.2], radius: 0.05}])";
}
std::string expected(const BodySpec*, const Rule&) {
  return "a body: a map with keys type, center, radius, ... (e.g. {type: sphere, center: [0.5, 0.5, 0.5], "
         "radius: 0.1})";
}
std::string expected(const Schedule*, const Rule&) {
  return "a step count (e.g. 100) or a time with suffix t (e.g. 0.5t); 0 = never";
}

template <class T>
[[noreturn]] void wrong_type(const Where& w, const std::string& path, const YAML::Node& n, const Rule& rule) {
  w.fail(path, "expected " + expected(static_cast<const T*>(nullptr), rule) + ", got " + describe(n));
}

void parse(const YAML::Node& n, const std::string& path, std::string& out, const Rule& rule, Where& w) {
  if (!n.IsScalar()) wrong_type<std::string>(w, path, n, rule);
  out = n.Scalar();
}

void parse(const YAML::Node& n, const std::string& path, double& out, const Rule& rule, Where& w) {
  // A quoted scalar is a string in YAML, even when it looks like a number.
  std::optional<double> x;
  if (n.IsScalar() && n.Tag() != "!") x = to_double(n.Scalar());
  if (!x) wrong_type<double>(w, path, n, rule);
  out = *x;
}

void parse(const YAML::Node& n, const std::string& path, long& out, const Rule& rule, Where& w) {
  bool overflow = false;
  std::optional<long> x;
  if (n.IsScalar() && n.Tag() != "!") x = to_long(n.Scalar(), &overflow);
  if (overflow) w.fail(path, "integer " + n.Scalar() + " is out of range");
  if (!x) wrong_type<long>(w, path, n, rule);
  out = *x;
}

void parse(const YAML::Node& n, const std::string& path, bool& out, const Rule& rule, Where& w) {
  if (!n.IsScalar() || n.Tag() == "!" || !YAML::convert<bool>::decode(n, out)) {
    wrong_type<bool>(w, path, n, rule);
  }
}

void parse(const YAML::Node& n, const std::string& path, Schedule& out, const Rule& rule, Where& w) {
  if (!n.IsScalar()) wrong_type<Schedule>(w, path, n, rule);
  const std::string s = n.Scalar();
  if (!s.empty() && s.back() == 't') {
    const auto t = to_double(trim(s.substr(0, s.size() - 1)));
    if (!t) wrong_type<Schedule>(w, path, n, rule);
    out = Schedule{0, *t};
  } else {
    const auto k = to_long(s);
    if (!k) wrong_type<Schedule>(w, path, n, rule);
    out = Schedule{*k, 0.0};
  }
}

/// The keys of one body with their rules (schema.hpp's visit(BodySpec&)).
struct BodyKeys {
  using Ref = std::variant<std::string*, double*, std::vector<double>*>;
  std::vector<std::pair<std::string, std::pair<Ref, Rule>>> keys;
  template <class T>
  void field(const char* key, T& value, const Rule& rule = {}) {
    keys.push_back({key, {Ref(&value), rule}});
  }
  std::string names() const {
    std::vector<std::string> out;
    for (const auto& k : keys) out.push_back(k.first);
    return join(out, ", ");
  }
};

template <class T>
void parse(const YAML::Node& n, const std::string& path, std::vector<T>& out, const Rule& rule, Where& w);

/// One entry of geometry.bodies: a map of the body keys, unknown or repeated keys refused.
void parse(const YAML::Node& n, const std::string& path, BodySpec& out, const Rule& rule, Where& w) {
  if (!n.IsMap()) wrong_type<BodySpec>(w, path, n, rule);
  BodyKeys keys;
  visit(out, keys);
  std::set<std::string> seen;
  for (const auto& pair : n) {
    const YAML::Node key = pair.first;
    const YAML::Node value = pair.second;
    const std::string name = key.IsScalar() ? key.Scalar() : describe(key);
    const std::string at = path + "." + name;
    w.mark(at, key.Mark());
    if (!seen.insert(name).second) w.fail(at, "duplicate key");
    const auto k =
        std::find_if(keys.keys.begin(), keys.keys.end(), [&](const auto& e) { return e.first == name; });
    if (k == keys.keys.end()) w.fail(at, "unknown key; valid keys in a body: " + keys.names());
    w.mark(at, value.Mark());
    std::visit([&](auto* ref) { parse(value, at, *ref, k->second.second, w); }, k->second.first);
  }
}

template <class T>
void parse(const YAML::Node& n, const std::string& path, std::vector<T>& out, const Rule& rule, Where& w) {
  const Rule element{};
  if (n.IsScalar() && rule.scalar_ok) {
    T x{};
    try {
      parse(n, path, x, element, w);
    } catch (const InputError&) {
      wrong_type<std::vector<T>>(w, path, n, rule);
    }
    out.assign(1, x);
    return;
  }
  if (!n.IsSequence()) wrong_type<std::vector<T>>(w, path, n, rule);
  out.clear();
  for (std::size_t i = 0; i < n.size(); ++i) {
    const std::string item = path + "[" + std::to_string(i) + "]";
    w.mark(item, n[i].Mark());
    T x{};
    parse(n[i], item, x, element, w);
    out.push_back(x);
  }
}

// ---------------------------------------------------------------- reading the tree

/// Walks the YAML tree against the flat schema: each key must be a leaf or a section at its level.
class Loader {
 public:
  Loader(std::vector<Field>& fields, Where& w) : fields_(fields), w_(w) {
    for (Field& f : fields_) leaves_[f.path] = &f;
  }

  void load_map(const YAML::Node& node, const std::string& prefix) {
    std::set<std::string> seen;
    for (const auto& pair : node) {  // it->first would point into a temporary proxy
      const YAML::Node key = pair.first;
      const YAML::Node value = pair.second;
      if (!key.IsScalar()) {
        throw InputError(w_.at_mark(key.Mark()) + ": " + (prefix.empty() ? "top level" : drop_dot(prefix)) +
                         ": keys must be plain names, got " + describe(key));
      }
      const std::string path = prefix + key.Scalar();
      w_.mark(path, key.Mark());
      if (!seen.insert(key.Scalar()).second) w_.fail(path, "duplicate key");
      if (auto leaf = leaves_.find(path); leaf != leaves_.end()) {
        w_.mark(path, value.Mark());
        std::visit([&](auto* ref) { parse(value, path, *ref, leaf->second->rule, w_); }, leaf->second->ref);
      } else if (is_section(path)) {
        if (value.IsNull()) continue;  // `numerics:` with nothing below: all defaults
        w_.mark(path, value.Mark());
        if (!value.IsMap()) {
          w_.fail(path, "expected a section with keys " + join(children(path + "."), ", ") + ", got " +
                            describe(value));
        }
        load_map(value, path + ".");
      } else {
        w_.fail(path, "unknown key; " + suggest(key.Scalar(), prefix));
      }
    }
  }

  /// Keys one level below `prefix` ("" = top level, "numerics." = inside numerics), in schema order.
  std::vector<std::string> children(const std::string& prefix) const {
    std::vector<std::string> out;
    for (const Field& f : fields_) {
      if (f.path.compare(0, prefix.size(), prefix) != 0) continue;
      const std::string next = f.path.substr(prefix.size(), f.path.find('.', prefix.size()) - prefix.size());
      if (std::find(out.begin(), out.end(), next) == out.end()) out.push_back(next);
    }
    return out;
  }

 private:
  static std::string drop_dot(const std::string& prefix) { return prefix.substr(0, prefix.size() - 1); }

  bool is_section(const std::string& path) const {
    return std::any_of(fields_.begin(), fields_.end(),
                       [&](const Field& f) { return f.path.compare(0, path.size() + 1, path + ".") == 0; });
  }

  /// "did you mean 'x'?" from the keys at this level, else a key of that name elsewhere, else the list.
  std::string suggest(const std::string& key, const std::string& prefix) const {
    const std::vector<std::string> here = children(prefix);
    const std::size_t limit = key.size() <= 4 ? 1 : key.size() <= 8 ? 2 : 3;
    std::size_t best = limit + 1;
    std::string best_key;
    for (const std::string& c : here) {
      const std::size_t d = edit_distance(lower(key), lower(c));
      if (d < best) {
        best = d;
        best_key = c;
      }
    }
    if (!best_key.empty()) return "did you mean '" + best_key + "'?";

    std::vector<std::string> elsewhere;  // e.g. `reynolds` at the top level -> physics.reynolds
    for (const Field& f : fields_) {
      const std::vector<std::string> segs = split(f.path, '.');
      std::string p;
      for (const std::string& s : segs) {
        p += (p.empty() ? "" : ".") + s;
        if (lower(s) == lower(key) && std::find(elsewhere.begin(), elsewhere.end(), p) == elsewhere.end()) {
          elsewhere.push_back(p);
        }
      }
    }
    if (!elsewhere.empty() && elsewhere.size() <= 3) {
      for (std::string& e : elsewhere) e = "'" + e + "'";
      return "did you mean " + join(elsewhere, " or ") + "?";
    }
    return "valid keys " + std::string(prefix.empty() ? "at the top level" : "in " + drop_dot(prefix)) +
           ": " + join(here, ", ");
  }

  std::vector<Field>& fields_;
  Where& w_;
  std::map<std::string, Field*> leaves_;
};

// ---------------------------------------------------------------- --set

/// Merge one "key.path=value" override into the YAML tree (value parsed as YAML), creating sections.
void apply_override(YAML::Node& root, const std::string& arg, Where& w) {
  const std::string label = "--set " + arg;
  const auto eq = arg.find('=');
  if (eq == std::string::npos) {
    throw InputError(label + ": expected --set key.path=value (e.g. --set numerics.precision=fp32)");
  }
  const std::string key = trim(arg.substr(0, eq));
  const std::vector<std::string> segs = split(key, '.');
  if (key.empty() || std::any_of(segs.begin(), segs.end(), [](const std::string& s) { return s.empty(); })) {
    throw InputError(label + ": '" + key + "' is not a key path (e.g. numerics.precision)");
  }
  if (key.find_first_of("[]") != std::string::npos) {
    throw InputError(label + ": set a whole list instead, e.g. --set domain.cells=[64,64]");
  }
  YAML::Node value;
  try {
    value = YAML::Load(arg.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    throw InputError(label + ": the value is not valid YAML: " + e.msg);
  }

  // reset() rebinds a Node handle; operator= would overwrite the node it refers to.
  YAML::Node cur;
  cur.reset(root);
  std::string path;
  for (std::size_t i = 0; i + 1 < segs.size(); ++i) {
    path += (i ? "." : "") + segs[i];
    const YAML::Node child = static_cast<const YAML::Node&>(cur)[segs[i]];
    if (!child.IsDefined() || child.IsNull()) {
      if (!child.IsDefined()) w.set_origin(path, label);
      cur[segs[i]] = YAML::Node(YAML::NodeType::Map);
    } else if (!child.IsMap()) {
      throw InputError(label + ": " + path + " is not a section, so it has no key '" + segs[i + 1] + "'");
    }
    YAML::Node next = cur[segs[i]];
    cur.reset(next);
  }
  cur[segs.back()] = value;
  w.set_origin(key, label);
}

// ---------------------------------------------------------------- validation

bool satisfies(double x, const Rule& r) {
  return (r.lo_open ? x > r.lo : x >= r.lo) && (r.hi_open ? x < r.hi : x <= r.hi);
}

std::string describe(const Rule& r) {
  const bool lo = std::isfinite(r.lo), hi = std::isfinite(r.hi);
  if (lo && hi) {
    return std::string("in ") + (r.lo_open ? "(" : "[") + short_num(r.lo) + ", " + short_num(r.hi) +
           (r.hi_open ? ")" : "]");
  }
  if (lo) return (r.lo_open ? "> " : ">= ") + short_num(r.lo);
  if (hi) return (r.hi_open ? "< " : "<= ") + short_num(r.hi);
  return "finite";
}

void check(const std::string& path, const std::string& v, const Rule& r, const Where& w) {
  if (!r.one_of.empty() && std::find(r.one_of.begin(), r.one_of.end(), v) == r.one_of.end()) {
    w.fail(path, "'" + v + "' is not one of " + join(r.one_of, ", "));
  }
}
void check(const std::string& path, double v, const Rule& r, const Where& w) {
  if (!std::isfinite(v) || !satisfies(v, r)) w.fail(path, "must be " + describe(r) + ", got " + short_num(v));
}
void check(const std::string& path, long v, const Rule& r, const Where& w) {
  if (!satisfies(static_cast<double>(v), r)) w.fail(path, "must be " + describe(r) + ", got " + fmt(v));
}
void check(const std::string&, bool, const Rule&, const Where&) {}
void check(const std::string& path, const Schedule& v, const Rule&, const Where& w) {
  if (v.steps < 0 || !(v.time >= 0) || !std::isfinite(v.time)) {
    w.fail(path, "must be >= 0 (" + expected(static_cast<const Schedule*>(nullptr), {}) + ")");
  }
}
void check(const std::string& path, const std::vector<double>& v, const Rule& r, const Where& w);
void check(const std::string& path, const BodySpec& body, const Rule&, const Where& w) {
  BodySpec copy = body;
  BodyKeys keys;
  visit(copy, keys);
  for (const auto& k : keys.keys)
    std::visit([&](auto* ref) { check(path + "." + k.first, *ref, k.second.second, w); }, k.second.first);
}
template <class T>
void check(const std::string& path, const std::vector<T>& v, const Rule& r, const Where& w) {
  if (v.size() == 1 && r.scalar_ok) return check(path, v[0], r, w);  // most likely written as a scalar
  for (std::size_t i = 0; i < v.size(); ++i) check(path + "[" + std::to_string(i) + "]", v[i], r, w);
}

void check(const std::string& path, const std::vector<double>& v, const Rule& r, const Where& w) {
  check<double>(path, v, r, w);
}

void check_name(const std::string& name, const Where& w) {
  const bool ok =
      !name.empty() && name != "." && name != ".." && std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
      });
  if (!ok) {
    w.fail("name", "'" + name +
                       "' is not a valid run name: it becomes a directory name, so use only letters, "
                       "digits, '_', '.' and '-'");
  }
}

void check_lbm_numerics(RunSpec& s, const Where& w) {
  const int dims = s.dimensions();
  NumericsSpec& num = s.numerics;
  if (num.lattice == "auto") num.lattice = dims == 2 ? "D2Q9" : "D3Q19";
  const int lattice_dims = num.lattice == "D2Q9" ? 2 : 3;
  if (lattice_dims != dims) {
    w.fail("numerics.lattice", num.lattice + " is a " + std::to_string(lattice_dims) +
                                   "D lattice but domain.cells has " + std::to_string(dims) +
                                   " entries; use " + (dims == 2 ? "D2Q9" : "D3Q19 or D3Q27") + " or auto");
  }

  const double mach = num.lattice_velocity * std::sqrt(3.0);
  if (mach > num.max_mach) {
    w.fail("numerics.lattice_velocity",
           "lattice Mach number " + short_num(num.lattice_velocity) + "*sqrt(3) = " + short_num(mach) +
               " exceeds numerics.max_mach = " + short_num(num.max_mach) +
               "; use numerics.lattice_velocity <= " + short_num(num.max_mach / std::sqrt(3.0)));
  }

  const double tau = lbm_tau(s);
  if (!(tau > 0.5 + 1e-6)) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.10g", tau);
    w.fail("physics.reynolds",
           std::string(
               "the LBM relaxation time tau = 0.5 + 3 * numerics.lattice_velocity * (reference length in "
               "cells) / physics.reynolds = ") +
               buf +
               " must be > 0.500001; use more domain.cells, a larger numerics.lattice_velocity or a smaller "
               "physics.reynolds");
  }
}

void check_boundaries(RunSpec& s, const Where& w) {
  FaceCollector c;
  visit(s.boundaries, c);
  if (s.solver == "spectral") {  // the spectral solver is periodic in every direction
    for (auto& face : c.faces) *face.second = FaceSpec{"periodic", {}};
    return;
  }
  const std::size_t dims = static_cast<std::size_t>(s.dimensions());
  const auto key = [](const std::string& face, const char* leaf) {
    return "boundaries." + face + "." + leaf;
  };
  for (std::size_t axis = 0; axis < dims && 2 * axis + 1 < c.faces.size(); ++axis) {
    const auto& lo = c.faces[2 * axis];
    const auto& hi = c.faces[2 * axis + 1];
    const bool lo_periodic = lo.second->type == "periodic";
    if (lo_periodic != (hi.second->type == "periodic")) {
      const auto& yes = lo_periodic ? lo : hi;
      const auto& no = lo_periodic ? hi : lo;
      w.fail(key(yes.first, "type"), "'periodic' must be paired, but " + key(no.first, "type") + " is '" +
                                         no.second->type + "'; make both periodic or neither");
    }
  }
  for (std::size_t i = 0; i < 2 * dims && i < c.faces.size(); ++i) {
    const FaceSpec& f = *c.faces[i].second;
    if (f.type == "moving_wall" && f.velocity.size() != dims) {
      const std::string at = w.has(key(c.faces[i].first, "velocity")) ? key(c.faces[i].first, "velocity")
                                                                      : key(c.faces[i].first, "type");
      w.fail(at, "a moving_wall needs boundaries." + c.faces[i].first +
                     ".velocity with one entry per dimension (" + std::to_string(dims) + "), got " +
                     std::to_string(f.velocity.size()));
    }
  }
}

/// Open faces (velocity_inlet, pressure_outlet, outflow): LBM only, with the keys each needs.
void check_open_faces(RunSpec& s, const Where& w) {
  FaceCollector c;
  visit(s.boundaries, c);
  const std::size_t dims = static_cast<std::size_t>(s.dimensions());
  if (s.initial.type == "inflow" &&
      std::none_of(c.faces.begin(), c.faces.begin() + long(2 * dims),
                   [](const auto& f) { return f.second->type == "velocity_inlet"; }))
    w.fail("initial.type",
           "'inflow' starts from the velocity_inlet's profile, but no face is a velocity_inlet");
  for (std::size_t i = 0; i < c.faces.size(); ++i) {
    const FaceSpec& f = *c.faces[i].second;
    const std::string key = "boundaries." + c.faces[i].first;
    const bool open = f.type == "velocity_inlet" || f.type == "pressure_outlet" || f.type == "outflow";
    if (!open) continue;
    if (i >= 2 * dims) w.fail(key + ".type", "'" + f.type + "' on a face the 2D domain does not have");
    if (f.type == "velocity_inlet" && f.velocity.size() != dims)
      w.fail(w.has(key + ".velocity") ? key + ".velocity" : key + ".type",
             "a velocity_inlet needs " + key + ".velocity with one entry per dimension (" +
                 std::to_string(dims) + "), got " + std::to_string(f.velocity.size()));
  }
}

/// geometry: bodies with the keys their type needs (and none it does not use), coefficient scales.
void check_geometry(RunSpec& s, const Where& w) {
  GeometrySpec& g = s.geometry;
  const std::size_t dims = static_cast<std::size_t>(s.dimensions());
  if (s.solver != "lbm" && !g.bodies.empty())
    w.fail("geometry.bodies", "solid bodies are available with solver lbm only; remove them");
  for (std::size_t b = 0; b < g.bodies.size(); ++b) {
    const BodySpec& body = g.bodies[b];
    const std::string key = "geometry.bodies[" + std::to_string(b) + "]";
    const bool round = body.type == "cylinder" || body.type == "sphere";
    const auto need = [&](const char* leaf, bool wanted, bool given, const std::string& what) {
      if (wanted && !given) w.fail(key + "." + leaf, "a " + body.type + " needs " + what);
      if (!wanted && given) w.fail(key + "." + leaf, "is not a key of a " + body.type + "; remove it");
    };
    const std::string per_dim = "one entry per dimension (" + std::to_string(dims) + ")";
    need("center", round, !body.center.empty(), "center: " + per_dim);
    if (round && body.center.size() != dims) w.fail(key + ".center", "needs " + per_dim);
    need("radius", round, body.radius > 0, "radius > 0");
    if (!body.axis.empty() && (body.type != "cylinder" || dims != 3))
      w.fail(key + ".axis", "only a cylinder in 3D has an axis (a 2D cylinder is a disc along z)");
    if (!body.axis.empty() && body.axis.size() != 3) w.fail(key + ".axis", "needs 3 entries");
    if (body.length > 0 && (body.type != "cylinder" || dims != 3))
      w.fail(key + ".length", "only a cylinder in 3D has a length; remove it");
    const bool from_file = body.type == "stl" || body.type == "mask";
    need("file", from_file, !body.file.empty(),
         "file: the path of the " + std::string(body.type == "stl" ? "STL surface" : "HDF5 mask"));
    need("translate", body.type == "stl", !body.translate.empty(), "translate: " + per_dim);
    if (body.type == "stl" && body.translate.size() != dims) w.fail(key + ".translate", "needs " + per_dim);
    if (body.type == "stl" && !(body.scale > 0))
      w.fail(key + ".scale", "must be > 0 (x = scale * x_file + translate)");
    if (body.type != "stl" && body.scale != 1.0)
      w.fail(key + ".scale", "is not a key of a " + body.type + "; remove it");
    if (body.type != "mask" && body.dataset != "solid")
      w.fail(key + ".dataset", "is not a key of a " + body.type + "; remove it");
    need("lo", body.type == "box", !body.lo.empty(), "lo: " + per_dim);
    need("hi", body.type == "box", !body.hi.empty(), "hi: " + per_dim);
    if (body.type == "box") {
      if (body.lo.size() != dims) w.fail(key + ".lo", "needs " + per_dim);
      if (body.hi.size() != dims) w.fail(key + ".hi", "needs " + per_dim);
      for (std::size_t d = 0; d < dims; ++d)
        if (!(body.lo[d] < body.hi[d]))
          w.fail(key + ".hi", "every entry must be above its lo (entry " + std::to_string(d) + ")");
    }
  }
  if (g.reference_velocity > 0) {
    if (!(g.reference_length > 0))
      w.fail("geometry.reference_length", "the force coefficients need a reference length > 0 [m]");
    if (dims == 3 && !(g.reference_area > 0))
      w.fail("geometry.reference_area", "the force coefficients in 3D need a reference area > 0 [m^2]");
  }
}

void check_forcing(const RunSpec& s, const Where& w) {
  const ForcingSpec& f = s.physics.forcing;
  if (s.validation.reference == "kolmogorov" && (f.type != "kolmogorov" || s.solver != "spectral")) {
    w.fail("validation.reference",
           "kolmogorov compares against the laminar Kolmogorov flow: it needs solver "
           "spectral and physics.forcing.type kolmogorov");
  }
  if (f.type == "none") return;
  if (s.solver != "spectral") {
    w.fail("physics.forcing.type",
           "'" + f.type +
               "' forcing is available with solver spectral only; use none (the LBM takes a "
               "uniform physics.body_force)");
    return;
  }
  const std::size_t dims = s.domain.cells.size();
  if (f.type == "kolmogorov" && dims >= 2 && s.domain.length.size() == dims) {
    // f = F sin(k_f y) x must be periodic in y and inside the 2/3-rule mask.
    const double k1 = 2 * M_PI / s.domain.length[1], n = f.wavenumber / k1;
    const long kept = (s.domain.cells[1] - 1) / 3;
    if (std::fabs(n - std::round(n)) > 1e-9 * std::max(1.0, n) || std::round(n) < 1 ||
        std::round(n) > double(kept)) {
      w.fail("physics.forcing.wavenumber",
             short_num(f.wavenumber) + " 1/m is not a whole multiple n 2 pi / L_y (2 pi / L_y = " +
                 short_num(k1) + " 1/m) with 1 <= n <= " + std::to_string(kept) +
                 " (the 2/3-rule limit of domain.cells[1]); use e.g. " +
                 short_num(k1 * std::max(1L, std::min(kept, 4L))));
    }
  }
  if (f.type == "band_limited") {
    if (f.band.size() != 2 || !(f.band[0] < f.band[1])) {
      w.fail("physics.forcing.band",
             "needs two wave numbers [k_a, k_b] [1/m] with k_a < k_b, e.g. [0.5, 2.5]");
    }
  }
}

// ---------------------------------------------------------------- output: probes and spectra

/// output.probes: a schedule with points, each with one coordinate per dimension inside the domain
/// [0, L] along every axis, and fields the solver writes (once each); output.spectra: solver spectral
/// (the LBM computes no spectrum).
void check_series_outputs(const RunSpec& s, const Where& w) {
  const ProbesSpec& p = s.output.probes;
  const std::size_t dims = s.domain.cells.size();
  const std::string example = dims == 2 ? "[[0.5, 0.5]]" : "[[0.5, 0.5, 0.5]]";
  if (p.every.enabled() && p.points.empty())
    w.fail(
        w.has("output.probes.points") ? "output.probes.points" : "output.probes.every",
        "the probes need at least one point: output.probes.points: " + example + " [m], inside the domain");
  if (!p.every.enabled() && !p.points.empty())
    w.fail(w.has("output.probes.every") ? "output.probes.every" : "output.probes.points",
           "the probes have points but no schedule (output.probes.every is 0, never); give it a step count "
           "(e.g. 10) or a time (e.g. 0.1t)");
  for (std::size_t i = 0; i < p.points.size(); ++i) {
    const std::string key = "output.probes.points[" + std::to_string(i) + "]";
    const std::vector<double>& x = p.points[i];
    if (x.size() != dims)
      w.fail(key, "needs one coordinate per dimension (" + std::to_string(dims) + "), got " +
                      std::to_string(x.size()) + "; e.g. " + example.substr(1, example.size() - 2));
    for (std::size_t d = 0; d < dims; ++d)
      if (!(x[d] >= 0.0 && x[d] <= s.domain.length[d]))
        w.fail(key + "[" + std::to_string(d) + "]",
               std::string("the point is outside the domain: ") + "xyz"[d] + " = " + fmt(x[d]) +
                   " m, but the domain spans [0, " + short_num(s.domain.length[d]) + "] m along " + "xyz"[d]);
  }
  const std::vector<std::string> available = s.solver == "lbm"
                                                 ? std::vector<std::string>{"velocity", "density", "pressure"}
                                                 : std::vector<std::string>{"velocity", "vorticity"};
  if (p.every.enabled() && p.fields.empty())
    w.fail("output.probes.fields", "needs at least one field, of " + join(available, ", "));
  for (std::size_t i = 0; i < p.fields.size(); ++i) {
    const std::string key = "output.probes.fields[" + std::to_string(i) + "]";
    if (std::find(available.begin(), available.end(), p.fields[i]) == available.end())
      w.fail(key,
             "'" + p.fields[i] + "' is not a field of solver " + s.solver + "; use " + join(available, ", "));
    if (std::find(p.fields.begin(), p.fields.begin() + long(i), p.fields[i]) != p.fields.begin() + long(i))
      w.fail(key, "'" + p.fields[i] + "' is listed twice");
  }
  if (s.output.spectra.every.enabled() && s.solver != "spectral")
    w.fail("output.spectra.every", "energy spectra are written by solver spectral only (solver " + s.solver +
                                       " computes none); remove output.spectra, or use 0");
}

void validate(RunSpec& s, const std::vector<Field>& fields, const Where& w) {
  for (const Field& f : fields) std::visit([&](auto* ref) { check(f.path, *ref, f.rule, w); }, f.ref);
  check_name(s.name, w);

  const std::size_t dims = s.domain.cells.size();
  if (dims != 2 && dims != 3) {
    w.fail("domain.cells", "needs 2 or 3 entries ([nx, ny] or [nx, ny, nz]), got " + std::to_string(dims));
  }
  if (s.solver == "lbm") {
    for (std::size_t i = 0; i < dims; ++i) {
      if (s.domain.cells[i] < 2) {
        w.fail("domain.cells[" + std::to_string(i) + "]",
               "lbm needs at least 2 cells per direction, got " + fmt(s.domain.cells[i]));
      }
    }
  }
  std::vector<double>& length = s.domain.length;
  if (length.size() == 1) length.assign(dims, length[0]);
  if (length.size() != dims) {
    w.fail("domain.length", "needs one value or one per dimension (" + std::to_string(dims) + "), got " +
                                std::to_string(length.size()));
  }

  if (!s.physics.body_force.empty() && s.physics.body_force.size() != dims) {
    w.fail("physics.body_force", "needs one entry per dimension (" + std::to_string(dims) + "), got " +
                                     std::to_string(s.physics.body_force.size()));
  }
  if (s.solver != "lbm") {
    for (double g : s.physics.body_force)
      if (g != 0.0) w.fail("physics.body_force", "is only available with solver lbm; remove it");
    if (s.numerics.les.model != "none")
      w.fail("numerics.les.model",
             "'" + s.numerics.les.model + "' is only available with solver lbm; use none");
  }
  if (s.solver == "lbm") {
    check_lbm_numerics(s, w);
  } else if (s.numerics.precision == "fp32/fp16") {
    w.fail("numerics.precision", "'fp32/fp16' is only available with solver lbm; use fp64 or fp32");
  }
  check_boundaries(s, w);
  if (s.solver == "lbm") check_open_faces(s, w);
  if (s.solver != "lbm" && s.initial.type == "inflow")
    w.fail("initial.type", "'inflow' is available with solver lbm only");
  check_geometry(s, w);
  check_forcing(s, w);

  if (!(s.run.end_time > 0) && s.run.steps <= 0) {
    w.fail(w.has("run.end_time") ? "run.end_time" : "run.steps",
           "neither run.end_time nor run.steps is > 0; set one of them to say when the run stops");
  }
#ifndef EDDY_HDF5_PARALLEL
  if (s.output.writer == "collective")
    w.fail("output.writer",
           "'collective' needs a parallel HDF5 (MPI-IO) and this build's HDF5 is serial; use auto, gather or "
           "per_rank");
#endif
  if (!s.parallel.ranks.empty() && s.parallel.ranks.size() != dims) {
    w.fail("parallel.ranks", "needs one entry per dimension (" + std::to_string(dims) +
                                 ") or none (automatic), got " + std::to_string(s.parallel.ranks.size()));
  }
  check_series_outputs(s, w);
}

// ---------------------------------------------------------------- writing and comparing

std::string emit(const std::string* v) { return yaml_string(*v); }
std::string emit(const double* v) { return fmt(*v); }
std::string emit(const long* v) { return fmt(*v); }
std::string emit(const bool* v) { return *v ? "true" : "false"; }
std::string emit(const Schedule* v) { return v->time > 0 ? fmt(v->time) + "t" : fmt(v->steps); }
template <class T>
std::string emit(const std::vector<T>* v);
/// A body as a one-line YAML map of every key.
std::string emit(const BodySpec* v) {
  BodySpec copy = *v;
  BodyKeys keys;
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
/// Bodies are equal when their resolved YAML is (shortest round-trip numbers: exact).
bool same(const std::vector<BodySpec>& a, const std::vector<BodySpec>& b) { return emit(&a) == emit(&b); }

/// YAML allows no C0 control characters but tab, LF and CR (YAML 1.2, 5.1), and yaml-cpp 0.7 can loop
/// forever on some of them (found by tests/fuzz): refuse them before parsing.
void check_characters(const std::string& text, const std::string& file_name) {
  long line = 1, column = 1;
  for (const char ch : text) {
    const unsigned char u = static_cast<unsigned char>(ch);
    if ((u < 0x20 && u != '\t' && u != '\n' && u != '\r') || u == 0x7f) {
      char code[8];
      std::snprintf(code, sizeof code, "0x%02x", u);
      throw InputError(file_name + ":" + std::to_string(line) + ":" + std::to_string(column) +
                       ": control character " + code + " is not allowed in YAML (is this a text file?)");
    }
    if (u == '\n') {
      ++line, column = 1;
    } else {
      ++column;
    }
  }
}

/// eddy's configs are YAML restricted to what they need: block mappings of `key: value` lines, block
/// (`- x`) and flow (`[..]`, `{..}`, possibly over several lines) collections, block scalars (`|`, `>`)
/// and comments. Anything else is refused here, line by line, before yaml-cpp sees it: yaml-cpp 0.7
/// loops forever on some malformed input, e.g. a line that is neither a key nor an item followed by
/// a ',' line (found by tests/fuzz).
void check_line_structure(const std::string& text, const std::string& file_name) {
  int depth = 0;                  // open flow brackets
  long block_scalar_indent = -1;  // >= 0 inside a block scalar started at this indentation
  bool seen_key = false;          // a key or item line came before
  long line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    const long indent = static_cast<long>(first);
    if (block_scalar_indent >= 0) {
      if (indent > block_scalar_indent) continue;
      block_scalar_indent = -1;
    }
    if (first == 0 && (line.rfind("---", 0) == 0 || line.rfind("...", 0) == 0) &&
        (line.size() == 3 || line[3] == ' ' || line[3] == '\t')) {
      const std::size_t rest = line.find_first_not_of(" \t", 3);
      if (rest != std::string::npos && line[rest] != '#')
        throw InputError(file_name + ":" + std::to_string(line_no) + ":" + std::to_string(rest + 1) +
                         ": nothing may follow a document marker on its line");
      continue;
    }
    if (line[first] == '#' || (first == 0 && line[0] == '%')) continue;
    std::size_t k = first;
    std::size_t value_at = first;  // where the value of a `key:` or `- ` line starts
    if (depth == 0) {
      while (k != std::string::npos && k + 1 < line.size() && line[k] == '-' &&
             (line[k + 1] == ' ' || line[k + 1] == '\t'))
        k = line.find_first_not_of(" \t", k + 1);  // block sequence items "- - x"
      if (k == std::string::npos || (k + 1 == line.size() && line[k] == '-')) continue;
      const char c0 = line[k];
      bool key = false;
      if (c0 == '"' || c0 == '\'') {
        const std::size_t close = line.find(c0, k + 1);
        const std::size_t colon =
            close == std::string::npos ? close : line.find_first_not_of(" \t", close + 1);
        key = colon != std::string::npos && line[colon] == ':';
        if (key) value_at = colon + 1;
      } else if (std::isalnum(static_cast<unsigned char>(c0)) || c0 == '_' || c0 == '.' || c0 == '+') {
        const std::size_t colon = line.find(": ", k) != std::string::npos
                                      ? line.find(": ", k)
                                      : (line.back() == ':' ? line.size() - 1 : std::string::npos);
        key = colon != std::string::npos && line.find_first_of(",[]{}&*!|>%@`#\"'", k) > colon;
        if (key) value_at = colon + 1;
      }
      if (!key) value_at = k;
      const bool item = k != first;  // after "- ", a scalar or flow collection is fine
      if (!key && !(item && c0 != ',' && c0 != ']' && c0 != '}' && c0 != '?' && c0 != ':')) {
        const std::string at = file_name + ":" + std::to_string(line_no) + ":" + std::to_string(k + 1) + ": ";
        if ((c0 == '[' || c0 == '{') && line.find(':', k) != std::string::npos)
          throw InputError(at + "keys must be plain names, not lists or maps");
        if (!seen_key)
          throw InputError(at + "the top level must be a map of `key: value` lines (solver, domain, ...)");
        throw InputError(at +
                         "expected a `key: value` line (eddy configs are mappings of keys; values on one "
                         "line, or lists/maps in [..] and {..})");
      }
      seen_key = true;
    }
    // Flow depth and block-scalar starts over the rest of the line (quotes and comments skipped). Outside
    // flow collections, brackets count only when the value starts with one: inside a plain scalar
    // ("a: x[1") they are ordinary characters.
    if (depth == 0) {
      const std::size_t v = line.find_first_not_of(" \t", value_at);
      k = (v != std::string::npos && (line[v] == '[' || line[v] == '{')) ? v : line.size();
      if (v != std::string::npos && k == line.size()) {
        // No flow value: only a block-scalar indicator at the end matters.
        std::size_t b = line.find_last_not_of(" \t");
        while (b > v &&
               (std::isdigit(static_cast<unsigned char>(line[b])) || line[b] == '-' || line[b] == '+'))
          --b;
        if ((line[b] == '|' || line[b] == '>') && b == v) block_scalar_indent = indent;
        continue;
      }
    }
    char quote = 0;
    bool token_start = true;  // a quote opens a quoted scalar only as a token's first character: in
                              // `{a: tru"}` the '"' belongs to the plain scalar and the '}' closes the map
    std::size_t last_significant = std::string::npos;
    for (std::size_t i = k; i < line.size(); ++i) {
      const char c = line[i];
      if (quote) {
        if (c == quote) quote = 0;
        last_significant = i;
        continue;
      }
      if (c == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) break;
      if ((c == '"' || c == '\'') && token_start) quote = c;
      if (c == '[' || c == '{') ++depth;
      if ((c == ']' || c == '}') && --depth < 0)
        throw InputError(file_name + ":" + std::to_string(line_no) + ":" + std::to_string(i + 1) +
                         ": unmatched '" + std::string(1, c) + "'");
      if (c != ' ' && c != '\t') {
        last_significant = i;
        const char next = i + 1 < line.size() ? line[i + 1] : ' ';
        token_start =
            c == '[' || c == '{' || c == ',' ||
            (c == ':' && (next == ' ' || next == '\t' || next == ',' || next == ']' || next == '}'));
      }
    }
    if (depth == 0 && last_significant != std::string::npos) {
      std::size_t b = last_significant;
      while (b > k && (std::isdigit(static_cast<unsigned char>(line[b])) || line[b] == '-' || line[b] == '+'))
        --b;
      if ((line[b] == '|' || line[b] == '>') && b > 0 && (line[b - 1] == ' ' || line[b - 1] == ':'))
        block_scalar_indent = indent;
    }
  }
}

}  // namespace

std::vector<Field> fields(RunSpec& spec) {
  std::vector<Field> out;
  Flattener f(out);
  visit(spec, f);
  return out;
}

RunSpec load_text(const std::string& yaml_text, const std::string& file_name,
                  const std::vector<std::string>& overrides) {
  check_characters(yaml_text, file_name);
  check_line_structure(yaml_text, file_name);
  for (const std::string& o : overrides) check_characters(o, "--set " + o);
  Where w(file_name);
  YAML::Node root;
  try {
    const std::vector<YAML::Node> docs = YAML::LoadAll(yaml_text);
    if (docs.size() > 1) {
      throw InputError(file_name + ": holds " + std::to_string(docs.size()) +
                       " YAML documents (separated by ---); expected one");
    }
    if (docs.empty() || docs[0].IsNull()) {
      throw InputError(file_name +
                       ": the configuration is empty; expected a map of sections (solver, domain, ...)");
    }
    root = docs[0];
  } catch (const YAML::Exception& e) {
    throw InputError(w.at_mark(e.mark) + ": YAML syntax error: " + e.msg);
  }
  if (!root.IsMap()) {
    throw InputError(w.at_mark(root.Mark()) +
                     ": the top level must be a map of sections (solver: ..., domain: ..., " + "...), got " +
                     describe(root));
  }
  for (const std::string& o : overrides) apply_override(root, o, w);

  RunSpec spec;
  std::vector<Field> flat = fields(spec);
  Loader(flat, w).load_map(root, "");
  validate(spec, flat, w);
  spec.source_file = file_name;
  spec.resolved_yaml = to_yaml(spec);
  return spec;
}

RunSpec load_file(const std::string& path, const std::vector<std::string>& overrides) {
  if (const std::string why = not_regular_file(path); why == "it is a directory")
    throw InputError(path + ": is a directory, not a config file");
  else if (!why.empty() && why != "no such file")
    throw InputError(path + ": cannot read the config file: " + why);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open config file: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(path + ": cannot read config file");
  return load_text(text.str(), path, overrides);
}

std::map<std::string, std::string> load_scalars(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw InputError(path + ": no such file");
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    throw InputError(path + ": cannot parse: " + e.what());
  }
  if (!root.IsMap()) throw InputError(path + ": expected a mapping of keys to values (a JSON object)");
  std::map<std::string, std::string> out;
  for (const auto& kv : root)
    if (kv.second.IsScalar()) out[kv.first.as<std::string>()] = kv.second.as<std::string>();
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

double lbm_tau(const RunSpec& s) {
  const double cells_x = s.domain.cells.empty() ? 0.0 : static_cast<double>(s.domain.cells[0]);
  const double length_x = s.domain.length.empty() ? 1.0 : s.domain.length[0];
  const double n_ref =
      s.physics.reference_length > 0 ? s.physics.reference_length * cells_x / length_x : cells_x;
  const double nu_lb = s.numerics.lattice_velocity * n_ref / s.physics.reynolds;
  return 0.5 + 3.0 * nu_lb;
}

}  // namespace eddy::config
