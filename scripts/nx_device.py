"""pytest plugin for NetworkX's suite through gravel (scripts/nx-suite.sh): the backend's device,
``nx.config.backends.gravel.device``, from NX_SUITE_DEVICE ("auto", "cpu" or "cuda"; unset: the
backend's default). NetworkX's configuration reads no variable for a backend's own settings."""

import os


def pytest_configure(config):
    device = os.environ.get("NX_SUITE_DEVICE")
    if device:
        import networkx as nx
        import pytest

        if device not in ("auto", "cpu", "cuda"):
            raise pytest.UsageError(f"NX_SUITE_DEVICE={device!r}: expected auto, cpu or cuda")

        nx.config.backends.gravel.device = device
