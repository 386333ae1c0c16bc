"""The ``response_format`` JSON schemas the judge prompts ask for (litellm's structured output).

Every answer is a strict JSON object; :mod:`.schemas` validates what comes back.
"""

from __future__ import annotations

from typing import Any

__all__ = ["claims_schema", "object_schema", "verdict_schema"]


def verdict_schema(name: str) -> dict[str, Any]:
    return object_schema(
        name,
        {
            "reason": {"type": "string", "description": "one short sentence"},
            "verdict": {"type": "string", "enum": ["yes", "no"]},
        },
    )


def claims_schema(name: str, **flags: str) -> dict[str, Any]:
    """``{"claims": [{"claim": str, <flag>: bool | str, ...}]}``, the shape of every claim list."""
    properties: dict[str, Any] = {"claim": {"type": "string"}}
    properties.update({flag: {"type": kind} for flag, kind in flags.items()})
    item = {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }
    return object_schema(name, {"claims": {"type": "array", "items": item}})


def object_schema(name: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "json_schema",
        "json_schema": {
            "name": name,
            "strict": True,
            "schema": {
                "type": "object",
                "properties": properties,
                "required": list(properties),
                "additionalProperties": False,
            },
        },
    }
