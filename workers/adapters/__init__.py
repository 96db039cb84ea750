"""Task-scoped real parts behind the agent's protocols: event sink, Ledger store (with write-behind
and outage retries), approval gate, results, profiles, secrets, budgets, HTTP fetcher.
"""
