#!/usr/bin/env bash
# What a lab program's start costs, with no other CUDA process on the GPU and with one
# holding a context open (as persistence mode would keep the driver up): the question is
# whether `roofline batch` should hold the GPU open between submissions.
#   bash scripts/probes/start_cost.sh BUILD_DIR
set -u
build=${1:?usage: start_cost.sh BUILD_DIR}
program=$build/labs/lab-01-memory-roof
nvidia-smi -q | grep -iE "Persistence Mode" | sort | uniq -c
starts() {
  for i in 1 2 3 4 5 6; do
    /usr/bin/time -f "%e s" "$program" --device-info --result /dev/null 2>&1 | tail -1
  done | tr '\n' ' '; echo
}
echo "alone:              $(starts)"
python3 -c "import torch, time; torch.zeros(1, device='cuda'); print('keeper up', flush=True); time.sleep(60)" &
keeper=$!
sleep 8
echo "beside a keeper:    $(starts)"
kill $keeper; wait $keeper 2>/dev/null
echo "alone again:        $(starts)"
