"""Estimators in the scikit-learn sense, one per algorithm family (filled in below)."""
