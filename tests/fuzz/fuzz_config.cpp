// libFuzzer target: any text is either a valid RunSpec or an InputError, never a crash, a hang, a leak
// or another exception. Overrides are fuzzed too: the input's last line, if it holds '=', is a --set.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/config/config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> overrides;
  const std::size_t nl = text.rfind('\n');
  if (nl != std::string::npos && text.find('=', nl) != std::string::npos) {
    overrides.push_back(text.substr(nl + 1));
    text.resize(nl);
  }
  try {
    const eddy::config::RunSpec spec = eddy::config::load_text(text, "fuzz.yaml", overrides);
    // A valid spec must survive its own round trip.
    const eddy::config::RunSpec again = eddy::config::load_text(spec.resolved_yaml, "resolved.yaml");
    if (!eddy::config::same_settings(spec, again)) __builtin_trap();
  } catch (const eddy::InputError&) {
  }
  return 0;
}
