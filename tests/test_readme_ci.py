"""The README's two commands are the contract; CI must run the test command as written."""

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _readme_commands():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```bash\n(.*?)\n```", readme, flags=re.S)


def test_readme_opens_with_run_and_test_commands():
    run_command, test_command = _readme_commands()[:2]
    assert run_command.endswith(".venv/bin/snakemake")
    assert test_command.endswith("pytest")
    # pip installs uv into the fresh venv, uv the project (editable) with an extra into it.
    for command, extra in ((run_command, "workflow"), (test_command, "test")):
        assert command.startswith("python3 -m venv .venv && .venv/bin/pip install uv && ")
        install = rf'\.venv/bin/uv pip install --python \.venv .*-e "\.\[{extra}\]"'
        assert re.search(install, command)


def test_ci_runs_the_readme_test_command_verbatim():
    test_command = _readme_commands()[1]
    ci_lines = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert test_command in ci_lines


def test_readme_library_example_runs():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    (example,) = re.findall(r"```python\n(.*?)\n```", readme, flags=re.S)
    namespace = {}
    exec(compile(example, "README.md", "exec"), namespace)
    assert namespace["O"].shape == (500, 500)
    assert namespace["O_test"].shape == (10, 500)
