"""Argument models of the compound-workflow tools (seed 001 §2.5, App. A.5): choose_option,
fill_form, search. Same conventions as args.py (refs, lenient scalar text)."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import BeforeValidator, Field, model_validator

from workers.agent.tools.args import Args, OptRef, Ref, RefArgs, Text, TextList, scalar_text


class ChooseOptionArgs(RefArgs):
    RENAMES: ClassVar[dict[str, str]] = {"value": "option", "label": "option", "text": "option"}
    option: Text = Field(min_length=1, description="Label of the option to choose.")


def _field_value(value: Any) -> Any:
    """A checkbox's true/false or a number as text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return scalar_text(value)


class FormField(Args):
    ref: Ref
    value: Annotated[
        str | None,
        BeforeValidator(_field_value),
        Field(description="Text, an option label, true/false for a checkbox, or a file name."),
    ] = None
    values: TextList | None = Field(None, description="Several options (multi-select) or files.")

    @model_validator(mode="before")
    @classmethod
    def _list(cls, data: Any) -> Any:
        """A list sent as value is the values."""
        if isinstance(data, dict) and isinstance(data.get("value"), list | tuple):
            return {**{k: v for k, v in data.items() if k != "value"}, "values": data["value"]}
        return data

    @model_validator(mode="after")
    def _one(self) -> FormField:
        if (self.value is None) == (self.values is None):
            raise ValueError(f"field {self.ref}: give value or values")
        return self

    @property
    def items(self) -> list[str]:
        return list(self.values) if self.values is not None else [self.value or ""]


class FillFormArgs(Args):
    RENAMES: ClassVar[dict[str, str]] = {"submitRef": "submit_ref"}
    fields: list[FormField] = Field(min_length=1, max_length=60)
    submit: bool = Field(False, description="Submit once every field holds a valid value.")
    submit_ref: OptRef = Field(None, description="The submit button (default: the form's own).")

    @model_validator(mode="before")
    @classmethod
    def _mapping(cls, data: Any) -> Any:
        """fields={"3:4": "Ada", ...} as one mapping from ref to value."""
        if isinstance(data, dict) and isinstance(data.get("fields"), dict):
            pairs = [{"ref": k, "value": v} for k, v in data["fields"].items()]
            return {**data, "fields": pairs}
        return data


class SearchArgs(RefArgs):
    RENAMES: ClassVar[dict[str, str]] = {"text": "query", "suggestion": "pick"}
    query: Text = Field(min_length=1)
    pick: str | None = Field(
        None,
        description="Suggestion to choose (default: one equal to "
        "the query); without a match nothing is chosen.",
    )
    submit: bool = Field(True, description="Press Enter when no suggestion was clicked.")
