//! Summary statistics of timing samples.

/// Median, 95th percentile (nearest rank), mean and range.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stats {
    pub median: f64,
    pub p95: f64,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
}

pub fn stats(samples: &[f64]) -> Stats {
    if samples.is_empty() {
        return Stats::default();
    }
    let mut s = samples.to_vec();
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let rank = |q: f64| s[((q * s.len() as f64).ceil() as usize).clamp(1, s.len()) - 1];
    let median = if s.len() % 2 == 1 { s[s.len() / 2] } else { (s[s.len() / 2 - 1] + s[s.len() / 2]) / 2.0 };
    Stats { median, p95: rank(0.95), mean: s.iter().sum::<f64>() / s.len() as f64, min: s[0], max: s[s.len() - 1] }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_percentile_and_range() {
        let s = stats(&[5.0, 1.0, 3.0, 2.0, 4.0]);
        assert_eq!((s.median, s.mean, s.min, s.max, s.p95), (3.0, 3.0, 1.0, 5.0, 5.0));
        assert_eq!(stats(&[1.0, 2.0, 3.0, 4.0]).median, 2.5);
        let hundred: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(stats(&hundred).p95, 95.0);
        assert_eq!(stats(&[]), Stats::default());
    }
}
