"""Safety checks for real-world tables: leaks of released columns, profiles, starter configs.

* :func:`~anonkit.safety.leaks.find_leaks` / :func:`~anonkit.safety.leaks.check_leaks`:
  columns published as they are that would undo the anonymization (a dependency on a
  quasi-identifier, near-unique values, direct identifiers).
* :func:`~anonkit.safety.profile.profile_table`: per column its kind, distinct values,
  uniqueness, nulls and identifier pattern, and the dependencies between columns.
* :func:`~anonkit.safety.starter.starter_config`: a commented starter TOML configuration
  for ``anonkit anonymize`` with a proposed role per column (``anonkit init``).
"""

from __future__ import annotations

from anonkit.safety.leaks import Dependency, Leak, check_leaks, find_dependencies, find_leaks

__all__ = ["Dependency", "Leak", "check_leaks", "find_dependencies", "find_leaks"]
