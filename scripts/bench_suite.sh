#!/usr/bin/env bash
# Run `eddy bench` over a benchmark suite, one JSON per config plus suite.json:
#
#   scripts/bench_suite.sh [SUITE_DIR|CONFIG.yaml]... --out DIR [--ranks N] [--set key=value]...
#                          [--steps N] [--repeat R] [--build]
#
# SUITE_DIR: every *.yaml in it (default configs/bench). For each config NAME.yaml: DIR/NAME.json (the
# bench JSON: config, overrides, git commit, device, date, figures) and DIR/NAME.log (what eddy printed).
# A failing config is recorded (status "failed", its exit code, the log's last lines) and the suite goes
# on. DIR/suite.json: the machine facts (hostname, date, `eddy info`, the source tree's commit, the
# command) and one entry per config, with the bench JSON inlined. Exit 0 when every config ran, 1 when
# any failed, 2 on bad arguments.
#
# The binary: $EDDY if set; else the build that scripts/build.sh makes (build/cuda when nvcc and a GPU
# are there, else build/cpu), built with scripts/build.sh when missing or when --build is given.
# --ranks N > 1 launches through ${EDDY_LAUNCH:-mpirun -n N} (e.g. EDDY_LAUNCH="srun -n 2" in a job).
# Plot and table of the results: scripts/eddy_post.py bench DIR [DIR2...] --out plot.png
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py=$(command -v /usr/bin/python3 || command -v python3 || true)

usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "bench_suite.sh: $*" >&2; exit 2; }

orig_args=("$@")
out="" ranks=1 build=0
inputs=() sets=() bench_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --out) [ $# -ge 2 ] || die "--out needs a directory"; out=$2; shift 2 ;;
    --out=*) out=${1#--out=}; shift ;;
    --ranks) [ $# -ge 2 ] || die "--ranks needs a number"; ranks=$2; shift 2 ;;
    --ranks=*) ranks=${1#--ranks=}; shift ;;
    --set) [ $# -ge 2 ] || die "--set needs key=value"; sets+=("$2"); shift 2 ;;
    --set=*) sets+=("${1#--set=}"); shift ;;
    --steps|--repeat) [ $# -ge 2 ] || die "$1 needs a number"; bench_args+=("$1" "$2"); shift 2 ;;
    --build) build=1; shift ;;
    -h|--help) usage ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) inputs+=("$1"); shift ;;
  esac
