"""Bridges to other agent and evaluation frameworks (each behind its own optional extra):
LangGraph / LangChain agents, Inspect AI tasks and logs. Nothing here is imported unless
the matching ``--agent``, ``--model`` or command is used."""
