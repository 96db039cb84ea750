"""People and safety: approvals, supervision, takeover, challenge hand-off, operator guidance,
task profiles, the navigation guards and the Browser proxy they wrap."""
