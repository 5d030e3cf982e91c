"""Mondrian's compiled paths: numba kernels that grow the same tree as the Python reference, faster.

:mod:`~anonset.methods.mondrian.compiled.paths` decides which run takes which
path and prepares its arrays; ``kernel`` is the median kernel, ``grow`` the
general kernel with its ``fill*``, ``judge``, ``offers``, ``segments`` and
``floats`` parts.  The reference, in Python, is
:mod:`anonset.methods.mondrian.regions`; both give the same releases.
"""
