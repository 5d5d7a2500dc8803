//! The scrap page's chart of its last runs: items per run (bars) and run
//! duration (a line), oldest on the left, as inline SVG. No script: the page
//! renders it on the server. It scales to its box (`viewBox`, width 100%),
//! draws with `currentColor` and the theme's CSS variables (so dark mode
//! recolours it), marks a failed run with a cross (a shape, not only a
//! colour) and gives every run a `<title>`; [`summary`] is its text
//! alternative, shown under it.

use std::fmt::Write;

use crate::present::when::duration_ms;

/// How many of the newest runs the chart shows.
pub const CHART_RUNS: usize = 30;

/// One finished run, as the chart shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct ChartRun {
    /// When it started, as people read it (`2026-11-27 14:05 UTC`).
    pub when: String,
    pub items: i64,
    pub duration_ms: Option<i64>,
    pub failed: bool,
    /// The run's outcome in words (`Success`, `Error`, ...).
    pub outcome: String,
}

const WIDTH: f64 = 400.0;
const LEFT: f64 = 40.0;
const RIGHT: f64 = 8.0;
/// The items panel: its top and its baseline.
const ITEMS_TOP: f64 = 16.0;
const ITEMS_BASE: f64 = 88.0;
/// The duration panel.
const TIME_TOP: f64 = 124.0;
const TIME_BASE: f64 = 196.0;
const HEIGHT: f64 = 206.0;

