"""The hand: the tool handlers (one registry), the click cascade, humanizer, snapper, effect checks
(verify, settle), workflows, files, tabs, dialogs. Imports observe and runtime, never the facade.
"""
