"""Runners against the real engines: a single-node Slurm and sshd on localhost (no mocks).

Each test traces small CPU lectures through a runner declared in the course's pyproject.toml and
checks what a course would see: the trace in place, where it ran, one-line failures that keep the
previous trace, cancelled jobs gone, stale traces refused.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers.cluster import course, pgrep_lecture, stop_server
from helpers.processes import ctrl_c_as_a_terminal_gives_it

PYTHON = sys.executable
LISTS = """
def main():
    words = ["trace", "me"]  # @inspect words
    count = len(words)  # @inspect count
"""
SLEEPS = """
import time


def main():
    time.sleep(60)  # a lecture that is still running when the job is cancelled
"""
KILLS_ITSELF = """
import os
import signal


def main():
    os.kill(os.getpid(), signal.SIGKILL)  # the job's process dies: no trace is written
"""
SLOW_THEN_DONE = """
import time


def main():
    time.sleep(3)  # the test edits this file meanwhile
    x = 1  # @inspect x
"""


def chalktrace(*args: str, cwd: Path, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PYTHON, "-m", "tracer", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def header(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_a_lecture_traced_through_srun_records_where_it_ran(tmp_path, slurm):
    root = course(
        tmp_path, 'launch = "srun --time=00:05:00 {command}"\nlectures = ["lectures/gpu_*.py"]', {"gpu_lists.py": LISTS}
    )
    done = chalktrace("run", "lectures/gpu_lists.py", cwd=root, env=slurm.env)
    assert done.returncode == 0, done.stderr
    trace = header(root / "site/traces/gpu_lists.json")
    assert trace["status"] == "ok"
    ran_on = trace["ran_on"]
    assert ran_on["runner"] == "cluster" and ran_on["host"] == os.uname().nodename
    assert ran_on["slurm_job_id"].isdigit()
    assert f"Slurm job {ran_on['slurm_job_id']}" in done.stderr
    assert not (root / "build/.chalktrace-runs").exists() or not any((root / "build/.chalktrace-runs").iterdir())


def test_build_fans_three_lectures_out_as_one_job_array(tmp_path, slurm):
    lectures = {f"gpu_{n}.py": LISTS for n in ("a", "b", "c")} | {"here.py": LISTS}
    root = course(tmp_path, 'launch = "srun --time=00:05:00 {command}"\nlectures = ["lectures/gpu_*.py"]', lectures)
    done = chalktrace("build", "--no-site", cwd=root, env=slurm.env)
    assert done.returncode == 0, done.stderr
    jobs = [header(root / f"site/traces/gpu_{n}.json")["ran_on"]["slurm_job_id"] for n in ("a", "b", "c")]
    array = {job.split("_")[0] for job in jobs}
    assert len(array) == 1 and sorted(job.split("_")[1] for job in jobs) == ["0", "1", "2"], jobs
    assert "ran_on" not in header(root / "site/traces/here.json")  # not a runner's lecture: traced here


def test_a_failing_job_names_the_lecture_and_job_and_keeps_the_previous_trace(tmp_path, slurm):
    root = course(tmp_path, 'launch = "srun --time=00:05:00 {command}"\nlectures = ["lectures/gpu_*.py"]', {"gpu_dies.py": LISTS})
    assert chalktrace("run", "lectures/gpu_dies.py", "--runner", "local", cwd=root, env=slurm.env).returncode == 0
    before = (root / "site/traces/gpu_dies.json").read_bytes()
    (root / "lectures/gpu_dies.py").write_text(KILLS_ITSELF)
    done = chalktrace("run", "lectures/gpu_dies.py", cwd=root, env=slurm.env)
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if "lectures/gpu_dies.py: runner cluster" in line]
    assert len(lines) == 1, done.stderr
    assert "Slurm job" in lines[0] and "the previous trace is kept" in lines[0], lines[0]
    assert (root / "site/traces/gpu_dies.json").read_bytes() == before


def test_ctrl_c_cancels_the_job_and_leaves_no_process(tmp_path, slurm):
    root = course(
        tmp_path, 'launch = "srun --time=00:05:00 {command}"\nlectures = ["lectures/gpu_*.py"]', {"gpu_sleeps.py": LISTS}
    )
    assert chalktrace("run", "lectures/gpu_sleeps.py", cwd=root, env=slurm.env).returncode == 0
    before = (root / "site/traces/gpu_sleeps.json").read_bytes()
    (root / "lectures/gpu_sleeps.py").write_text(SLEEPS)
    process = subprocess.Popen(
        [PYTHON, "-m", "tracer", "run", "lectures/gpu_sleeps.py"],
        cwd=root,
        env=slurm.env,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=ctrl_c_as_a_terminal_gives_it,
    )
    deadline = time.monotonic() + 60
    while not any("RUNNING" in line for line in slurm.squeue()) or not pgrep_lecture(root / "lectures/gpu_sleeps.py"):
        assert time.monotonic() < deadline and process.poll() is None, "the job never ran"
        time.sleep(0.2)
    process.send_signal(signal.SIGINT)  # as the terminal's Ctrl-C does
    _out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    deadline = time.monotonic() + 30
    while slurm.squeue() or pgrep_lecture(root / "lectures/gpu_sleeps.py"):
        assert time.monotonic() < deadline, f"left behind: {slurm.squeue()} {pgrep_lecture(root / 'lectures/gpu_sleeps.py')}"
        time.sleep(0.2)
    assert (root / "site/traces/gpu_sleeps.json").read_bytes() == before


def test_a_lecture_edited_while_it_ran_remotely_comes_back_stale_and_is_refused(tmp_path, sshd):
    remote = tmp_path / "remote-home"
    runner = f'host = "127.0.0.1"\n{sshd.runner_toml()}\nremote_dir = "{remote}"\npython = "{PYTHON}"\nlectures = ["lectures/gpu_*.py"]'
    root = course(tmp_path / "course", runner, {"gpu_slow.py": LISTS})
    assert chalktrace("run", "lectures/gpu_slow.py", "--runner", "local", cwd=root, env=dict(os.environ)).returncode == 0
    before = (root / "site/traces/gpu_slow.json").read_bytes()
    (root / "lectures/gpu_slow.py").write_text(SLOW_THEN_DONE)
    process = subprocess.Popen(
        [PYTHON, "-m", "tracer", "run", "lectures/gpu_slow.py"], cwd=root, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 60
    while not list(remote.glob("work/*/lectures/gpu_slow.py")):  # sent: the host traces that copy
        assert time.monotonic() < deadline and process.poll() is None, "the lecture was never sent"
        time.sleep(0.1)
    (root / "lectures/gpu_slow.py").write_text(SLOW_THEN_DONE.replace("x = 1", "x = 2"))
    _out, err = process.communicate(timeout=60)
    assert process.returncode != 0
    line = err.strip().splitlines()[-1]
    assert line.startswith("lectures/gpu_slow.py: runner cluster (127.0.0.1): the trace refused as stale"), err
    assert "lectures/gpu_slow.py differ here" in line and line.endswith("the previous trace is kept")
    assert (root / "site/traces/gpu_slow.json").read_bytes() == before


def test_a_lecture_traced_over_ssh_sends_only_what_the_host_lacks(tmp_path, sshd):
    remote = tmp_path / "remote-home"
    runner = f'host = "127.0.0.1"\n{sshd.runner_toml()}\nremote_dir = "{remote}"\npython = "{PYTHON}"\nlectures = ["lectures/gpu_*.py"]'
    root = course(tmp_path / "course", runner, {"gpu_lists.py": LISTS, "_helper.py": "X = 1\n"})
    (root / "lectures/data.txt").write_text("some data the lecture reads\n")
    done = chalktrace("run", "lectures/gpu_lists.py", cwd=root, env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    trace = header(root / "site/traces/gpu_lists.json")
    assert trace["ran_on"] == {"runner": "cluster", "host": os.uname().nodename, "slurm_job_id": None}
    store = sorted(p.name for p in (remote / "store").iterdir())
    assert len(store) > 50  # the lectures, the data file and chalktrace's own source
    assert not any((remote / "work").iterdir())  # the run's work tree is gone again
    (root / "lectures/gpu_lists.py").write_text(LISTS.replace('"me"', '"me", "again"'))
    assert chalktrace("run", "lectures/gpu_lists.py", cwd=root, env=dict(os.environ)).returncode == 0
    added = sorted(set(p.name for p in (remote / "store").iterdir()) - set(store))
    assert len(added) == 1  # only the edited lecture was sent again
    assert header(root / "site/traces/gpu_lists.json")["steps"]


def test_ssh_and_slurm_together_trace_on_the_cluster(tmp_path, sshd, slurm):
    remote = tmp_path / "remote-home"
    runner = (
        f'host = "127.0.0.1"\n{sshd.runner_toml()}\nremote_dir = "{remote}"\npython = "{PYTHON}"\n'
        f'setup = "export SLURM_CONF={slurm.conf}"\nlaunch = "srun --time=00:05:00 {{command}}"\nlectures = ["lectures/gpu_*.py"]'
    )
    root = course(tmp_path / "course", runner, {"gpu_lists.py": LISTS})
    done = chalktrace("run", "lectures/gpu_lists.py", cwd=root, env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    assert header(root / "site/traces/gpu_lists.json")["ran_on"]["slurm_job_id"].isdigit()


def test_a_host_that_cannot_be_reached_is_one_line_and_keeps_the_trace(tmp_path, sshd):
    from helpers.network import free_port

    closed = free_port()
    options = [o if o != str(sshd.port) else str(closed) for o in sshd.options]
    runner = 'host = "127.0.0.1"\nssh = [' + ", ".join(f'"{o}"' for o in options) + ']\nlectures = ["lectures/gpu_*.py"]'
    root = course(tmp_path, runner, {"gpu_lists.py": LISTS})
    assert chalktrace("run", "lectures/gpu_lists.py", "--runner", "local", cwd=root, env=dict(os.environ)).returncode == 0
    before = (root / "site/traces/gpu_lists.json").read_bytes()
    done = chalktrace("run", "lectures/gpu_lists.py", cwd=root, env=dict(os.environ))
    assert done.returncode != 0
    assert (
        done.stderr.strip()
        .splitlines()[-1]
        .startswith("lectures/gpu_lists.py: runner cluster (127.0.0.1): cannot connect to 127.0.0.1")
    )
    assert (root / "site/traces/gpu_lists.json").read_bytes() == before


def test_runner_settings_and_names_are_checked_in_one_line(tmp_path):
    root = course(tmp_path, 'launch = "srun -p gpu"\nlectures = ["lectures/gpu_*.py"]', {"gpu_lists.py": LISTS})
    done = chalktrace("run", "lectures/gpu_lists.py", cwd=root, env=dict(os.environ))
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "chalktrace: pyproject.toml: [tool.chalktrace.runners.cluster]: launch must name {command} once, "
        'e.g. "srun -p gpu --gres=gpu:1 {command}"'
    )
    root = course(tmp_path / "two", 'launch = "{command}"', {"gpu_lists.py": LISTS})
    done = chalktrace("run", "lectures/gpu_lists.py", "--runner", "gpu", cwd=root, env=dict(os.environ))
    assert done.returncode == 2
    assert "--runner gpu: no [tool.chalktrace.runners.gpu] in pyproject.toml (runners: cluster)" in done.stderr


def test_serve_re_traces_a_saved_lecture_through_slurm_and_the_open_page_says_so_then_reloads(tmp_path, slurm, browser):
    import shutil

    from helpers.network import free_port, wait_until_served

    repo = Path(__file__).resolve().parents[2]
    root = course(tmp_path, 'launch = "srun --time=00:05:00 {command}"\nlectures = ["lectures/gpu_*.py"]', {"gpu_page.py": LISTS})
    shutil.copy(repo / "mkdocs.yml", root / "mkdocs.yml")
    shutil.copytree(repo / "site" / "docs", root / "site" / "docs")
    port = free_port()
    server = subprocess.Popen(
        [PYTHON, "-m", "tracer", "serve", "-a", f"127.0.0.1:{port}"],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=dict(slurm.env, NO_MKDOCS_2_WARNING="1"),
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/lectures/gpu_page/"
    try:
        wait_until_served(url, server, 120)
        page = browser.new_page()
        page.goto(url)
        first_job = header(root / "site/traces/gpu_page.json")["ran_on"]["slurm_job_id"]
        assert page.locator(".lt-ran-on").inner_text() == f"traced on {os.uname().nodename}, Slurm job {first_job}"
        (root / "lectures/gpu_page.py").write_text(SLOW_THEN_DONE)  # saved: away to Slurm for three seconds
        status = page.locator(".lt-retracing")
        status.wait_for(state="visible", timeout=30_000)
        page.wait_for_function(
            "() => /^re-tracing on cluster \\(job \\d+\\)…$/.test(document.querySelector('.lt-retracing').textContent)",
            timeout=30_000,
        )
        job = status.inner_text().split("job ")[1].rstrip(")…")
        assert status.get_attribute("role") == "status"
        page.wait_for_function(
            f"() => (document.querySelector('.lt-ran-on') || {{}}).textContent?.endsWith('Slurm job {job}')", timeout=60_000
        )
        assert header(root / "site/traces/gpu_page.json")["ran_on"]["slurm_job_id"] == job
        assert not page.locator(".lt-retracing").is_visible()
        page.close()
    finally:
        stop_server(server)


def test_a_job_cancelled_on_the_cluster_is_named_and_the_previous_trace_kept(tmp_path, slurm):
    root = course(tmp_path, 'launch = "srun --time=00:05:00 {command}"\nlectures = ["lectures/gpu_*.py"]', {"gpu_away.py": LISTS})
    assert chalktrace("run", "lectures/gpu_away.py", "--runner", "local", cwd=root, env=slurm.env).returncode == 0
    before = (root / "site/traces/gpu_away.json").read_bytes()
    (root / "lectures/gpu_away.py").write_text(SLEEPS)
    process = subprocess.Popen(
        [PYTHON, "-m", "tracer", "run", "lectures/gpu_away.py"], cwd=root, env=slurm.env, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 60
    while not any("RUNNING" in line for line in slurm.squeue()):
        assert time.monotonic() < deadline and process.poll() is None, "the job never ran"
        time.sleep(0.2)
    job = slurm.squeue()[0].split()[0]
    subprocess.run(["scancel", job], env=slurm.env, check=True)  # an administrator, or a preemption
    _out, err = process.communicate(timeout=60)
    assert process.returncode != 0
    line = err.strip().splitlines()[-1]
    assert line.startswith(f"lectures/gpu_away.py: runner cluster: Slurm job {job} was cancelled"), err
    assert line.endswith("the previous trace is kept")
    assert (root / "site/traces/gpu_away.json").read_bytes() == before


def test_a_host_whose_chalktrace_is_another_version_is_refused_before_anything_runs(tmp_path, sshd):
    import shutil

    import tracer

    other = tmp_path / "other-chalktrace"
    shutil.copytree(Path(tracer.__file__).parent, other / "tracer", ignore=shutil.ignore_patterns("__pycache__"))
    init = other / "tracer" / "__init__.py"
    init.write_text(init.read_text().replace(f'__version__ = "{tracer.__version__}"', '__version__ = "0.0.1"'))
    runner = (
        f'host = "127.0.0.1"\n{sshd.runner_toml()}\nremote_dir = "{tmp_path / "remote-home"}"\npython = "{PYTHON}"\n'
        f'chalktrace = "installed"\nsetup = "export PYTHONPATH={other}"\nlectures = ["lectures/gpu_*.py"]'
    )
    root = course(tmp_path / "course", runner, {"gpu_lists.py": LISTS})
    done = chalktrace("run", "lectures/gpu_lists.py", cwd=root, env=dict(os.environ))
    assert done.returncode != 0
    assert done.stderr.strip().splitlines()[-1] == (
        f"lectures/gpu_lists.py: runner cluster (127.0.0.1): chalktrace 0.0.1 there, this is {tracer.__version__}; "
        "install the same version there; the previous trace is kept"
    )
    assert not (root / "site/traces/gpu_lists.json").exists()


def test_a_dropped_connection_is_one_line_and_ends_the_remote_run(tmp_path, sshd):
    remote = tmp_path / "remote-home"
    runner = f'host = "127.0.0.1"\n{sshd.runner_toml()}\nremote_dir = "{remote}"\npython = "{PYTHON}"\nlectures = ["lectures/gpu_*.py"]'
    root = course(tmp_path / "course", runner, {"gpu_long.py": SLEEPS})
    process = subprocess.Popen(
        [PYTHON, "-m", "tracer", "run", "lectures/gpu_long.py"], cwd=root, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 60
    while not [
        p for p in pgrep_lecture(root / "lectures/gpu_long.py") if " -m tracer run lectures/gpu_long.py -o .chalktrace" in p
    ]:
        assert time.monotonic() < deadline and process.poll() is None, "the lecture never ran on the host"
        time.sleep(0.2)
    assert sshd.drop_connections() >= 1
    # chalktrace's own bounds: ssh notices a silent drop within 30 s (ServerAliveInterval 10, three
    # probes), and ending the remote run over a new connection is capped at 60 s.
    try:
        _out, err = process.communicate(timeout=30 + 60 + 30)
    except subprocess.TimeoutExpired:
        process.kill()
        _out, err = process.communicate()
        pytest.fail(
            f"chalktrace run did not end after the drop; its stderr: {err!r}; the lecture's processes: {pgrep_lecture(root / 'lectures/gpu_long.py')}"
        )
    assert process.returncode != 0
    line = err.strip().splitlines()[-1]
    assert line.startswith(
        "lectures/gpu_long.py: runner cluster (127.0.0.1): ssh to 127.0.0.1 failed while running job chalktrace-"
    ), err
    deadline = time.monotonic() + 30
    while [p for p in pgrep_lecture(root / "lectures/gpu_long.py") if str(remote) in p or ".chalktrace/out" in p]:
        assert time.monotonic() < deadline, pgrep_lecture(root / "lectures/gpu_long.py")
        time.sleep(0.2)
    assert not (root / "site/traces/gpu_long.json").exists()


def test_ctrl_c_while_the_connection_hangs_ends_the_remote_run_over_a_new_one(tmp_path, sshd):
    remote = tmp_path / "remote-home"
    runner = f'host = "127.0.0.1"\n{sshd.runner_toml()}\nremote_dir = "{remote}"\npython = "{PYTHON}"\nlectures = ["lectures/gpu_*.py"]'
    root = course(tmp_path / "course", runner, {"gpu_hangs.py": SLEEPS})
    process = subprocess.Popen(
        [PYTHON, "-m", "tracer", "run", "lectures/gpu_hangs.py"],
        cwd=root,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=ctrl_c_as_a_terminal_gives_it,
    )
    lecture = root / "lectures/gpu_hangs.py"
    deadline = time.monotonic() + 60
    while not [p for p in pgrep_lecture(lecture) if " -m tracer run lectures/gpu_hangs.py -o .chalktrace" in p]:
        assert time.monotonic() < deadline and process.poll() is None, "the lecture never ran on the host"
        time.sleep(0.2)
    assert sshd.hang_connections() >= 1
    try:
        started = time.monotonic()
        process.send_signal(signal.SIGINT)  # as the terminal's Ctrl-C does
        # Well inside the 60 s that the cancel's own command may take: it must not wait on the
        # connection that hangs, nor for ssh to give that connection up (30 s).
        _out, err = process.communicate(timeout=25)
        assert process.returncode == 130, err
        while [p for p in pgrep_lecture(lecture) if str(remote) in p or ".chalktrace/out" in p]:
            assert time.monotonic() < started + 25, pgrep_lecture(lecture)
            time.sleep(0.2)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
        sshd.drop_connections()
        for left in pgrep_lecture(lecture):  # a remote run the cancel never reached, so that no later test sees it
            if ".chalktrace/out" in left:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(left.split()[0]), signal.SIGKILL)
    assert not (root / "site/traces/gpu_hangs.json").exists()


# What the job leaves where the trace should be: cut short mid-JSON, or JSON the trace schema refuses.
TRUNCATES = "truncate -s 200 build/.chalktrace-runs/*/gpu_bad.json"
BREAKS_SCHEMA = (
    f'{PYTHON} -c \'import glob, json; p = glob.glob("build/.chalktrace-runs/*/gpu_bad.json")[0]; '
    't = json.load(open(p)); t["status"] = 42; json.dump(t, open(p, "w"))\''
)


@pytest.mark.parametrize(
    ("corrupt", "said"), [(TRUNCATES, "not valid JSON"), (BREAKS_SCHEMA, "status")], ids=["truncated", "schema"]
)
def test_a_trace_that_comes_back_invalid_is_refused_in_one_line_and_the_previous_trace_kept(tmp_path, slurm, corrupt, said):
    # the job itself succeeds; what it wrote is damaged after the run, as a full disk or a bad copy would
    launch = f"launch = '''srun --time=00:05:00 {{command}} && {corrupt}'''\nlectures = [\"lectures/gpu_*.py\"]"
    root = course(tmp_path, launch, {"gpu_bad.py": LISTS})
    assert chalktrace("run", "lectures/gpu_bad.py", "--runner", "local", cwd=root, env=slurm.env).returncode == 0
    before = (root / "site/traces/gpu_bad.json").read_bytes()
    (root / "lectures/gpu_bad.py").write_text(LISTS.replace("len(words)", "len(words) + 1"))
    done = chalktrace("run", "lectures/gpu_bad.py", cwd=root, env=slurm.env)
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    line = lines[-1]
    assert line.startswith("lectures/gpu_bad.py: runner cluster: the trace (Slurm job "), done.stderr
    assert ") came back invalid: " in line and said in line and line.endswith("; the previous trace is kept"), line
    assert "Traceback" not in done.stderr and sum("lectures/gpu_bad.py: " in entry for entry in lines) == 1, done.stderr
    assert (root / "site/traces/gpu_bad.json").read_bytes() == before


def rank_values(trace: dict) -> list[list[tuple[int, dict, str, list]]]:
    """Each rank's steps as (line, recorded values, output, collectives): what a reader sees, no timings."""
    return [
        [
            (step["stack"][-1]["line"], step["env"], step["stdout"], [c["op"] for c in step.get("collectives", [])])
            for step in stream["steps"]
        ]
        for stream in trace["ranks"]["launches"][0]["streams"]
    ]


