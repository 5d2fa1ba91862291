"""Plumbing of the Snakemake workflow: config coercion and checks, code digests of the rules,
job set-up, provenance and the snapshot.

Nothing here is needed to use the estimators; the Snakefile and the workflow's scripts use it.
The studies never import it: what they write with (run records, atomic writes) is the base
module :mod:`krepro.records`.
"""
