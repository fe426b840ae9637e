//! Figures, statistics and the printed table.

use serde_json::json;

/// One measured figure, next to its peer.
#[derive(Clone, Debug)]
pub(crate) struct Figure {
    pub(crate) section: &'static str,
    pub(crate) name: String,
    pub(crate) ours: f64,
    pub(crate) unit: &'static str,
    pub(crate) peer: String,
    pub(crate) peer_value: f64,
    /// How the ratio reads, e.g. `ours/peer`.
    pub(crate) note: String,
}

impl Figure {
    pub(crate) fn new(
        section: &'static str,
        name: impl Into<String>,
        ours: f64,
        unit: &'static str,
    ) -> Self {
        Figure {
            section,
            name: name.into(),
            ours,
            unit,
            peer: String::new(),
            peer_value: f64::NAN,
            note: String::new(),
        }
    }

    pub(crate) fn peer(mut self, peer: impl Into<String>, value: f64) -> Self {
        self.peer = peer.into();
        self.peer_value = value;
        self
    }

    pub(crate) fn note(mut self, note: impl Into<String>) -> Self {
        self.note = note.into();
        self
    }

    /// ours / peer.
    pub(crate) fn ratio(&self) -> f64 {
        self.ours / self.peer_value
    }
}

/// The median of `v` (mean of the middle two for an even count); NaN for none.
pub(crate) fn median(v: &[f64]) -> f64 {
    percentile(v, 50.0)
}

/// The `p`-th percentile by linear interpolation between closest ranks; NaN for none.
pub(crate) fn percentile(v: &[f64], p: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let rank = p / 100.0 * (s.len() - 1) as f64;
    let (lo, hi) = (rank.floor() as usize, rank.ceil() as usize);
    s[lo] + (s[hi] - s[lo]) * (rank - lo as f64)
}

fn num(v: f64) -> String {
    if v.is_nan() {
        "-".into()
    } else if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.4}")
    }
}

/// The table: one line per figure.
pub(crate) fn table(header: &str, figures: &[Figure]) -> String {
    let mut rows = vec![[
        "section".to_owned(),
        "figure".to_owned(),
        "modoai".to_owned(),
        "unit".to_owned(),
        "peer".to_owned(),
        "peer value".to_owned(),
        "ratio".to_owned(),
        "note".to_owned(),
    ]];
    for f in figures {
        rows.push([
            f.section.to_owned(),
            f.name.clone(),
            num(f.ours),
            f.unit.to_owned(),
            f.peer.clone(),
            num(f.peer_value),
            num(f.ratio()),
            f.note.clone(),
        ]);
    }
    let mut widths = [0usize; 8];
    for r in &rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = format!("{header}\n");
    for r in &rows {
        let cells: Vec<String> = r
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// All figures as JSON, with the run's context.
pub(crate) fn to_json(context: serde_json::Value, figures: &[Figure]) -> serde_json::Value {
    let f: Vec<_> = figures
        .iter()
        .map(|f| {
            let n = |v: f64| if v.is_finite() { json!(v) } else { json!(null) };
            json!({"section": f.section, "figure": f.name, "modoai": n(f.ours), "unit": f.unit,
                   "peer": f.peer, "peer_value": n(f.peer_value), "ratio": n(f.ratio()), "note": f.note})
        })
        .collect();
    json!({"context": context, "figures": f})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(median(&v), 50.5);
        assert!((percentile(&v, 99.0) - 99.01).abs() < 1e-9);
        assert_eq!(percentile(&[3.0], 99.0), 3.0);
        assert_eq!(median(&[5.0, 1.0, 3.0]), 3.0);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn table_and_json() {
        let f = vec![Figure::new("throughput", "payload", 200.0, "MB/s")
            .peer("nginx", 400.0)
            .note("x")];
        let t = table("# header", &f);
        assert!(t.starts_with("# header\nsection"), "{t}");
        assert!(t.contains("nginx") && t.contains("0.5000"), "{t}");
        let j = to_json(json!({"cores": 2}), &f);
        assert_eq!(j["figures"][0]["ratio"], 0.5);
        assert_eq!(j["context"]["cores"], 2);
        let lone = to_json(json!({}), &[Figure::new("s", "n", 1.0, "u")]);
        assert!(lone["figures"][0]["peer_value"].is_null());
    }
}
