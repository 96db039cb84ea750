"""The private-modules contract (tests/support/private_modules.py): a `_name` module of one
agent room may be imported from inside that room only."""

from __future__ import annotations

import grimp

from tests.support.private_modules import PrivateModulesContract


def graph_with(*imports: tuple[str, str]) -> grimp.ImportGraph:
    graph = grimp.ImportGraph()
    for module in (
        "pkg",
        "pkg.memory",
        "pkg.memory._cache",
        "pkg.memory.ledger",
        "pkg.memory.sub",
        "pkg.memory.sub.deep",
        "pkg.loop",
        "pkg.loop.brain",
    ):
        graph.add_module(module)
    for importer, imported in imports:
        graph.add_import(importer=importer, imported=imported)
    return graph


def check(graph: grimp.ImportGraph) -> list[tuple[str, str]]:
    contract = PrivateModulesContract(
        name="private", session_options={}, contract_options={"containers": ["pkg"]}
    )
    result = contract.check(graph, verbose=False)
    assert result.kept is not bool(result.metadata["illegal"])
    return list(result.metadata["illegal"])


def test_a_sibling_room_importing_a_private_module_breaks_the_contract() -> None:
    graph = graph_with(("pkg.loop.brain", "pkg.memory._cache"))
    assert check(graph) == [("pkg.loop.brain", "pkg.memory._cache")]


def test_the_owning_room_and_its_subpackages_may_import_it() -> None:
    graph = graph_with(
        ("pkg.memory.ledger", "pkg.memory._cache"),
        ("pkg.memory.sub.deep", "pkg.memory._cache"),
        ("pkg.memory", "pkg.memory._cache"),
        ("pkg.loop.brain", "pkg.memory.ledger"),
    )
    assert check(graph) == []
