"""The browser runtime: pool, launch, prepared contexts, process tree, egress proxy, request guard,
crash watch, profiles and storage state, private regions, the JS loader. Imports nothing above.
"""
