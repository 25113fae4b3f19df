//! RSS, CPU time and time spent waiting for a CPU of a process, from /proc (Linux).

use serde::Serialize;
use std::time::Instant;

/// Clock ticks per second of /proc/PID/stat times (USER_HZ; 100 on every mainstream Linux).
const CLK_TCK: f64 = 100.0;

/// One reading of a process.
#[derive(Debug, Clone, Copy)]
pub struct ProcSample {
    pub rss_kb: u64,
    /// utime + stime, in clock ticks.
    pub cpu_ticks: u64,
    /// Nanoseconds its threads have spent runnable but waiting for a CPU (the second field of
    /// each `/proc/PID/task/TID/schedstat`, summed over the threads alive now); `None` where
    /// the kernel does not keep it.
    pub runq_wait_ns: Option<u64>,
    pub at: Instant,
}

/// Reads `pid` (or this process when `None`); `None` if /proc cannot tell.
pub fn sample(pid: Option<u32>) -> Option<ProcSample> {
    let dir = match pid {
        Some(p) => format!("/proc/{p}"),
        None => "/proc/self".to_owned(),
    };
    let status = std::fs::read_to_string(format!("{dir}/status")).ok()?;
    let stat = std::fs::read_to_string(format!("{dir}/stat")).ok()?;
    Some(ProcSample {
        rss_kb: parse_rss_kb(&status)?,
        cpu_ticks: parse_cpu_ticks(&stat)?,
        runq_wait_ns: runq_wait_ns(&dir),
        at: Instant::now(),
    })
}

/// The run-queue wait of every thread of the process in `dir`, summed.
fn runq_wait_ns(dir: &str) -> Option<u64> {
    let mut total = 0;
    for task in std::fs::read_dir(format!("{dir}/task")).ok()? {
        let Ok(task) = task else { continue };
        // A thread that ended since the listing is simply not counted.
        if let Ok(s) = std::fs::read_to_string(task.path().join("schedstat")) {
            total += parse_schedstat_wait(&s)?;
        }
    }
    Some(total)
}

/// The second of schedstat's three fields (on-CPU ns, run-queue wait ns, time slices).
pub fn parse_schedstat_wait(schedstat: &str) -> Option<u64> {
    schedstat.split_whitespace().nth(1)?.parse().ok()
}

/// `VmRSS:   1234 kB` from /proc/PID/status.
pub fn parse_rss_kb(status: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
}

/// utime + stime (fields 14 and 15) from /proc/PID/stat; the command name may hold spaces, so
/// fields are counted after its closing parenthesis.
pub fn parse_cpu_ticks(stat: &str) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (state): field n is at index n - 3.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

/// CPU use between two samples, in percent of one core.
pub fn cpu_percent(a: &ProcSample, b: &ProcSample) -> f64 {
    let wall = b.at.duration_since(a.at).as_secs_f64();
    if wall <= 0.0 {
        return 0.0;
    }
    b.cpu_ticks.saturating_sub(a.cpu_ticks) as f64 / CLK_TCK / wall * 100.0
}

/// Run-queue wait between two samples, in percent of one core (`None` without schedstat).
/// Threads that ended in between take their wait with them, so this is a lower bound.
pub fn cpu_wait_percent(a: &ProcSample, b: &ProcSample) -> Option<f64> {
    let wall = b.at.duration_since(a.at).as_secs_f64();
    let waited = b.runq_wait_ns?.saturating_sub(a.runq_wait_ns?);
    (wall > 0.0).then(|| waited as f64 / 1e9 / wall * 100.0)
}

/// What the report says about a process.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ProcReport {
    pub pid: Option<u32>,
    /// Before any client joined.
    pub rss_before_kb: u64,
    /// When the window opened (everyone joined).
    pub rss_joined_kb: u64,
    /// When the window closed.
    pub rss_end_kb: u64,
    /// (joined − before) / connections.
    pub rss_per_connection_kb: f64,
    /// (joined − before) / boards.
    pub rss_per_board_kb: f64,
    /// CPU during the measurement window, percent of one core.
    pub cpu_percent_window: f64,
    /// How long its threads were runnable but waited for a CPU during the window, in percent of
    /// one core (summed over threads: 150 means one and a half threads waiting all along). On a
    /// machine the load generator shares, this is how starved the process was.
    pub cpu_wait_percent_window: Option<f64>,
}

impl ProcReport {
    /// Builds the report from the three samples.
    pub fn new(
        pid: Option<u32>,
        before: &ProcSample,
        joined: &ProcSample,
        end: &ProcSample,
        connections: usize,
        boards: usize,
    ) -> Self {
        let grown = joined.rss_kb.saturating_sub(before.rss_kb) as f64;
        ProcReport {
            pid,
            rss_before_kb: before.rss_kb,
            rss_joined_kb: joined.rss_kb,
            rss_end_kb: end.rss_kb,
            rss_per_connection_kb: grown / connections.max(1) as f64,
            rss_per_board_kb: grown / boards.max(1) as f64,
            cpu_percent_window: cpu_percent(joined, end),
            cpu_wait_percent_window: cpu_wait_percent(joined, end),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn parses_status_and_stat() {
        let status = "Name:\tserver\nVmPeak:\t 9999 kB\nVmRSS:\t   12345 kB\nThreads:\t4\n";
        assert_eq!(parse_rss_kb(status), Some(12345));
        assert_eq!(parse_rss_kb("Name: x\n"), None);
        let stat = "42 (my server) S 1 42 42 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 4 0 1 2 3";
        assert_eq!(parse_cpu_ticks(stat), Some(300));
        assert_eq!(parse_cpu_ticks("garbage"), None);
        assert_eq!(
            parse_schedstat_wait("7190000000 14230000000 14398\n"),
            Some(14_230_000_000)
        );
        assert_eq!(parse_schedstat_wait("12"), None);
    }

    #[test]
    fn reads_this_process_and_reports_per_connection() {
        let s = sample(None).unwrap();
        assert!(s.rss_kb > 0);
        let at = Instant::now();
        let before = ProcSample {
            rss_kb: 1000,
            cpu_ticks: 0,
            runq_wait_ns: Some(0),
            at,
        };
        let joined = ProcSample {
            rss_kb: 3000,
            cpu_ticks: 100,
            runq_wait_ns: Some(500_000_000),
            at,
        };
        let end = ProcSample {
            rss_kb: 3500,
            cpu_ticks: 150,
            runq_wait_ns: Some(1_250_000_000),
            at: at + Duration::from_secs(1),
        };
        let r = ProcReport::new(Some(1), &before, &joined, &end, 100, 10);
        assert_eq!(r.rss_per_connection_kb, 20.0);
        assert_eq!(r.rss_per_board_kb, 200.0);
        assert!((r.cpu_percent_window - 50.0).abs() < 1e-9);
        assert!((r.cpu_wait_percent_window.unwrap() - 75.0).abs() < 1e-9);
    }
}
