"""PageMem division, titles, modal focus and rendering over synthetic snapshot nodes."""

from __future__ import annotations

from dataclasses import replace

from workers.browser.observe import pagemem
from workers.browser.observe.snapshot import Node, Snapshot, Viewport

VP = Viewport(1280, 800, 0, 0, 1280, 3000)


def n(i: int, role: str, name: str, **kw: object) -> Node:
    base = dict(
        ref=f"1:{i}",
        index=i,
        role=role,
        name=name,
        value=None,
        states=(),
        bbox=(0.0, float(i * 20), 100.0, 18.0),
        frame=(),
        in_viewport=i * 20 < 800,
        interactive=role not in ("text", "heading"),
    )
    base.update(kw)
    return Node(**base)  # type: ignore[arg-type]


def snap(nodes: list[Node]) -> Snapshot:
    return Snapshot(1, "http://127.0.0.1/p", "Shop", tuple(nodes), "", {}, VP)


def shop_nodes() -> list[Node]:
    nav = [n(i, "link", f"Nav {i}", landmark='navigation "Primary"') for i in range(1, 4)]
    form = [
        n(4, "textbox", "Query", landmark='main > form "Search"', heading="Shop"),
        n(5, "button", "Search", landmark='main > form "Search"', heading="Shop"),
    ]
    head = [n(6, "heading", "Results", level=2, landmark="main", heading="Results")]
    items = [
        n(
            7 + k,
            "link",
            f"Product {k}",
            landmark="main",
            heading="Results",
            list_id="L1",
            item=k + 1,
        )
        for k in range(8)
    ]
    return nav + form + head + items


def test_small_page_is_one_section_per_landmark() -> None:
    mem = pagemem.divide(snap(shop_nodes()[:5]))
    assert [(s.id, s.kind, s.title) for s in mem.sections] == [
        ("s1", "navigation", 'navigation "Primary"'),
        ("s2", "form", 'form "Search" — "Shop"'),
    ]
    assert sum(len(s.nodes) for s in mem.sections) == 5


def test_oversized_landmark_splits_into_list_section_with_items(monkeypatch) -> None:
    monkeypatch.setattr(pagemem, "MAX_SECTION_NODES", 6)
    mem = pagemem.divide(snap(shop_nodes()))
    kinds = [s.kind for s in mem.sections]
    assert "list" in kinds
    lst = next(s for s in mem.sections if s.is_list)
    assert lst.title == 'list of 8 items under "Results" in main'
    assert [i.title for i in lst.items][:2] == ["Product 0", "Product 1"]
    assert [i.id for i in lst.items][:2] == [f"{lst.id}.1", f"{lst.id}.2"]
    # every node lands in exactly one section, in document order
    order = [node.index for s in mem.sections for node in s.nodes]
    assert order == list(range(1, 15))


def test_division_is_deterministic_and_hash_ignores_ref_versions() -> None:
    a = pagemem.divide(snap(shop_nodes()))
    moved = [replace(x, ref=f"9:{x.index}") for x in shop_nodes()]
    b = pagemem.divide(replace(snap(moved), version=9))
    assert [s.content_hash for s in a.sections] == [s.content_hash for s in b.sections]
    assert [s.title for s in a.sections] == [s.title for s in b.sections]
    typed = [replace(x, value="shoes") if x.index == 4 else x for x in shop_nodes()]
    c = pagemem.divide(snap(typed))
    assert [s.content_hash for s in a.sections] != [s.content_hash for s in c.sections]


def test_dialog_is_one_section_and_modal_when_page_behind_is_covered() -> None:
    page = [
        n(1, "link", "Home", states=("covered",)),
        n(2, "button", "Buy", states=("covered",)),
    ]
    dialog = [
        n(3, "heading", "Sign in", level=2, landmark='dialog "Sign in"'),
        n(4, "textbox", "Email", landmark='dialog "Sign in" > form'),
        n(5, "heading", "Or", level=3, landmark='dialog "Sign in"'),
        n(6, "button", "Close", landmark='dialog "Sign in"'),
    ]
    mem = pagemem.divide(snap(page + dialog))
    modal = mem.modal
    assert modal is not None and modal.kind == "dialog" and len(modal.nodes) == 4
    text = pagemem.render(mem)
    assert "modal dialog open" in text and "[1:4] textbox" in text
    assert "Home" not in text  # the inert page behind does not pollute the view


def test_open_dialog_without_covered_page_is_not_modal_unless_detected() -> None:
    nodes = [n(1, "link", "Home"), n(2, "button", "Chat", landmark='dialog "Help"')]
    assert pagemem.divide(snap(nodes)).modal is None
    assert pagemem.divide(snap(nodes), modal_label="Help").modal is not None


def test_render_outlines_all_sections_and_expands_only_visible_ones() -> None:
    far = [
        n(
            30,
            "button",
            "Far away",
            bbox=(0.0, 2000.0, 50.0, 20.0),
            in_viewport=False,
            landmark="contentinfo",
        )
    ]
    mem = pagemem.divide(snap(shop_nodes()[:3] + far))
    text = pagemem.render(mem, summaries={mem.sections[0].content_hash: "Top links."})
    assert text.startswith("Page: Shop — http://127.0.0.1/p")
    assert '[s1] navigation "Primary" · 3 controls — Top links.' in text
    assert "[1:1] link" in text
    assert "[s2] contentinfo · 1 controls · off-screen" in text
    assert "Far away" not in text
    assert "Far away" in pagemem.render(mem, expand=["s2"])


def test_render_respects_budget_with_explicit_marker() -> None:
    nodes = [n(i, "link", f"A long link label number {i}", landmark="main") for i in range(1, 30)]
    text = pagemem.render(snap(nodes), max_tokens=40)
    assert "more lines (expand s1)" in text
    assert len(text) < 600


def test_list_preview_shows_first_items_then_count(monkeypatch) -> None:
    monkeypatch.setattr(pagemem, "MAX_SECTION_NODES", 6)
    text = pagemem.render(snap(shop_nodes()))
    assert "Product 2" in text and "Product 3" not in text
    assert "… 5 more items (expand" in text


def test_empty_snapshot() -> None:
    mem = pagemem.divide(snap([]))
    assert mem.sections == () and pagemem.render(mem) == "Page: Shop — http://127.0.0.1/p"
