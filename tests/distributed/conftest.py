"""Each distributed test starts with the Dask scheduler setting the session began with."""

import warnings

import pytest

try:
    import dask
except ImportError:  # the tests that need it skip
    dask = None


@pytest.fixture(autouse=True)
def _dask_scheduler_kept(request):
    """A Dask client sets ``scheduler="dask.distributed"`` while it is the default and restores it
    on a clean close; one that a test's lost workers keep from closing cleanly can leave it set
    with no client alive, and a later test's local ``compute()`` then fails. Set it back, with a
    warning that names the test, so that each test meets the setting it would alone."""
    if dask is None:
        yield
        return
    before = dask.config.get("scheduler", None)
    yield
    after = dask.config.get("scheduler", None)
    if after != before:
        warnings.warn(f"{request.node.nodeid} left Dask's scheduler set to {after!r}")
        if before is None:
            dask.config.config.pop("scheduler", None)
        else:
            dask.config.set(scheduler=before)
