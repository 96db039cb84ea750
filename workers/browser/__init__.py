"""The browser: everything that touches Playwright (import-linter enforces it). session.py is the
facade over three rooms — act/ (the hand), observe/ (perception), runtime/ (the browser itself).
"""
