"""The run layer: how a configured run is carried out, one module per kind of engine.

A :class:`~anonset.runs.base.Run` reads the input, fits the configured
:class:`~anonset.anonymizer.Anonymizer`, releases, re-checks, writes the
outputs and reports, and records the seconds of each stage.
:func:`~anonset.runs.base.run_for` gives the run of a
:class:`~anonset.config.RunConfig` from the registry of run kinds
(:func:`~anonset.runs.base.register_run`): ``numpy`` (the records in this
process, :mod:`anonset.runs.memory`), ``duckdb`` and ``postgresql`` (the
records in a database, :mod:`anonset.runs.database`) and ``spark``
(:mod:`anonset.runs.spark`).  This package is the only place that knows the
engines by name; the commands (:mod:`anonset.commands`) ask a run what it can do.
"""
