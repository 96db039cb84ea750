"""Task-scoped real parts behind the agent's protocols: event sink, Ledger store, approval gate,
results, profiles, secrets, budgets, the HTTP fetcher. Never imports the CLI."""
