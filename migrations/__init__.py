"""The Alembic tree (design card: top-level `migrations/`), shipped in the wheel as package data.

It is a package only so `importlib.resources.files("migrations")` finds it in an installed,
non-editable wheel (the Dockerfile runs `pip install .`); `app.db.migrate` points Alembic here.
Alembic loads env.py and versions/*.py by path; nothing imports them as modules.
"""
