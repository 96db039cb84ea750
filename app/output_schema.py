"""Checking a task's `output_schema` at submission (the worker validates answers against it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jsonschema import exceptions as schema_exceptions
from jsonschema import validators


def output_schema_problem(schema: Mapping[str, Any]) -> str | None:
    """Why `schema` is not a usable JSON Schema (its own meta-schema says so), or None."""
    try:
        validators.validator_for(schema).check_schema(schema)
    except schema_exceptions.SchemaError as exc:
        return exc.message
    return None
