#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""scripts/bench's arithmetic: read build/bench/raw, print the table, write results.md.

usage: bench_report.py RAW_DIR RESULTS_MD PAIRS SECONDS HAVE_RECORD COMMAND

Raw files per run (RAW/<workload>.<condition>.<pair>.*):
  .wl     stress-ng --yaml output, or the inversion workload's JSON line
  .time   "<wall ns> <tracer on-CPU ns>" over the workload
  .st0/1  "<id> <name> <run_time_ns> <run_cnt>" per program, before and after
  .hwm    the tracer's peak RSS (VmHWM, KiB)
  .out    lockstall's --json output (its last line is the summary)
"""
import glob
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys

RAW, MD, PAIRS, SECS, HAVE_RECORD, COMMAND = sys.argv[1:7]
CONDS = ["base", "floor", "clock", "watch"] + (["record"] if HAVE_RECORD == "1" else []) + ["bpftrace"]
WORKLOADS = ["switch", "mmap", "fault", "mixed", "inversion", "syscall", "futex", "mutex", "klock"]
# Others asked for by --workloads (switch2, mmap4): after the standard ones.
WORKLOADS += sorted({f.split(".")[0] for f in os.listdir(RAW) if f.endswith(".ids0") and ".base." in f}
                    - set(WORKLOADS))
LOCK_TPS = ("start_locking", "acquire_returned", "released")


def tracepoint(name):
    """Program name (lockstall ls_*, floor fl_*, bpftrace's 15-char ones) -> tracepoint."""
    for key, tp in (("sys_enter", "sys_enter"), ("sys_exit", "sys_exit"),
                    ("contention_b", "contention_begin"), ("contention_e", "contention_end"),
                    ("process_exec", "sched_process_exec"),
                    ("switch", "sched_switch"), ("waking", "sched_waking"),
                    ("wakeup", "sched_wakeup"), ("migrate", "sched_migrate_task"),
                    ("process_e", "sched_process_exit"), ("page_fault", "page_fault_user"),
                    ("start", "start_locking"), ("acqui", "acquire_returned"),
                    ("relea", "released")):
        if key in name:
            return tp
    return None


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def throughput(path):
    """bogo-ops/s (geometric mean over stressors), or the inversion victim's calls/s."""
    text = read(path)
    if text is None:
        return None
    text = text.strip()
    if text.startswith("{"):
        j = json.loads(text.splitlines()[-1])
        span = (j["end_ns"] - j["start_ns"]) / 1e9
        return j["calls"] / span if span > 0 else None
    rates = [float(v) for v in re.findall(r"bogo-ops-per-second-real-time:\s*([0-9.eE+-]+)", text)]
    rates = [r for r in rates if r > 0]
    if not rates:
        return None
    return math.exp(sum(math.log(r) for r in rates) / len(rates))


def progs(pfx):
    """{tracepoint: (d_run_time_ns, d_run_cnt)} over the run."""
    s0, s1 = read(pfx + ".st0"), read(pfx + ".st1")
    if s0 is None or s1 is None:
        return {}
    before = {}
    for line in s0.split("\n"):
        f = line.split()
        if len(f) == 4:
            before[f[0]] = (int(f[2]), int(f[3]))
    out = {}
    for line in s1.split("\n"):
        f = line.split()
        if len(f) != 4:
            continue
        tp = tracepoint(f[1])
        if tp is None:
            continue
        t0, c0 = before.get(f[0], (0, 0))
        dt, dc = int(f[2]) - t0, int(f[3]) - c0
        ot, oc = out.get(tp, (0, 0))
        out[tp] = (ot + dt, oc + dc)
    return out


def summary(pfx):
    """lockstall's totals: the --json summary line, or record's closing line on stderr."""
    text = read(pfx + ".out")
    if not text:
        err = read(pfx + ".err") or ""
        rec = re.findall(r"recorded (\d+) events", err)
        if not rec:
            return None
        drops = re.findall(r"(\d+) dropped", err)
        size = read(pfx + ".size")
        return {"events": int(rec[-1]), "lost_events": int(drops[-1]) if drops else 0,
                "bytes": int(size) if size and size.strip() else None}
    for line in reversed(text.strip().split("\n")):
        try:
            j = json.loads(line)
        except ValueError:
            continue
        if j.get("type") == "summary":
            return j
    return None


def run(wl, cond, pair):
    pfx = os.path.join(RAW, "%s.%s.%s" % (wl, cond, pair))
    t = read(pfx + ".time")
    if t is None:
        return None
    wall, cpu = (int(x) for x in t.split())
    hwm = read(pfx + ".hwm")
    return {
        "tput": throughput(pfx + ".wl"),
        "wall": wall,
        "cpu": cpu,
        "hwm": int(hwm) if hwm and hwm.strip() else None,
        "progs": progs(pfx),
        "summary": summary(pfx),
    }


def ns_per(progs_, tps=None):
    t = sum(v[0] for k, v in progs_.items() if tps is None or k in tps)
    c = sum(v[1] for k, v in progs_.items() if tps is None or k in tps)
    return (t / c if c else None), c


def fmt(v, spec="%.0f", none="-"):
    return none if v is None else spec % v


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def machine():
    cpu = "?"
    for line in (read("/proc/cpuinfo") or "").split("\n"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem = 0
    for line in (read("/proc/meminfo") or "").split("\n"):
        if line.startswith("MemTotal:"):
            mem = int(line.split()[1]) // 1024 // 1024
    try:
        bt = subprocess.run(["bpftrace", "--version"], capture_output=True, text=True).stdout.strip()
        sng = subprocess.run(["stress-ng", "--version"], capture_output=True, text=True).stdout.split(",")[1].strip()
    except (OSError, IndexError):
        bt, sng = "?", "?"
    return "%s, %d CPUs (%s), %d GiB RAM, kernel %s; %s, stress-ng %s" % (
        platform.node(), os.cpu_count(), cpu, mem, platform.release(), bt, sng)


lines = []


def out(s=""):
    lines.append(s)


workloads = [w for w in WORKLOADS if glob.glob(os.path.join(RAW, w + ".base.*.time"))]
pairs = sorted({int(p.split(".")[-2]) for p in glob.glob(os.path.join(RAW, "*.base.*.time"))})

out("Machine: %s." % machine())
la0 = (read(os.path.join(RAW, "loadavg.start")) or "?").strip()
la1 = (read(os.path.join(RAW, "loadavg.end")) or "?").strip()
out("Load average (1, 5, 15 min) before the runs: %s; after: %s." % (la0, la1))
out("Command: `%s` (%s pairs of %s-second runs per workload, conditions interleaved; "
    "kernel.bpf_stats_enabled=1 in every run)." % (COMMAND.strip(), PAIRS, SECS))
out()
out("| workload | condition | throughput vs base (median, min..max) | events/s | ns/event all | sched_switch ns | mmap_lock ns | BPF CPU % | tracer CPU % | peak RSS MB | records / drops |")
out("|---|---|---|---|---|---|---|---|---|---|---|")

agg = {}
for wl in workloads:
    base_tput = med([(run(wl, "base", p) or {}).get("tput") for p in pairs])
    for cond in CONDS:
        if cond == "record" and HAVE_RECORD != "1":
            continue
        ratios, cpus, hwms, pooled = [], [], [], {}
        events = wall = 0
        recs = drops = 0
        have_sum = False
        for p in pairs:
            r = run(wl, cond, p)
            b = run(wl, "base", p)
            if not r or not b or not r["tput"] or not b["tput"]:
                continue
            ratios.append(r["tput"] / b["tput"])
            if cond != "base":
                cpus.append(100.0 * r["cpu"] / r["wall"])
                hwms.append(r["hwm"])
            for k, (t, c) in r["progs"].items():
                ot, oc = pooled.get(k, (0, 0))
                pooled[k] = (ot + t, oc + c)
                events += c
            wall += r["wall"]
            if r["summary"]:
                have_sum = True
                recs += r["summary"].get("events", 0)
                drops += r["summary"].get("lost_events", 0)
        if not ratios:
            continue
        m = med(ratios)
        agg[(wl, cond)] = {"ratio": m, "pooled": pooled, "cpu": med(cpus),
                           "hwm": max([h for h in hwms if h] or [0]) / 1024.0,
                           "recs": recs, "drops": drops}
        rng = "%.3f (%.3f..%.3f)" % (m, min(ratios), max(ratios))
        if cond == "base":
            rng = "1 (%s ops/s)" % fmt(base_tput, "%.4g")
        all_ns, _ = ns_per(pooled)
        sw_ns, _ = ns_per(pooled, ("sched_switch",))
        lk_ns, _ = ns_per(pooled, LOCK_TPS)
        evs = events / (wall / 1e9) if wall and cond != "base" else None
        bpf_cpu = 100.0 * sum(v[0] for v in pooled.values()) / wall if wall and cond != "base" else None
        agg[(wl, cond)]["bpf_cpu"] = bpf_cpu
        rd = "%d / %d" % (recs, drops) if have_sum else ("n/a" if cond != "base" else "-")
        out("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            wl, cond, rng, fmt(evs, "%.3g"), fmt(all_ns, "%.0f"), fmt(sw_ns, "%.0f"),
            fmt(lk_ns, "%.0f"), fmt(bpf_cpu, "%.2f"), fmt(agg[(wl, cond)]["cpu"], "%.2f") if cond != "base" else "-",
            fmt(agg[(wl, cond)]["hwm"], "%.1f") if cond != "base" else "-", rd))
    if HAVE_RECORD != "1":
        out("| %s | record | n/a (not built yet) | | | | | | | | |" % wl)

out()
out("Overhead = 1 - throughput ratio, in percentage points of the baseline:")
out()
out("| workload | floor | clock | watch | watch - floor | clock - floor | watch - clock | bpftrace | watch / bpftrace overhead |")
out("|---|---|---|---|---|---|---|---|---|")
for wl in workloads:
    f, k, w, b = (agg.get((wl, c), {}).get("ratio") for c in ("floor", "clock", "watch", "bpftrace"))
    if f is None or w is None:
        continue
    ow, of = 100 * (1 - w), 100 * (1 - f)
    ok = 100 * (1 - k) if k is not None else None
    ob = 100 * (1 - b) if b is not None else None
    rel = "%.2f" % (ow / ob) if ob and ob > 0.05 else "-"
    out("| %s | %.1f | %s | %.1f | %+.1f | %s | %s | %s | %s |" % (
        wl, of, fmt(ok, "%.1f"), ow, ow - of, fmt(ok - of if ok is not None else None, "%+.1f"),
        fmt(ow - ok if ok is not None else None, "%+.1f"), fmt(ob, "%.1f"), rel))

out()
out("BPF time in points of all %d CPUs (the programs' run time over the wall time, divided by the "
    "number of CPUs): steadier than throughput, and what the tracer's programs themselves cost "
    "(not the cache misses they cause the workload):" % (os.cpu_count() or 1))
out()
out("| workload | clock - floor | watch - floor | watch - clock |")
out("|---|---|---|---|")
ncpu = float(os.cpu_count() or 1)
for wl in workloads:
    f, k, w = (agg.get((wl, c), {}).get("bpf_cpu") for c in ("floor", "clock", "watch"))
    if f is None or w is None:
        continue
    out("| %s | %s | %+.1f | %s |" % (
        wl, fmt((k - f) / ncpu if k is not None else None, "%+.1f"), (w - f) / ncpu,
        fmt((w - k) / ncpu if k is not None else None, "%+.1f")))

out()
out("ns per event by program (run_time_ns / run_cnt, pooled over the pairs):")
out()
tps = ["sched_switch", "sched_waking", "sched_wakeup", "sched_migrate_task", "sched_process_exit",
       "page_fault_user", "start_locking", "acquire_returned", "released"]
out("| workload | condition | " + " | ".join(tps) + " |")
out("|---|---|" + "---|" * len(tps))
for wl in workloads:
    for cond in ("floor", "clock", "watch", "record", "bpftrace"):
        a = agg.get((wl, cond))
        if not a:
            continue
        cells = []
        for tp in tps:
            t, c = a["pooled"].get(tp, (0, 0))
            cells.append("%.0f" % (t / c) if c else "-")
        out("| %s | %s | %s |" % (wl, cond, " | ".join(cells)))

# What each program costs above the floor's empty one on its tracepoint, run by run.
net_tps = ["sched_switch", "sched_waking", "sched_wakeup", "sched_migrate_task", "sys_enter",
           "sys_exit", "contention_begin", "contention_end", "page_fault_user",
           "start_locking", "acquire_returned", "released"]
out()
out("ns per call above the empty program on the same tracepoint (watch minus floor, pooled "
    "over the pairs of one workload; targets: sched_switch <= 20, the others <= 10 where they "
    "run more than 100k times a second; '-': under 1000 calls):")
out()
out("| workload | " + " | ".join(net_tps) + " |")
out("|---|" + "---|" * len(net_tps))
for wl in workloads:
    w, f = agg.get((wl, "watch")), agg.get((wl, "floor"))
    if not w or not f:
        continue
    cells = []
    for tp in net_tps:
        wt, wc = w["pooled"].get(tp, (0, 0))
        ft, fc = f["pooled"].get(tp, (0, 0))
        cells.append("%+.0f" % (wt / wc - ft / fc) if wc >= 1000 and fc >= 1000 else "-")
    out("| %s | %s |" % (wl, " | ".join(cells)))

# Start-up and the verifier's work per program (scripts/verify-stats).
vs = read(os.path.join(RAW, "verify.txt"))
if vs:
    out()
    out("Start-up (exec to \"tracing\") and the verifier's work per program (target: "
        "start-up <= 0.5 s, no program over 100k instructions):")
    out()
    out("```")
    out(vs.rstrip("\n"))
    out("```")

# Overload.
ov = summary(os.path.join(RAW, "overload"))
err = read(os.path.join(RAW, "overload.err")) or ""
alive = os.path.exists(os.path.join(RAW, "overload.alive"))
out()
if ov:
    warned = "events lost" in err
    out("Overload (lockstall watch -t 1us stopped with SIGSTOP for 2 s under stress-ng --mmap 2 --mmap-bytes 4M --switch 1): "
        "%d records, %d lost; loss reported on stderr: %s; still running after: %s; summary printed: yes." % (
            ov.get("events", 0), ov.get("lost_events", 0), "yes" if warned else "no",
            "yes" if alive else "no"))
else:
    out("Overload: no summary from lockstall (see build/bench/raw/overload.err).")

# Records per contended wait, quiet waits on (1) and off (0).
rows = []
for wl, what in (("mutex", "stress-ng --mutex 2 (owners mostly preempted)"),
                 ("mutex_running", "stress-ng --mutex 1 --mutex-procs 2, one a CPU (owners mostly running)")):
    cells = []
    for quiet in ("1", "0"):
        t = read(os.path.join(RAW, "perwait.%s.%s.json" % (wl, quiet)))
        j = json.loads(t) if t else None
        cells.append("%.2f (%d records, %d waits)" % (j["records"] / j["waits"], j["records"], j["waits"])
                     if j and j["waits"] else "-")
    rows.append("| %s | %s | %s |" % (what, cells[0], cells[1]))
if any("(" in r for r in rows):
    out()
    out("Records the kernel side sent per contended futex wait (lockstall record --locks all; "
        "waits as its histograms counted them):")
    out()
    out("| workload | quiet waits (default) | every wait sent (LOCKSTALL_QUIET_WAITS=0) |")
    out("|---|---|---|")
    for r in rows:
        out(r)

# Replay.
rp = read(os.path.join(RAW, "replay.json"))
if rp:
    j = json.loads(rp)
    out()
    out("Engine alone (build/bench/replay, one core, counting sink): %d records (%d live tasks, %d tids over the run, "
        "%d mms, %d locks in flight): **%.2f M records/s** (%.0f ns/record), %d stalls, %d evictions; "
        "RSS %d KiB before feeding (8.5 MiB of it the record chunk), at 25/50/75/100%% of the stream %s KiB, peak %d KiB." % (
            j["records"], j["tasks"], j["tids"], j["mms"], j["active"], j["records_per_s"] / 1e6,
            j["ns_per_record"], j["stalls"], j["evicted"], j["rss_base_kb"],
            "/".join(str(x) for x in j["rss_kb"]), j["peak_kb"]))

# The fleet report.
fl = read(os.path.join(RAW, "fleet.json"))
if fl:
    j = json.loads(fl)
    out()
    out("Fleet report (build/bench/fleet: `report DIR --format json` over %d generated recordings of %d s each, "
        "one host each, %.0f MB, %d records): **%.1f s** wall (%.1f s CPU), %.1f files/s, %.0f MB/s, "
        "peak RSS %.0f MB, exit %d." % (
            j["files"], j["seconds_each"], j["bytes"] / 1e6, j["records"], j["wall_s"], j["cpu_s"],
            j["files_per_s"], j["mb_per_s"], j["peak_rss_kb"] / 1024.0, j["exit"]))

# Scaling.
scale = [w for w in ("mmap1", "mmap2", "mmap4", "mmap16", "mmap64", "switch8", "inversion")
         if os.path.exists(os.path.join(RAW, "%s.watch.scale.time" % w))]
if scale:
    out()
    out("Scaling, live (lockstall watch, one run each):")
    out()
    out("| workload | kernel events/s | ns/event all | sched_switch ns | mmap_lock ns | records/s to user space | tracer CPU % | user-space ns/record | peak RSS MB |")
    out("|---|---|---|---|---|---|---|---|---|")
    for w in scale:
        r = run(w, "watch", "scale")
        all_ns, c = ns_per(r["progs"])
        sw_ns, _ = ns_per(r["progs"], ("sched_switch",))
        lk_ns, _ = ns_per(r["progs"], LOCK_TPS)
        secs = r["wall"] / 1e9
        recs = r["summary"]["events"] if r["summary"] else 0
        out("| %s | %.3g | %s | %s | %s | %.3g | %.2f | %s | %.1f |" % (
            w, c / secs, fmt(all_ns), fmt(sw_ns), fmt(lk_ns), recs / secs,
            100.0 * r["cpu"] / r["wall"], fmt(r["cpu"] / recs if recs else None),
            (r["hwm"] or 0) / 1024.0))
rows = []
for f in sorted(glob.glob(os.path.join(RAW, "scale.*.json")),
                key=lambda p: (p.split(".")[-2].rstrip("0123456789"), int(re.sub(r"\D", "", p.split(".")[-2])))):
    j = json.loads(read(f))
    rows.append("| %d | %d | %d | %.2f | %.0f | %d | %d |" % (
        j["tasks"], j["mms"], j["holders"], j["records_per_s"] / 1e6, j["ns_per_record"],
        j["peak_kb"] - j["rss_base_kb"], j["evicted"]))
if rows:
    out()
    out("Scaling, engine alone (replay, %s records each):" % "{:,}".format(json.loads(read(
        sorted(glob.glob(os.path.join(RAW, "scale.*.json")))[0]))["records"]))
    out()
    out("| live tasks | mms | holders per contended lock | M records/s | ns/record | engine KiB (peak - base) | evictions |")
    out("|---|---|---|---|---|---|---|")
    lines.extend(rows)

text = "\n".join(lines) + "\n"
sys.stdout.write(text)
with open(MD, "w") as f:
    f.write("# lockstall benchmark\n\n" + text)
