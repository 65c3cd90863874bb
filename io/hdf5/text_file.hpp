#pragma once
/// Small text outputs (XDMF, CSV) written so that a crash never leaves a half-written file.
#include <string>

namespace eddy::io {

/// Write `text` to `<path>.tmp`, flush it to disk, then rename it to `path` (atomic on POSIX).
/// Returns "" on success, else a sentence naming the file and the system's reason.
std::string write_text_atomically(const std::string& path, const std::string& text);

/// Shortest decimal text that reads back as exactly `v` ("0.1", "1e-12", "nan", "inf").
std::string format_double(double v);

}  // namespace eddy::io
