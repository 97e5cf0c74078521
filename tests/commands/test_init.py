"""tracer/commands/init.py (``chalktrace init DIR``): the files of a new course, and never overwriting.

That the new course traces and builds with chalktrace installed from a wheel is tests/test_packaging.py.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from importlib import metadata
from pathlib import Path

import yaml
from packaging.requirements import Requirement
from packaging.version import Version

from tracer import cli
from tracer.commands.init import checkout_vcs_url, create_course, site_requirement

EXPECTED = [
    ".ci/run",
    ".github/workflows/site.yml",
    ".gitignore",
    "README.md",
    "constraints.txt",
    "lectures/hello.py",
    "mkdocs.yml",
    "requirements-site.txt",
    "requirements.txt",
    "site/docs/index.md",
]


def test_init_writes_a_course(tmp_path):
    course = tmp_path / "intro-to-ml"
    assert create_course(course) == EXPECTED
    assert (course / "site" / "traces").is_dir()
    assert os.access(course / ".ci" / "run", os.X_OK)
    assert yaml.safe_load((course / "mkdocs.yml").read_text())["site_name"] == "Intro to ml"
    assert "  - chalktrace" in (course / "mkdocs.yml").read_text()
    readme = (course / "README.md").read_text().splitlines()
    commands = [line for line in readme[:6] if line.startswith(".venv/") or line.startswith("python3 -m venv")]
    assert len(commands) == 2 and "chalktrace build" in commands[0] and "chalktrace check" in commands[1]
    assert "<!-- chalktrace:lectures -->" in (course / "site" / "docs" / "index.md").read_text()
    compile((course / "lectures" / "hello.py").read_text(), "hello.py", "exec")


def test_init_refuses_a_directory_with_files(tmp_path, capsys):
    (tmp_path / "keep.txt").write_text("mine")
    assert cli.main(["init", str(tmp_path)]) == 2
    assert "already exists and is not empty" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


def test_init_command_and_title_option(tmp_path):
    assert cli.main(["init", str(tmp_path / "c"), "--title", "Systems 101: GPUs", "-q"]) == 0
    assert yaml.safe_load((tmp_path / "c" / "mkdocs.yml").read_text())["site_name"] == "Systems 101: GPUs"
    assert cli.main(["init", str(tmp_path / "d"), "--name", "Old spelling", "-q"]) == 0
    assert yaml.safe_load((tmp_path / "d" / "mkdocs.yml").read_text())["site_name"] == "Old spelling"


def test_the_title_is_written_once(tmp_path):
    """mkdocs.yml's site_name is the only copy: the home page and lecture pages read it from there."""
    course = tmp_path / "c"
    written = create_course(course, name="Deep Learning Systems")
    holding = [relative for relative in written if "Deep Learning Systems" in (course / relative).read_text()]
    assert holding == ["mkdocs.yml"] and (course / "mkdocs.yml").read_text().count("Deep Learning Systems") == 1
    assert "COURSE_NAME" not in "".join((course / relative).read_text() for relative in written)


def requirement_lines(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line and not line.startswith("#")]


def test_init_requirement_option_says_where_chalktrace_comes_from(tmp_path):
    spec = "chalktrace[torch] @ git+https://example.org/course-tools/chalktrace@0123456789abcdef0123456789abcdef01234567"
    assert cli.main(["init", str(tmp_path / "b"), "--requirement", spec, "-q"]) == 0
    assert requirement_lines(tmp_path / "b" / "requirements.txt") == [spec]
    assert requirement_lines(tmp_path / "b" / "requirements-site.txt") == [spec.replace("[torch]", "")]
    assert site_requirement("chalktrace") == "chalktrace" and site_requirement("chalktrace[torch]>=0.1") == "chalktrace>=0.1"
    create_course(tmp_path / "a")
    readme = (tmp_path / "a" / "README.md").read_text()
    assert "`chalktrace[torch]`" not in readme and "`requirements-site.txt`" in readme
    assert "--requirement SPEC" in readme and "git+https://" in readme  # how to pin another source
    assert "chalktrace[torch]==VERSION" in readme  # how to switch to an index release


