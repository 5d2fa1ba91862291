"""Run one job of a study: the function the rule names in ``params.entry``.

Every study job goes through this script (``krepro.studies.<name>.<module>:<function>``,
called with the job and its logger); the rule's ``params.code`` digests this script and the
job's module with everything it imports, so that an edit reruns exactly the jobs it affects.
"""

from krepro.studies.study import resolve_entry
from krepro.workflow.runtime import job

with job(snakemake) as log:
    resolve_entry(snakemake.params.entry)(snakemake, log)
