"""The ridge study's jobs depend on what their modules import (krepro.workflow.codedeps): the
code digest of a study job covers its module's transitive imports, and no other study's
modules. The mechanism's own tests: tests/workflow/test_codedeps.py."""

from krepro.studies import STUDIES
from krepro.workflow.codedeps import script_dependencies
from tests.workflow.test_codedeps import SCRIPTS, SRC


def test_study_jobs_depend_on_what_their_modules_import():
    def deps(module):
        return {p.relative_to(SRC / "krepro").as_posix() for p in script_dependencies(
            SCRIPTS / "study_job.py", SRC, modules=[module]
        )}  # fmt: skip

    summary = deps("krepro.studies.ridge.report")
    # transitively imported modules that a hand-written list easily misses
    assert {"studies/ridge/run.py", "studies/verdicts.py", "studies/render.py"} <= summary
    assert {"records.py", "__init__.py", "studies/__init__.py"} <= summary
    assert {"studies/study.py", "workflow/runtime.py"} <= summary  # the generic script's own
    assert "fairness/ferm.py" not in summary
    assert "kernels.py" in deps("krepro.studies.ridge.run")
    # another study's modules never count: the registry finds the folders at run time
    others = {f"studies/{name}/" for name in STUDIES} - {"studies/ridge/"}
    assert not any(path.startswith(tuple(others)) for path in summary)