def test_init_refuses_a_local_path_requirement(tmp_path, capsys):
    """A path exists only on the machine that ran init: CI on a clean runner could not install it."""
    for spec in (
        "chalktrace[torch] @ file:///wheels/chalktrace-0.1.0-py3-none-any.whl",
        "./dist/chalktrace-0.1.0-py3-none-any.whl",
    ):
        assert cli.main(["init", str(tmp_path / "b"), "--requirement", spec, "-q"]) == 2
        assert "a local path exists only on this machine" in capsys.readouterr().err
        assert not (tmp_path / "b").exists()


def test_no_written_file_names_a_local_path(tmp_path):
    course = tmp_path / "c"
    for relative in create_course(course):
        assert "file://" not in (course / relative).read_text(), relative


def test_the_default_requirement_pins_the_installed_source(tmp_path):
    """Never a bare name: the package index may serve a stranger's package under any free name."""
    create_course(tmp_path / "a")
    (line,) = requirement_lines(tmp_path / "a" / "requirements.txt")
    requirement = Requirement(line)
    assert requirement.name == "chalktrace" and requirement.extras == {"torch"}
    assert requirement.url is None or (requirement.url.startswith("git+") and "@" in requirement.url.rsplit("/", 1)[1])
    origin = json.loads(metadata.distribution("chalktrace").read_text("direct_url.json") or "{}")
    if not origin:  # from an index (or its metadata beside the checkout): that version exactly
        assert str(requirement.specifier) == f"=={metadata.version('chalktrace')}"
    elif requirement.url is None:  # no VCS URL to derive: the index, from this version on
        assert str(requirement.specifier) == f">={metadata.version('chalktrace')}"
    (site_line,) = requirement_lines(tmp_path / "a" / "requirements-site.txt")
    assert Requirement(site_line).extras == set() and Requirement(site_line).url == requirement.url


def distributions_named(text: str) -> set[str]:
    """Names of the distributions a requirements file or a shell line asks pip to install."""
    names = set()
    for line in text.splitlines():
        line = line.split("   #")[0].strip()
        if "pip install" in line:
            words = shlex.split(line.split("pip install", 1)[1].split("&&")[0])
            names |= {Requirement(w).name for w in words if not w.startswith(("-", "$")) and not w.endswith(".txt")}
    return names


def test_no_template_file_names_a_distribution_that_is_not_ours(tmp_path):
    course = tmp_path / "c"
    written = create_course(course)
    named: set[str] = set()
    for relative in written:
        text = (course / relative).read_text()
        if relative.startswith("requirements"):
            named |= {Requirement(line).name for line in requirement_lines(course / relative)}
        else:
            named |= distributions_named(text)
    assert named == {"chalktrace"}
    assert "lectrace" not in "".join((course / relative).read_text() for relative in written)


def commands(line: str) -> list[str]:
    """The commands of one shell line: split at &&, a trailing comment dropped."""
    line = line.split("   #")[0]
    return [" ".join(shlex.split(part)) for part in line.split("&&")]


