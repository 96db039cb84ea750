"""The `webagent` command line (main: the typer app, commands/) and its HTTP client library.
Above everything in workers/; loads the process runtime only inside the commands that need it.
"""
