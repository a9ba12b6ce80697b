//! The loop's reports, rewritten from the state after each generation:
//! `elo.csv` (against the main anchor), `elo_anchors.csv` (one row per
//! generation and anchor), `summary.md` (the table) and `elo.svg` (the Elo
//! against every anchor over time).

use crate::config::LoopConfig;
use crate::state::{Generation, LoopState};
use crate::Result;
use std::path::Path;

/// `elo.csv` (against the main anchor), `elo_anchors.csv` (one row per
/// generation and anchor), `elo.svg` and `summary.md` from the state.
pub fn write_reports(config: &LoopConfig, out: &Path, state: &LoopState) -> Result<()> {
    let done: Vec<&Generation> = state.generations.iter().filter(|g| g.done).collect();
    // The configured anchors, then any a resumed run no longer rates.
    let mut anchors: Vec<String> = config.evaluate.anchors().iter().map(|a| a.to_string()).collect();
    for a in done.iter().flat_map(|g| &g.elo_vs_more) {
        if !anchors.contains(&a.anchor) {
            anchors.push(a.anchor.clone());
        }
    }
    let mut csv = String::from(
        "generation,minutes,net,promoted,score_vs_best,elo_vs_anchor,elo_low,elo_high,train_step,selfplay_games,resign_threshold,false_resign_rate\n",
    );
    let mut long_csv = String::from("generation,minutes,anchor,elo,elo_low,elo_high\n");
    let elo_columns: String = anchors.iter().map(|a| format!(" Elo vs `{a}` |")).collect();
    let mut md = format!(
        "# junqi loop: {}\n\nElo against each anchor (0 = as strong as that anchor), 95% intervals from paired games.\n\n\
         | gen | minutes | net | score vs best | promoted |{elo_columns} step | self-play games | resign threshold, false resignations |\n\
         |---|---|---|---|---|{}---|---|---|\n",
        out.display(),
        "---|".repeat(anchors.len()),
    );
    let mut series: Vec<(String, Vec<ChartPoint>)> = anchors.iter().map(|a| (a.to_string(), Vec::new())).collect();
    for g in done {
        let mut score = match g.score_vs_best {
            Some(s) => format!("{:.1}% [{:.1}, {:.1}]", 100.0 * s[0], 100.0 * s[1], 100.0 * s[2]),
            _ => "(first net)".into(),
        };
        let resign = match (g.resign_threshold, g.resign.false_rate()) {
            (Some(t), Some(r)) => format!("{t:.2}, {:.0}% of {}", 100.0 * r, g.resign.signalled),
            (Some(t), None) => format!("{t:.2}, none signalled"),
            _ => String::new(),
        };
        if let Some(t) = &g.gate {
            score.push_str(&format!(", SPRT {} after {} games (LLR {:.2})", t.verdict, t.games, t.llr));
        }
        let mut elo = String::new();
        for (anchor, points) in series.iter_mut() {
            let rated = g.elo_against(config, anchor);
            if let Some(e) = rated {
                elo += &format!(" {} |", junqi_stats::Estimate { value: e[0], low: e[1], high: e[2] }.show());
                let anchor = junqi_arena::csv_field(anchor);
                long_csv += &format!("{},{:.2},{anchor},{:.1},{:.1},{:.1}\n", g.index, g.minutes, e[0], e[1], e[2]);
                points.push(ChartPoint { minutes: g.minutes, elo: e, generation: g.index, promoted: g.promoted });
            } else {
                elo += " |";
            }
        }
        let e = g.elo_vs_anchor.map(|e| e.map(|x| format!("{x:.1}"))).unwrap_or_default();
        csv.push_str(&format!(
            "{},{:.2},{},{},{},{},{},{},{},{},{},{}\n",
            g.index,
            g.minutes,
            g.net.clone().unwrap_or_default(),
            g.promoted,
            g.score_vs_best.map(|s| format!("{:.4}", s[0])).unwrap_or_default(),
            e[0],
            e[1],
            e[2],
            g.train_step,
            g.selfplay_games,
            g.resign_threshold.map(|t| format!("{t:.2}")).unwrap_or_default(),
            g.resign.false_rate().map(|r| format!("{r:.4}")).unwrap_or_default(),
        ));
        md.push_str(&format!(
            "| {} | {:.1} | {} | {score} | {} |{elo} {} | {} | {resign} |\n",
            g.index,
            g.minutes,
            g.net.clone().unwrap_or_default(),
            if g.promoted { "yes" } else { "no" },
            g.train_step,
            g.selfplay_games
        ));
    }
    if let Some(best) = &state.best {
        md.push_str(&format!("\nBest net: `{best}`.\n"));
    }
    let write = |name: &str, text: &str| junqi_arena::write_atomic(&out.join(name), text);
    write("elo.csv", &csv)?;
    write("elo_anchors.csv", &long_csv)?;
    write("summary.md", &md)?;
    write("elo.svg", &elo_chart(&series))?;
    crate::exploit::write_exploit_report(config, out, state)
}

