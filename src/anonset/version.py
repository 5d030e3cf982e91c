"""The version of anonset, importable without loading the package's public names."""

__version__ = "0.1.0"
