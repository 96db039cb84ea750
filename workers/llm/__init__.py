"""The model client (any OpenAI-compatible endpoint), metering of every call, the vision check.
Imports app settings only."""
