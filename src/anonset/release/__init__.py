"""What a method's result becomes: the release, its independent re-check and where it is written.

:mod:`~anonset.release.release` holds :class:`Release` and renders the
released table; :mod:`~anonset.release.verify` re-checks a release from its
values alone; :mod:`~anonset.release.caveats` warns about useless releases
and unnamed columns that single out records; :mod:`~anonset.release.database`
writes and re-checks a release inside the database it came from.
"""

from anonset.release.release import Release

__all__ = ["Release"]
