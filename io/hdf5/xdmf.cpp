#include "io/hdf5/xdmf.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "io/hdf5/agree.hpp"
#include "io/hdf5/text_file.hpp"

namespace eddy::io {

namespace {

constexpr const char* kGridTag = "<Grid Name=\"step_";

std::string escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      case '\'':
        o += "&apos;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

/// Numbers slowest axis first (z y x), as XDMF wants them.
template <class V>
std::string zyx(const V& v, int dims, long add = 0) {
  std::string s;
  for (int d = dims - 1; d >= 0; --d) {
    if (!s.empty()) s += ' ';
    if constexpr (std::is_floating_point_v<typename V::value_type>)
      s += format_double(v[static_cast<size_t>(d)]);
    else
      s += std::to_string(v[static_cast<size_t>(d)] + add);
  }
  return s;
}

std::string header() {
  return "<?xml version=\"1.0\" ?>\n"
         "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
         "<Xdmf Version=\"3.0\">\n"
         "  <Domain>\n";
}

std::string footer() { return "  </Domain>\n</Xdmf>\n"; }

std::string pad_of(int indent) { return std::string(static_cast<size_t>(std::max(indent, 0)), ' '); }

}  // namespace

std::string step_file_name(const std::string& name, long step, const std::string& ext) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "_%08ld", step);
  return name + buf + ext;
}

std::string xdmf_grid_xml(const XdmfGrid& g, int indent) {
  if (g.dims != 2 && g.dims != 3)
    throw Error("XDMF output needs a 2D or 3D grid (got dims = " + std::to_string(g.dims) + ")");
  // A 2D grid is described as one layer of cells of a 3D mesh in the xy plane (z from 0 to
  // min(dx, dy)): ParaView's XDMF readers (Xdmf2 and Xdmf3) put a 2DCoRectMesh in the yz plane.
  // Its attributes are declared (1, ny, nx) over (ny, nx) datasets; both readers accept that, the
  // value counts being equal (checked with VTK's XDMF reader).
  Int3 cells = g.cells;
  Real3 origin = g.origin;
  Real3 spacing = g.spacing;
  if (g.dims == 2) {
    cells[2] = 1;
    origin[2] = 0.0;
    spacing[2] = std::min(spacing[0], spacing[1]);
  }
  const std::string mesh = zyx(cells, 3);           // cells, "nz ny nx" ("1 ny nx" in 2D)
  const std::string stored = zyx(g.cells, g.dims);  // the datasets' shape, without components
  const std::string prec = "NumberType=\"Float\" Precision=";
  std::ostringstream x;
  char name[32];
  std::snprintf(name, sizeof(name), "%08ld", g.step);
  x << pad_of(indent) << kGridTag << name << "\" GridType=\"Uniform\">\n";
  const std::string pad = pad_of(indent);
  x << pad << "  <Time Value=\"" << format_double(g.time) << "\"/>\n";
  // CoRectMesh dimensions count points (cell corners); the attributes are cell-centred.
  x << pad << "  <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << zyx(cells, 3, 1) << "\"/>\n";
  x << pad << "  <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n";
  x << pad << "    <DataItem Name=\"Origin\" Dimensions=\"3\" " << prec << "\"8\" Format=\"XML\">"
    << zyx(origin, 3) << "</DataItem>\n";
  x << pad << "    <DataItem Name=\"Spacing\" Dimensions=\"3\" " << prec << "\"8\" Format=\"XML\">"
    << zyx(spacing, 3) << "</DataItem>\n";
  x << pad << "  </Geometry>\n";
  const std::string file = escape(g.h5_file);
  for (const DatasetInfo& f : g.fields) {
    const std::string item = prec + "\"" + std::to_string(f.bytes) + "\" Format=\"HDF\">" + file + ":/" +
                             escape(f.name) + "</DataItem>\n";
    if (f.ncomp == 0 || (f.ncomp == 3 && g.dims == 3)) {
      const bool vec = f.ncomp == 3;
      x << pad << "  <Attribute Name=\"" << escape(f.name) << "\" AttributeType=\""
        << (vec ? "Vector" : "Scalar") << "\" Center=\"Cell\">\n";
      x << pad << "    <DataItem Dimensions=\"" << mesh << (vec ? " 3" : "") << "\" " << item;
      x << pad << "  </Attribute>\n";
      continue;
    }
    // One Scalar per component, cut out of the (..., ncomp) dataset by a HyperSlab whose rows are
    // start, stride and count over the dataset's own axes ([z] y x c).
    const int rank = g.dims + 1;
    for (int c = 0; c < f.ncomp; ++c) {
      // A symmetric tensor's six components (xx xy xz yy yz zz, as eddy stores <u_i u_j>) by name.
      static const char* const tensor[6] = {"xx", "xy", "xz", "yy", "yz", "zz"};
      const std::string suffix = f.ncomp <= 3   ? std::string(1, "xyz"[c])
                                 : f.ncomp == 6 ? std::string(tensor[c])
                                                : std::to_string(c);
      std::string start, stride;
      for (int a = 0; a < g.dims; ++a) {
        start += "0 ";
        stride += "1 ";
      }
      start += std::to_string(c);
      stride += "1";
      x << pad << "  <Attribute Name=\"" << escape(f.name) << "_" << suffix
        << "\" AttributeType=\"Scalar\" Center=\"Cell\">\n";
      x << pad << "    <DataItem ItemType=\"HyperSlab\" Dimensions=\"" << mesh << "\">\n";
      x << pad << "      <DataItem Dimensions=\"3 " << rank << "\" Format=\"XML\">" << start << " " << stride
        << " " << stored << " 1</DataItem>\n";
      x << pad << "      <DataItem Dimensions=\"" << stored << " " << f.ncomp << "\" " << item;
      x << pad << "    </DataItem>\n";
      x << pad << "  </Attribute>\n";
    }
  }
  x << pad << "</Grid>\n";
  return x.str();
}

