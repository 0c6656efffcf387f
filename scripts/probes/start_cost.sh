#!/usr/bin/env bash
# What a lab program's start costs with no other CUDA process on the GPU and beside an open
# context (`roofline hold-gpu`, which `roofline batch` starts per GPU), and whether the open
# context moves any timing: lab 00 (launch-bound rungs) and lab 01 graded alone, beside the
# holder, and alone again, each variant's fraction of its peer printed side by side.
#   bash scripts/probes/start_cost.sh BUILD_DIR
set -u
build=$(cd "${1:?usage: start_cost.sh BUILD_DIR}" && pwd)
cd "$(dirname "$0")/../.."
program=$build/labs/lab-01-memory-roof
out=$(mktemp -d)
nvidia-smi -q | grep -iE "Persistence Mode" | sort | uniq -c
starts() {
  for i in 1 2 3 4 5 6; do
    /usr/bin/time -f "%e s" "$program" --device-info --result /dev/null 2>&1 | tail -1
  done | tr '\n' ' '; echo
}
grades() {  # grades TAG: both labs' solutions, JSON kept as OUT/TAG-LAB.json
  for lab in 00-three-regimes 01-memory-roof; do
    "$build/roofline" --root "$(pwd)" --build-dir "$build" grade "$lab" --all --solutions --no-build --json \
      > "$out/$1-$lab.json" 2> "$out/$1-$lab.err"
  done
}
echo "alone:              $(starts)"; grades alone
sleep infinity | "$build/roofline" hold-gpu &
sleep 2
echo "beside a holder:    $(starts)"; grades held
pkill -f "roofline hold-gpu"; sleep 1
echo "alone again:        $(starts)"; grades again
python3 - "$out" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
def fractions(tag, lab):
    try: graded = json.loads((out / f"{tag}-{lab}.json").read_text())
    except Exception as e: return {}
    graded = graded if isinstance(graded, list) else graded.get("variants", [graded])
    return {g.get("target", "").split("/")[-1]: (1e6 * g["time_s"]["median"], 100 * g["fraction_of_peer"]) for g in graded if "time_s" in g}
print("%-34s %22s %22s %22s" % ("variant: time us, % of peer", "alone", "beside holder", "alone again"))
for lab in ("00-three-regimes", "01-memory-roof"):
    runs = [fractions(t, lab) for t in ("alone", "held", "again")]
    for v in runs[0]:
        print("%-34s" % v[:34] + "".join("%13.2f %7.1f%%" % r[v] if v in r else "%22s" % "-" for r in runs))
PY