def test_a_two_rank_lecture_started_through_srun_merges_to_the_same_trace_as_a_local_launch(tmp_path, slurm):
    from tracer.contract.trace_reading import load_trace

    allreduce = (Path(__file__).parents[1] / "lectures/torchrun_allreduce.py").read_text()
    root = course(
        tmp_path, 'launch = "srun --time=00:05:00 {command}"\nlectures = ["lectures/gpu_*.py"]', {"gpu_allreduce.py": allreduce}
    )
    here = chalktrace(
        "run", "--nproc-per-node", "2", "lectures/gpu_allreduce.py", "-o", "local.json", cwd=root, env=slurm.env, timeout=200
    )
    assert here.returncode == 0, here.stderr[-2000:]
    done = chalktrace(
        "run", "--nodes", "1", "--nproc-per-node", "2", "lectures/gpu_allreduce.py", cwd=root, env=slurm.env, timeout=200
    )
    assert done.returncode == 0, done.stderr[-2000:]
    through_slurm, local = load_trace(root / "site/traces/gpu_allreduce.json"), load_trace(root / "local.json")
    launch = through_slurm["ranks"]["launches"][0]
    assert launch["world_size"] == 2 and len(launch["streams"]) == 2
    assert rank_values(through_slurm) == rank_values(local)
    assert [step[1]["x"]["values"] for step in rank_values(through_slurm)[1] if "x" in step[1]][-1] == [
        3.0,
        3.0,
    ]  # rank 1 after the all-reduce of 1s and 2s
    assert not slurm.squeue()
    assert not any((root / "build/.chalktrace-runs").glob("ranks-*"))


