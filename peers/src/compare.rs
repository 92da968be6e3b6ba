//! Pair-by-pair comparison of two engines' straight paths, and an interleaved timer for
//! ratios measured in the same run.

use std::time::{Duration, Instant};

use crate::metrics::PathMetrics;

/// How two engines' straight-path lengths compare over the same list of pairs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LengthComparison {
    /// Pairs both engines completed.
    pub both_complete: usize,
    /// Pairs only the first engine completed.
    pub only_first: usize,
    /// Pairs only the second engine completed.
    pub only_second: usize,
    /// Among `both_complete`: pairs whose lengths differ by at most the tolerance
    /// (relative to the first engine's length).
    pub within_tolerance: usize,
    /// Largest relative difference `|b − a| / a` among `both_complete` (0 for equal
    /// lengths, including two zero lengths).
    pub max_relative_diff: f64,
    /// Sum of the first engine's lengths over `both_complete`, in pair order.
    pub total_first: f64,
    /// Sum of the second engine's lengths over `both_complete`, in pair order.
    pub total_second: f64,
    /// Per pair: `Some((a, b))` when both completed.
    pub per_pair: Vec<Option<(f64, f64)>>,
}

impl LengthComparison {
    /// Compares `first` and `second` (computed on the same pairs, in the same order) with a
    /// relative `tolerance`. Pairs beyond the shorter list count as completed by neither.
    pub fn new(first: &PathMetrics, second: &PathMetrics, tolerance: f64) -> Self {
        let mut c = LengthComparison::default();
        for (a, b) in first.lengths.iter().zip(&second.lengths) {
            match (a, b) {
                (Some(a), Some(b)) => {
                    c.both_complete += 1;
                    c.total_first += a;
                    c.total_second += b;
                    let rel = relative_diff(*a, *b);
                    if rel <= tolerance {
                        c.within_tolerance += 1;
                    }
                    c.max_relative_diff = c.max_relative_diff.max(rel);
                    c.per_pair.push(Some((*a, *b)));
                }
                (Some(_), None) => {
                    c.only_first += 1;
                    c.per_pair.push(None);
                }
                (None, Some(_)) => {
                    c.only_second += 1;
                    c.per_pair.push(None);
                }
                (None, None) => c.per_pair.push(None),
            }
        }
        c
    }

    /// `total_second / total_first` (1 when both are 0).
    pub fn total_ratio(&self) -> f64 {
        if self.total_first == 0.0 {
            if self.total_second == 0.0 {
                1.0
            } else {
                f64::INFINITY
            }
        } else {
            self.total_second / self.total_first
        }
    }
}

/// `|b − a| / a`, 0 when both are 0, infinite when only `a` is 0.
pub fn relative_diff(a: f64, b: f64) -> f64 {
    if a == b {
        0.0
    } else if a == 0.0 {
        f64::INFINITY
    } else {
        (b - a).abs() / a.abs()
    }
}

/// Runs each task once per round, the tasks interleaved within a round (so load changes on a
/// shared machine hit all of them alike), and returns each task's times, sorted ascending
/// (`[0]` is the fastest round). `rounds` below 1 counts as 1.
pub fn interleaved_rounds(rounds: usize, tasks: &mut [&mut dyn FnMut()]) -> Vec<Vec<Duration>> {
    let mut times = vec![Vec::with_capacity(rounds.max(1)); tasks.len()];
    for _ in 0..rounds.max(1) {
        for (task, t) in tasks.iter_mut().zip(times.iter_mut()) {
            let t0 = Instant::now();
            task();
            t.push(t0.elapsed());
        }
    }
    for t in &mut times {
        t.sort();
    }
    times
}

/// The median of sorted times (the upper one of an even count; zero for none).
pub fn median(sorted: &[Duration]) -> Duration {
    sorted.get(sorted.len() / 2).copied().unwrap_or_default()
}

/// `a / b` of two durations as float64 (infinite when `b` is zero).
pub fn ratio(a: Duration, b: Duration) -> f64 {
    if b.is_zero() {
        f64::INFINITY
    } else {
        a.as_secs_f64() / b.as_secs_f64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metrics(lengths: Vec<Option<f64>>) -> PathMetrics {
        PathMetrics {
            complete: lengths.iter().flatten().count(),
            total_length: lengths.iter().flatten().sum(),
            lengths,
        }
    }

    #[test]
    fn lengths_are_compared_only_where_both_engines_completed() {
        let a = metrics(vec![Some(10.0), Some(4.0), None, Some(0.0), None]);
        let b = metrics(vec![Some(10.1), None, Some(3.0), Some(0.0), None]);
        let c = LengthComparison::new(&a, &b, 0.02);
        assert_eq!((c.both_complete, c.only_first, c.only_second), (2, 1, 1));
        assert_eq!(c.within_tolerance, 2);
        assert_eq!((c.total_first, c.total_second), (10.0, 10.1));
        assert!((c.max_relative_diff - 0.01).abs() < 1e-12);
        assert_eq!(c.per_pair[0], Some((10.0, 10.1)));
        assert_eq!(c.per_pair[1], None);
        let strict = LengthComparison::new(&a, &b, 0.001);
        assert_eq!(strict.within_tolerance, 1);
    }

    #[test]
    fn relative_difference_handles_zero_lengths() {
        assert_eq!(relative_diff(0.0, 0.0), 0.0);
        assert_eq!(relative_diff(0.0, 1.0), f64::INFINITY);
        assert_eq!(relative_diff(2.0, 1.0), 0.5);
    }

    #[test]
    fn interleaved_rounds_run_every_task_once_per_round() {
        let (mut a, mut b) = (0, 0);
        let times = interleaved_rounds(3, &mut [&mut || a += 1, &mut || b += 2]);
        assert_eq!((a, b, times.len()), (3, 6, 2));
        assert!(times
            .iter()
            .all(|t| t.len() == 3 && t.windows(2).all(|w| w[0] <= w[1])));
        let d = |ms| Duration::from_millis(ms);
        assert_eq!(median(&[d(1), d(2), d(9)]), d(2));
        assert_eq!(median(&[]), Duration::ZERO);
        assert_eq!(
            ratio(Duration::from_millis(3), Duration::from_millis(2)),
            1.5
        );
        assert_eq!(
            ratio(Duration::from_millis(3), Duration::ZERO),
            f64::INFINITY
        );
    }
}
