#!/usr/bin/env bash
# L2 hit rate and DRAM traffic of PageRank's main kernel (Nsight Compute; clocks left alone), plain and
# blocked (the rows pass and the merge, one after the other), on one graph: scripts/ncu-pagerank.sh kron:25.
set -euo pipefail
spec=${1:-kron:24}
export PYTHONPATH=src
metrics=lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
for blocking in None '"auto"'; do
  echo "== $spec, blocking=$blocking"
  ncu --clock-control none --kernel-name regex:gravel_neighbor_reduce_pull --launch-skip 2 --launch-count 2 \
      --metrics "$metrics" \
      python3 -c "import gravel; G = gravel.generate.from_spec('$spec'); gravel.pagerank(G, max_iter=8, tol=0.0, blocking=$blocking, device='cuda')" \
      2>&1 | grep -E "gravel_neighbor_reduce_pull|lts__t_sector_hit_rate|dram__bytes|gpu__time_duration"
done
