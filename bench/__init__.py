"""Benchmarks (not run in CI): `make bench`; results go to docs/benchmarks.md."""
