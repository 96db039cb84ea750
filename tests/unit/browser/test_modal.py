"""Modal focus over synthetic snapshot nodes (seed 001 A.4): dialog section, else its box."""

from __future__ import annotations

from tests.unit.browser.test_pagemem import n, snap
from workers.browser.observe.modal import Modal, dialog_nodes, focus_text


def test_dialog_section_is_the_whole_view() -> None:
    nodes = [
        n(1, "link", "Home", landmark="navigation"),
        n(2, "button", "Buy now", landmark="main"),
        n(3, "heading", "Cookies", landmark='dialog "Cookie settings"'),
        n(4, "button", "Accept all", landmark='dialog "Cookie settings"'),
    ]
    found = Modal("Cookie settings", "dialog", "dialog:modal", (0, 0, 10, 10))
    assert [x.name for x in dialog_nodes(snap(nodes), found)] == ["Cookies", "Accept all"]
    text = focus_text(snap(nodes), found, max_tokens=500)
    assert text is not None
    assert '"Cookie settings" is open' in text and "2 controls behind it" in text
    assert "Accept all" in text and "Buy now" not in text and "Home" not in text


def test_without_a_dialog_landmark_the_box_decides() -> None:
    nodes = [
        n(1, "button", "Outside", bbox=(600.0, 600.0, 80.0, 20.0)),
        n(2, "heading", "Sign in", bbox=(110.0, 110.0, 100.0, 20.0)),
        n(3, "button", "Continue", bbox=(110.0, 150.0, 100.0, 20.0)),
        n(4, "button", "In a frame", bbox=(120.0, 160.0, 50.0, 20.0), frame=(0,)),
    ]
    found = Modal("Sign in", "dialog", "aria-modal", (100, 100, 300, 200))
    assert [x.name for x in dialog_nodes(snap(nodes), found)] == ["Sign in", "Continue"]


def test_nothing_locatable_keeps_the_page() -> None:
    nodes = [n(1, "button", "Far", bbox=(900.0, 700.0, 50.0, 20.0))]
    found = Modal("", "dialog", "covering", (0, 0, 100, 100))
    assert focus_text(snap(nodes), found, max_tokens=500) is None