def test_the_workflow_runs_the_readme_commands_and_the_ci_script(tmp_path):
    course = tmp_path / "c"
    create_course(course)
    readme = (course / "README.md").read_text().splitlines()
    build_line, test_line = [line for line in readme[:6] if line.startswith((".venv/", "python3 -m venv"))]
    (publish_line,) = [line for line in readme if "requirements-site.txt &&" in line]

    ci = [
        c
        for line in (course / ".ci" / "run").read_text().splitlines()
        if line.strip().startswith((".venv/", "python3 -m venv")) and "CHALKTRACE_PACKAGE" not in line
        for c in commands(line.strip())
    ]  # CHALKTRACE_PACKAGE: an override for testing a wheel
    # .ci/run: the README's set-up (venv, requirements.txt, with torch's CPU build: constraints.txt) and
    # its test command, in that order.
    venv, install = commands(build_line)[:2]
    assert ci == [venv, install.replace("pip install", "pip install -c constraints.txt")] + commands(test_line)

    workflow = yaml.safe_load((course / ".github" / "workflows" / "site.yml").read_text())
    jobs = workflow["jobs"]
    runs = {job: [step.get("run") for step in spec["steps"] if "run" in step] for job, spec in jobs.items()}
    assert runs["check"] == ["bash .ci/run"]
    assert [commands(r) for r in runs["build"]] == [commands(publish_line)]
    # The publishing command is the README's set-up-and-build with chalktrace installed without torch.
    assert commands(publish_line) == [c.replace("requirements.txt", "requirements-site.txt") for c in commands(build_line)]
    upload = next(s for s in jobs["build"]["steps"] if "upload-pages-artifact" in s.get("uses", ""))
    site_dir = yaml.safe_load((course / "mkdocs.yml").read_text())["site_dir"]
    assert upload["with"]["path"] == site_dir == "build/site"
    assert jobs["build"]["needs"] == "check" and jobs["deploy"]["needs"] == "build"
    assert any("deploy-pages" in s.get("uses", "") for s in jobs["deploy"]["steps"])
    assert jobs["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}


def test_init_makes_the_course_a_git_repository_unless_it_is_inside_one(tmp_path):
    import subprocess
    import sys

    def init(where, *args):
        return subprocess.run([sys.executable, "-m", "tracer", "init", *args], cwd=where, capture_output=True, text=True)

    done = init(tmp_path, "course")
    assert done.returncode == 0 and (tmp_path / "course" / ".git").is_dir()
    assert "initialised a git repository in course/" in done.stderr
    # a course made inside an existing repository stays part of it: no repository nested in it
    assert init(tmp_path / "course", "inner", "-q").returncode == 0
    assert (tmp_path / "course" / "inner" / "README.md").is_file() and not (tmp_path / "course" / "inner" / ".git").exists()


def git(directory: Path, *words: str) -> str:
    return subprocess.run(["git", "-C", str(directory), *words], check=True, capture_output=True, text=True).stdout.strip()


def test_a_git_checkout_with_a_remote_gives_its_url_at_head(tmp_path):
    checkout = tmp_path / "chalktrace"
    checkout.mkdir()
    git(checkout, "init", "-q")
    (checkout / "README.md").write_text("x")
    git(checkout, "add", "README.md")
    git(checkout, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "x")
    head = git(checkout, "rev-parse", "HEAD")
    assert checkout_vcs_url(checkout) is None  # no remote
    git(checkout, "remote", "add", "origin", str(tmp_path / "elsewhere"))
    assert checkout_vcs_url(checkout) is None  # a local path CI cannot reach
    git(checkout, "remote", "set-url", "origin", "https://example.org/course-tools/chalktrace.git")
    assert checkout_vcs_url(checkout) == f"git+https://example.org/course-tools/chalktrace.git@{head}"
    git(checkout, "remote", "set-url", "origin", "git@example.org:course-tools/chalktrace.git")
    assert checkout_vcs_url(checkout) == f"git+ssh://git@example.org/course-tools/chalktrace.git@{head}"
    assert Requirement(f"chalktrace[torch] @ {checkout_vcs_url(checkout)}").url.endswith(head)


def test_constraints_keep_torch_to_the_cpu_build_on_ci(tmp_path):
    course = tmp_path / "c"
    create_course(course)
    lines = requirement_lines(course / "constraints.txt")
    assert lines[0] == "--extra-index-url https://download.pytorch.org/whl/cpu"
    (pin,) = [Requirement(line) for line in lines[1:]]
    torch_version = Version(metadata.version("torch"))
    assert pin.name == "torch" and str(pin.specifier) == f"=={torch_version.public}"
    # ==X matches the CPU index's X+cpu (its local label is ignored) and pip prefers it as the higher version.
    assert pin.specifier.contains(f"{torch_version.public}+cpu") and Version(f"{torch_version.public}+cpu") > Version(
        torch_version.public
    )
    ci = (course / ".ci" / "run").read_text()
    assert ".venv/bin/pip install -c constraints.txt -r requirements.txt" in ci
    assert "-c constraints.txt" in (course / "README.md").read_text()
