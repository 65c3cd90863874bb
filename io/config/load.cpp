#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/file_kind.hpp"
#include "io/config/detail.hpp"

namespace eddy::config {

using namespace detail;

namespace {

// ---------------------------------------------------------------- reading one value

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

template <class T>
void parse(const YAML::Node& n, const std::string& path, std::vector<T>& out, const Rule& rule, Where& w);

/// One entry of a list of structs (geometry.bodies, output.slices): a map of the struct's keys, unknown or
/// repeated keys refused.
template <class S, std::enable_if_t<is_entry<S>, int> = 0>
void parse(const YAML::Node& n, const std::string& path, S& out, const Rule& rule, Where& w) {
  if (!n.IsMap()) wrong_type<S>(w, path, n, rule);
  EntryKeys keys;
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
    if (k == keys.keys.end())
      w.fail(at, "unknown key; valid keys in " + entry_name(&out) + ": " + keys.names());
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

}  // namespace

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
  spec.origins = w.origins();
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

}  // namespace eddy::config
