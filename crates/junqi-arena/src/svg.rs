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