/// A generation's Elo against one anchor, as the chart draws it.
#[derive(Clone)]
struct ChartPoint {
    minutes: f64,
    /// Estimate, low, high.
    elo: [f64; 3],
    generation: u32,
    /// The generation's net became the best (marked on the chart).
    promoted: bool,
}

/// Ticks from `lo` to `hi` at a round step (1, 2 or 5 times a power of
/// ten) giving at most `most` of them; 0 is one of them when in range.
fn nice_ticks(lo: f64, hi: f64, most: usize) -> Vec<f64> {
    let span = (hi - lo).max(1e-9);
    let raw = span / most.max(1) as f64;
    let power = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * power).find(|&st| st >= raw).unwrap_or(10.0 * power);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    // k * step, not a running sum: no drift, and 0 is exactly 0.
    (first..=last).map(|k| k as f64 * step).collect()
}

/// A tick's label: `0`, `+100`, `-50`, `0.02` (signed when `signed`; at
/// most three decimals, so `k * 0.02` prints no rounding noise).
fn tick_label(v: f64, signed: bool) -> String {
    let text = format!("{v:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    match text {
        "0" | "-0" => "0".into(),
        t if signed && !t.starts_with('-') => format!("+{t}"),
        t => t.into(),
    }
}

/// Line colours of the chart's anchors, in order (then repeated).
const CHART_COLOURS: [&str; 5] = ["#36c", "#d62", "#393", "#939", "#777"];

/// Elo against each anchor (y, with 95% bars) over minutes of training
/// (x): one coloured line per anchor, a legend at the top left.
fn elo_chart(series: &[(String, Vec<ChartPoint>)]) -> String {
    let (w, h, left, right, top, bottom) = (640.0, 360.0, 60.0, 20.0, 40.0, 50.0);
    let all = || series.iter().flat_map(|(_, p)| p);
    let x_max = all().map(|p| p.minutes).fold(1.0f64, f64::max) * 1.05;
    let y_lo = all().map(|p| p.elo[1]).fold(0.0f64, f64::min).max(-1500.0);
    let y_hi = all().map(|p| p.elo[2]).fold(0.0f64, f64::max).min(1500.0);
    let pad = ((y_hi - y_lo) * 0.08).max(20.0);
    let (y_lo, y_hi) = (y_lo - pad, y_hi + pad + 14.0 * series.len() as f64);
    let x = |m: f64| left + (w - left - right) * m / x_max;
    let y = |e: f64| top + (h - top - bottom) * (1.0 - (e.clamp(y_lo, y_hi) - y_lo) / (y_hi - y_lo));
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">Elo of each generation's net against the anchors (95% intervals)</text>\n\
         <line x1=\"{left}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888\" stroke-dasharray=\"4 3\"/>\n\
         <line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{}\" stroke=\"black\"/>\n\
         <line x1=\"{left}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n\
         <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">minutes of the loop</text>\n",
        w / 2.0,
        y(0.0),
        w - right,
        y(0.0),
        h - bottom,
        h - bottom,
        w - right,
        h - bottom,
        (left + w - right) / 2.0,
        h - 12.0,
    );
    // Round ticks, 0 among them (the anchor's strength).
    for e in nice_ticks(y_lo, y_hi, 8) {
        s.push_str(&format!(
            "<line x1=\"{0}\" y1=\"{1:.1}\" x2=\"{2}\" y2=\"{1:.1}\" stroke=\"#eee\"/>\n\
             <text x=\"{3}\" y=\"{4:.1}\" text-anchor=\"end\" class=\"tick\">{5}</text>\n",
            left + 1.0,
            y(e),
            w - right,
            left - 6.0,
            y(e) + 4.0,
            tick_label(e, true)
        ));
    }
    for m in nice_ticks(0.0, x_max, 8) {
        s.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\" class=\"tick\">{}</text>\n",
            x(m),
            h - bottom + 16.0,
            tick_label(m, false)
        ));
    }
    // Promotions: a dashed line at the minute the net became the best.
    let mut promoted: Vec<(f64, u32)> = all().filter(|p| p.promoted).map(|p| (p.minutes, p.generation)).collect();
    // Once each, whatever the number of anchors whose series hold the generation.
    promoted.sort_by_key(|p| p.1);
    promoted.dedup_by_key(|p| p.1);
    for (minutes, generation) in &promoted {
        s.push_str(&format!(
            "<line x1=\"{0:.1}\" y1=\"{1}\" x2=\"{0:.1}\" y2=\"{2}\" stroke=\"#2a2\" stroke-dasharray=\"2 3\" class=\"promotion\"/>\n\
             <text x=\"{0:.1}\" y=\"{3}\" text-anchor=\"middle\" font-size=\"10\" fill=\"#2a2\">▲g{4}</text>\n",
            x(*minutes),
            top,
            h - bottom,
            h - bottom + 28.0,
            generation
        ));
    }
    if !promoted.is_empty() {
        s.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" font-size=\"11\" fill=\"#2a2\">▲ promoted to best net</text>\n",
            w - right,
            top + 12.0
        ));
    }
    for (k, (anchor, points)) in series.iter().enumerate() {
        let colour = CHART_COLOURS[k % CHART_COLOURS.len()];
        // Each anchor's bars a few pixels apart, so equal minutes do not hide one another.
        let dx = 4.0 * k as f64;
        s.push_str(&legend_entry(k, left, top, colour, anchor));
        let path: Vec<String> = points.iter().map(|p| format!("{:.1},{:.1}", x(p.minutes) + dx, y(p.elo[0]))).collect();
        if !path.is_empty() {
            s.push_str(&format!("<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\"/>\n", path.join(" ")));
        }
        for p in points {
            s.push_str(&format!(
                "<line x1=\"{0:.1}\" y1=\"{1:.1}\" x2=\"{0:.1}\" y2=\"{2:.1}\" stroke=\"{colour}\"/>\n\
                 <circle cx=\"{0:.1}\" cy=\"{3:.1}\" r=\"4\" fill=\"{colour}\"/>\n\
                 <text x=\"{4:.1}\" y=\"{5:.1}\" font-size=\"10\">g{6}</text>\n",
                x(p.minutes) + dx,
                y(p.elo[1]),
                y(p.elo[2]),
                y(p.elo[0]),
                x(p.minutes) + dx + 5.0,
                y(p.elo[0]) - 5.0,
                p.generation
            ));
        }
    }
    s.push_str("</svg>\n");
    s
}

