"""The model client for any OpenAI-compatible endpoint and the vision check on image settings.
Imports the agent's protocols only.
"""
