"""What a method's result becomes: the release, how it is built and what it carries.

:mod:`~anonset.release.release` holds the immutable :class:`Release` and
renders the released table; :mod:`~anonset.release.fitting` fits a method of
each family and releases its result; :mod:`~anonset.release.build` builds a release
from a method's result (rendered, scored, re-checked, explained, in memory or
through an engine's sink); :mod:`~anonset.release.facts` the typed facts a
release carries about its method and its provenance;
:mod:`~anonset.release.caveats` the warnings a custodian must read before
handing it over; :mod:`~anonset.release.reapply` a learned recoding applied
to new records.  The independent re-check is :mod:`anonset.recheck`, where a
release is written :mod:`anonset.sinks`, distributed Mondrian
:mod:`anonset.distributed`.  Import the modules directly: this package
re-exports nothing, so checking an output path loads no table library.
"""
