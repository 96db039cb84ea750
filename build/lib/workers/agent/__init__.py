"""The agent: depends only on the small protocols in `protocols.py`."""
