"""The package as users install it: wheel and sdist contents, and a wheel installed into a
fresh virtual environment that loads the plugin.

The build runs the project's own backend (``setuptools.build_meta``) on a copy of the source
files git knows, as a clean clone would hold them, with no network: the venv already has
setuptools. The fresh venv gets the wheel with ``--no-deps``; its dependencies (pytest, numpy,
pydantic, syrupy) come from this venv through a path entry, so nothing is downloaded.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow

#: Files the installed plugin reads at run time (the HTML report) or that type checkers need.
REQUIRED = (
    "pytest_ragcheck/py.typed",
    "pytest_ragcheck/report/template.html",
    "pytest_ragcheck/report/report.js",
    "pytest_ragcheck/report/report.css",
    "pytest_ragcheck/plugin/__init__.py",
)
#: Top-level folders of the repository that must stay out of both archives.
EXCLUDED = ("tests/", "example_suite/", "benchmarks/", "docs/")


def _env() -> dict[str, str]:
    """The environment without PYTHONPATH: the fresh venv must import its own copy."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("PYTHONPATH", "PYTEST_"))}


def _run(*args: str | Path, cwd: Path) -> str:
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=_env(), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"{args}: {done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel and the sdist, built from a copy of the files git tracks (or would)."""
    base = tmp_path_factory.mktemp("packaging")
    src, out = base / "src", base / "dist"
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    code = (
        "import sys; from setuptools import build_meta as b; "
        "out = sys.argv[1]; b.build_wheel(out); b.build_sdist(out)"  # the backend edits argv
    )
    _run(sys.executable, "-c", code, out, cwd=src)
    return out


def _wheel(dist: Path) -> Path:
    (wheel,) = dist.glob("pytest_ragcheck-*.whl")
    return wheel


def test_wheel_holds_the_package_and_its_assets_only(dist: Path) -> None:
    names = zipfile.ZipFile(_wheel(dist)).namelist()
    for required in REQUIRED:
        assert required in names
    # every module of every subpackage (a package missing from the build config is not)
    sources = sorted(
        p.relative_to(ROOT).as_posix() for p in (ROOT / "pytest_ragcheck").rglob("*.py")
    )
    assert [s for s in sources if s not in names] == []
    outside = [n for n in names if not n.startswith(("pytest_ragcheck/", "pytest_ragcheck-"))]
    assert outside == []
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    text = zipfile.ZipFile(_wheel(dist)).read(entry_points).decode()
    assert "ragcheck = pytest_ragcheck.plugin" in text


def test_sdist_holds_no_tests_or_data(dist: Path) -> None:
    (sdist,) = dist.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = [n.split("/", 1)[1] for n in archive.getnames() if "/" in n]
    for required in (*REQUIRED, "LICENSE", "README.md", "CHANGELOG.md", "pyproject.toml"):
        assert required in names
    assert [n for n in names if n.startswith(EXCLUDED)] == []
    assert [n for n in names if n.endswith((".jsonl", ".tsv", ".png", ".pyc"))] == []


def test_wheel_installs_into_a_fresh_venv_and_the_plugin_runs(dist: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path)
    python = venv / "bin" / "python"
    pip = (sys.executable, "-m", "pip", "--python", python)
    _run(*pip, "install", "-q", "--no-deps", "--no-index", _wheel(dist), cwd=tmp_path)
    site = Path(
        _run(
            python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp_path
        ).strip()
    )
    # The dependencies, from this environment (appended after the venv's own packages).
    (site / "zz_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    project = tmp_path / "project"
    project.mkdir()
    (project / "golden.jsonl").write_text('{"id": "q1", "query": "alpha", "expected_ids": ["a"]}\n')
    (project / "test_installed.py").write_text(
        textwrap.dedent(
            f"""
            import pytest_ragcheck
            from pytest_ragcheck import ragcheck
            def test_imports_the_installed_copy():
                assert pytest_ragcheck.__file__.startswith({str(site)!r})


            @ragcheck("golden.jsonl", k=3, baseline=False, min_mrr=1.0)
            def test_rag(ragcheck):
                ragcheck(lambda query: ["a", "b"])
            """
        )
    )
    (project / "pytest.ini").write_text("[pytest]\n")
    output = _run(
        python,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:langsmith_plugin",
        "--ragcheck-report=report.html",
        cwd=project,
    )
    assert "2 passed" in output
    assert "ragcheck summary" in output
    assert "ragcheck report:" in output
    html = (project / "report.html").read_text()
    # the packaged assets were inlined
    assert "/*__JS__*/" not in html
    assert "function" in html
