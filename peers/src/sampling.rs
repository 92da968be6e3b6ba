//! Deterministic point sampling on a polygon set: the seeded query points both query layers
//! are measured on.
//!
//! The generator is SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number
//! generators", OOPSLA 2014): state += 0x9E3779B97F4A7C15, then the output mix
//! `z = (z ^ z >> 30) * 0xBF58476D1CE4E5B9; z = (z ^ z >> 27) * 0x94D049BB133111EB;
//! z ^ z >> 31`. Uniform numbers in [0, 1) are the top 53 bits times 2^-53. Everything after
//! is float64 `+ - * /` only, so the same seed gives the same points on every platform.

/// The seed of the reference report and benches.
pub const REPORT_SEED: u64 = 0x5EED_0001;
/// Number of start/end pairs of the reference report and benches.
pub const REPORT_PAIRS: usize = 50;

/// A start point and an end point, world units.
pub type PointPair = ([f32; 3], [f32; 3]);

/// The SplitMix64 generator (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64-bit output.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform float64 in [0, 1): the top 53 bits times 2^-53.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// Twice the signed X/Z area of triangle (a, b, c), float64.
fn twice_area_xz(a: [f32; 3], b: [f32; 3], c: [f32; 3]) -> f64 {
    let (ax, az) = (f64::from(a[0]), f64::from(a[2]));
    let (bx, bz) = (f64::from(b[0]), f64::from(b[2]));
    let (cx, cz) = (f64::from(c[0]), f64::from(c[2]));
    ((bx - ax) * (cz - az) - (cx - ax) * (bz - az)).abs()
}

/// `n` points drawn uniformly by X/Z area over `polygons` (convex, world space): a fan
/// triangle is picked with probability proportional to its area, then a uniform point in
/// it (Y interpolated from the corners). Empty when the polygons have no area.
pub fn sample_points(polygons: &[Vec<[f32; 3]>], n: usize, rng: &mut SplitMix64) -> Vec<[f32; 3]> {
    let mut triangles: Vec<[[f32; 3]; 3]> = Vec::new();
    let mut cumulative: Vec<f64> = Vec::new();
    let mut total = 0.0f64;
    for poly in polygons {
        for k in 2..poly.len() {
            let t = [poly[0], poly[k - 1], poly[k]];
            let a = twice_area_xz(t[0], t[1], t[2]);
            if a > 0.0 {
                total += a;
                triangles.push(t);
                cumulative.push(total);
            }
        }
    }
    if triangles.is_empty() {
        return Vec::new();
    }
    (0..n)
        .map(|_| {
            let r = rng.next_f64() * total;
            // First triangle whose cumulative area exceeds r (r < total, so one exists).
            let i = cumulative
                .partition_point(|&c| c <= r)
                .min(triangles.len() - 1);
            let [a, b, c] = triangles[i];
            let (mut u, mut v) = (rng.next_f64(), rng.next_f64());
            if u + v > 1.0 {
                // Reflect into the triangle's half of the unit square.
                u = 1.0 - u;
                v = 1.0 - v;
            }
            let mut p = [0f32; 3];
            for axis in 0..3 {
                let (pa, pb, pc) = (f64::from(a[axis]), f64::from(b[axis]), f64::from(c[axis]));
                p[axis] = (pa + (pb - pa) * u + (pc - pa) * v) as f32;
            }
            p
        })
        .collect()
}

/// `n` start/end pairs: consecutive samples of [`sample_points`] from `seed`.
pub fn point_pairs(polygons: &[Vec<[f32; 3]>], n: usize, seed: u64) -> Vec<PointPair> {
    let mut rng = SplitMix64::new(seed);
    let pts = sample_points(polygons, n.saturating_mul(2), &mut rng);
    pts.chunks_exact(2).map(|c| (c[0], c[1])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_matches_the_published_sequence_for_seed_0() {
        // Reference outputs of SplitMix64 seeded with 0 (as in the authors' C code).
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(r.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn samples_lie_inside_the_polygons_and_repeat_for_a_seed() {
        // Two unit squares at x in [0,1] and [5,6].
        let sq = |x0: f32| {
            vec![
                [x0, 1.0, 0.0],
                [x0, 1.0, 1.0],
                [x0 + 1.0, 1.0, 1.0],
                [x0 + 1.0, 1.0, 0.0],
            ]
        };
        let polys = vec![sq(0.0), sq(5.0)];
        let a = sample_points(&polys, 200, &mut SplitMix64::new(7));
        let b = sample_points(&polys, 200, &mut SplitMix64::new(7));
        assert_eq!(a, b);
        assert_eq!(a.len(), 200);
        for p in &a {
            let in_first = (0.0..=1.0).contains(&p[0]);
            let in_second = (5.0..=6.0).contains(&p[0]);
            assert!(in_first || in_second, "{p:?}");
            assert!((0.0..=1.0).contains(&p[2]) && p[1] == 1.0, "{p:?}");
        }
        // Both squares are hit (equal areas; 200 draws).
        assert!(a.iter().any(|p| p[0] <= 1.0) && a.iter().any(|p| p[0] >= 5.0));
        assert!(sample_points(&[], 3, &mut SplitMix64::new(1)).is_empty());
    }
}