RANKS_SLEEP = """
import time

import torch.distributed as dist


def main():
    dist.init_process_group("gloo")
    time.sleep(60)  # both ranks are still running when the launch is interrupted
"""


def test_ctrl_c_cancels_a_rank_launch_through_srun_and_leaves_no_rank_behind(tmp_path, slurm):
    root = course(
        tmp_path, 'launch = "srun --time=00:05:00 {command}"\nlectures = ["lectures/gpu_*.py"]', {"gpu_ranks.py": RANKS_SLEEP}
    )
    process = subprocess.Popen(
        [PYTHON, "-m", "tracer", "run", "--nodes", "1", "--nproc-per-node", "2", "lectures/gpu_ranks.py"],
        cwd=root,
        env=slurm.env,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=ctrl_c_as_a_terminal_gives_it,
    )
    deadline = time.monotonic() + 90
    while len([p for p in pgrep_lecture(root / "lectures/gpu_ranks.py") if "--shard-dir" in p and "bash" not in p]) < 2:
        assert time.monotonic() < deadline and process.poll() is None, "the ranks never ran"
        time.sleep(0.2)
    process.send_signal(signal.SIGINT)  # as the terminal's Ctrl-C does
    _out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    deadline = time.monotonic() + 30
    while slurm.squeue() or pgrep_lecture(root / "lectures/gpu_ranks.py"):
        assert time.monotonic() < deadline, f"left behind: {slurm.squeue()} {pgrep_lecture(root / 'lectures/gpu_ranks.py')}"
        time.sleep(0.2)
    assert not (root / "site/traces/gpu_ranks.json").exists()
    assert not any((root / "build/.chalktrace-runs").glob("ranks-*"))
