"""Code inputs of workflow scripts from their imports (krepro.workflow.codedeps) and their use in rules."""

import re
import shutil
from pathlib import Path

import pytest

from krepro.workflow.codedeps import code_digest, imported_modules, script_dependencies

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"
SCRIPTS = REPO / "workflow" / "scripts"
RULES = sorted((REPO / "workflow" / "rules").glob("*.smk"))


def _write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def tree(tmp_path):
    """A package ``pkg`` under ``src`` and a script using part of it."""
    _write(
        tmp_path / "src",
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "import numpy\nfrom pkg.sub import b\n",
            "pkg/sub/__init__.py": "",
            "pkg/sub/b.py": "from . import c\nfrom ..d import value\n",
            "pkg/sub/c.py": "X = 1\n",
            "pkg/d.py": "value = 2\n",
            "pkg/unused.py": "import pkg.a\n",
            "pkg/lazy.py": "def f():\n    import pkg.late\n",
            "pkg/late.py": "",
        },
    )
    _write(
        tmp_path / "scripts",
        {
            "run.py": "import os\nfrom pkg.a import numpy as _\n",
            "lazy.py": "def main():\n    from pkg import lazy\n",
        },
    )
    return tmp_path


def _names(paths, root):
    return sorted(p.relative_to(root / "src").as_posix() for p in paths)


def test_direct_imports_keep_only_the_package(tree):
    assert imported_modules(tree / "scripts" / "run.py", "pkg", tree / "src") == {"pkg.a"}
    # relative imports, resolved from the importing module; `from . import c` is a module
    assert imported_modules(tree / "src/pkg/sub/b.py", "pkg", tree / "src") == {
        "pkg.sub",
        "pkg.sub.c",
        "pkg.d",
    }


def test_transitive_dependencies_with_package_inits(tree):
    deps = script_dependencies(tree / "scripts" / "run.py", tree / "src", package="pkg")
    assert _names(deps, tree) == [
        "pkg/__init__.py",
        "pkg/a.py",
        "pkg/d.py",
        "pkg/sub/__init__.py",
        "pkg/sub/b.py",
        "pkg/sub/c.py",
    ]
    # imports inside functions count too
    lazy = script_dependencies(tree / "scripts" / "lazy.py", tree / "src", package="pkg")
    assert _names(lazy, tree) == ["pkg/__init__.py", "pkg/late.py", "pkg/lazy.py"]


def test_digest_changes_exactly_with_the_dependencies(tree):
    script, src = tree / "scripts" / "run.py", tree / "src"
    before = code_digest(script, src, package="pkg")
    (src / "pkg" / "unused.py").write_text("import pkg.a  # edited\n")  # not imported by run.py
    assert code_digest(script, src, package="pkg") == before
    for name in ("pkg/sub/c.py", "pkg/__init__.py", "pkg/sub/__init__.py"):
        original = (src / name).read_text()
        (src / name).write_text(original + "# edited\n")
        assert code_digest(script, src, package="pkg") != before, name
        (src / name).write_text(original)
        assert code_digest(script, src, package="pkg") == before, name
    script.write_text(script.read_text() + "# edited\n")
    assert code_digest(script, src, package="pkg") != before


def test_digest_does_not_depend_on_the_location(tree, tmp_path_factory):
    copy = tmp_path_factory.mktemp("elsewhere") / "repo"
    shutil.copytree(tree, copy)
    assert code_digest(copy / "scripts" / "run.py", copy / "src", package="pkg") == code_digest(
        tree / "scripts" / "run.py", tree / "src", package="pkg"
    )


def test_an_import_without_a_file_names_the_module_and_the_importer(tree):
    (tree / "scripts" / "typo.py").write_text("from pkg.nonexistent import f\n")
    with pytest.raises(ValueError, match=r"typo\.py imports 'pkg\.nonexistent'"):
        script_dependencies(tree / "scripts" / "typo.py", tree / "src", package="pkg")


def test_workflow_scripts_depend_on_what_they_import():
    def deps(script):
        return {p.relative_to(SRC / "krepro").as_posix() for p in script_dependencies(
            SCRIPTS / script, SRC
        )}  # fmt: skip

    report = deps("coverage_summary.py")
    # transitively imported modules that a hand-written list easily misses
    assert {"experiments/coverage.py", "report/verdicts.py", "report/render.py"} <= report
    assert {"records.py", "__init__.py", "report/__init__.py"} <= report
    assert "ferm.py" not in report
    assert "kernels.py" in deps("dcm_synthetic_fit.py")
    assert "kernels.py" not in deps("illustration_summary.py")


def _rule_scripts_and_codes():
    """(file, rule, script, code argument) of every rule with a ``script:`` directive."""
    found = []
    for path in RULES:
        text = path.read_text(encoding="utf-8")
        for block in re.split(r"(?m)^(?=rule \w+:)", text)[1:]:
            rule = re.match(r"rule (\w+):", block).group(1)
            script = re.search(r'^\s+script:\s*\n\s+"\.\./scripts/([\w.]+)"', block, re.M)
            if script is None:
                continue
            code = re.search(r"^\s+code=(.+),\s*$", block, re.M)
            found.append((path.name, rule, script.group(1), code and code.group(1)))
    return found


def test_every_script_rule_has_the_digest_of_its_own_script():
    rules = _rule_scripts_and_codes()
    assert len(rules) >= 30, rules
    wrong = [
        (name, rule, script, code)
        for name, rule, script, code in rules
        if code != f'script_code("{script}")'
    ]
    assert not wrong, f"rules without code=script_code(<their script>): {wrong}"
    for name, rule, script, _ in rules:
        assert (SCRIPTS / script).is_file(), (name, rule, script)
    texts = "".join(path.read_text(encoding="utf-8") for path in RULES)
    assert "src_digest" not in texts
