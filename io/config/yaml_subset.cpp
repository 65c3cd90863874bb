#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string>

#include "io/config/detail.hpp"

namespace eddy::config::detail {

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
        // A quoted scalar ends on its line: yaml-cpp 0.7 loops forever on one over several lines followed
        // by a ',' line (found by tests/fuzz). A quote opens one at the value's start or after ": " or
        // "- " (a mapping or an item inside a plain scalar); '' inside '...' and \" inside "..." escape.
        for (std::size_t p = v; p < line.size(); ++p) {
          if (line[p] == '#' && (line[p - 1] == ' ' || line[p - 1] == '\t')) break;
          const char q = line[p];
          if (q != '"' && q != '\'') continue;
          const bool opens = p == v || (p >= 2 && (line[p - 1] == ' ' || line[p - 1] == '\t') &&
                                        (line[p - 2] == ':' || line[p - 2] == '-'));
          if (!opens) continue;
          std::size_t c = p + 1;
          for (; c < line.size(); ++c) {
            if (q == '"' && line[c] == '\\') {
              ++c;
            } else if (line[c] == q) {
              if (q == '\'' && c + 1 < line.size() && line[c + 1] == '\'') {
                ++c;
              } else {
                break;
              }
            }
          }
          if (c >= line.size())
            throw InputError(file_name + ":" + std::to_string(line_no) + ":" + std::to_string(p + 1) +
                             ": a quoted value must end on its line (close the " + std::string(1, q) + ")");
          p = c;
        }
      }
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

}  // namespace eddy::config::detail
