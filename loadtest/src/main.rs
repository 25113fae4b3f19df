//! `loadtest`: see the crate docs and README.md.

use clap::Parser;
use loadtest::cli::{Args, RunConfig, check_loopback};
use loadtest::failover::FailoverArgs;
use loadtest::plot::{self, Series};
use loadtest::sweep::{SweepOpts, SweepReport, share, sweep};
use loadtest::{baseline, raise_fd_limit, run};
use serde::Serialize;
use std::net::SocketAddr;
use std::path::Path;
use std::process::ExitCode;

/// The same allocator as the server binary, so the baseline relay (served by this binary) and
/// the server compare like for like, and the generator spends less per received frame.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = Args::parse();
    let limit = raise_fd_limit();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    match runtime.block_on(real_main(args, limit)) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

#[derive(Serialize)]
struct SweepJson<'a> {
    ours: &'a SweepReport,
    baseline: Option<&'a SweepReport>,
    share_of_baseline: Option<f64>,
}

async fn real_main(args: Args, fd_limit: Option<u64>) -> anyhow::Result<bool> {
    if args.serve_baseline {
        serve_baseline(args.listen).await?;
        return Ok(true);
    }
    if let Some(loadtest::cli::Command::Failover(f)) = &args.command {
        return failover(f, args.json.as_deref()).await;
    }
    let cfg = args.resolve()?;
    let needed = (cfg.boards * cfg.clients) as u64 + 64;
    if fd_limit.is_some_and(|l| l < needed) {
        eprintln!("warning: open-file limit {fd_limit:?} is below the {needed} this shape needs");
    }
    if args.sweep {
        return sweep_mode(&args, &cfg).await;
    }
    single_run(&args, &cfg).await
}

/// `--serve-baseline`: serves the baseline relay until Ctrl-C or until it stops.
async fn serve_baseline(listen: SocketAddr) -> anyhow::Result<()> {
    let (addr, task) = baseline::spawn(listen).await?;
    println!("baseline relay listening on ws://{addr}");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        r = task => r?,
    }
    Ok(())
}

/// `loadtest failover`: runs the measurement, prints its table, writes the JSON if asked;
/// true when every round completed.
async fn failover(f: &FailoverArgs, json: Option<&Path>) -> anyhow::Result<bool> {
    let report = loadtest::failover::run(f).await?;
    print!("{}", report.table());
    if let Some(path) = json {
        std::fs::write(path, serde_json::to_string_pretty(&report)?)?;
    }
    Ok(report.complete())
}

/// `--sweep`: sweeps our server (and the baseline if given), prints the outcome, writes the
/// JSON and the plot if asked; false when no rate held and `--check` is set.
async fn sweep_mode(args: &Args, cfg: &RunConfig) -> anyhow::Result<bool> {
    let opts = SweepOpts {
        p99_bound_ms: args.p99_bound_ms,
        factor: args.sweep_factor,
        steps: args.sweep_steps,
        refine: args.sweep_refine,
        retries: args.sweep_retries,
    };
    println!(
        "sweep of {} ({} boards x {} clients)",
        cfg.urls.join(","),
        cfg.boards,
        cfg.clients
    );
    let ours = sweep(cfg, opts).await?;
    let base = match &args.baseline_url {
        Some(url) => {
            check_loopback(url)?;
            let mut b = cfg.clone();
            b.url = url.trim_end_matches('/').to_owned();
            b.urls = vec![b.url.clone()];
            println!("sweep of the baseline {}", b.url);
            Some(sweep(&b, opts).await?)
        }
        None => None,
    };
    let share = base.as_ref().and_then(|b| share(&ours, b));
    print_sweep_outcome(&ours, base.as_ref(), share);
    if let Some(path) = &args.json {
        let j = SweepJson {
            ours: &ours,
            baseline: base.as_ref(),
            share_of_baseline: share,
        };
        std::fs::write(path, serde_json::to_string_pretty(&j)?)?;
    }
    if let Some(path) = &args.plot {
        plot_sweep(path, cfg, &ours, base.as_ref(), args.p99_bound_ms)?;
    }
    Ok(ours.max_sustainable_rate.is_some() || !args.check)
}

/// Sweep step: prints each sweep's sustainable rate and our share of the baseline's.
fn print_sweep_outcome(ours: &SweepReport, base: Option<&SweepReport>, share: Option<f64>) {
    for r in std::iter::once(ours).chain(base) {
        println!(
            "{}: max sustainable rate {} per client ({} commits/s){}",
            r.url,
            r.max_sustainable_rate
                .map_or("none".into(), |v| format!("{v:.2}/s")),
            r.max_sustainable_commits_per_s
                .map_or("-".into(), |v| format!("{v:.0}")),
            if r.limit_not_reached {
                " — limit not reached, sweep further"
            } else {
                ""
            }
        );
    }
    if let Some(s) = share {
        println!(
            "our sustainable rate is {:.1} % of the baseline's",
            s * 100.0
        );
    }
}

/// Sweep step: draws latency against load for our server (and the baseline) to `path`.
fn plot_sweep(
    path: &Path,
    cfg: &RunConfig,
    ours: &SweepReport,
    base: Option<&SweepReport>,
    p99_bound_ms: f64,
) -> anyhow::Result<()> {
    let mut series = vec![Series {
        name: "server",
        steps: &ours.steps,
    }];
    if let Some(b) = base {
        series.push(Series {
            name: "baseline",
            steps: &b.steps,
        });
    }
    let title = format!(
        "fan-out latency vs load, {} boards x {} clients",
        cfg.boards, cfg.clients
    );
    plot::draw(path, &title, &series, p99_bound_ms)
}

/// One run: runs it, prints its table and problems, writes the JSON and the plot if asked;
/// false when it had problems and `--smoke` or `--check` is set.
async fn single_run(args: &Args, cfg: &RunConfig) -> anyhow::Result<bool> {
    let report = run::run(cfg).await?;
    print!("{}", report.table());
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_string_pretty(&report)?)?;
    }
    if let Some(path) = &args.plot {
        let step = loadtest::sweep::SweepStep::from_report(&report, args.p99_bound_ms);
        let title = format!(
            "fan-out latency, {} boards x {} clients",
            cfg.boards, cfg.clients
        );
        plot::draw(
            path,
            &title,
            &[Series {
                name: "server",
                steps: &[step],
            }],
            args.p99_bound_ms,
        )?;
    }
    let problems = report.problems();
    for p in &problems {
        println!("PROBLEM: {p}");
    }
    if problems.is_empty() {
        println!("OK");
    }
    Ok(problems.is_empty() || !(args.smoke || args.check))
}
