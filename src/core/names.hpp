#pragma once
/// A choice a config names by a word (a collision operator, a time stepper, ...) as an enumeration past
/// the loader: the solver that owns the choice keeps its words in one `Names` table, indexed by the
/// enumerator's value, and the app turns the RunSpec's word into the enumerator once, where it builds
/// the solver's setup. tests/unit/test_names.cpp checks every table against the schema's one_of list.
#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace eddy {

template <class E, std::size_t N>
struct Names {
  std::array<const char*, N> words;  ///< words[i] names the enumerator of value i

  /// The word of `e`.
  const char* operator()(E e) const { return words[static_cast<std::size_t>(e)]; }

  /// The enumerator `word` names; an InputError naming `key` and the valid words otherwise.
  E parse(const std::string& word, const char* key) const {
    for (std::size_t i = 0; i < N; ++i)
      if (word == words[i]) return static_cast<E>(i);
    throw InputError(std::string(key) + ": '" + word + "' is not one of " + joined());
  }

  /// Every word, in enumerator order.
  std::vector<std::string> list() const { return {words.begin(), words.end()}; }

  /// "a, b, c".
  std::string joined() const {
    std::string s;
    for (std::size_t i = 0; i < N; ++i) s += (i ? ", " : "") + std::string(words[i]);
    return s;
  }
};

}  // namespace eddy
