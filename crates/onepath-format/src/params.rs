//! Mesh parameters (the 68-byte parameter block), the coordinate rule and the build
//! fingerprint.

use std::fmt;

use sha2::{Digest, Sha256};

use crate::bytes::{ByteReader, ByteWriter};
use crate::error::{CoordinateError, FormatError};

/// World positions must lie strictly within ±2^21.
pub const COORD_BOUND: f64 = 2_097_152.0;
/// Size of the parameter block in bytes.
pub const PARAMS_BLOCK_LEN: usize = 68;
/// The navmesh format version (tile, mesh and snapshot layouts).
pub const FORMAT_VERSION: u16 = 2;

/// The 128-bit build fingerprint: the first 16 bytes of
/// SHA-256("ONFP" ‖ u16 2 ‖ parameter block), in digest order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Fingerprint(pub [u8; 16]);

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({self})")
    }
}

/// The parameters that tie the tiles of one mesh together (one agent class).
///
/// Build with a struct literal (or [`NavMeshParams::new`]) and check with
/// [`NavMeshParams::validate`]; every reader validates what it reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NavMeshParams {
    /// World X of tile column 0's origin.
    pub origin_x: f64,
    /// World Y of the mesh origin (tiles carry their own OriginY).
    pub origin_y: f64,
    /// World Z of tile row 0's origin.
    pub origin_z: f64,
    /// Tile edge length in world units; exactly representable as f32.
    pub tile_size: f64,
    /// Voxel cell size (the resolution unit).
    pub cell_size: f64,
    /// Largest polygon size, 3..=16.
    pub max_verts_per_poly: u16,
    /// Largest step an agent climbs.
    pub walkable_climb: f32,
    /// Agent radius.
    pub agent_radius: f32,
    /// Agent height.
    pub agent_height: f32,
    /// Steepest walkable slope in degrees (0..=90).
    pub agent_max_slope: f32,
    /// First 8 bytes (LE) of the settings digest; 0 for hand-built parameters.
    pub settings_digest: u64,
}

impl NavMeshParams {
    /// Hand-built parameters (settings digest 0, agent values 0, slope 45°) with the given
    /// grid. Not validated: call [`NavMeshParams::validate`].
    pub fn new(origin: [f64; 3], tile_size: f64, cell_size: f64, max_verts_per_poly: u16) -> Self {
        NavMeshParams {
            origin_x: origin[0],
            origin_y: origin[1],
            origin_z: origin[2],
            tile_size,
            cell_size,
            max_verts_per_poly,
            walkable_climb: 0.0,
            agent_radius: 0.0,
            agent_height: 0.0,
            agent_max_slope: 45.0,
            settings_digest: 0,
        }
    }

