#!/usr/bin/env bash
# L2 hit rate and DRAM traffic of PageRank's sweep kernels (Nsight Compute; clocks left alone), plain
# (the pull kernel, one launch per degree bin), blocked through the L2 (the rows pass, then the merge)
# and staged in shared memory (the gather or the copy, then the merge; what "auto" picks for large
# graphs), on one graph, as generated and degree-sorted (or the orders given second:
# scripts/ncu-pagerank.sh kron:25 none). The graph is generated once into $TMPDIR. Every sweep kernel
# of one iteration is profiled (ncu flushes the caches before each kernel). Reports stay out of git.
set -euo pipefail
spec=${1:-kron:24}
orders=${2:-none degree}
export PYTHONPATH=src
file=${TMPDIR:-/tmp}/gravel-ncu-${spec//:/-}.gravel
[ -f "$file" ] || python3 -c "import gravel; gravel.save(gravel.generate.from_spec('$spec'), '$file')"
# the block widths of the L2-blocked and the staged sweep on this card
widths=$(python3 -c "from gravel.layouts import block_width, shared_width; print(block_width(4), shared_width(4))")
kernels='gravel_(neighbor_reduce_(pull|merge)|staged_(gather|copy|merge))'
metrics=lts__t_sector_hit_rate.pct,lts__t_sectors.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
for order in $orders; do
  for blocking in None $widths; do
    echo "== $spec, reorder=$order, blocking=$blocking"
    ncu --clock-control none --kernel-name regex:"$kernels" --launch-count 16 --metrics "$metrics" \
        python3 -c "import gravel; from gravel.reorder import reorder; G = gravel.load('$file'); G.to('cuda')
G = G if '$order' == 'none' else reorder(G, '$order')
gravel.pagerank(G, max_iter=1, tol=0.0, blocking=$blocking, device='cuda')" \
        2>&1 | grep -E "$kernels|lts__|dram__bytes|gpu__time_duration"
  done
done
