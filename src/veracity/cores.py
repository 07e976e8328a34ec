"""`usable_cores`: how many CPU cores this process can keep busy.

The count sizes `veracity serve`'s worker processes and the entailment model's concurrent runs.
The affinity mask alone overstates it in a container: `docker run --cpus 2` on a 64-core host
leaves all 64 cores in the mask and caps the time through the cgroup's CPU quota, so a server
sized by the mask would start 64 workers, each with its own models, to share two cores' time.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
PROC_CGROUP = Path("/proc/self/cgroup")


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask), capped by its cgroup's CPU quota."""
    counted = getattr(os, "process_cpu_count", None)  # Python 3.13+
    if counted is not None:
        cores = int(counted() or 1)
    elif hasattr(os, "sched_getaffinity"):
        cores = len(os.sched_getaffinity(0)) or 1
    else:
        cores = os.cpu_count() or 1
    quota = cgroup_cpu_quota()
    return max(1, min(cores, math.ceil(quota))) if quota is not None else cores


def cgroup_cpu_quota(root: Path = CGROUP_ROOT, membership: Path = PROC_CGROUP) -> float | None:
    """The CPU time this process's cgroups allow, in cores (1.5: one and a half), or None: no quota.

    cgroup v2 keeps the quota in ``cpu.max`` ("200000 100000", or "max 100000" for none) in the
    process's group and each group above it, the smallest one binding; v1 in ``cpu.cfs_quota_us``
    (-1 for none) over ``cpu.cfs_period_us`` of the ``cpu`` controller's group. Unreadable files
    (no cgroups, another platform) mean no quota.
    """
    try:
        lines = membership.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    limits: list[float] = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, group = parts
        if controllers == "":  # v2: one unified hierarchy
            limits += _v2_limits(root, group)
        elif "cpu" in controllers.split(","):
            limits += _v1_limits(root / controllers, group)
    return min(limits) if limits else None


def _v2_limits(root: Path, group: str) -> list[float]:
    """The quotas in ``cpu.max`` from the group up to the root of the v2 hierarchy."""
    limits = []
    folder = root / group.strip("/")
    while True:
        try:
            quota, period = (folder / "cpu.max").read_text(encoding="ascii").split()
            if quota != "max" and int(period) > 0:
                limits.append(int(quota) / int(period))
        except (OSError, ValueError):
            pass
        if folder == root or root not in folder.parents:
            return limits
        folder = folder.parent


def _v1_limits(hierarchy: Path, group: str) -> list[float]:
    """The quota of the v1 ``cpu`` group, read in the group's folder or, in a container, at the mount's root."""
    for folder in dict.fromkeys((hierarchy / group.strip("/"), hierarchy)):
        try:
            quota = int((folder / "cpu.cfs_quota_us").read_text(encoding="ascii"))
            period = int((folder / "cpu.cfs_period_us").read_text(encoding="ascii"))
        except (OSError, ValueError):
            continue
        return [quota / period] if quota > 0 and period > 0 else []
    return []
