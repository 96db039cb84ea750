"""Proven routes at work: a run's trace recorded for the route store, a route replayed without
model calls, and a verified replay vouching for the answer in place of the Planner's check."""
