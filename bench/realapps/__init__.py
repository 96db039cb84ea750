"""Real web applications as the agent's proving ground (issue 33): open-source apps installed
from the package registries into `.realapps/` (each in its own virtualenv), seeded, reset to
their seed in seconds, served on 127.0.0.1, and WebArena-style tasks checked by the apps'
final state. `base.py` is the contract every app module implements."""
