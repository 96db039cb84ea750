"""Tool names: the one StrEnum of the Worker's tools and the other spellings models use for
them (seed 000 App. A, seed 003 §5.2), each mapped to a tool and preset arguments."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any


class ToolName(StrEnum):
    navigate = "navigate"
    go_back = "go_back"
    go_forward = "go_forward"
    reload = "reload"
    click = "click"
    click_at = "click_at"
    type = "type"
    type_at = "type_at"
    press_key = "press_key"
    hover = "hover"
    focus = "focus"
    select_option = "select_option"
    get_dropdown_options = "get_dropdown_options"
    choose_option = "choose_option"
    fill_form = "fill_form"
    search = "search"
    upload_file = "upload_file"
    drag = "drag"
    select_text = "select_text"
    pointer = "pointer"
    scroll = "scroll"
    scroll_within = "scroll_within"
    wait = "wait"
    wait_for = "wait_for"
    wait_for_condition = "wait_for_condition"
    handle_dialog = "handle_dialog"
    tabs = "tabs"
    read_text = "read_text"
    snapshot = "snapshot"
    screenshot = "screenshot"
    dom_search = "dom_search"
    get_console_errors = "get_console_errors"
    export_pdf = "export_pdf"
    get_accessibility_tree = "get_accessibility_tree"
    read_canvas = "read_canvas"
    look = "look"
    detect_captcha = "detect_captcha"
    detect_geo_block = "detect_geo_block"
    read_download = "read_download"
    record_fact = "record_fact"
    evaluate_script = "evaluate_script"
    bulk = "bulk"
    done = "done"
    more_tools = "more_tools"


# Seed 000 App. A and seed 003 §5.2 spellings -> (tool, preset arguments).
ALIASES: Mapping[str, tuple[str, Mapping[str, Any]]] = {
    "click_element": ("click", {}),
    "browser_click_at": ("click_at", {}),
    "browser_type_at": ("type_at", {}),
    "input_text": ("type", {}),
    "send_keys": ("press_key", {}),
    "select_dropdown_by_text": ("select_option", {}),
    "navigate_back": ("go_back", {}),
    "scroll_down": ("scroll", {"direction": "down"}),
    "scroll_up": ("scroll", {"direction": "up"}),
    "scroll_to_top": ("scroll", {"to": "top"}),
    "scroll_to_bottom": ("scroll", {"to": "bottom"}),
    "scroll_to_text": ("scroll", {}),
    "scroll_to_percent": ("scroll", {}),
    "scroll_pixels": ("scroll", {}),
    "pan": ("scroll", {}),
    "open_tab": ("tabs", {"action": "open"}),
    "switch_tab": ("tabs", {"action": "switch"}),
    "close_tab": ("tabs", {"action": "close"}),
    "browser_tabs": ("tabs", {}),
    "extract": ("read_text", {}),
    "extract_markdown": ("read_text", {}),
    "take_screenshot": ("screenshot", {}),
    "screenshot_captcha": ("screenshot", {}),
    "run_script": ("evaluate_script", {}),
    "move_mouse": ("pointer", {}),
    "mouse_move": ("pointer", {}),
    "select_words": ("select_text", {}),
    "highlight_text": ("select_text", {}),
    "bulkActions": ("bulk", {}),
    "bulk_actions": ("bulk", {}),
}


def resolve_alias(name: str) -> tuple[str, Mapping[str, Any]]:
    return ALIASES.get(name, (name, {}))
