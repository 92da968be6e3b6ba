//! Settings encoding properties: round trip through the validating setters; arbitrary or
//! mutated bytes never panic.

use onepath_format::{
    decode_settings, encode_settings, FormatError, NavSettings, OffMeshLinkDefinition, Partition,
};
use proptest::prelude::*;

use crate::gen::{self, Rng};

fn settings(seed: u64) -> NavSettings {
    let mut rng = Rng::new(seed);
    let mut s = NavSettings::default();
    s.set_origin([
        f64::from(rng.grid(-1000.0, 1000.0)),
        f64::from(rng.grid(-10.0, 10.0)),
        f64::from(rng.grid(-1000.0, 1000.0)),
    ])
    .unwrap();
    s.set_cell_size(0.1 + rng.below(10) as f64 * 0.05).unwrap();
    s.set_tile_size(f64::from(rng.grid(1.0, 64.0))).unwrap();
    s.set_max_verts_per_poly(3 + rng.below(14) as u16).unwrap();
    s.set_agent_max_slope(rng.grid(0.0, 90.0)).unwrap();
    s.set_snap_bits(rng.below(33) as i32 - 1).unwrap();
    s.set_partition(Partition::from_value(rng.below(3) as i32).unwrap());
    s.set_min_region_area(rng.below(100) as i32).unwrap();
    s.set_detail_max_error(f64::from(rng.grid(0.0, 4.0)))
        .unwrap();
    s.set_height(f64::from(rng.grid(-100.0, 100.0))).unwrap();
    s.set_area(rng.below(64) as u8).unwrap();
    s.set_flags(rng.next() as u16);
    let links = (0..rng.below(4))
        .map(|_| OffMeshLinkDefinition {
            start: [f64::from(rng.grid(-50.0, 50.0)), 0.0, 1.5],
            end: [2.0, f64::from(rng.grid(-5.0, 5.0)), -7.25],
            radius: 0.25 + f64::from(rng.grid(0.0, 2.0)),
            bidirectional: rng.chance(50),
            area: rng.below(64) as u8,
            flags: rng.next() as u16,
            user_id: rng.next() as u32,
        })
        .collect();
    s.set_off_mesh_links(links).unwrap();
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(gen::cases(256)))]

    #[test]
    fn settings_encode_decode_round_trips(seed in any::<u64>()) {
        let s = settings(seed);
        prop_assume!(s.validate().is_ok());
        let b = encode_settings(&s);
        let back = decode_settings(&b).unwrap();
        prop_assert_eq!(&back, &s);
        prop_assert_eq!(encode_settings(&back), b);
        prop_assert_eq!(back.settings_digest(), s.settings_digest());
    }

    #[test]
    fn mutated_settings_bytes_never_panic(seed in any::<u64>(), m in any::<u64>()) {
        let mut b = encode_settings(&settings(seed));
        let mut rng = Rng::new(m);
        match rng.below(3) {
            0 => { let i = rng.below(b.len() as u64) as usize; b[i] ^= 1 << rng.below(8); }
            1 => b.truncate(rng.below(b.len() as u64) as usize),
            _ => b.push(rng.next() as u8),
        }
        match decode_settings(&b) {
            Ok(s) => prop_assert_eq!(encode_settings(&s), b),
            Err(FormatError::Malformed { .. }) => {}
            Err(e) => prop_assert!(false, "unexpected error kind {e:?}"),
        }
    }
}
