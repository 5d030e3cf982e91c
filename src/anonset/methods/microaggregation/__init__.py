"""Microaggregation: numeric quasi-identifiers replaced by the mean of groups of at least k records."""