/// The chart legend's line for series `k` (its colour and `vs ANCHOR`),
/// stacked down the chart's top-left corner.
pub(crate) fn legend_entry(k: usize, left: f64, top: f64, colour: &str, anchor: &str) -> String {
    let legend_y = top + 14.0 * (k as f64 + 1.0);
    format!(
        "<line x1=\"{0}\" y1=\"{1:.1}\" x2=\"{2}\" y2=\"{1:.1}\" stroke=\"{colour}\" stroke-width=\"2\"/>\n\
         <text x=\"{3}\" y=\"{4:.1}\">vs {5}</text>\n",
        left + 10.0,
        legend_y - 4.0,
        left + 30.0,
        left + 36.0,
        legend_y,
        junqi_arena::svg::escape(anchor)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_include_zero_and_stay_few() {
        assert_eq!(nice_ticks(-137.0, 412.0, 8), [-100.0, 0.0, 100.0, 200.0, 300.0, 400.0]);
        assert_eq!(nice_ticks(0.0, 7.3, 8), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
        assert_eq!(nice_ticks(-23.0, 18.0, 5), [-20.0, -10.0, 0.0, 10.0]);
        assert_eq!(tick_label(0.0, true), "0");
        assert_eq!(tick_label(200.0, true), "+200");
        assert_eq!(tick_label(-50.0, true), "-50");
        assert_eq!(tick_label(3.0 * 0.02, false), "0.06");
        assert_eq!(tick_label(-1e-12, true), "0");
    }

    #[test]
    fn the_elo_chart_labels_zero_and_marks_promotions() {
        let point = |generation, minutes, elo: f64, promoted| ChartPoint {
            minutes,
            elo: [elo, elo - 60.0, elo + 60.0],
            generation,
            promoted,
        };
        let series = vec![(
            "greedy".to_string(),
            vec![point(0, 3.0, -120.0, false), point(1, 7.0, 35.0, true), point(2, 11.0, 80.0, false)],
        )];
        let svg = elo_chart(&series);
        let ticks: Vec<&str> = svg.split("class=\"tick\">").skip(1).map(|t| t.split('<').next().unwrap()).collect();
        assert!(ticks.contains(&"0") && ticks.contains(&"+100") && ticks.contains(&"-100"), "{ticks:?}");
        // Round numbers only (the old chart labelled quarters of its range: +37, -212).
        for t in &ticks {
            let v: f64 = t.parse().unwrap();
            assert!(v.fract() == 0.0, "{t}");
        }
        assert_eq!(svg.matches("class=\"promotion\"").count(), 1);
        assert!(svg.contains("▲g1") && svg.contains("promoted to best net"));
        // Two anchors rating the same generations: each promotion is marked once.
        let mut two = series.clone();
        two.push(("mcts".to_string(), vec![point(0, 3.0, -200.0, true), point(1, 7.0, -90.0, true)]));
        let svg = elo_chart(&two);
        assert_eq!(svg.matches("class=\"promotion\"").count(), 2, "{svg}");
        assert!(svg.contains("▲g0") && svg.contains("▲g1"));
        let none = elo_chart(&[("greedy".to_string(), vec![point(0, 3.0, -120.0, false)])]);
        assert!(!none.contains("promotion"));
    }
}
