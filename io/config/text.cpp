#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

#include "io/config/detail.hpp"

namespace eddy::config::detail {

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
std::optional<long> to_long(std::string s, bool* overflow) {
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
std::string expected(const std::vector<SliceSpec>*, const Rule&) {
  return "a list of slices (e.g. [{axis: z, position: 0.5, every: 0.1t, fields: [velocity]}])";
}
std::string expected(const SliceSpec*, const Rule&) {
  return "a slice: a map with keys axis, position, every, fields (e.g. {axis: z, position: 0.5, every: 100})";
}
std::string entry_name(const BodySpec*) { return "a body"; }
std::string entry_name(const SliceSpec*) { return "a slice"; }
std::string expected(const Schedule*, const Rule&) {
  return "a step count (e.g. 100) or a time with suffix t (e.g. 0.5t); 0 = never";
}

std::string EntryKeys::names() const {
  std::vector<std::string> out;
  for (const auto& k : keys) out.push_back(k.first);
  return join(out, ", ");
}

}  // namespace eddy::config::detail
