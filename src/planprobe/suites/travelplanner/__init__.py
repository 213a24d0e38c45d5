"""TravelPlanner (Xie et al., 2024) in planprobe: its queries as cases, its sandbox as
tools, and its evaluator's figures (delivery, commonsense and hard pass rates, final
pass rate), plus a ``--strict`` reading that closes the official evaluator's gaps.
See docs/travelplanner.md."""
