//! `--sweep`: raise the rate until p99 fan-out latency passes the bound or delivery drops below
//! 100 %, and report the highest sustainable rate for the board shape.

use crate::cli::RunConfig;
use crate::report::RunReport;
use crate::run::run;
use crate::stats::LatencySummary;
use serde::Serialize;
use std::time::Duration;

/// How the sweep steps.
#[derive(Debug, Clone, Copy)]
pub struct SweepOpts {
    pub p99_bound_ms: f64,
    /// Rate multiplier per step (> 1).
    pub factor: f64,
    /// Most geometric steps.
    pub steps: usize,
    /// Bisection steps between the last pass and the first failure.
    pub refine: usize,
    /// A failing step is measured again up to this many times and holds if any attempt holds.
    /// A step is a few seconds long, so a single stall from outside the server under test (a
    /// multi-hundred-millisecond fsync on a virtual disk, another process) fails its p99 on its
    /// own; a rate the target cannot carry fails every attempt.
    pub retries: usize,
}

/// One rate of the sweep.
#[derive(Debug, Clone, Serialize)]
pub struct SweepStep {
    pub rate_per_client: f64,
    /// 1 for the first measurement of this rate, 2 for its first retry, ...
    pub attempt: usize,
    /// Offered actions per second over all clients (rate × connections).
    pub offered_per_s: f64,
    /// Measured commits per second over all clients.
    pub commits_per_s: f64,
    pub deliveries_per_s: f64,
    pub fanout: LatencySummary,
    pub ack: LatencySummary,
    pub delivery_ratio: f64,
    pub error_count: u64,
    pub disconnects: u64,
    pub sustainable: bool,
    pub problems: Vec<String>,
}

impl SweepStep {
    /// The step's summary of a run.
    pub fn from_report(r: &RunReport, bound: f64) -> Self {
        let mut problems = r.problems();
        if r.disconnects > 0 {
            problems.push(format!("{} clients disconnected", r.disconnects));
        }
        // The load generator shares the machine: if it could not offer the rate, the step says
        // nothing about the server and does not count as sustained.
        let offered_commits = r.shape.offered_actions_per_s * r.commit_share;
        if offered_commits > 0.0 && r.commits_per_s < 0.9 * offered_commits {
            problems.push(format!(
                "only {:.0} % of the offered rate was sent (load generator saturated?)",
                r.commits_per_s / offered_commits * 100.0
            ));
        }
        if r.fanout.p99_ms > bound {
            problems.push(format!(
                "p99 fan-out {:.2} ms > {bound} ms",
                r.fanout.p99_ms
            ));
        }
        SweepStep {
            rate_per_client: r.shape.rate_per_client,
            attempt: 1,
            offered_per_s: r.shape.offered_actions_per_s,
            commits_per_s: r.commits_per_s,
            deliveries_per_s: r.deliveries_per_s,
            fanout: r.fanout.clone(),
            ack: r.ack.clone(),
            delivery_ratio: r.delivery_ratio,
            error_count: r.error_count,
            disconnects: r.disconnects,
            sustainable: r.sustainable(bound) && problems.is_empty(),
            problems,
        }
    }

    /// Sweep order: by rate, then attempt.
    pub fn order(a: &Self, b: &Self) -> std::cmp::Ordering {
        a.rate_per_client
            .total_cmp(&b.rate_per_client)
            .then(a.attempt.cmp(&b.attempt))
    }

    /// One line of the sweep table.
    pub fn line(&self) -> String {
        let retry = if self.attempt > 1 {
            format!(" (retry {})", self.attempt - 1)
        } else {
            String::new()
        };
        format!(
            "rate {:>9.2}/s per client | {:>9.0} commits/s {:>10.0} deliveries/s | fan-out p50 {:>8.3} p99 {:>8.3} max {:>8.3} ms | delivery {:>7.3} % | {}",
            self.rate_per_client,
            self.commits_per_s,
            self.deliveries_per_s,
            self.fanout.p50_ms,
            self.fanout.p99_ms,
            self.fanout.max_ms,
            self.delivery_ratio * 100.0,
            if self.sustainable {
                "ok".to_owned()
            } else {
                self.problems.join("; ")
            }
        ) + &retry
    }
}

/// A whole sweep against one target.
#[derive(Debug, Clone, Serialize)]
pub struct SweepReport {
    pub url: String,
    pub boards: usize,
    pub clients_per_board: usize,
    pub p99_bound_ms: f64,
    /// Steps in rate order.
    pub steps: Vec<SweepStep>,
    /// The highest rate per client that held (None: even the first step failed).
    pub max_sustainable_rate: Option<f64>,
    /// Measured commits per second at that rate.
    pub max_sustainable_commits_per_s: Option<f64>,
    /// No step failed: the true maximum is higher than this sweep went.
    pub limit_not_reached: bool,
}

impl SweepReport {
    /// Builds the summary from the steps.
    pub fn from_steps(cfg: &RunConfig, bound: f64, mut steps: Vec<SweepStep>) -> Self {
        steps.sort_by(SweepStep::order);
        let best = steps
            .iter()
            .filter(|s| s.sustainable)
            .max_by(|a, b| a.rate_per_client.total_cmp(&b.rate_per_client));
        SweepReport {
            url: cfg.urls.join(","),
            boards: cfg.boards,
            clients_per_board: cfg.clients,
            p99_bound_ms: bound,
            max_sustainable_rate: best.map(|s| s.rate_per_client),
            max_sustainable_commits_per_s: best.map(|s| s.commits_per_s),
            limit_not_reached: !steps.is_empty() && steps.iter().all(|s| s.sustainable),
            steps,
        }
    }
}

