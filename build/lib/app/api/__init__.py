"""HTTP routes: tasks, events (SSE), health. Wiring lives in app.main.create_app."""
