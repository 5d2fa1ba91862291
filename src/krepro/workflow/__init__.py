"""Plumbing of the Snakemake workflow: config coercion and checks, code digests of the rules,
job set-up, run records and atomic writes, provenance and the snapshot.

Nothing here is needed to use the estimators; the Snakefile and the workflow's scripts use it.
"""
