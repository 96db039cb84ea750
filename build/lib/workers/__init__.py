"""webagent worker runtime: rq jobs, pooled browsers and the agent."""
