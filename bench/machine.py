"""The machine a benchmark ran on: CPU model, cores, memory, Python, platform, load."""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path

__all__ = ["describe_machine", "load_text"]


def _cpu_model() -> str:
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(errors="replace").splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine() or "unknown"


def _memory_gib() -> float | None:
    meminfo = Path("/proc/meminfo")
    if meminfo.exists():
        for line in meminfo.read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 1024**2
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1024**3
    except (ValueError, OSError, AttributeError):
        return None


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def load_text() -> str:
    """The load averages over 1, 5 and 15 minutes (``uptime``'s), e.g. ``3.91, 1.62, 1.35``;
    on a shared machine they say how far absolute figures are to be trusted."""
    try:
        return ", ".join(f"{load:.2f}" for load in os.getloadavg())
    except (OSError, AttributeError):  # not available on this platform
        return "unknown"


def describe_machine() -> dict[str, str]:
    """``{cpu, cores, memory, python, platform}`` as display strings."""
    memory = _memory_gib()
    return {
        "cpu": _cpu_model(),
        "cores": str(_cores()),
        "memory": f"{memory:.1f} GiB" if memory is not None else "unknown",
        "python": f"{platform.python_implementation()} {sys.version.split()[0]}",
        "platform": platform.platform(),
    }
