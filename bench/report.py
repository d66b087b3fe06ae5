"""Writing benchmark figures into docs/benchmarks.md, one section per benchmark."""

from __future__ import annotations

import os
import platform
import re
from datetime import date
from pathlib import Path

HEADER = (
    "# Benchmarks\n\n"
    "Figures written by the scripts under `bench/`; each section says how to reproduce it.\n"
)


def machine_summary() -> str:
    """Returns one line naming the CPU, cores, memory and Python this ran on."""
    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        found = re.search(r"model name\s*:\s*(.+)", cpuinfo.read_text())
        cpu = found.group(1).strip() if found else cpu
    memory = ""
    meminfo = Path("/proc/meminfo")
    if meminfo.exists():
        found = re.search(r"MemTotal:\s*(\d+) kB", meminfo.read_text())
        memory = f", {int(found.group(1)) / 2**20:.0f} GiB" if found else ""
    # Other work on the machine slows every figure: the load says how much there was.
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    return (
        f"Machine: {cpu}, {os.cpu_count()} cores{memory}, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}; load average {load} at the end of the run; "
        f"measured {date.today().isoformat()}."
    )


def write_section(path: Path, title: str, body: str) -> None:
    """Replaces (or appends) the `## title` section of the benchmarks file."""
    text = path.read_text() if path.exists() else HEADER
    section = f"## {title}\n\n{body.strip()}\n"
    pattern = re.compile(rf"^## {re.escape(title)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _: section + "\n", text).rstrip() + "\n"
    else:
        text = text.rstrip() + "\n\n" + section
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
