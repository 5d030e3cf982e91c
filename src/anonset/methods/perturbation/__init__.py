"""Perturbative treatments: PRAM for categorical attributes, noise and top/bottom coding for numeric ones."""
