"""``anonset app``: a local web workbench over the run layer, behind the checks of :mod:`anonset.app.security`."""
