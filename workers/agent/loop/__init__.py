"""The run: the Orchestrator's route (search.py), the loop and its batches, the brain (Planner
cadence, verification, Ledger ingest), metering, step events and how a run ends."""