/// `v` with at most one decimal, as SVG coordinates are written.
fn n(v: f64) -> String {
    let r = (v * 10.0).round() / 10.0;
    if r.fract() == 0.0 { format!("{r:.0}") } else { format!("{r:.1}") }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A cross centred on (x, y), `r` from the centre to each arm's end.
fn cross(x: f64, y: f64, r: f64) -> String {
    format!(
        "<path class=\"failed-mark\" d=\"M{} {}L{} {}M{} {}L{} {}\" stroke=\"var(--danger, #b42318)\" stroke-width=\"2.5\" stroke-linecap=\"round\"/>",
        n(x - r),
        n(y - r),
        n(x + r),
        n(y + r),
        n(x - r),
        n(y + r),
        n(x + r),
        n(y - r)
    )
}

/// What one run's point says (its `<title>`).
fn point_title(index: usize, total: usize, run: &ChartRun) -> String {
    let items = if run.items == 1 { "1 item".to_string() } else { format!("{} items", run.items) };
    let time = run.duration_ms.map(duration_ms).unwrap_or_else(|| "no duration".into());
    let failed = if run.failed { " (failed)" } else { "" };
    format!("Run {} of {total}, {}: {}{failed}, {items}, {time}", index + 1, run.when, run.outcome)
}

/// The chart of `runs` (oldest first), or `None` when there is none. `id`
/// makes its element ids unique on the page.
pub fn svg(runs: &[ChartRun], id: &str) -> Option<String> {
    if runs.is_empty() {
        return None;
    }
    let total = runs.len();
    let max_items = runs.iter().map(|r| r.items.max(0)).max().unwrap_or(0).max(1);
    let max_ms = runs.iter().filter_map(|r| r.duration_ms).map(|d| d.max(0)).max().unwrap_or(0).max(1);
    let step = (WIDTH - LEFT - RIGHT) / total as f64;
    let bar = (step * 0.6).clamp(1.0, 24.0);
    let x_of = |i: usize| LEFT + step * (i as f64 + 0.5);
    let items_y = |v: i64| ITEMS_BASE - (ITEMS_BASE - ITEMS_TOP) * v.max(0) as f64 / max_items as f64;
    let time_y = |ms: i64| TIME_BASE - (TIME_BASE - TIME_TOP) * ms.max(0) as f64 / max_ms as f64;

    let mut out = String::new();
    let _ = write!(
        out,
        "<svg class=\"run-chart\" id=\"{id}\" viewBox=\"0 0 {} {}\" width=\"100%\" role=\"group\" aria-labelledby=\"{id}-title\" \
         xmlns=\"http://www.w3.org/2000/svg\" font-size=\"12\" fill=\"currentColor\">",
        n(WIDTH),
        n(HEIGHT)
    );
    let _ = write!(out, "<title id=\"{id}-title\">Items per run and run duration, last {total} runs</title>");
    // Panels: their labels, scales and baselines.
    for (top, base, label, max) in [
        (ITEMS_TOP, ITEMS_BASE, "Items", max_items.to_string()),
        (TIME_TOP, TIME_BASE, "Duration", duration_ms(max_ms)),
    ] {
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\" font-weight=\"600\">{label}</text>\
             <text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"var(--muted, currentColor)\">{}</text>\
             <text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"var(--muted, currentColor)\">0</text>\
             <line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"var(--border, currentColor)\" stroke-dasharray=\"3 3\"/>\
             <line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"currentColor\" stroke-opacity=\".5\"/>",
            n(LEFT),
            n(top - 6.0),
            n(LEFT - 4.0),
            n(top + 4.0),
            escape(&max),
            n(LEFT - 4.0),
            n(base),
            n(LEFT),
            n(top),
            n(WIDTH - RIGHT),
            n(top),
            n(LEFT),
            n(base),
            n(WIDTH - RIGHT),
            n(base),
        );
    }
    // The legend of the failed runs' mark, when there is one.
    if runs.iter().any(|r| r.failed) {
        out.push_str(&cross(WIDTH - RIGHT - 70.0, ITEMS_TOP - 10.0, 3.5).replace("failed-mark", "legend-mark"));
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"var(--muted, currentColor)\">failed run</text>",
            n(WIDTH - RIGHT),
            n(ITEMS_TOP - 6.0)
        );
    }
    // The duration line, through the runs that have one.
    let line: Vec<String> = runs
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.duration_ms.map(|ms| format!("{},{}", n(x_of(i)), n(time_y(ms)))))
        .collect();
    if line.len() > 1 {
        let _ = write!(
            out,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"var(--accent, currentColor)\" stroke-width=\"1.5\" stroke-opacity=\".7\"/>",
            line.join(" ")
        );
    }
    for (i, run) in runs.iter().enumerate() {
        let x = x_of(i);
        let class = if run.failed { "run failed" } else { "run" };
        let _ = write!(out, "<g class=\"{class}\" role=\"img\"><title>{}</title>", escape(&point_title(i, total, run)));
        // A transparent column over both panels, so that the title shows
        // wherever the pointer is over the run.
        let _ = write!(
            out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"transparent\"/>",
            n(x - step / 2.0),
            n(ITEMS_TOP),
            n(step),
            n(TIME_BASE - ITEMS_TOP)
        );
        if run.items > 0 {
            let y = items_y(run.items);
            let fill = if run.failed { "var(--danger, #b42318)" } else { "var(--accent, currentColor)" };
            let _ = write!(
                out,
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{fill}\" fill-opacity=\"{}\"/>",
                n(x - bar / 2.0),
                n(y),
                n(bar),
                n(ITEMS_BASE - y),
                if run.failed { ".45" } else { ".85" }
            );
        }
        if run.failed {
            out.push_str(&cross(x, ITEMS_BASE - 6.0, 4.0));
        }
        if let Some(ms) = run.duration_ms {
            let y = time_y(ms);
            if run.failed {
                out.push_str(&cross(x, y, 4.0));
            } else {
                let _ = write!(
                    out,
                    "<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"var(--accent, currentColor)\"/>",
                    n(x),
                    n(y)
                );
            }
        }
        out.push_str("</g>");
    }
    out.push_str("</svg>");
    Some(out)
}

