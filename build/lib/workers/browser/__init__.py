"""Everything that touches Playwright lives here (enforced by import-linter)."""
