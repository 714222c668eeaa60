"""Hierarchy builders, one module per family (intervals, masking and suppression, dates,
ordered groups) and the value rules they share.

Use them through :mod:`anonkit.core.hierarchy_builders` (``anonkit.builders``), which
gathers the builders and dispatches on a configuration table's ``type``.
"""