/// The chart's text alternative: how many runs, the range of items and
/// durations, the latest run, and how many failed.
pub fn summary(runs: &[ChartRun]) -> String {
    let Some(latest) = runs.last() else { return "No finished runs yet.".into() };
    let total = runs.len();
    let failed = runs.iter().filter(|r| r.failed).count();
    let (lo, hi) = runs.iter().fold((i64::MAX, i64::MIN), |(lo, hi), r| (lo.min(r.items), hi.max(r.items)));
    let times: Vec<i64> = runs.iter().filter_map(|r| r.duration_ms).collect();
    let mut s = format!("The last {total} run{}: {lo} to {hi} items per run", if total == 1 { "" } else { "s" });
    if let (Some(t_lo), Some(t_hi)) = (times.iter().min(), times.iter().max()) {
        let _ = write!(s, ", taking {} to {}", duration_ms(*t_lo), duration_ms(*t_hi));
    }
    let _ = write!(
        s,
        ". {} failed. The latest ({}) {} with {} item{}.",
        match failed {
            0 => "None".to_string(),
            n if n == total => "All".to_string(),
            n => n.to_string(),
        },
        latest.when,
        if latest.failed { "failed" } else { "succeeded" },
        latest.items,
        if latest.items == 1 { "" } else { "s" }
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(items: i64, ms: Option<i64>, failed: bool) -> ChartRun {
        ChartRun {
            when: "2026-11-27 14:05 UTC".into(),
            items,
            duration_ms: ms,
            failed,
            outcome: if failed { "Error".into() } else { "Success".into() },
        }
    }

    #[test]
    fn no_runs_no_chart() {
        assert_eq!(svg(&[], "c"), None);
        assert_eq!(summary(&[]), "No finished runs yet.");
    }

    #[test]
    fn scales_to_its_box_and_draws_with_the_theme() {
        let chart = svg(&[run(3, Some(200), false), run(5, Some(400), false)], "c").unwrap();
        assert!(
            chart.starts_with("<svg class=\"run-chart\" id=\"c\" viewBox=\"0 0 400 206\" width=\"100%\""),
            "{chart}"
        );
        assert!(!chart.contains("height=\"206\""), "no fixed height: {chart}");
        assert!(chart.contains("fill=\"currentColor\"") && chart.contains("var(--accent"), "{chart}");
        // No colour written as a literal except as a fallback of a variable.
        for literal in chart.match_indices('#').map(|(i, _)| &chart[i.saturating_sub(12)..i]) {
            assert!(literal.contains("var(--"), "a colour outside a variable: {literal}");
        }
        assert!(!chart.contains("<script"), "{chart}");
    }

    #[test]
    fn every_run_has_a_title_and_failed_runs_a_cross() {
        let runs = [run(10, Some(1500), false), run(0, Some(30_000), true), run(12, None, false)];
        let chart = svg(&runs, "c").unwrap();
        assert_eq!(chart.matches("<g class=\"run").count(), 3);
        assert_eq!(chart.matches("<title>").count(), 3, "one per run (the chart's own title has an id)");
        assert!(chart.contains("<title>Run 1 of 3, 2026-11-27 14:05 UTC: Success, 10 items, 1.5 s</title>"), "{chart}");
        assert!(
            chart.contains("<title>Run 2 of 3, 2026-11-27 14:05 UTC: Error (failed), 0 items, 30.0 s</title>"),
            "{chart}"
        );
        assert!(chart.contains("no duration"), "{chart}");
        // The failed run: a cross on the items baseline and one for its duration.
        assert_eq!(chart.matches("class=\"failed-mark\"").count(), 2, "{chart}");
        assert_eq!(chart.matches("<g class=\"run failed\"").count(), 1);
        // Two successful runs have a duration dot... one of them has none.
        assert_eq!(chart.matches("<circle").count(), 1, "{chart}");
    }

    #[test]
    fn bars_are_as_tall_as_their_items_are_many() {
        let chart = svg(&[run(5, Some(100), false), run(10, Some(100), false)], "c").unwrap();
        // The tallest bar reaches the top of its panel; half as many items, half as tall.
        assert!(chart.contains(&format!("height=\"{}\" fill=\"var(--accent", n(ITEMS_BASE - ITEMS_TOP))), "{chart}");
        assert!(
            chart.contains(&format!("height=\"{}\" fill=\"var(--accent", n((ITEMS_BASE - ITEMS_TOP) / 2.0))),
            "{chart}"
        );
        // The scale says the largest value.
        assert!(chart.contains(">10</text>") && chart.contains(">100 ms</text>"), "{chart}");
    }

    #[test]
    fn words_are_escaped() {
        let mut r = run(1, Some(1), false);
        r.when = "<b>&\"".into();
        let chart = svg(&[r], "c").unwrap();
        assert!(chart.contains("&lt;b&gt;&amp;&quot;") && !chart.contains("<b>"), "{chart}");
    }

    #[test]
    fn the_summary_says_what_the_chart_shows() {
        let runs = [run(10, Some(1500), false), run(0, Some(30_000), true), run(12, Some(900), false)];
        assert_eq!(
            summary(&runs),
            "The last 3 runs: 0 to 12 items per run, taking 900 ms to 30.0 s. 1 failed. \
             The latest (2026-11-27 14:05 UTC) succeeded with 12 items."
        );
        assert_eq!(
            summary(&[run(0, None, true)]),
            "The last 1 run: 0 to 0 items per run. All failed. The latest (2026-11-27 14:05 UTC) failed with 0 items."
        );
    }
}
