"""Benchmarks that run the real agent: the MiniWoB++ harness behind `webagent bench miniwob`."""
