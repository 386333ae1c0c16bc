"""The package's shape: no import cycles, a cheap plugin import, small modules.

The import graph is read from the source with ``ast``: every ``import`` and ``from ... import``
counts, at module level or inside a function, except those under ``if TYPE_CHECKING:`` (they
never run). ``from pytest_ragcheck.report import files`` is an edge to the submodule
``report.files`` when it is one, and to the package (its ``__init__``) otherwise.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

import pytest
from harness import HEAVY

import pytest_ragcheck

PACKAGE = Path(pytest_ragcheck.__file__).parent
ROOT = PACKAGE.parent
MAX_LINES = 400


def modules_of(package: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package (``__init__`` included)."""
    modules = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


MODULES = modules_of(PACKAGE)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(
    nodes: Iterable[ast.AST], *, typing: bool = False
) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement in ``nodes``, at any depth; ``if TYPE_CHECKING:`` ones only
    with ``typing`` (they never run, but a loop through them is still a loop to a reader)."""
    for node in nodes:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and _is_type_checking(node.test) and not typing:
            yield from _imports(node.orelse)
        else:
            yield from _imports(ast.iter_child_nodes(node), typing=typing)


def _resolve(node: ast.ImportFrom, importer: str, modules: Mapping[str, Path]) -> str:
    """The absolute module name ``from <module>`` refers to, relative forms included."""
    if not node.level:
        return node.module or ""
    # A package's __init__ is the package itself: `from . import x` stays inside it.
    is_package = modules[importer].name == "__init__.py"
    base = importer.split(".")
    base = base[: len(base) - node.level + (1 if is_package else 0)]
    return ".".join([*base, node.module] if node.module else base)


def _targets(
    node: ast.Import | ast.ImportFrom, importer: str, modules: Mapping[str, Path]
) -> Iterator[str]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            name = alias.name
            # `import a.b.c` binds `a` but runs a.b.c: the deepest module of ours counts.
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name:
                yield name
        return
    module = _resolve(node, importer, modules)
    for alias in node.names:
        if f"{module}.{alias.name}" in modules:
            yield f"{module}.{alias.name}"
        elif module in modules:
            yield module


def import_graph(modules: Mapping[str, Path], *, typing: bool = False) -> dict[str, set[str]]:
    """Module -> the modules of the same package it imports (with ``typing``, type-only
    imports too)."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        imports = _imports([tree], typing=typing)
        graph[name] = {t for n in imports for t in _targets(n, name, modules)} - {name}
    return graph


def cycles(graph: Mapping[str, set[str]], limit: int = 50) -> list[list[str]]:
    """Every elementary cycle (up to ``limit``), each from its first module in name order."""
    found: list[list[str]] = []

    def walk(start: str, path: list[str]) -> None:
        for following in sorted(graph.get(path[-1], ())):
            if len(found) >= limit:
                return
            if following == start:
                found.append([*path, start])
            elif following > start and following not in path:
                walk(start, [*path, following])

    for start in sorted(graph):
        walk(start, [start])
    return found


SAMPLE = {
    "pkg/__init__.py": "from pkg import a\n",
    "pkg/a.py": """
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pkg import b

def f():
    from .sub import files
    from .sub import name_in_init
""",
    "pkg/b.py": "import pkg.sub.files\nfrom . import a\n",
    "pkg/sub/__init__.py": "from . import files\nfrom .. import b\nname_in_init = 1\n",
    "pkg/sub/files.py": "",
}


def test_the_graph_sees_every_kind_of_import(tmp_path: Path) -> None:
    """The walker itself, on a small package: function-level, relative, dotted and
    package-``__init__`` imports are edges; ``if TYPE_CHECKING:`` ones and outside modules
    are not."""
    for name, text in SAMPLE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    graph = import_graph(modules_of(tmp_path / "pkg"))
    assert graph == {
        "pkg": {"pkg.a"},
        "pkg.a": {"pkg.sub", "pkg.sub.files"},
        "pkg.b": {"pkg.a", "pkg.sub.files"},
        "pkg.sub": {"pkg.b", "pkg.sub.files"},
        "pkg.sub.files": set(),
    }
    assert cycles(graph) == [["pkg.a", "pkg.sub", "pkg.b", "pkg.a"]]
    assert cycles({"a": {"b"}, "b": {"a", "c"}, "c": {"a"}}) == [
        ["a", "b", "a"],
        ["a", "b", "c", "a"],
    ]


