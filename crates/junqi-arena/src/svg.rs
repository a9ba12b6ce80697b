//! A small dependency-free SVG chart: one row per label, a point with a
//! horizontal error bar, and a reference line. Enough for the study's
//! figure (each variant's difference from its preset, in Elo); plotting
//! crates need font stacks to lay out text, which this machine-independent
//! output avoids.

use std::fmt::Write as _;

/// One row: a label, a value and its interval (all in the chart's units).
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub label: String,
    pub value: f64,
    pub low: f64,
    pub high: f64,
    /// Drawn highlighted (e.g. the interval excludes the reference).
    pub highlight: bool,
    /// An interval shaded behind the row (e.g. the reference variant's, so a
    /// row reads against it).
    pub band: Option<(f64, f64)>,
}

/// `s` as SVG/XML text or attribute content.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// How the x axis shows values: ticks at `value * scale`, followed by `unit`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Axis {
    pub scale: f64,
    pub unit: &'static str,
}

impl Axis {
    /// Proportions shown as percent.
    pub const PERCENT: Axis = Axis { scale: 100.0, unit: "%" };
    /// Values shown as they are (e.g. Elo).
    pub const PLAIN: Axis = Axis { scale: 1.0, unit: "" };
}

/// An SVG document: `title`, x-axis label `x_label`, values shown on `axis`,
/// a dashed vertical line at `reference` labelled `reference_label`, each
/// row's band shaded. The label column is as wide as the longest label
/// needs, so no label is clipped.
pub fn error_bar_chart(
    title: &str,
    x_label: &str,
    rows: &[Row],
    axis: Axis,
    reference: f64,
    reference_label: &str,
) -> String {
    let k = axis.scale;
    // About 7 px a character at 12 px sans-serif (wider than most glyphs).
    let longest = rows.iter().map(|r| r.label.chars().count()).max().unwrap_or(0) as f64;
    let label_w = (longest * 7.0 + 20.0).max(200.0);
    let (plot_w, row_h, top, bottom) = (520.0, 22.0, 62.0, 56.0);
    let height = top + bottom + row_h * rows.len() as f64;
    let width = label_w + plot_w + 30.0;
    // The x range: every interval and the reference, padded, on a grid of one shown unit.
    let lo = rows.iter().map(|r| r.low).fold(reference, f64::min);
    let hi = rows.iter().map(|r| r.high).fold(reference, f64::max);
    let pad = ((hi - lo) * 0.08).max(1.0 / k);
    let (x0, x1) = (((lo - pad) * k).floor() / k, ((hi + pad) * k).ceil() / k);
    let x = |v: f64| label_w + (v - x0) / (x1 - x0) * plot_w;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ =
        writeln!(s, r#"<text x="{}" y="24" font-size="15" text-anchor="middle">{}</text>"#, width / 2.0, escape(title));
    let plot_bottom = top + row_h * rows.len() as f64;
    // Grid and ticks every `step` shown units.
    let span = (x1 - x0) * k;
    let step = [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0]
        .into_iter()
        .find(|st| span / st <= 10.0)
        .unwrap_or(1000.0);
    let mut t = (x0 * k / step).ceil() * step;
    while t <= x1 * k + 1e-9 {
        let px = x(t / k);
        let _ = writeln!(s, r##"<line x1="{px:.1}" y1="{top}" x2="{px:.1}" y2="{plot_bottom}" stroke="#ddd"/>"##);
        // `+ 0.0` turns a -0 tick into 0.
        let _ = writeln!(
            s,
            r#"<text x="{px:.1}" y="{}" text-anchor="middle">{:.0}{}</text>"#,
            plot_bottom + 16.0,
            t + 0.0,
            axis.unit
        );
        t += step;
    }
    // The bands first, under everything else.
    for (i, r) in rows.iter().enumerate() {
        if let Some((lo, hi)) = r.band {
            let _ = writeln!(
                s,
                r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{row_h}" fill="#f0e6c8"/>"##,
                x(lo),
                top + row_h * i as f64,
                (x(hi) - x(lo)).max(1.0)
            );
        }
    }
    let rx = x(reference);
    let _ = writeln!(
        s,
        r##"<line x1="{rx:.1}" y1="{}" x2="{rx:.1}" y2="{plot_bottom}" stroke="#444" stroke-dasharray="4 3"/>"##,
        top - 6.0
    );
    let _ =
        writeln!(s, r#"<text x="{rx:.1}" y="{}" text-anchor="middle">{}</text>"#, top - 10.0, escape(reference_label));
    for (i, r) in rows.iter().enumerate() {
        let y = top + row_h * (i as f64 + 0.5);
        let colour = if r.highlight { "#c0392b" } else { "#2c3e50" };
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{:.1}" text-anchor="end">{}</text>"#,
            label_w - 10.0,
            y + 4.0,
            escape(&r.label)
        );
        let _ = writeln!(
            s,
            r#"<line x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{colour}" stroke-width="2"/>"#,
            x(r.low),
            x(r.high)
        );
        for end in [r.low, r.high] {
            let _ = writeln!(
                s,
                r#"<line x1="{0:.1}" y1="{1:.1}" x2="{0:.1}" y2="{2:.1}" stroke="{colour}" stroke-width="2"/>"#,
                x(end),
                y - 5.0,
                y + 5.0
            );
        }
        let _ = writeln!(s, r#"<circle cx="{:.1}" cy="{y:.1}" r="4" fill="{colour}"/>"#, x(r.value));
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
        label_w + plot_w / 2.0,
        plot_bottom + 40.0,
        escape(x_label)
    );
    s.push_str("</svg>\n");
    s
}

/// One point of a [`scatter_chart`] series: x with its interval, y with its interval.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub label: String,
    pub x: junqi_stats::Estimate,
    pub y: junqi_stats::Estimate,
}

/// A chart of points with both intervals as bars, one colour per series, a
/// dashed line at y = `reference`. Each point is a `<circle>` with
/// `data-series`, `data-label` and its value as `data-x` and `data-y`.
pub fn scatter_chart(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[(String, Vec<Point>)],
    reference: f64,
) -> String {
    const COLOURS: [&str; 6] = ["#c0392b", "#2471a3", "#1e8449", "#8e44ad", "#d35400", "#2c3e50"];
    let points = || series.iter().flat_map(|(_, p)| p);
    let range = |lo: f64, hi: f64| {
        let pad = ((hi - lo) * 0.08).max(1.0);
        let (lo, hi) = (lo - pad, hi + pad);
        let step = tick_step(hi - lo);
        ((lo / step).floor() * step, (hi / step).ceil() * step, step)
    };
    let finite = |v: f64, alt: f64| if v.is_finite() { v } else { alt };
    let (xl, xh) = points().fold((f64::MAX, f64::MIN), |(l, h), p| {
        (l.min(finite(p.x.low, p.x.value)), h.max(finite(p.x.high, p.x.value)))
    });
    let (yl, yh) = points().fold((reference, reference), |(l, h), p| {
        (l.min(finite(p.y.low, p.y.value)), h.max(finite(p.y.high, p.y.value)))
    });
    let (xl, xh) = if xl > xh { (0.0, 1.0) } else { (xl, xh) };
    let (x0, x1, xstep) = range(xl, xh);
    let (y0, y1, ystep) = range(yl, yh);
    let (left, top, plot_w, plot_h) = (80.0, 60.0, 560.0, 340.0);
    let legend_w = 16.0 + 7.0 * series.iter().map(|(n, _)| n.chars().count()).max().unwrap_or(0) as f64 + 30.0;
    let (width, height) = (left + plot_w + legend_w.max(120.0), top + plot_h + 60.0);
    let px = |v: f64| left + (v.clamp(x0, x1) - x0) / (x1 - x0) * plot_w;
    let py = |v: f64| top + plot_h - (v.clamp(y0, y1) - y0) / (y1 - y0) * plot_h;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ =
        writeln!(s, r#"<text x="{}" y="24" font-size="15" text-anchor="middle">{}</text>"#, width / 2.0, escape(title));
    let mut t = x0;
    while t <= x1 + 1e-9 {
        let x = px(t);
        let _ = writeln!(s, r##"<line x1="{x:.2}" y1="{top}" x2="{x:.2}" y2="{}" stroke="#ddd"/>"##, top + plot_h);
        let _ = writeln!(
            s,
            r#"<text class="x-tick" data-value="{}" x="{x:.2}" y="{}" text-anchor="middle">{:.0}</text>"#,
            t + 0.0,
            top + plot_h + 16.0,
            t + 0.0
        );
        t += xstep;
    }
    let mut t = y0;
    while t <= y1 + 1e-9 {
        let y = py(t);
        let _ = writeln!(s, r##"<line x1="{left}" y1="{y:.2}" x2="{}" y2="{y:.2}" stroke="#ddd"/>"##, left + plot_w);
        let _ = writeln!(s, r#"<text x="{}" y="{:.2}" text-anchor="end">{:.0}</text>"#, left - 6.0, y + 4.0, t + 0.0);
        t += ystep;
    }
    let ry = py(reference);
    let _ = writeln!(
        s,
        r##"<line x1="{left}" y1="{ry:.2}" x2="{}" y2="{ry:.2}" stroke="#444" stroke-dasharray="4 3"/>"##,
        left + plot_w
    );
    for (k, (name, pts)) in series.iter().enumerate() {
        let colour = COLOURS[k % COLOURS.len()];
        // The series joined in order of x, so a trend reads at a glance.
        let mut sorted: Vec<&Point> = pts.iter().collect();
        sorted.sort_by(|a, b| a.x.value.total_cmp(&b.x.value));
        let path: Vec<String> = sorted.iter().map(|p| format!("{:.2},{:.2}", px(p.x.value), py(p.y.value))).collect();
        let _ = writeln!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-opacity="0.4"/>"#,
            path.join(" ")
        );
        for p in pts {
            let (x, y) = (px(p.x.value), py(p.y.value));
            // The y interval (the first mover's advantage) bold, the x interval (the rung's Elo) thin.
            let _ = writeln!(
                s,
                r#"<line x1="{x:.2}" y1="{:.2}" x2="{x:.2}" y2="{:.2}" stroke="{colour}" stroke-width="2"/>"#,
                py(finite(p.y.low, p.y.value)),
                py(finite(p.y.high, p.y.value))
            );
            let _ = writeln!(
                s,
                r#"<line x1="{:.2}" y1="{y:.2}" x2="{:.2}" y2="{y:.2}" stroke="{colour}" stroke-opacity="0.5"/>"#,
                px(finite(p.x.low, p.x.value)),
                px(finite(p.x.high, p.x.value))
            );
            let _ = writeln!(
                s,
                r#"<circle cx="{x:.2}" cy="{y:.2}" r="4" fill="{colour}" data-series="{}" data-label="{}" data-x="{}" data-y="{}"><title>{}</title></circle>"#,
                escape(name),
                escape(&p.label),
                p.x.value,
                p.y.value,
                escape(&format!("{name}: {} at {:+.0} Elo, first mover {:+.1}", p.label, p.x.value, p.y.value))
            );
            let _ = writeln!(
                s,
                r#"<text x="{:.2}" y="{:.2}" font-size="10">{}</text>"#,
                x + 6.0,
                y - 6.0,
                escape(&p.label)
            );
        }
        let ly = top + 10.0 + 18.0 * k as f64;
        let lx = left + plot_w + 16.0;
        let _ = writeln!(s, r#"<circle cx="{lx}" cy="{ly}" r="4" fill="{colour}"/>"#);
        let _ = writeln!(s, r#"<text x="{}" y="{}">{}</text>"#, lx + 10.0, ly + 4.0, escape(name));
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
        left + plot_w / 2.0,
        top + plot_h + 40.0,
        escape(x_label)
    );
    let _ = writeln!(
        s,
        r#"<text x="18" y="{0}" text-anchor="middle" transform="rotate(-90 18 {0})">{1}</text>"#,
        top + plot_h / 2.0,
        escape(y_label)
    );
    s.push_str("</svg>\n");
    s
}

/// A round tick step (1, 2, 2.5 or 5 times a power of ten) giving at most 10 ticks over `span`.
fn tick_step(span: f64) -> f64 {
    let mut base = 1.0;
    loop {
        for m in [1.0, 2.0, 2.5, 5.0] {
            if span / (m * base) <= 10.0 {
                return m * base;
            }
        }
        base *= 10.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_drawn_in_range_and_labels_escaped() {
        let rows = vec![
            Row { label: "a<b".into(), value: 0.55, low: 0.52, high: 0.58, highlight: true, band: None },
            Row {
                label: "plain".into(),
                value: 0.49,
                low: 0.46,
                high: 0.52,
                highlight: false,
                band: Some((0.47, 0.5)),
            },
        ];
        let svg = error_bar_chart("T & t", "score", &rows, Axis::PERCENT, 0.5, "50%: even");
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("a&lt;b") && svg.contains("T &amp; t") && svg.contains(">50%: even</text>"));
        assert_eq!(svg.matches("<circle").count(), 2);
        assert_eq!(svg.matches(r##"fill="#f0e6c8""##).count(), 1, "one band");
        // Every drawn x lies inside the plot area (labels take 200 px here).
        for part in svg.split("cx=\"").skip(1) {
            let v: f64 = part.split('"').next().unwrap().parse().unwrap();
            assert!((200.0..=720.0).contains(&v), "{v}");
        }
    }

    #[test]
    fn a_long_label_widens_the_label_column_instead_of_being_clipped() {
        let label = "anqi-reveal_flag_on_commander_loss-false (+7 Elo)".to_string();
        let rows = vec![Row { label: label.clone(), value: 0.5, low: 0.49, high: 0.51, highlight: false, band: None }];
        let svg = error_bar_chart("t", "x", &rows, Axis::PERCENT, 0.5, "r");
        // The label ends 10 px left of the plot, which starts after 7 px a character.
        let x: f64 =
            svg.split("<text x=\"").find(|p| p.contains(&label)).unwrap().split('"').next().unwrap().parse().unwrap();
        assert!(x >= 7.0 * label.chars().count() as f64, "{x}");
    }

    #[test]
    fn a_plain_axis_ticks_in_its_own_units_with_zero_labelled() {
        let rows = vec![Row { label: "a".into(), value: -29.0, low: -36.0, high: -23.0, highlight: true, band: None }];
        let svg = error_bar_chart("t", "Elo", &rows, Axis::PLAIN, 0.0, "0: as the preset");
        let texts: Vec<&str> = svg.split("</text>").filter_map(|t| t.rsplit('>').next()).collect();
        let ticks: Vec<&str> =
            texts.iter().copied().filter(|t| t.trim_end_matches('%').parse::<f64>().is_ok()).collect();
        assert!(ticks.contains(&"0") && ticks.contains(&"-30"), "{ticks:?}");
        assert!(ticks.iter().all(|t| !t.ends_with('%')), "{ticks:?}");
    }
}
