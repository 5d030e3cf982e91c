"""What a method's result becomes: the release, its independent re-check and where it is written.

:mod:`~anonset.release.release` holds the immutable :class:`Release` and
renders the released table; :mod:`~anonset.release.facts` the typed facts a
release carries about its method and its provenance;
:mod:`~anonset.release.verify` re-checks a release from its values alone;
:mod:`~anonset.release.caveats` warns about useless releases and unnamed
columns that single out records; :mod:`~anonset.release.sinks` defines where a
release goes (a :class:`~anonset.release.sinks.ReleaseSink`: check, stage,
verify, place, discard; the sink of each engine by its name; the file sink);
:mod:`~anonset.release.database` writes, re-checks and places a release
inside the database it came from.  Import the modules directly: this package
re-exports nothing, so checking an output path loads no table library.
"""
