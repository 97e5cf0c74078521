"""Distributed traces on the page: ``rank_model`` (per-rank line records and timelines),
``rank_cards`` (ranks side by side, collective cards) and ``rank_viewer`` (one step timeline per rank
for step mode). They read the trace's ``ranks``; they must not run anything.
"""
