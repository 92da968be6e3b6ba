//! The exact orientation predicate against an exact integer evaluation: every finite f32
//! is m·2^e with e ≥ −149, so scaling by 2^149 makes every coordinate an integer (below
//! 2^277) and the determinant an exact big-integer expression.

use std::cmp::Ordering;

use onepath_format::orient2d_exact;
use proptest::prelude::*;

use crate::gen::{self, Rng};

/// A signed big integer: sign and little-endian u32 limbs without leading zeros.
#[derive(Clone, Debug)]
struct Big {
    neg: bool,
    mag: Vec<u32>,
}

fn trim(mut v: Vec<u32>) -> Vec<u32> {
    while v.last() == Some(&0) {
        v.pop();
    }
    v
}

fn cmp_mag(a: &[u32], b: &[u32]) -> Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.iter().rev().cmp(b.iter().rev()))
}

fn add_mag(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len().max(b.len()) + 1);
    let mut carry = 0u64;
    for i in 0..a.len().max(b.len()) {
        let s = u64::from(*a.get(i).unwrap_or(&0)) + u64::from(*b.get(i).unwrap_or(&0)) + carry;
        out.push(s as u32);
        carry = s >> 32;
    }
    out.push(carry as u32);
    trim(out)
}

/// a − b for |a| ≥ |b|.
fn sub_mag(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len());
    let mut borrow = 0i64;
    for (i, &ai) in a.iter().enumerate() {
        let mut d = i64::from(ai) - i64::from(*b.get(i).unwrap_or(&0)) - borrow;
        borrow = 0;
        if d < 0 {
            d += 1 << 32;
            borrow = 1;
        }
        out.push(d as u32);
    }
    trim(out)
}

impl Big {
    /// The exact value of a finite f32 times 2^149.
    fn from_f32_scaled(v: f32) -> Big {
        let bits = v.to_bits();
        let neg = bits >> 31 == 1;
        let exp = (bits >> 23) & 0xFF;
        let frac = bits & 0x7F_FFFF;
        // value = mant · 2^(shift − 149)
        let (mant, shift) = if exp == 0 {
            (frac, 0)
        } else {
            (frac | 0x80_0000, exp - 1)
        };
        let mut mag = vec![0u32; (shift / 32) as usize];
        let wide = u64::from(mant) << (shift % 32);
        mag.push(wide as u32);
        mag.push((wide >> 32) as u32);
        Big {
            neg,
            mag: trim(mag),
        }
    }

    fn add(&self, o: &Big) -> Big {
        if self.neg == o.neg {
            return Big {
                neg: self.neg,
                mag: add_mag(&self.mag, &o.mag),
            };
        }
        match cmp_mag(&self.mag, &o.mag) {
            Ordering::Less => Big {
                neg: o.neg,
                mag: sub_mag(&o.mag, &self.mag),
            },
            _ => Big {
                neg: self.neg,
                mag: sub_mag(&self.mag, &o.mag),
            },
        }
    }

    fn sub(&self, o: &Big) -> Big {
        self.add(&Big {
            neg: !o.neg,
            mag: o.mag.clone(),
        })
    }

    fn mul(&self, o: &Big) -> Big {
        let mut out = vec![0u32; self.mag.len() + o.mag.len() + 1];
        for (i, &a) in self.mag.iter().enumerate() {
            let mut carry = 0u64;
            for (j, &b) in o.mag.iter().enumerate() {
                let t = u64::from(a) * u64::from(b) + u64::from(out[i + j]) + carry;
                out[i + j] = t as u32;
                carry = t >> 32;
            }
            let mut k = i + o.mag.len();
            while carry != 0 {
                let t = u64::from(out[k]) + carry;
                out[k] = t as u32;
                carry = t >> 32;
                k += 1;
            }
        }
        Big {
            neg: self.neg != o.neg,
            mag: trim(out),
        }
    }

    fn sign(&self) -> Ordering {
        if self.mag.is_empty() {
            Ordering::Equal
        } else if self.neg {
            Ordering::Less
        } else {
            Ordering::Greater
        }
    }
}

/// The exact sign of (b − a) × (c − a).
fn reference(a: [f32; 2], b: [f32; 2], c: [f32; 2]) -> Ordering {
    let [ax, ay, bx, by, cx, cy] = [a[0], a[1], b[0], b[1], c[0], c[1]].map(Big::from_f32_scaled);
    let l = bx.sub(&ax).mul(&cy.sub(&ay));
    let r = by.sub(&ay).mul(&cx.sub(&ax));
    l.sub(&r).sign()
}

