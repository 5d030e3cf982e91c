"""Distributed Mondrian on Spark: the driver's flow and one fragment's work on a worker.

:mod:`~anonset.distributed.mondrian` cuts the table on the driver from a
sample (the cut tree and merge rules are the Mondrian family's own, in
:mod:`anonset.methods.mondrian`), runs Mondrian per fragment on the workers
and re-checks the written release on the cluster;
:mod:`~anonset.distributed.worker` is what a worker does with one fragment:
its release and the partial sums of the release's metrics.
"""
