"""What a model call is shown: the Worker's messages, the Ledger's role views, the tagged blocks
and their six-phase eviction, the image channel, adaptive memory's summaries."""
