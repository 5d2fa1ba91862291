"""Code inputs of workflow scripts from their imports (krepro.workflow.codedeps), in rules."""

import re
import shutil
from pathlib import Path

import pytest

from krepro.workflow.codedeps import code_digest, imported_modules, script_dependencies

REPO = Path(__file__).resolve().parents[2]
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


def test_imports_nested_in_any_statement_are_found(tmp_path):
    """Imports in functions, classes, branches, ``try`` clauses, ``with`` and ``match``
    blocks and loops; none in expressions or strings."""
    source = """\
import pkg.m0
class C:
    def method(self):
        if self:
            import pkg.m1
        else:
            from pkg import m2
try:
    import pkg.m3
except ImportError:
    import pkg.m4
else:
    import pkg.m5
finally:
    import pkg.m6
with open(__file__):
    for _ in ():
        while False:
            import pkg.m7
match C:
    case C():
        import pkg.m8
async def g():
    async with x:
        import pkg.m9
text = "import pkg.not_an_import"
f = lambda: __import__("pkg.dynamic")
"""
    modules = {f"pkg/m{k}.py": "" for k in range(10)}
    _write(tmp_path / "src", {"pkg/__init__.py": "", "script.py": source, **modules})
    found = imported_modules(tmp_path / "src" / "script.py", "pkg", tmp_path / "src")
    assert found == {"pkg"} | {f"pkg.m{k}" for k in range(10)}


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


def _rules_with_scripts():
    """(file, rule, script, code argument, entry argument) of every rule with ``script:``."""
    found = []
    for path in RULES:
        text = path.read_text(encoding="utf-8")
        for block in re.split(r"(?m)^(?=[ \t]*rule \w+:)", text)[1:]:
            rule = re.match(r"\s*rule (\w+):", block).group(1)
            script = re.search(r"^\s+script:\s*\n\s+(.+?)\s*$", block, re.M)
            if script is None:
                continue
            code = re.search(r"^\s+code=(.+),\s*$", block, re.M)
            entry = re.search(r"^\s+entry=(.+),\s*$", block, re.M)
            found.append(
                (path.name, rule, script.group(1), code and code.group(1), entry and entry.group(1))
            )
    return found


def test_every_script_rule_has_the_digest_of_the_code_it_runs():
    """A study job (the generic script) digests its own job's module; any other script rule
    its own script."""
    rules = _rules_with_scripts()
    assert len(rules) >= 30, rules
    wrong = []
    for name, rule, script, code, entry in rules:
        if script == "STUDY_JOB_SCRIPT":
            job = re.fullmatch(r'job_entry\("(\w+)", "(\w+)"\)', entry or "")
            literal = re.fullmatch(r'"([\w.]+):\w+"', entry or "")
            if job:
                ok = code == f'job_code("{job.group(1)}", "{job.group(2)}")'
            else:  # a function outside the studies, named in full
                ok = literal and code == (
                    f'script_code("study_job.py", modules=["{literal.group(1)}"])'
                )
        else:
            file = re.fullmatch(r'"\.\./scripts/([\w.]+)"', script)
            ok = file and code == f'script_code("{file.group(1)}")'
            ok = ok and (SCRIPTS / file.group(1)).is_file()
        if not ok:
            wrong.append((name, rule, script, code, entry))
    assert not wrong, f"rules whose code digest is not the code they run: {wrong}"
    texts = "".join(path.read_text(encoding="utf-8") for path in RULES)
    assert "src_digest" not in texts
