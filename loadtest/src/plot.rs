//! Latency against load, as an SVG (plotters): p50 and p99 fan-out latency over the
//! offered updates per second, one pair of lines per target, and the sweep's p99 bound. A rate
//! measured more than once (`--sweep-retries`) is drawn on the line by the attempt that decided
//! it (the one that held, else the last); its other attempts are hollow points off the line.

use crate::sweep::SweepStep;
use plotters::prelude::*;
use std::path::Path;

/// One target's steps, named for the legend.
pub struct Series<'a> {
    pub name: &'a str,
    pub steps: &'a [SweepStep],
}

/// Per rate, the attempt that decided it: the first that held, else the last. `steps` may come
/// in any order; the result is in rate order.
fn deciding(steps: &[SweepStep]) -> Vec<&SweepStep> {
    let mut sorted: Vec<&SweepStep> = steps.iter().collect();
    sorted.sort_by(|a, b| SweepStep::order(a, b));
    let mut out: Vec<&SweepStep> = Vec::new();
    for st in sorted {
        match out.last_mut() {
            Some(last) if last.rate_per_client == st.rate_per_client => {
                if !last.sustainable {
                    *last = st;
                }
            }
            _ => out.push(st),
        }
    }
    out
}

/// Draws the chart to `path`.
pub fn draw(path: &Path, title: &str, series: &[Series<'_>], bound_ms: f64) -> anyhow::Result<()> {
    let points = series.iter().flat_map(|s| s.steps.iter());
    let (mut max_x, mut max_y) = (1.0f64, bound_ms);
    for p in points {
        max_x = max_x.max(p.offered_per_s);
        max_y = max_y.max(p.fanout.p99_ms);
    }
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(0.0..max_x * 1.05, 0.0..max_y * 1.1)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("offered updates per second (all clients)")
        .y_desc("fan-out latency, ms")
        .draw()
        .map_err(err)?;
    let colors = [BLUE, RED, GREEN, MAGENTA, CYAN, BLACK];
    for (i, s) in series.iter().enumerate() {
        let color = colors[i % colors.len()];
        for (label, pick, dashed) in [
            (
                "p99",
                (|st: &SweepStep| st.fanout.p99_ms) as fn(&SweepStep) -> f64,
                false,
            ),
            ("p50", |st: &SweepStep| st.fanout.p50_ms, true),
        ] {
            let decided = deciding(s.steps);
            let data: Vec<(f64, f64)> = decided
                .iter()
                .map(|st| (st.commits_per_s, pick(st)))
                .collect();
            let others: Vec<(f64, f64)> = s
                .steps
                .iter()
                .filter(|st| !decided.iter().any(|d| std::ptr::eq(*d, *st)))
                .map(|st| (st.commits_per_s, pick(st)))
                .collect();
            let style = if dashed {
                color.mix(0.5).stroke_width(1)
            } else {
                color.stroke_width(2)
            };
            chart
                .draw_series(LineSeries::new(data.clone(), style))
                .map_err(err)?
                .label(format!("{} {label}", s.name))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
            chart
                .draw_series(data.into_iter().map(|p| Circle::new(p, 3, color.filled())))
                .map_err(err)?;
            chart
                .draw_series(others.into_iter().map(|p| Circle::new(p, 3, color)))
                .map_err(err)?;
        }
    }
    let bound = vec![(0.0, bound_ms), (max_x * 1.05, bound_ms)];
    chart
        .draw_series(LineSeries::new(bound, BLACK.mix(0.4)))
        .map_err(err)?
        .label(format!("p99 bound {bound_ms} ms"))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.mix(0.4)));
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)?;
    Ok(())
}

fn err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow::anyhow!("plot: {e:?}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::LatencySummary;

    fn step(cps: f64, p99: f64) -> SweepStep {
        SweepStep {
            attempt: 1,
            rate_per_client: cps / 10.0,
            offered_per_s: cps,
            commits_per_s: cps,
            deliveries_per_s: cps * 9.0,
            fanout: LatencySummary {
                count: 10,
                p50_ms: p99 / 3.0,
                p99_ms: p99,
                ..LatencySummary::default()
            },
            ack: LatencySummary::default(),
            delivery_ratio: 1.0,
            error_count: 0,
            disconnects: 0,
            sustainable: p99 < 50.0,
            problems: vec![],
        }
    }

    /// A retried rate is decided by the attempt that held, else by its last attempt; one point
    /// per rate, in rate order.
    #[test]
    fn retried_rates_are_decided_by_the_attempt_that_counts() {
        let retry = |mut s: SweepStep, attempt| {
            s.attempt = attempt;
            s
        };
        let steps = [
            step(400.0, 70.0),
            retry(step(400.0, 40.0), 2),
            step(100.0, 2.0),
            step(800.0, 90.0),
            retry(step(800.0, 95.0), 2),
        ];
        let d: Vec<(f64, usize)> = deciding(&steps)
            .iter()
            .map(|s| (s.commits_per_s, s.attempt))
            .collect();
        assert_eq!(d, vec![(100.0, 1), (400.0, 2), (800.0, 2)]);
    }

    #[test]
    fn draws_an_svg() {
        let ours = [step(100.0, 2.0), step(200.0, 9.0), step(400.0, 70.0)];
        let base = [step(100.0, 1.0), step(400.0, 3.0)];
        let path = std::env::temp_dir().join(format!("loadtest-plot-{}.svg", std::process::id()));
        draw(
            &path,
            "test",
            &[
                Series {
                    name: "server",
                    steps: &ours,
                },
                Series {
                    name: "baseline",
                    steps: &base,
                },
            ],
            50.0,
        )
        .unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        assert!(svg.starts_with("<svg"), "{}", &svg[..80.min(svg.len())]);
        assert!(svg.contains("polyline") || svg.contains("path"));
        assert!(svg.contains("baseline p99"));
    }
}
