"""webagent HTTP service and the parts shared with workers (settings, contracts, storage)."""