/// Our sustainable rate as a share of the baseline's (None when either has none).
pub fn share(ours: &SweepReport, baseline: &SweepReport) -> Option<f64> {
    let (a, b) = (
        ours.max_sustainable_commits_per_s?,
        baseline.max_sustainable_commits_per_s?,
    );
    (b > 0.0).then(|| a / b)
}

/// Runs the sweep, printing each step as it finishes.
pub async fn sweep(cfg: &RunConfig, opts: SweepOpts) -> anyhow::Result<SweepReport> {
    if opts.factor <= 1.0 || !opts.factor.is_finite() {
        anyhow::bail!("--sweep-factor must be above 1");
    }
    let mut rate = if cfg.rate > 0.0 { cfg.rate } else { 1.0 };
    let mut steps = Vec::new();
    let (mut pass, mut fail): (Option<f64>, Option<f64>) = (None, None);
    for _ in 0..opts.steps {
        if measure(cfg, opts, rate, &mut steps).await? {
            pass = Some(rate);
            rate *= opts.factor;
        } else {
            fail = Some(rate);
            break;
        }
    }
    for _ in 0..opts.refine {
        let (Some(lo), Some(hi)) = (pass, fail) else {
            break;
        };
        let mid = (lo * hi).sqrt();
        if measure(cfg, opts, mid, &mut steps).await? {
            pass = Some(mid);
        } else {
            fail = Some(mid);
        }
    }
    Ok(SweepReport::from_steps(cfg, opts.p99_bound_ms, steps))
}

/// Measures one rate (retrying a failure up to `opts.retries` times), printing and keeping every
/// attempt; whether the rate held.
async fn measure(
    cfg: &RunConfig,
    opts: SweepOpts,
    rate: f64,
    steps: &mut Vec<SweepStep>,
) -> anyhow::Result<bool> {
    let mut c = cfg.clone();
    c.rate = rate;
    c.storm_at = None;
    for attempt in 1..=opts.retries + 1 {
        let r = run(&c).await?;
        let mut s = SweepStep::from_report(&r, opts.p99_bound_ms);
        s.attempt = attempt;
        println!("{}", s.line());
        let ok = s.sustainable;
        steps.push(s);
        // Let the sockets of this step close before the next one starts.
        tokio::time::sleep(Duration::from_millis(300)).await;
        if ok {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(rate: f64, cps: f64, ok: bool) -> SweepStep {
        SweepStep {
            rate_per_client: rate,
            attempt: 1,
            offered_per_s: cps,
            commits_per_s: cps,
            deliveries_per_s: cps * 3.0,
            fanout: LatencySummary::default(),
            ack: LatencySummary::default(),
            delivery_ratio: 1.0,
            error_count: 0,
            disconnects: 0,
            sustainable: ok,
            problems: vec![],
        }
    }

    fn cfg() -> RunConfig {
        use clap::Parser;
        crate::cli::Args::parse_from(["loadtest"])
            .resolve()
            .unwrap()
    }

    #[test]
    fn max_is_the_highest_passing_rate_and_share_divides_throughput() {
        let ours = SweepReport::from_steps(
            &cfg(),
            50.0,
            vec![
                step(4.0, 400.0, false),
                step(1.0, 100.0, true),
                step(2.0, 200.0, true),
                step(2.8, 280.0, false),
            ],
        );
        assert_eq!(ours.max_sustainable_rate, Some(2.0));
        assert_eq!(ours.steps[0].rate_per_client, 1.0);
        assert!(!ours.limit_not_reached);
        let base = SweepReport::from_steps(&cfg(), 50.0, vec![step(8.0, 800.0, true)]);
        assert!(base.limit_not_reached);
        assert_eq!(share(&ours, &base), Some(0.25));
        let none = SweepReport::from_steps(&cfg(), 50.0, vec![step(1.0, 100.0, false)]);
        assert_eq!(none.max_sustainable_rate, None);
        assert_eq!(share(&none, &base), None);
    }

    #[test]
    fn a_retried_rate_holds_when_any_attempt_held() {
        let retried = |mut s: SweepStep, attempt| {
            s.attempt = attempt;
            s
        };
        let r = SweepReport::from_steps(
            &cfg(),
            50.0,
            vec![
                step(1.0, 100.0, true),
                retried(step(2.0, 200.0, true), 2),
                step(2.0, 200.0, false),
                step(4.0, 400.0, false),
                retried(step(4.0, 400.0, false), 2),
            ],
        );
        assert_eq!(r.max_sustainable_rate, Some(2.0));
        let order: Vec<_> = r
            .steps
            .iter()
            .map(|s| (s.rate_per_client, s.attempt))
            .collect();
        assert_eq!(
            order,
            vec![(1.0, 1), (2.0, 1), (2.0, 2), (4.0, 1), (4.0, 2)]
        );
        assert!(step(2.0, 200.0, true).line().ends_with("ok"));
        assert!(
            retried(step(2.0, 200.0, true), 2)
                .line()
                .ends_with("ok (retry 1)")
        );
    }
}
