"""``python -m gravel``, ``gravel --version`` and the ``py.typed`` marker."""

import subprocess
import sys
from importlib import resources

import pytest

import gravel
from gravel.cli import main


def test_python_m_gravel_version():
    out = subprocess.run(
        [sys.executable, "-m", "gravel", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == f"gravel {gravel.__version__}"


def test_python_m_gravel_error_exits_2():
    out = subprocess.run(
        [sys.executable, "-m", "gravel", "run", "bfs", "no-such-file.mtx"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2 and out.stderr.startswith("gravel: error:")


def test_version_flag(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"gravel {gravel.__version__}\n"


def test_py_typed_marker_is_shipped():
    assert resources.files("gravel").joinpath("py.typed").is_file()