    /// Checks the parameters as a whole: finite origins strictly within ±2^21, positive
    /// finite cell size, tile size positive, exactly representable as f32 and at most
    /// 8192·CellSize, 3 ≤ MaxVertsPerPoly ≤ 16, finite non-negative climb/radius/height,
    /// slope in 0..=90. The error names the field.
    pub fn validate(&self) -> Result<(), FormatError> {
        for (name, v) in [
            ("OriginX", self.origin_x),
            ("OriginY", self.origin_y),
            ("OriginZ", self.origin_z),
        ] {
            if !(v.is_finite() && v.abs() < COORD_BOUND) {
                return Err(FormatError::malformed(
                    name,
                    format!("{v} is not finite and strictly within ±{COORD_BOUND}"),
                ));
            }
        }
        if !(self.cell_size.is_finite() && self.cell_size > 0.0) {
            return Err(FormatError::malformed(
                "CellSize",
                format!("{} is not positive and finite", self.cell_size),
            ));
        }
        let ts = self.tile_size;
        if !(ts.is_finite() && ts > 0.0) {
            return Err(FormatError::malformed(
                "TileSize",
                format!("{ts} is not positive and finite"),
            ));
        }
        if (ts as f32) as f64 != ts {
            return Err(FormatError::malformed(
                "TileSize",
                format!("{ts} is not exactly representable as f32"),
            ));
        }
        let max_tile = 8192.0 * self.cell_size;
        if ts > max_tile {
            return Err(FormatError::malformed(
                "TileSize",
                format!("{ts} exceeds 8192·CellSize = {max_tile}"),
            ));
        }
        if !(3..=16).contains(&self.max_verts_per_poly) {
            return Err(FormatError::malformed(
                "MaxVertsPerPoly",
                format!("{} is not in 3..=16", self.max_verts_per_poly),
            ));
        }
        for (name, v) in [
            ("WalkableClimb", self.walkable_climb),
            ("AgentRadius", self.agent_radius),
            ("AgentHeight", self.agent_height),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(FormatError::malformed(
                    name,
                    format!("{v} is not finite and non-negative"),
                ));
            }
        }
        let s = self.agent_max_slope;
        if !(s.is_finite() && (0.0..=90.0).contains(&s)) {
            return Err(FormatError::malformed(
                "AgentMaxSlope",
                format!("{s} is not in 0..=90 degrees"),
            ));
        }
        Ok(())
    }

    /// MaxLocalExtent = 16384·CellSize: the bound on |local Y| and off-mesh link coordinates.
    pub fn max_local_extent(&self) -> f64 {
        16384.0 * self.cell_size
    }

    /// The boundary coordinate `(float)TileSize`.
    pub fn tile_size_f32(&self) -> f32 {
        self.tile_size as f32
    }

    /// World X/Z of a tile's origin: `OriginX + TileX·TileSize`, `OriginZ + TileZ·TileSize`,
    /// in f64, product first, then sum (never fused).
    pub fn tile_origin(&self, tile_x: i32, tile_z: i32) -> (f64, f64) {
        let px = f64::from(tile_x) * self.tile_size;
        let pz = f64::from(tile_z) * self.tile_size;
        (self.origin_x + px, self.origin_z + pz)
    }

    /// The tile column holding world (x, z): `floor((x − OriginX) / TileSize)` (and the same
    /// for z), saturated to the i32 range.
    pub fn world_to_tile(&self, x: f64, z: f64) -> (i32, i32) {
        let tx = ((x - self.origin_x) / self.tile_size).floor();
        let tz = ((z - self.origin_z) / self.tile_size).floor();
        (tx as i32, tz as i32)
    }

    /// The coordinate rule for one world value: finite and strictly within ±2^21.
    pub fn check_coordinate(what: &str, value: f64) -> Result<(), CoordinateError> {
        if value.is_finite() && value.abs() < COORD_BOUND {
            Ok(())
        } else {
            Err(CoordinateError {
                what: what.to_string(),
                value,
                bound: COORD_BOUND,
            })
        }
    }

    /// The coordinate rule for a world point; the error names `what.x`, `what.y` or `what.z`.
    pub fn check_point(what: &str, p: [f64; 3]) -> Result<(), CoordinateError> {
        // Queries call this per call: name the component only when one fails.
        for (k, axis) in ["x", "y", "z"].into_iter().enumerate() {
            let v = p[k];
            if !(v.is_finite() && v.abs() < COORD_BOUND) {
                return Err(CoordinateError {
                    what: format!("{what}.{axis}"),
                    value: v,
                    bound: COORD_BOUND,
                });
            }
        }
        Ok(())
    }

    /// Appends the 68-byte parameter block.
    pub fn write_block(&self, w: &mut ByteWriter) {
        w.f64(self.origin_x);
        w.f64(self.origin_y);
        w.f64(self.origin_z);
        w.f64(self.tile_size);
        w.f64(self.cell_size);
        w.u16(self.max_verts_per_poly);
        w.u16(0);
        w.f32(self.walkable_climb);
        w.f32(self.agent_radius);
        w.f32(self.agent_height);
        w.f32(self.agent_max_slope);
        w.u64(self.settings_digest);
    }

    /// The 68-byte parameter block.
    pub fn to_block(&self) -> [u8; PARAMS_BLOCK_LEN] {
        let mut w = ByteWriter::with_capacity(PARAMS_BLOCK_LEN);
        self.write_block(&mut w);
        let mut out = [0u8; PARAMS_BLOCK_LEN];
        out.copy_from_slice(w.as_slice());
        out
    }

    /// Reads and validates a parameter block (reserved field must be 0).
    pub fn read_block(r: &mut ByteReader<'_>) -> Result<Self, FormatError> {
        let origin_x = r.f64("parameters: OriginX")?;
        let origin_y = r.f64("parameters: OriginY")?;
        let origin_z = r.f64("parameters: OriginZ")?;
        let tile_size = r.f64("parameters: TileSize")?;
        let cell_size = r.f64("parameters: CellSize")?;
        let max_verts_per_poly = r.u16("parameters: MaxVertsPerPoly")?;
        let reserved = r.u16("parameters: reserved")?;
        if reserved != 0 {
            return Err(FormatError::malformed(
                "parameters: reserved",
                format!("{reserved} is not 0"),
            ));
        }
        let p = NavMeshParams {
            origin_x,
            origin_y,
            origin_z,
            tile_size,
            cell_size,
            max_verts_per_poly,
            walkable_climb: r.f32("parameters: WalkableClimb")?,
            agent_radius: r.f32("parameters: AgentRadius")?,
            agent_height: r.f32("parameters: AgentHeight")?,
            agent_max_slope: r.f32("parameters: AgentMaxSlope")?,
            settings_digest: r.u64("parameters: SettingsDigest")?,
        };
        p.validate().map_err(|e| e.within("parameters"))?;
        Ok(p)
    }

    /// Bitwise equality of the parameter blocks (what in-place restore and the fingerprint
    /// compare; `-0.0 != 0.0` here).
    pub fn bitwise_eq(&self, other: &Self) -> bool {
        self.to_block() == other.to_block()
    }

    /// The build fingerprint of these parameters.
    pub fn fingerprint(&self) -> Fingerprint {
        let mut h = Sha256::new();
        h.update(b"ONFP");
        h.update(FORMAT_VERSION.to_le_bytes());
        h.update(self.to_block());
        let d = h.finalize();
        let mut out = [0u8; 16];
        out.copy_from_slice(&d[..16]);
        Fingerprint(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> NavMeshParams {
        NavMeshParams::new([0.0, 0.0, 0.0], 32.0, 0.25, 6)
    }

    #[test]
    fn block_is_68_bytes_and_round_trips() {
        let p = sample();
        let b = p.to_block();
        assert_eq!(b.len(), 68);
        let q = NavMeshParams::read_block(&mut ByteReader::new(&b)).unwrap();
        assert!(p.bitwise_eq(&q));
    }

    #[test]
    fn tile_size_must_be_exact_f32() {
        let mut p = sample();
        p.tile_size = 0.1;
        let e = p.validate().unwrap_err();
        assert!(matches!(e, FormatError::Malformed { ref at, .. } if at == "TileSize"));
    }

    #[test]
    fn tile_size_resolution_rule() {
        let mut p = sample();
        p.tile_size = 8192.0 * 0.25;
        p.validate().unwrap();
        p.tile_size = 8192.0 * 0.25 + 0.25;
        assert!(matches!(
            p.validate().unwrap_err(),
            FormatError::Malformed { ref at, .. } if at == "TileSize"
        ));
    }

    #[track_caller]
    fn assert_field(p: NavMeshParams, field: &str) {
        match p.validate() {
            Err(FormatError::Malformed { at, .. }) => assert_eq!(at, field),
            other => panic!("expected an error naming {field}, got {other:?}"),
        }
    }

    #[test]
    fn validate_checks_every_parameter_rule() {
        let ok = sample();
        ok.validate().unwrap();
        let mut p = ok;
        p.origin_z = f64::NAN;
        assert_field(p, "OriginZ");
        let mut p = ok;
        p.origin_y = -COORD_BOUND;
        assert_field(p, "OriginY");
        let mut p = ok;
        p.cell_size = 0.0;
        assert_field(p, "CellSize");
        let mut p = ok;
        p.tile_size = -32.0;
        assert_field(p, "TileSize");
        let mut p = ok;
        p.max_verts_per_poly = 2;
        assert_field(p, "MaxVertsPerPoly");
        p.max_verts_per_poly = 17;
        assert_field(p, "MaxVertsPerPoly");
        let mut p = ok;
        p.walkable_climb = -0.5;
        assert_field(p, "WalkableClimb");
        let mut p = ok;
        p.agent_radius = f32::INFINITY;
        assert_field(p, "AgentRadius");
        let mut p = ok;
        p.agent_height = f32::NAN;
        assert_field(p, "AgentHeight");
        let mut p = ok;
        p.agent_max_slope = 90.5;
        assert_field(p, "AgentMaxSlope");
        p.agent_max_slope = 90.0;
        p.validate().unwrap();
    }

    #[test]
    fn tile_origin_is_product_then_sum_in_f64() {
        let mut p = sample();
        p.origin_x = 0.1;
        p.origin_z = -1000.3;
        p.tile_size = f64::from(9.6f32);
        let (x, z) = p.tile_origin(-7, 123_456);
        assert_eq!(x.to_bits(), (0.1 + (-7.0 * f64::from(9.6f32))).to_bits());
        assert_eq!(
            z.to_bits(),
            (-1000.3 + 123_456.0 * f64::from(9.6f32)).to_bits()
        );
    }

    #[test]
    fn coordinate_rule_names_the_value_and_the_bound() {
        assert_eq!(
            NavMeshParams::check_point("start", [0.0, COORD_BOUND, 0.0]).unwrap_err(),
            CoordinateError {
                what: "start.y".into(),
                value: COORD_BOUND,
                bound: COORD_BOUND
            }
        );
        NavMeshParams::check_point("start", [-2_097_151.9, 0.0, 2_097_151.9]).unwrap();
    }

    #[test]
    fn read_block_rejects_a_nonzero_reserved_field_and_invalid_values() {
        let mut b = sample().to_block();
        b[42] = 1;
        assert!(matches!(
            NavMeshParams::read_block(&mut ByteReader::new(&b)).unwrap_err(),
            FormatError::Malformed { ref at, .. } if at == "parameters: reserved"
        ));
        let mut p = sample();
        p.cell_size = -1.0;
        let b = p.to_block();
        assert!(matches!(
            NavMeshParams::read_block(&mut ByteReader::new(&b)).unwrap_err(),
            FormatError::Malformed { ref at, .. } if at == "parameters: CellSize"
        ));
    }

    #[test]
    fn origin_bound_is_strict() {
        let mut p = sample();
        p.origin_x = COORD_BOUND;
        let e = p.validate().unwrap_err();
        assert!(matches!(e, FormatError::Malformed { ref at, .. } if at == "OriginX"));
    }

    #[test]
    fn fingerprint_changes_with_digest() {
        let p = sample();
        let mut q = p;
        q.settings_digest = 1;
        assert_ne!(p.fingerprint(), q.fingerprint());
    }
}
