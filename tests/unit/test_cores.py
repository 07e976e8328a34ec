"""Usable cores: the affinity mask capped by a cgroup CPU quota (v1 and v2), read from fake cgroup trees."""

from __future__ import annotations

from pathlib import Path

import pytest

from veracity import cores
from veracity.cores import cgroup_cpu_quota, usable_cores


def tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_v2_quota_of_the_process_group(tmp_path: Path) -> None:
    root = tree(tmp_path / "cgroup", {"cpu.max": "max 100000\n", "app/cpu.max": "150000 100000\n"})
    membership = tree(tmp_path, {"proc": "0::/app\n"}) / "proc"
    assert cgroup_cpu_quota(root, membership) == 1.5


def test_v2_the_smallest_quota_on_the_way_up_binds(tmp_path: Path) -> None:
    root = tree(tmp_path / "cgroup", {"cpu.max": "max 100000\n", "outer/cpu.max": "100000 100000\n",
                                      "outer/inner/cpu.max": "max 100000\n"})
    membership = tree(tmp_path, {"proc": "0::/outer/inner\n"}) / "proc"
    assert cgroup_cpu_quota(root, membership) == 1.0


def test_v2_without_a_quota(tmp_path: Path) -> None:
    root = tree(tmp_path / "cgroup", {"cpu.max": "max 100000\n"})
    membership = tree(tmp_path, {"proc": "0::/\n"}) / "proc"
    assert cgroup_cpu_quota(root, membership) is None


def test_v1_quota_in_a_container_where_the_group_path_is_not_mounted(tmp_path: Path) -> None:
    # Inside a container the cpu hierarchy's root is the container's own group.
    root = tree(tmp_path / "cgroup", {"cpu,cpuacct/cpu.cfs_quota_us": "250000\n",
                                      "cpu,cpuacct/cpu.cfs_period_us": "100000\n"})
    membership = tree(tmp_path, {"proc": "4:memory:/docker/abc\n2:cpu,cpuacct:/docker/abc\n"}) / "proc"
    assert cgroup_cpu_quota(root, membership) == 2.5


def test_v1_unlimited_and_missing_files_mean_no_quota(tmp_path: Path) -> None:
    root = tree(tmp_path / "cgroup", {"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"})
    membership = tree(tmp_path, {"proc": "1:cpu:/\n"}) / "proc"
    assert cgroup_cpu_quota(root, membership) is None
    assert cgroup_cpu_quota(root, tmp_path / "no-such-file") is None


def test_the_quota_caps_the_affinity_mask_rounded_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cores.os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    monkeypatch.delattr(cores.os, "process_cpu_count", raising=False)
    monkeypatch.setattr(cores, "cgroup_cpu_quota", lambda: 1.5)
    assert usable_cores() == 2
    monkeypatch.setattr(cores, "cgroup_cpu_quota", lambda: 0.2)
    assert usable_cores() == 1
    monkeypatch.setattr(cores, "cgroup_cpu_quota", lambda: None)
    assert usable_cores() == 64
