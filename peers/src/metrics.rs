//! The figures the harness compares between implementations, and the trait a query
//! engine implements to be measured on the same point pairs.

use crate::error::PeerError;
use crate::sampling::PointPair;

/// What a navmesh build produced, in numbers comparable across implementations.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BuildMetrics {
    /// Tiles holding at least one polygon.
    pub tile_count: usize,
    /// Polygons over all tiles.
    pub polygon_count: usize,
    /// Vertices over all tiles (shared tile-border vertices counted once per tile).
    pub vertex_count: usize,
    /// Sum of the polygons' X/Z areas, world units².
    pub walkable_area: f64,
}

/// Straight-path figures over a list of pairs, comparable pair by pair across engines.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PathMetrics {
    /// Per pair: the straight-path length of a complete path; `None` when a point did not
    /// snap or the path is partial.
    pub lengths: Vec<Option<f64>>,
    /// Number of complete paths.
    pub complete: usize,
    /// Sum of the complete paths' lengths (in pair order, float64).
    pub total_length: f64,
}

impl PathMetrics {
    /// Collects the figures of `results` in order.
    pub fn from_results(results: &[PairResult]) -> Self {
        let lengths: Vec<Option<f64>> = results
            .iter()
            .map(|r| match &r.outcome {
                Some(o) if !o.partial => Some(o.length()),
                _ => None,
            })
            .collect();
        PathMetrics {
            complete: lengths.iter().flatten().count(),
            total_length: lengths.iter().flatten().sum(),
            lengths,
        }
    }
}

/// Everything the harness reports for one engine on one level.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Metrics {
    /// Build figures.
    pub build: BuildMetrics,
    /// Path figures on the seeded pairs.
    pub paths: PathMetrics,
}

/// The outcome of one start/end query.
#[derive(Debug, Clone, PartialEq)]
pub struct PathOutcome {
    /// Polygons in the corridor.
    pub corridor_len: usize,
    /// Whether the search reported a partial path (end not reached).
    pub partial: bool,
    /// Corners of the straight path, start and end included, world units.
    pub corners: Vec<[f32; 3]>,
}

impl PathOutcome {
    /// Length of the straight path: the sum of 3D segment lengths, in float64.
    pub fn length(&self) -> f64 {
        path_length(&self.corners)
    }
}

/// Sum of the 3D lengths of consecutive segments, in float64 (exact `+ - * sqrt` only).
pub fn path_length(corners: &[[f32; 3]]) -> f64 {
    corners
        .windows(2)
        .map(|w| {
            let dx = f64::from(w[1][0]) - f64::from(w[0][0]);
            let dy = f64::from(w[1][1]) - f64::from(w[0][1]);
            let dz = f64::from(w[1][2]) - f64::from(w[0][2]);
            (dx * dx + dy * dy + dz * dz).sqrt()
        })
        .sum()
}

/// A query layer measured by the harness: Detour now, OnePath's `onepath-mesh` query later.
pub trait PathEngine {
    /// Snaps `start` and `end` to the mesh and returns the corridor and straight path
    /// between them; `Ok(None)` when either point does not snap to a polygon.
    fn straight_path(
        &mut self,
        start: [f32; 3],
        end: [f32; 3],
    ) -> Result<Option<PathOutcome>, PeerError>;
}

/// One point pair and what an engine answered for it.
#[derive(Debug, Clone, PartialEq)]
pub struct PairResult {
    /// Start, as sampled.
    pub start: [f32; 3],
    /// End, as sampled.
    pub end: [f32; 3],
    /// The engine's answer (`None`: a point did not snap).
    pub outcome: Option<PathOutcome>,
}

/// Runs `engine` over `pairs` in order.
pub fn run_pairs(
    engine: &mut dyn PathEngine,
    pairs: &[PointPair],
) -> Result<Vec<PairResult>, PeerError> {
    pairs
        .iter()
        .map(|&(start, end)| {
            Ok(PairResult {
                start,
                end,
                outcome: engine.straight_path(start, end)?,
            })
        })
        .collect()
}

/// Up to `n` start/end pairs whose path `engine` completes (not partial): pairs are drawn
/// from one SplitMix64 stream seeded with `seed` (two [`crate::sampling::sample_points`]
/// draws each) and kept in draw order; at most `max_draws` pairs are tried. The result
/// depends only on the polygons, the seed and the engine's answers, so the same coordinates
/// can then be handed to another engine.
pub fn reachable_pairs(
    engine: &mut dyn PathEngine,
    polygons: &[Vec<[f32; 3]>],
    n: usize,
    seed: u64,
    max_draws: usize,
) -> Result<Vec<PointPair>, PeerError> {
    let mut rng = crate::sampling::SplitMix64::new(seed);
    let mut out = Vec::with_capacity(n);
    for _ in 0..max_draws {
        if out.len() == n {
            break;
        }
        let pts = crate::sampling::sample_points(polygons, 2, &mut rng);
        let [s, e] = pts[..] else {
            // No polygon has area: nothing can be drawn.
            break;
        };
        if let Some(o) = engine.straight_path(s, e)? {
            if !o.partial {
                out.push((s, e));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_metrics_count_only_complete_paths() {
        let pair = |partial: bool, corners: Vec<[f32; 3]>| PairResult {
            start: [0.0; 3],
            end: [0.0; 3],
            outcome: Some(PathOutcome {
                corridor_len: 1,
                partial,
                corners,
            }),
        };
        let results = [
            pair(false, vec![[0.0, 0.0, 0.0], [3.0, 0.0, 4.0]]),
            pair(true, vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]),
            PairResult {
                start: [0.0; 3],
                end: [0.0; 3],
                outcome: None,
            },
            pair(false, vec![[0.0, 0.0, 0.0], [0.0, 2.0, 0.0]]),
        ];
        let m = PathMetrics::from_results(&results);
        assert_eq!(m.lengths, vec![Some(5.0), None, None, Some(2.0)]);
        assert_eq!((m.complete, m.total_length), (2, 7.0));
    }

    #[test]
    fn path_length_sums_3d_segments() {
        let corners = [[0.0, 0.0, 0.0], [3.0, 0.0, 4.0], [3.0, 2.0, 4.0]];
        assert_eq!(path_length(&corners), 7.0);
        assert_eq!(path_length(&corners[..1]), 0.0);
    }
}
