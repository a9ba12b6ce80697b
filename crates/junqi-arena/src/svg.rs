//! A small dependency-free SVG chart: one row per label, a point with a
//! horizontal error bar, and a reference line. Enough for the study's
//! "first-mover score per variant" figure; plotting crates need font stacks
//! to lay out text, which this machine-independent output avoids.

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
}

/// `s` as SVG/XML text or attribute content.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// An SVG document: `title`, x-axis label `x_label`, values shown as percent
/// (`value * 100`), a dashed vertical line at `reference`.
pub fn error_bar_chart(title: &str, x_label: &str, rows: &[Row], reference: f64) -> String {
    let (label_w, plot_w, row_h, top, bottom) = (330.0, 520.0, 22.0, 48.0, 56.0);
    let height = top + bottom + row_h * rows.len() as f64;
    let width = label_w + plot_w + 30.0;
    // The x range: every interval and the reference, padded, on a 1% grid.
    let lo = rows.iter().map(|r| r.low).fold(reference, f64::min);
    let hi = rows.iter().map(|r| r.high).fold(reference, f64::max);
    let pad = ((hi - lo) * 0.08).max(0.01);
    let (x0, x1) = (((lo - pad) * 100.0).floor() / 100.0, ((hi + pad) * 100.0).ceil() / 100.0);
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
    // Grid and ticks every `step` percent.
    let span = (x1 - x0) * 100.0;
    let step = [1.0, 2.0, 5.0, 10.0, 20.0].into_iter().find(|st| span / st <= 10.0).unwrap_or(25.0);
    let mut t = (x0 * 100.0 / step).ceil() * step;
    while t <= x1 * 100.0 + 1e-9 {
        let px = x(t / 100.0);
        let _ = writeln!(s, r##"<line x1="{px:.1}" y1="{top}" x2="{px:.1}" y2="{plot_bottom}" stroke="#ddd"/>"##);
        let _ = writeln!(s, r#"<text x="{px:.1}" y="{}" text-anchor="middle">{t:.0}%</text>"#, plot_bottom + 16.0);
        t += step;
    }
    let rx = x(reference);
    let _ = writeln!(
        s,
        r##"<line x1="{rx:.1}" y1="{}" x2="{rx:.1}" y2="{plot_bottom}" stroke="#444" stroke-dasharray="4 3"/>"##,
        top - 6.0
    );
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
            Row { label: "a<b".into(), value: 0.55, low: 0.52, high: 0.58, highlight: true },
            Row { label: "plain".into(), value: 0.49, low: 0.46, high: 0.52, highlight: false },
        ];
        let svg = error_bar_chart("T & t", "score", &rows, 0.5);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("a&lt;b") && svg.contains("T &amp; t"));
        assert_eq!(svg.matches("<circle").count(), 2);
        // Every drawn x lies inside the plot area.
        for part in svg.split("cx=\"").skip(1) {
            let v: f64 = part.split('"').next().unwrap().parse().unwrap();
            assert!((330.0..=850.0).contains(&v), "{v}");
        }
    }
}
