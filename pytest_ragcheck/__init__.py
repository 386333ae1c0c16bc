"""pytest-ragcheck: retrieval regression testing for RAG systems.

Importing this package stays cheap (pytest imports it at start-up for every project that has
the plugin installed): the heavy parts (numpy, pydantic, syrupy, litellm) load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from pytest_ragcheck.common.version import __version__ as __version__

__all__ = [
    "DEFAULT_REFUSAL_PATTERNS",
    "CaseResult",
    "Comparison",
    "GoldenCase",
    "GoldenSet",
    "RagcheckError",
    "RagcheckWarning",
    "Result",
    "compare",
    "evaluate",
    "load_golden",
    "ragcheck",
]


#: The marker, so that ``from pytest_ragcheck import ragcheck`` works as a decorator:
#: the very same object as ``pytest.mark.ragcheck``.
ragcheck = pytest.mark.ragcheck

_LAZY = {
    "CaseResult": "pytest_ragcheck.evaluation.result",
    "Result": "pytest_ragcheck.evaluation.result",
    "GoldenCase": "pytest_ragcheck.golden",
    "GoldenSet": "pytest_ragcheck.golden",
    "load_golden": "pytest_ragcheck.golden",
    "evaluate": "pytest_ragcheck.evaluation.api",
    "compare": "pytest_ragcheck.evaluation.api",
    "Comparison": "pytest_ragcheck.explore.systems",
    "RagcheckError": "pytest_ragcheck.common.errors",
    "RagcheckWarning": "pytest_ragcheck.plugin",
    "DEFAULT_REFUSAL_PATTERNS": "pytest_ragcheck.answers.refusal",
}

if TYPE_CHECKING:
    from pytest_ragcheck.answers.refusal import DEFAULT_REFUSAL_PATTERNS
    from pytest_ragcheck.common.errors import RagcheckError
    from pytest_ragcheck.evaluation.api import compare, evaluate
    from pytest_ragcheck.evaluation.result import CaseResult, Result
    from pytest_ragcheck.explore.systems import Comparison
    from pytest_ragcheck.golden import GoldenCase, GoldenSet, load_golden
    from pytest_ragcheck.plugin import RagcheckWarning


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'pytest_ragcheck' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
