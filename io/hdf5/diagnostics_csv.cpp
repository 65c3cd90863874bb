#include "io/hdf5/diagnostics_csv.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "io/hdf5/agree.hpp"
#include "io/hdf5/text_file.hpp"

namespace eddy::io {

namespace {

/// "" when the column names make a valid, unambiguous header; else what is wrong.
std::string check_columns(const std::vector<std::string>& columns) {
  std::set<std::string> seen{"step", "time"};
  for (const std::string& c : columns) {
    if (c.empty()) return "empty column name";
    if (c.find_first_of(",\"\n\r") != std::string::npos)
      return "column name '" + c + "' holds a comma, quote or newline";
    if (!seen.insert(c).second) return "column '" + c + "' appears twice (or is step/time)";
  }
  return {};
}

}  // namespace

DiagnosticsCsv::DiagnosticsCsv(std::string path, std::vector<std::string> columns, const parallel::Comm& comm,
                               bool)
    : path_(std::move(path)), columns_(std::move(columns)), comm_(comm) {
  const std::string bad = check_columns(columns_);
  if (!bad.empty()) throw Error("cannot write diagnostics file '" + path_ + "': " + bad);
}

DiagnosticsCsv::DiagnosticsCsv(const std::string& path, std::vector<std::string> columns,
                               const parallel::Comm& comm)
    : DiagnosticsCsv(path, std::move(columns), comm, true) {
  open(header() + "\n");
}

std::string DiagnosticsCsv::header() const {
  std::string h = "step,time";
  for (const std::string& c : columns_) h += "," + c;
  return h;
}

void DiagnosticsCsv::open(const std::string& initial_text) {
  std::string why;
  if (comm_.rank() == 0) {
    // The kept text goes down atomically first, so a crash here leaves the old file or the new one.
    why = write_text_atomically(path_, initial_text);
    if (why.empty()) {
      file_.reset(std::fopen(path_.c_str(), "ab"));
      if (!file_) why = "cannot open '" + path_ + "' for appending: " + std::strerror(errno);
    }
  }
  throw_if_any_failed(comm_, why.empty(), "cannot write diagnostics file '" + path_ + "': " + why);
}

void DiagnosticsCsv::check_append(const std::string& path, std::vector<std::string> columns,
                                  const parallel::Comm& comm) {
  const DiagnosticsCsv d(path, std::move(columns), comm, true);
  std::string why;
  if (comm.rank() == 0) {
    std::ifstream in(path, std::ios::binary);
    std::string old_header;
    if (in && (std::getline(in, old_header), old_header != d.header()))
      why = "its columns '" + old_header + "' differ from this run's '" + d.header() +
            "'; move the old file away or restart with the same diagnostics";
  }
  throw_if_any_failed(comm, why.empty(), "cannot continue diagnostics file '" + path + "': " + why,
                      /*input_error=*/true);
}

DiagnosticsCsv DiagnosticsCsv::open_append(const std::string& path, std::vector<std::string> columns,
                                           const parallel::Comm& comm, long keep_up_to_step) {
  check_append(path, columns, comm);  // the header names these columns (or there is no file)
  DiagnosticsCsv d(path, std::move(columns), comm, true);
  std::string kept = d.header() + "\n";
  if (comm.rank() == 0) {
    std::ifstream in(path, std::ios::binary);
    if (in) {
      std::stringstream all;
      all << in.rdbuf();
      const std::string text = all.str();
      // Keep complete lines whose step is <= keep_up_to_step; a line without its newline is torn.
      for (size_t pos = text.find('\n'); pos != std::string::npos && pos + 1 < text.size();) {
        const size_t end = text.find('\n', pos + 1);
        if (end == std::string::npos) break;
        const std::string line = text.substr(pos + 1, end - pos - 1);
        char* stop = nullptr;
        const long step = std::strtol(line.c_str(), &stop, 10);
        if (stop != line.c_str() && *stop == ',' && step <= keep_up_to_step) kept += line + "\n";
        pos = end;
      }
    }
  }
  d.open(kept);
  // The kept rows as numbers, on every rank (the same everywhere: derived diagnostics stay collective).
  const std::string rows = comm.broadcast(kept);
  for (std::size_t pos = rows.find('\n'); pos != std::string::npos && pos + 1 < rows.size();) {
    const std::size_t end = rows.find('\n', pos + 1);
    std::vector<double> row;
    const char* c = rows.c_str() + pos;  // at the newline before the row
    do {
      char* next = nullptr;
      row.push_back(std::strtod(c + 1, &next));
      c = next;
    } while (*c == ',');
    if (row.size() == d.columns_.size() + 2) d.earlier_.push_back(std::move(row));
    pos = end;
  }
  return d;
}

std::size_t DiagnosticsCsv::position(const std::string& name) const {
  for (std::size_t i = 0; i < columns_.size(); ++i)
    if (columns_[i] == name) return i + 2;
  throw Error("diagnostics file '" + path_ + "' has no column '" + name + "'");
}

void DiagnosticsCsv::row(long step, double time, const std::vector<double>& values) {
  if (values.size() != columns_.size())
    throw Error("diagnostics row for '" + path_ + "' has " + std::to_string(values.size()) + " values for " +
                std::to_string(columns_.size()) + " columns");
  std::string why;
  if (comm_.rank() == 0) {
    std::string line = std::to_string(step) + "," + format_double(time);
    for (double v : values) line += "," + format_double(v);
    line += "\n";
    if (!file_) {
      why = "the file is not open";
    } else if (std::fwrite(line.data(), 1, line.size(), file_.get()) != line.size() ||
               std::fflush(file_.get()) != 0) {
      why = std::strerror(errno);
    }
  }
  throw_if_any_failed(comm_, why.empty(), "cannot write to diagnostics file '" + path_ + "': " + why);
}

}  // namespace eddy::io
