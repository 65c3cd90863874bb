#!/usr/bin/python3
"""Post-processing of eddy output: plots (PNG) and tables (CSV).

    /usr/bin/python3 scripts/eddy_post.py cavity   OUTDIR [--ghia FILE] [--re N]
    /usr/bin/python3 scripts/eddy_post.py spectrum FILE.h5
    /usr/bin/python3 scripts/eddy_post.py spectra  OUTDIR|spectra.h5 [--curves 8]
    /usr/bin/python3 scripts/eddy_post.py channel  OUTDIR [--from T]
    /usr/bin/python3 scripts/eddy_post.py tgv      OUTDIR [--reference FILE] [--from-energy]
    /usr/bin/python3 scripts/eddy_post.py slice    FILE.h5 [--field velocity] [--component x|y|z|magnitude]
                                                  [--axis x|y|z] [--index K]
    /usr/bin/python3 scripts/eddy_post.py summary  OUTDIR... [--keys physics.reynolds,...] [--csv FILE]
    /usr/bin/python3 scripts/eddy_post.py forces   OUTDIR [--cd 5.58] [--cl 0.0106] [--length D --velocity U]
    /usr/bin/python3 scripts/eddy_post.py probes   OUTDIR|probes.h5 [--fields velocity,pressure]
    /usr/bin/python3 scripts/eddy_post.py slices   OUTDIR|OUTDIR/slices [--movie] [--fps 10] [--out DIR]
    /usr/bin/python3 scripts/eddy_post.py stats    OUTDIR [--step N] [--from T]
    /usr/bin/python3 scripts/eddy_post.py bench    DIR_OR_JSON... [--out plot.png] [--markdown FILE]
    /usr/bin/python3 scripts/eddy_post.py compare  A B [--tol 1e-12] [--datasets velocity,density]
                                                  [--rows START:STOP] [--json FILE]
    /usr/bin/python3 scripts/eddy_post.py scaling  BEFORE_DIR AFTER_DIR [NOTE] [--files A.json,...] [--tol R]
                                                  [--json FILE]

Results go to <run dir>/post/ unless -o/--output STEM is given; every written path is printed as
`wrote PATH`. Needs numpy, h5py and matplotlib (Debian: python3-numpy python3-h5py python3-matplotlib;
on Debian call /usr/bin/python3, see README), except `summary`, which needs only the standard library,
`bench`, which needs matplotlib only for its plot (without it: the table and a message), `compare`,
which needs numpy (and h5py for field files), and `scaling`, which needs only the standard library.
Exit codes: 0 success, 1 a comparison (`compare`, `scaling`) beyond its tolerance, 2 bad input
(arguments, missing or unreadable files).
"""
import argparse
import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from post.common import PostError  # noqa: E402


