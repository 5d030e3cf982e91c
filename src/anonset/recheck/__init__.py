"""The independent re-check of a release, from its released values alone.

:mod:`~anonset.recheck.verify` recomputes the equivalence classes from the
released columns and judges every privacy model and the suppression budget
on them; :mod:`~anonset.recheck.columns` reads released columns as codes (and
names the suppression marker); :mod:`~anonset.recheck.suppressed` the rule
that keeps the suppressed records, released as one group, from disclosing
their sensitive values; :mod:`~anonset.recheck.undeclared` refuses a column
nobody declared when it could single someone out.  Nothing here trusts what
the method said about its own result.
"""
