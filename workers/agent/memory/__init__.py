"""What the agent knows: the run's Ledger, site learnings and maps, proven routes and their
values, dead-end causes, exploration bookkeeping; plain records, no model, no browser."""