done
[ -n "$out" ] || die "--out DIR is required (see --help)"
[[ $ranks =~ ^[1-9][0-9]*$ ]] || die "--ranks $ranks: expected a positive whole number"
[ -n "$py" ] || die "python3 is needed to write suite.json"
[ ${#inputs[@]} -gt 0 ] || inputs=("$root/configs/bench")

configs=()
for i in "${inputs[@]}"; do
  if [ -d "$i" ]; then
    found=$(find "$i" -maxdepth 1 -name '*.yaml' | sort)
    [ -n "$found" ] || die "$i: no *.yaml configs in this directory"
    while IFS= read -r f; do configs+=("$f"); done <<<"$found"
  elif [ -f "$i" ]; then
    configs+=("$i")
  else
    die "$i: neither a suite directory nor a config file"
  fi
done

# ------------------------------------------------------------------ the binary
if [ -n "${EDDY:-}" ]; then
  eddy=$EDDY
else
  backend=cpu
  if command -v nvcc >/dev/null 2>&1 && command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    backend=cuda
  fi
  eddy=$root/build/$backend/eddy
  if [ $build = 1 ] || [ ! -x "$eddy" ]; then
    echo "bench_suite.sh: building $backend with scripts/build.sh" >&2
    "$root/scripts/build.sh" "$backend" "$root/build/$backend" >&2 || die "scripts/build.sh $backend failed"
  fi
fi
[ -x "$eddy" ] || die "$eddy: not an executable (set EDDY to the eddy binary)"

launch=()
if [ "$ranks" -gt 1 ]; then
  read -r -a launch <<<"${EDDY_LAUNCH:-mpirun -n $ranks}"
fi

mkdir -p "$out" || die "$out: cannot create"
set_args=()
for s in ${sets[@]+"${sets[@]}"}; do set_args+=(--set "$s"); done

# ------------------------------------------------------------------ machine facts
date_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)
${launch[@]+"${launch[@]}"} "$eddy" info >"$out/eddy_info.txt" 2>&1 || echo "(eddy info exited $?)" >>"$out/eddy_info.txt"
src_commit=$(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)

# ------------------------------------------------------------------ the suite
entries=$out/.entries.tsv
: >"$entries"
failed=0
for cfg in "${configs[@]}"; do
  name=$(basename "$cfg" .yaml)
  json=$out/$name.json log=$out/$name.log
  rm -f "$json"
  echo "bench_suite.sh: $name" >&2
  start=$(date +%s)
  ${launch[@]+"${launch[@]}"} "$eddy" bench "$cfg" ${set_args[@]+"${set_args[@]}"} ${bench_args[@]+"${bench_args[@]}"} \
    --json "$json" >"$log" 2>&1
  rc=$?
  seconds=$(( $(date +%s) - start ))
  if [ $rc -eq 0 ] && [ -s "$json" ]; then
    grep '^bench ' "$log" | sed 's/^/  /' >&2 || true
  else
    failed=$((failed + 1))
    [ $rc -eq 0 ] && rc=1  # exit 0 without a JSON is a failure too
    echo "bench_suite.sh: $name FAILED (exit $rc); see $log" >&2
    { grep '^error:' "$log" || tail -n 3 "$log"; } | head -n 5 | sed 's/^/  /' >&2
  fi
  printf '%s\t%s\t%s\t%s\n' "$cfg" "$name" "$rc" "$seconds" >>"$entries"
done

# ------------------------------------------------------------------ suite.json
"$py" - "$out" "$entries" "$date_utc" "$eddy" "$ranks" "$src_commit" "$0" ${orig_args[@]+"${orig_args[@]}"} <<'EOF' || die "writing suite.json failed"
import json, os, socket, sys
out, entries, date, eddy, ranks, src_commit = sys.argv[1:7]
command = sys.argv[7:]
results = []
with open(entries) as f:
    for line in f:
        cfg, name, rc, seconds = line.rstrip("\n").split("\t")
        e = {"config": cfg, "name": name, "status": "ok" if rc == "0" else "failed", "exit_code": int(rc),
             "seconds": int(seconds), "json": name + ".json", "log": name + ".log"}
        path = os.path.join(out, name + ".json")
        if rc == "0":
            try:
                with open(path) as j:
                    e["result"] = json.load(j)
            except (OSError, ValueError) as err:
                e.update(status="failed", error=f"{name}.json: {err}")
        if e["status"] != "ok":
            e["json"] = None
            with open(os.path.join(out, name + ".log"), errors="replace") as lg:
                lines = lg.read().splitlines()
            # eddy's own "error: ..." lines (file, key, what is valid), else the log's last lines
            e["error"] = e.get("error") or "\n".join([l for l in lines if l.startswith("error:")][:5] or lines[-5:])
        results.append(e)
with open(os.path.join(out, "eddy_info.txt"), errors="replace") as f:
    info = f.read()
suite = {"date": date, "hostname": socket.gethostname(), "eddy": os.path.abspath(eddy), "ranks": int(ranks),
         "source_commit": src_commit, "command": command, "eddy_info": info.splitlines(),
         "failed": sum(r["status"] != "ok" for r in results), "results": results}
tmp = os.path.join(out, "suite.json.tmp")
with open(tmp, "w") as f:
    json.dump(suite, f, indent=1)
    f.write("\n")
os.replace(tmp, os.path.join(out, "suite.json"))
EOF
rm -f "$entries"
echo "bench_suite.sh: ${#configs[@]} config(s), $failed failed; wrote $out/suite.json" >&2
[ $failed -eq 0 ]
