"""An import-linter contract: a module whose name starts with `_` is private to its package.

`workers/agent/` is in rooms (pyproject's layers contract orders them); a room may keep
helpers it does not offer the others in `_name.py` modules. This contract lets only modules of
the same package (and its subpackages) import such a module, so no room reaches into a sibling
room's private parts. Registered in pyproject.toml under `contract_types` as
`private_modules`; `lint-imports` runs it with the other contracts.
"""

from __future__ import annotations

import grimp
from importlinter import Contract, ContractCheck, fields, output


def owner_of(module: str) -> str | None:
    """The package a module is private to: the parent of its first `_name` part, if any."""
    parts = module.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[:i])
    return None


class PrivateModulesContract(Contract):
    """Modules under `containers` named `_x` are imported only from inside their own package."""

    type_name = "private_modules"

    containers = fields.ListField(subfield=fields.ModuleField())

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        illegal: list[tuple[str, str]] = []
        for container in self.containers:  # type: ignore[attr-defined]
            for module in sorted(graph.find_descendants(container.name)):
                owner = owner_of(module)
                if owner is None:
                    continue
                for importer in sorted(graph.find_modules_that_directly_import(module)):
                    if importer != owner and not importer.startswith(owner + "."):
                        illegal.append((importer, module))
        return ContractCheck(kept=not illegal, metadata={"illegal": illegal})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for importer, module in check.metadata["illegal"]:
            output.print_error(f"{importer} imports {module}, private to {owner_of(module)}")
            output.new_line()
