#pragma once
/// Loading a YAML run configuration into a validated RunSpec (src/README.md, Config conventions).
///
/// Every error is an eddy::InputError (exit code 2) whose message starts with where the value came from
/// (`cavity.yaml:12:14`, or `--set numerics.precision=fp42` for an override), then the full key path, then
/// what is wrong and what would be valid. The loader prints nothing and writes nothing.
#include <map>
#include <string>
#include <vector>

#include "io/config/run_spec.hpp"

namespace eddy::config {

/// Parse YAML text (file name used in messages) plus "key.path=value" overrides (the arguments of
/// `--set`, later ones winning) into a validated RunSpec.
RunSpec load_text(const std::string& yaml_text, const std::string& file_name,
                  const std::vector<std::string>& overrides = {});

/// Same, reading the file (missing/unreadable file -> InputError naming the file).
RunSpec load_file(const std::string& path, const std::vector<std::string>& overrides = {});

/// The top-level scalar keys of a YAML or JSON file as text, e.g. an `eddy bench` JSON (a missing,
/// unreadable or malformed file, or one that is not a mapping -> InputError naming the file).
std::map<std::string, std::string> load_scalars(const std::string& path);

/// The resolved config (every key, defaults filled) as YAML text; also stored in RunSpec::resolved_yaml.
std::string to_yaml(const RunSpec& spec);

/// True when every config key of `a` and `b` is equal (source_file and resolved_yaml are not compared).
bool same_settings(const RunSpec& a, const RunSpec& b);

/// The axis of a slice: 0, 1, 2 for x, y, z.
int slice_axis(const SliceSpec& slice);
/// The cell layer a slice writes: the layer containing its position along its axis,
/// i = min(floor(position / dx), n - 1), dx = L / n (so position = L is the last layer).
long slice_layer(const RunSpec& spec, const SliceSpec& slice);

/// Throw the InputError of a check after loading (the solvers' rules, which the app applies): "<origin>:
/// <key>: <message>", the origin the key's value came from (`case.yaml:12:14`, a `--set` argument).
[[noreturn]] void fail(const KeyOrigins& origins, const std::string& key, const std::string& message);

}  // namespace eddy::config
