#!/usr/bin/env bash
# NetworkX's own tests of the functions gravel's backend implements, run through the backend
# (docs/networkx.md): the 11 modules of the traversal, path, centrality, component and cluster
# functions, then the community and colouring modules. NetworkX falls back to itself for what the
# backend refuses. The backend runs where nx.config.backends.gravel.device says ("auto": the GPU
# where CuPy sees one), so on a GPU machine this is the GPU's run. Run from the repo root; gravel
# must be installed (its entry point registers the backend): the script installs it editable
# without dependencies when it is not.
set -uo pipefail
cd "$(dirname "$0")/.."
python3 -c "import importlib.metadata as m; assert m.entry_points(group='networkx.backends', name='gravel')" \
  2>/dev/null || python3 -m pip install -q --no-deps --no-build-isolation -e . || exit 1
export NETWORKX_TEST_BACKEND=gravel NETWORKX_FALLBACK_TO_NX=True
python3 -c "import gravel.nx, networkx as nx; print('backend device:', nx.config.backends.gravel.device)"
# an empty folder outside the repository: NetworkX's conftest, not ours
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT && cd "$work" || exit 1
status=0
for group in core communities; do
  if [ "$group" = core ]; then
    modules="link_analysis.tests.test_pagerank traversal.tests.test_bfs
      components.tests.test_connected components.tests.test_weakly_connected
      shortest_paths.tests.test_unweighted shortest_paths.tests.test_weighted
      shortest_paths.tests.test_generic centrality.tests.test_betweenness_centrality tests.test_cluster
      tests.test_core components.tests.test_strongly_connected"
  else
    modules="community.tests.test_louvain community.tests.test_leiden
      community.tests.test_label_propagation coloring.tests"
  fi
  # shellcheck disable=SC2046
  python3 -m pytest -q -p no:cacheprovider "$@" --pyargs \
    $(for m in $modules; do echo "networkx.algorithms.$m"; done) > "/tmp/nx-suite-$group.log" 2>&1 \
    || { status=1; tail -40 "/tmp/nx-suite-$group.log"; }
  echo "$group: $(tail -1 "/tmp/nx-suite-$group.log")"
done
exit $status
