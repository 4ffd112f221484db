"""Run one command; print its wall time and peak RSS (from wait4 rusage) as JSON.

Used by the benchmarks so Node and native binaries are measured the same way.
Usage: measure.py -- CMD [ARGS...]   (stdin/stdout go to /dev/null, stderr is kept on failure)
"""
import json
import resource
import subprocess
import sys
import time

argv = sys.argv[sys.argv.index("--") + 1 :]
start = time.perf_counter()
proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall_ms = (time.perf_counter() - start) * 1000
rss_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"wall_ms": wall_ms, "max_rss_kb": rss_kb, "exit": proc.returncode, "stderr": proc.stderr.decode(errors="replace")[-2000:]}))
