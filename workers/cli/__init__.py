"""The `webagent` command line (main: the typer app; commands/) and its HTTP client library.
Imports the process runtime lazily, inside commands."""
