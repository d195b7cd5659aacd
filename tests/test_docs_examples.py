"""Every code block of README.md and docs/ runs as pasted: each ``python`` block in a fresh
interpreter, each ``bash`` block line by line in bash, in a temporary folder.

A block preceded by ``<!-- gpu -->`` needs a GPU (marked ``gpu``, skipped without one); one
preceded by ``<!-- no-run: REASON -->`` is not run, and says why. Blocks of other languages
(``text``: output or a synopsis) are not code. In bash, ``python3 -m pip install ...`` (with its
``GRAVEL_PREBUILD=0``) is left out (the test runs in the installed environment, as CI installs
it) and a ``pytest`` command is not run (it is this suite).
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(
    r"(?:<!--\s*(?P<mark>[^>]*?)\s*-->\s*\n)?```(?P<lang>[\w-]*)[^\n]*\n(?P<code>.*?)```", re.S
)


def blocks():
    for page in PAGES:
        text = page.read_text()
        for m in FENCE.finditer(text):
            line = text[: m.start("code")].count("\n") + 1
            yield (
                page.relative_to(ROOT),
                line,
                m.group("lang"),
                m.group("mark") or "",
                m.group("code"),
            )


def cases():
    for page, line, lang, mark, code in blocks():
        if lang not in ("python", "bash"):
            continue
        marks = [pytest.mark.gpu] if mark == "gpu" else []
        if mark.startswith("no-run:"):
            marks.append(pytest.mark.skip(reason=mark.removeprefix("no-run:").strip()))
        yield pytest.param(lang, code, marks=marks, id=f"{page}:{line}")


def commands(code):
    """The bash block's commands to run: continuation lines joined, installs and pytest left out."""
    out = []
    for command in code.replace("\\\n", " ").splitlines():
        command = command.split(" #")[0].strip()
        if not command or command.startswith("#"):
            continue
        command = re.sub(r"^(GRAVEL_PREBUILD=0 )?python3 -m pip install \S+( && |$)", "", command)
        if not command or "pytest" in command.split():
            continue
        out.append(command)
    return out


@pytest.mark.parametrize("lang,code", list(cases()))
def test_code_block_runs_as_pasted(lang, code, tmp_path):
    env = dict(os.environ, MPLBACKEND="Agg")
    if lang == "python":
        script = tmp_path / "example.py"
        script.write_text(code)
        runs = [[sys.executable, str(script)]]
    else:
        bin_dir = str(Path(sys.executable).parent)
        env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
        runs = [["bash", "-e", "-c", c] for c in commands(code)]
    for argv in runs:
        done = subprocess.run(
            argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, f"{argv[-1]}\n{done.stdout}\n{done.stderr}"


def test_the_pages_have_blocks_to_run():
    langs = [lang for *_, lang, _, _ in blocks()]
    assert langs.count("python") >= 8 and langs.count("bash") >= 3
