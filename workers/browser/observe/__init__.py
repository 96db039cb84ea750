"""Perception: the snapshot walker and its JS, frames, refs, compact/PageMem/SoM/vision views,
the change gate, summaries, token counts (Perception owns a task's snapshots). Imports runtime.
"""
