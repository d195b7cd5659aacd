"""What every tests/nx test shares."""

import networkx as nx
import pytest


@pytest.fixture(autouse=True)
def _quiet_cache():
    # NetworkX warns each time it reuses a cached conversion; the reuse is what we test
    nx.config.warnings_to_ignore.add("cache")
    yield
    nx.config.warnings_to_ignore.discard("cache")
