"""Judging an outcome: the checkable claims of an answer, the evidence the run saw, grounding,
the answer check and structured (output_schema) results."""