void write_xdmf(const std::string& xmf_path, const XdmfGrid& g, const parallel::Comm& comm) {
  std::string why;
  if (comm.rank() == 0) {
    try {
      why = write_text_atomically(xmf_path, header() + xdmf_grid_xml(g, 4) + footer());
    } catch (const Error& e) {
      why = e.what();
    }
  }
  throw_if_any_failed(comm, why.empty(), "cannot write XDMF file '" + xmf_path + "': " + why);
}

// ------------------------------------------------------------------------------------------- series

XdmfSeries::XdmfSeries(std::string path, const parallel::Comm& comm) : path_(std::move(path)), comm_(comm) {}

XdmfSeries XdmfSeries::open_append(const std::string& path, const parallel::Comm& comm,
                                   long keep_up_to_step) {
  XdmfSeries s(path, comm);
  std::string why;
  if (comm.rank() == 0) {
    std::ifstream in(path);
    if (in) {
      // Our own format: each grid runs from a line holding `<Grid Name="step_N"` to the next `</Grid>`.
      std::string line, block;
      long step = -1;
      while (std::getline(in, line)) {
        const size_t at = line.find(kGridTag);
        if (at != std::string::npos) {
          step = std::strtol(line.c_str() + at + std::char_traits<char>::length(kGridTag), nullptr, 10);
          block.clear();
        }
        if (step < 0) continue;
        block += line + "\n";
        if (line.find("</Grid>") != std::string::npos) {
          if (step <= keep_up_to_step) s.grids_.emplace_back(step, block);
          step = -1;
        }
      }
      if (in.bad()) why = "cannot read '" + path + "'";
    }
  }
  throw_if_any_failed(comm, why.empty(), "cannot continue XDMF series '" + path + "': " + why);
  s.rewrite();
  return s;
}

void XdmfSeries::add(const XdmfGrid& g) {
  std::string why;
  if (comm_.rank() == 0) {
    try {
      std::string text = xdmf_grid_xml(g, 6);
      grids_.erase(
          std::remove_if(grids_.begin(), grids_.end(), [&](const auto& e) { return e.first == g.step; }),
          grids_.end());
      const auto pos = std::upper_bound(grids_.begin(), grids_.end(), g.step,
                                        [](long st, const auto& e) { return st < e.first; });
      grids_.insert(pos, {g.step, std::move(text)});
    } catch (const Error& e) {
      why = e.what();
    }
  }
  throw_if_any_failed(comm_, why.empty(), "cannot add to XDMF series '" + path_ + "': " + why);
  rewrite();
}

void XdmfSeries::rewrite() {
  std::string why;
  if (comm_.rank() == 0) {
    std::string text =
        header() + "    <Grid Name=\"fields\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
    for (const auto& g : grids_) text += g.second;
    text += "    </Grid>\n" + footer();
    why = write_text_atomically(path_, text);
  }
  throw_if_any_failed(comm_, why.empty(), "cannot write XDMF file '" + path_ + "': " + why);
}

}  // namespace eddy::io
