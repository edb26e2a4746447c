"""Another CPU's kernels, run here where this CPU can run them.

A BLAS kernel forced (``OPENBLAS_CORETYPE``) on a CPU without the instructions it executes dies
of SIGILL: SkylakeX's AVX-512 kernel on an AMD EPYC. Each kernel is listed with the x86 flags
(as /proc/cpuinfo names them) it needs, so a test runs the ones this CPU has and skips the
others with the reason.
"""

from __future__ import annotations

from pathlib import Path

AVX512 = frozenset({"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"})
AVX2 = frozenset({"avx", "avx2", "fma"})
# OpenBLAS's per-architecture kernels, newest first, with what each needs
KERNELS: dict[str, frozenset[str]] = {"SkylakeX": AVX512, "Haswell": AVX2, "Zen": AVX2,
                                      "Sandybridge": frozenset({"avx"}), "Nehalem": frozenset({"sse4_2"})}


def cpu_flags() -> frozenset[str]:
    """This CPU's flags (Linux's /proc/cpuinfo; none known elsewhere, nor on a CPU that is not
    x86, where OpenBLAS's x86 kernels do not exist)."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return frozenset()
    line = next((line for line in text.splitlines() if line.startswith("flags")), "")
    return frozenset(line.partition(":")[2].split())


def newest_kernel() -> str | None:
    """The newest of ``KERNELS`` this CPU runs (None: none of them)."""
    flags = cpu_flags()
    return next((name for name, needs in KERNELS.items() if needs <= flags), None)