/// Any finite f32 (every exponent, subnormals and both zeros included).
fn any_finite(rng: &mut Rng) -> f32 {
    loop {
        let v = f32::from_bits(rng.next() as u32);
        if v.is_finite() {
            return v;
        }
    }
}

/// A coordinate of tile-like magnitude on a random binary scale.
fn tile_like(rng: &mut Rng) -> f32 {
    let m = (rng.next() as i32 >> 8) as f32; // |m| < 2^23, exact
    m * f32::powi(2.0, rng.below(40) as i32 - 40)
}

/// The next f32 towards +∞ (`f32::next_up` is newer than the MSRV).
fn next_up(v: f32) -> f32 {
    if v.is_nan() || v == f32::INFINITY {
        v
    } else if v == 0.0 {
        f32::from_bits(1)
    } else if v > 0.0 {
        f32::from_bits(v.to_bits() + 1)
    } else {
        f32::from_bits(v.to_bits() - 1)
    }
}

/// Moves `v` by `k` ulps.
fn nudge(v: f32, k: i32) -> f32 {
    let mut v = v;
    for _ in 0..k.unsigned_abs() {
        v = if k > 0 { next_up(v) } else { -next_up(-v) };
    }
    v
}

#[test]
fn big_integer_reference_is_sane() {
    assert_eq!(
        reference([0.0, 0.0], [1.0, 0.0], [0.0, 1.0]),
        Ordering::Greater
    );
    assert_eq!(
        reference([1.0, 1.0], [2.0, 2.0], [3.0, 3.0]),
        Ordering::Equal
    );
    assert_eq!(
        reference([0.0, 0.0], [f32::MAX, 0.0], [0.0, -f32::from_bits(1)]),
        Ordering::Less
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(gen::cases(1000)))]

    #[test]
    fn orientation_predicate_is_exact_on_random_triples(seed in any::<u64>()) {
        let mut rng = Rng::new(seed);
        let pick = |rng: &mut Rng| if rng.chance(50) { any_finite(rng) } else { tile_like(rng) };
        let a = [pick(&mut rng), pick(&mut rng)];
        let b = [pick(&mut rng), pick(&mut rng)];
        let c = [pick(&mut rng), pick(&mut rng)];
        prop_assert_eq!(orient2d_exact(a, b, c), reference(a, b, c));
    }

    #[test]
    fn orientation_predicate_is_exact_on_nearly_collinear_triples(seed in any::<u64>()) {
        let mut rng = Rng::new(seed);
        let a = [tile_like(&mut rng), tile_like(&mut rng)];
        let b = [tile_like(&mut rng), tile_like(&mut rng)];
        // A point on the line through a and b, rounded to f32, then moved a few ulps.
        let t = (rng.below(1 << 20) as f64 / f64::from(1 << 18)) - 1.0;
        let on = |i: usize| (f64::from(a[i]) + t * (f64::from(b[i]) - f64::from(a[i]))) as f32;
        let k = rng.below(7) as i32 - 3;
        let c = if rng.chance(50) {
            [nudge(on(0), k), on(1)]
        } else {
            [on(0), nudge(on(1), k)]
        };
        prop_assert_eq!(orient2d_exact(a, b, c), reference(a, b, c));
        prop_assert_eq!(orient2d_exact(b, a, c), reference(b, a, c));
        prop_assert_eq!(orient2d_exact(c, a, b), reference(c, a, b));
    }
}

#[test]
fn exactly_collinear_f32_triples_are_equal() {
    // Points on x = z · 2^-k are exactly collinear in every scale.
    let mut rng = Rng::new(7);
    for _ in 0..1000 {
        let s = f32::powi(2.0, rng.below(60) as i32 - 30);
        let z = [
            tile_like(&mut rng),
            tile_like(&mut rng),
            tile_like(&mut rng),
        ];
        let p = z.map(|z| [z * s, z]);
        if p.iter().any(|q| !q[0].is_finite()) {
            continue;
        }
        assert_eq!(orient2d_exact(p[0], p[1], p[2]), Ordering::Equal);
        assert_eq!(reference(p[0], p[1], p[2]), Ordering::Equal);
    }
}
