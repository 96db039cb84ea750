"""`result.data` as the caller's own type: a pydantic model class validates it.

task = client.wait_task(task_id)
product = data_as(task, Product)          # Product.model_validate(task.result.data)
product = client.wait_task(task_id, output=Product).data
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel

from webagent_client.models import TaskOut

T = TypeVar("T", bound=BaseModel)


class NoDataError(ValueError):
    """The task has no `result.data` (it did not succeed, or had no output_schema)."""


def data_as(task: TaskOut, model: type[T]) -> T:
    """The task's `result.data` validated as `model` (pydantic ValidationError when it does
    not fit); NoDataError when the task has none."""
    if task.result.data is None:
        raise NoDataError(f"task {task.id} ({task.status}) has no result.data")
    return model.model_validate(task.result.data)


@dataclass(frozen=True)
class TypedTask(Generic[T]):
    """A finished task and its `result.data` as the caller's type (None without data)."""

    task: TaskOut
    data: T | None


def typed(task: TaskOut, model: type[T]) -> TypedTask[T]:
    data = data_as(task, model) if task.result.data is not None else None
    return TypedTask(task, data)