def test_no_import_cycles() -> None:
    """None at run time, and none through ``if TYPE_CHECKING:`` imports either: data flows
    down, so a module never needs the type of one that imports it."""
    found = cycles(import_graph(MODULES, typing=True))
    assert not found, "import cycles in the package:\n" + "\n".join(
        " -> ".join(cycle) for cycle in found
    )


def test_no_module_is_over_the_size_limit() -> None:
    sizes = {
        name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in MODULES.items()
    }
    large = {name: n for name, n in sorted(sizes.items()) if n > MAX_LINES}
    assert not large, f"modules over {MAX_LINES} lines: " + ", ".join(
        f"{name} ({n})" for name, n in large.items()
    )


def _heavy_loaded_by(module: str) -> list[str]:
    """The heavy modules a fresh interpreter has loaded after ``import module``."""
    return _loaded_by(f"import {module}")[1]


@pytest.mark.parametrize("module", ["pytest_ragcheck.plugin", "pytest_ragcheck"])
def test_import_loads_nothing_heavy(module: str) -> None:
    """pytest imports the plugin for every project that has it installed."""
    assert _heavy_loaded_by(module) == []


def test_probe_detects_a_heavy_import() -> None:
    """The probe itself works: importing the golden-set loader does pull in pydantic."""
    assert "pydantic" in _heavy_loaded_by("pytest_ragcheck.golden.model")


#: Everything importing the plugin loads of ours: pytest imports it in every project that has
#: the plugin installed, ragcheck tests or not (the rest loads with a marker or the fixture).
PLUGIN_IMPORT = [
    "pytest_ragcheck",
    "pytest_ragcheck.baseline",
    "pytest_ragcheck.baseline.options",
    "pytest_ragcheck.common",
    "pytest_ragcheck.common.errors",
    "pytest_ragcheck.common.version",
    "pytest_ragcheck.plugin",
    "pytest_ragcheck.plugin.items",
    "pytest_ragcheck.plugin.specs",
]

OURS_PROBE = """
import json, sys
{code}
tops = {{m.split(".")[0] for m in sys.modules}}
print(json.dumps([sorted(m for m in sys.modules if m.split(".")[0] == "pytest_ragcheck"),
                  sorted(tops & set({heavy!r}))]))
"""


def _loaded_by(code: str, cwd: Path | None = None) -> tuple[list[str], list[str]]:
    """Our modules and the heavy ones a fresh interpreter has loaded after running ``code``."""
    path = [str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    out = subprocess.run(
        [sys.executable, "-c", OURS_PROBE.format(code=code, heavy=HEAVY)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env=env,
        cwd=cwd,
    ).stdout
    ours, heavy = json.loads(out.strip().splitlines()[-1])
    return ours, heavy


def test_the_plugin_import_loads_a_fixed_short_list() -> None:
    assert _loaded_by("import pytest_ragcheck.plugin") == (PLUGIN_IMPORT, [])


#: Stages a session without any ragcheck test never loads (its options are still checked).
UNUSED_STAGES = ("golden", "run", "metrics", "judge", "answers", "gate", "explore")


def test_a_session_without_ragcheck_tests_loads_no_stage(tmp_path: Path) -> None:
    (tmp_path / "test_plain.py").write_text("def test_one():\n    assert True\n")
    code = (
        "import pytest\n"
        "assert pytest.main(['-q', '-p', 'no:cacheprovider', '-p', 'no:langsmith_plugin', "
        "'test_plain.py']) == 0"
    )
    loaded, heavy = _loaded_by(code, cwd=tmp_path)
    assert "pytest_ragcheck.plugin.options" in loaded  # the plugin ran: its options were read
    stages = sorted(m for m in loaded if m.split(".")[1:2] and m.split(".")[1] in UNUSED_STAGES)
    assert stages == []
    assert set(heavy) <= {"syrupy"}  # syrupy's own pytest plugin loads it, not ours


#: The package's top level: one folder per stage, each ``__init__`` saying what it owns.
STAGES = (
    "answers",
    "baseline",
    "common",
    "evaluation",
    "explore",
    "gate",
    "golden",
    "judge",
    "metrics",
    "plugin",
    "report",
    "run",
)


def test_the_top_level_is_one_folder_per_stage() -> None:
    entries = sorted(
        p.name for p in PACKAGE.iterdir() if p.name != "__pycache__" and not p.name.startswith(".")
    )
    assert entries == sorted([*STAGES, "__init__.py", "py.typed"])
    for stage in STAGES:
        tree = ast.parse((PACKAGE / stage / "__init__.py").read_text(encoding="utf-8"))
        assert ast.get_docstring(tree), f"{stage}/__init__.py says nothing of what it owns"