def parser():
    """The command line; each subcommand names the module (scripts/post/<module>.py) that runs it."""
    p = argparse.ArgumentParser(prog="eddy_post.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True, metavar="SUBCOMMAND")

    c = sub.add_parser("cavity", help="cavity centreline profiles against Ghia et al. (1982)")
    c.add_argument("outdir", help="output directory of a 2D cavity run")
    c.add_argument("--ghia", default=None, help="Ghia table re,line,coord,value "
                   "(default: cases/lid_driven_cavity/ghia1982_re100_400_1000.csv)")
    c.add_argument("--re", type=float, help="Reynolds number (default: physics.reynolds of the resolved config)")
    c.add_argument("-o", "--output", help="output stem: STEM.png, STEM.csv, STEM_ghia.csv (default OUTDIR/post/cavity)")
    c.set_defaults(module="cavity")

    s = sub.add_parser("spectrum", help="shell-averaged energy spectrum E(k) with a reference slope")
    s.add_argument("file", help="a field file (periodic box, 2D or 3D)")
    s.add_argument("-o", "--output", help="output stem (default <run>/post/<file>_spectrum)")
    s.set_defaults(module="spectrum")

    sp = sub.add_parser("spectra", help="energy spectra over time (spectra.h5, output.spectra) and their "
                        "kinetic energy, peak and integral scale per row")
    sp.add_argument("run", help="output directory of a run with output.spectra, or its spectra.h5")
    sp.add_argument("--curves", type=int, default=8, help="spectra drawn, spread over the rows (default %(default)s)")
    sp.add_argument("-o", "--output", help="output stem: STEM.png, STEM.csv (default OUTDIR/post/spectra)")
    sp.set_defaults(module="spectra")

    ch = sub.add_parser("channel", help="the plane channel's statistics in wall units against the DNS of "
                        "Moser, Kim & Mansour (Re_tau 180)")
    ch.add_argument("run", help="output directory of a channel run with output.statistics over x and z")
    ch.add_argument("--from", dest="since", type=float, metavar="T",
                    help="average only the samples after time T (the transient left out): the newest stats "
                    "file less the first written at or after T")
    ch.add_argument("-o", "--output", help="output stem: STEM.png, STEM.csv (default OUTDIR/post/channel)")
    ch.set_defaults(module="channel")

    t = sub.add_parser("tgv", help="Taylor-Green dissipation rate against a reference curve")
    t.add_argument("outdir", help="output directory of a Taylor-Green run")
    t.add_argument("--reference", help="reference CSV with t and dissipation columns (default: "
                   "cases/taylor_green/tgv_re1600_dissipation.csv, else /work/shared/reference/...)")
    t.add_argument("--from-energy", action="store_true",
                   help="use -dE/dt of kinetic_energy even when a dissipation column exists")
    t.add_argument("-o", "--output", help="output stem (default OUTDIR/post/tgv_dissipation)")
    t.set_defaults(module="tgv")

    sl = sub.add_parser("slice", help="2D image of a field (3D files: one plane)")
    sl.add_argument("file", help="a field file")
    sl.add_argument("--field", default="velocity", help="dataset name (default %(default)s)")
    sl.add_argument("--component", help="x, y, z, an index, or magnitude (vectors; default magnitude)")
    sl.add_argument("--axis", default="z", choices=list("xyz"), help="3D: normal of the plane (default z)")
    sl.add_argument("--index", type=int, help="3D: cell index along --axis (default the middle)")
    sl.add_argument("-o", "--output", help="output stem (default <run>/post/<file>_<field>...)")
    sl.set_defaults(module="slice")

    m = sub.add_parser("summary", help="table of runs from diagnostics.csv and run.log")
    m.add_argument("outdirs", nargs="+", metavar="OUTDIR")
    m.add_argument("--keys", help="comma-separated config keys to add as columns (from the resolved config)")
    m.add_argument("--csv", help="CSV path (default OUTDIR/post/summary.csv; several runs: "
                   "summary.csv in their common parent directory)")
    m.add_argument("--skip-missing", action="store_true",
                   help="list a directory without output as 'no output' instead of failing")
    m.set_defaults(module="summary")

    fo = sub.add_parser("forces", help="drag and lift coefficients against time, their statistics and St")
    fo.add_argument("outdir", help="output directory of a run with bodies (coefficients.csv)")
    fo.add_argument("--cd", type=float, help="reference drag coefficient to draw")
    fo.add_argument("--cl", type=float, help="reference lift coefficient to draw")
    fo.add_argument("--length", type=float, help="D for St (default geometry.reference_length)")
    fo.add_argument("--velocity", type=float, help="U for St (default geometry.reference_velocity)")
    fo.add_argument("-o", "--output", help="output stem (default OUTDIR/post/forces)")
    fo.set_defaults(module="forces")

    pr = sub.add_parser("probes", help="probe time series (probes.h5) per field and point, with their "
                        "frequency spectra")
    pr.add_argument("run", help="output directory of a run with output.probes, or its probes.h5")
    pr.add_argument("--fields", help="comma-separated fields to plot (default: every field of the file)")
    pr.add_argument("-o", "--output", help="output stem: STEM_<field>_p<N>.png (default OUTDIR/post/probes)")
    pr.set_defaults(module="probes")

    sv = sub.add_parser("slices", help="PNG frames of the slices (output.slices), per slice, field and step; "
                        "--movie: an MP4 of each with ffmpeg")
    sv.add_argument("run", help="output directory of a run with output.slices, or its slices/ folder")
    sv.add_argument("--movie", action="store_true", help="also join the frames into MP4s (needs ffmpeg on PATH)")
    sv.add_argument("--fps", type=float, default=10.0, help="frames per second of the movies (default %(default)s)")
    sv.add_argument("--out", help="folder of the frames and movies (default OUTDIR/slices/frames)")
    sv.set_defaults(module="slices")

    st = sub.add_parser("stats", help="profiles of the running statistics (output.statistics), with the "
                        "Reynolds stresses <u_i' u_j'> and the case's reference where it has one")
    st.add_argument("run", help="output directory of a run with output.statistics and average_over")
    st.add_argument("--step", type=int, help="the stats file of this step (default: the newest)")
    st.add_argument("--from", dest="since", type=float, metavar="T",
                    help="average only the samples after time T: the chosen file less the first written at or after T")
    st.add_argument("-o", "--output", help="output stem: STEM_<dataset>.png/.csv (default OUTDIR/post/stats)")
    st.set_defaults(module="stats")

    b = sub.add_parser("bench", help="table (markdown) and bar plot of eddy bench JSON results, "
                       "several folders side by side")
    b.add_argument("inputs", nargs="+", metavar="DIR_OR_JSON",
                   help="a results folder (suite.json, else every *.json in it) or a bench JSON file; "
                   "each is one group of the comparison")
    b.add_argument("-o", "--out", help="bar plot PNG (default: no plot)")
    b.add_argument("--markdown", help="also write the table to this file")
    b.set_defaults(module="bench")

    cm = sub.add_parser("compare", help="two field files (HDF5) or CSV files, dataset by dataset: "
                        "max |a - b| / max |a| against a tolerance")
    cm.add_argument("a", help="the reference file (its datasets are the ones compared)")
    cm.add_argument("b", help="the file compared with it")
    cm.add_argument("--tol", type=float, default=0.0, help="max relative difference allowed (0 = bitwise)")
    cm.add_argument("--datasets", default="", help="comma-separated dataset or column names (default: all of A's)")
    cm.add_argument("--rows", help="CSV: the rows START:STOP compared (default all)")
    cm.add_argument("--json", help="write the verdict (ok, value, tolerance, per dataset) to this file")
    cm.set_defaults(module="compare")

    sc = sub.add_parser("scaling", help="bench JSON results beside an earlier build's, file by file: "
                        "step figures, breakdown, bytes sent")
    sc.add_argument("before", help="folder of the earlier results (e.g. committed ones)")
    sc.add_argument("after", help="folder of the results to compare, files of the same names")
    sc.add_argument("note", nargs="?", default="", help="what the ratio of the bytes sent is expected to be")
    sc.add_argument("--files", help="comma-separated JSON names to compare (default: every *.json of BEFORE)")
    sc.add_argument("--tol", type=float, help="largest slowdown allowed, a fraction (default: none)")
    sc.add_argument("--json", help="write the verdict (ok, value, tolerance, per file) to this file")
    sc.set_defaults(module="scaling")
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        return importlib.import_module(f"post.{args.module}").run(args)
    except PostError as e:
        print(f"eddy_post.py {args.command}: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # a file that cannot be read or written: bad input, as documented (exit 2)
        print(f"eddy_post.py {args.command}: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
