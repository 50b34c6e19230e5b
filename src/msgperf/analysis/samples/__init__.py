"""Samples: one measurement's statistics (its median and interval, outliers, drift, modality)."""
