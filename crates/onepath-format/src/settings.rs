//! Builder settings ([`NavSettings`]), their digest, the parameters they produce, authored
//! off-mesh links ([`OffMeshLinkDefinition`]) and the settings encoding the ONNM envelope
//! carries.
//!
//! Every setter validates its value and fails with a [`CoordinateError`] naming the setting,
//! the value and the bound it broke; a `NavSettings` therefore always holds values inside
//! their single-field ranges. The one rule across fields (TileSize ≤ 8192·CellSize) is
//! checked by [`NavSettings::validate`] and [`NavSettings::to_params`].

use sha2::{Digest, Sha256};

use crate::bytes::{ByteReader, ByteWriter};
use crate::error::{CoordinateError, FormatError};
use crate::params::NavMeshParams;
use crate::tile::MAX_AREA;

/// Bytes of one authored link in [`encode_settings`]: start, end, radius (7 × f64),
/// bidirectional u8, area u8, flags u16, user id u32.
pub const SETTINGS_LINK_LEN: usize = 64;

/// How the 3D builder partitions the walkable area into regions. The value is the `i32`
/// written into the settings digest and the settings encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Partition {
    /// Watershed regions (value 0), the default.
    #[default]
    Watershed = 0,
    /// Monotone regions (value 1).
    Monotone = 1,
    /// Layer regions (value 2).
    Layers = 2,
}

impl Partition {
    /// The digest / encoding value.
    pub fn value(self) -> i32 {
        self as i32
    }

    /// The partition with this value, if any.
    pub fn from_value(v: i32) -> Option<Partition> {
        match v {
            0 => Some(Partition::Watershed),
            1 => Some(Partition::Monotone),
            2 => Some(Partition::Layers),
            _ => None,
        }
    }
}

/// An authored off-mesh link: world-space start and end, attachment radius, direction,
/// area, flags and the caller's id. Builders bake it into the slots of the tile that holds
/// its start (`docs/navmesh-format.md`, "Authored off-mesh links"; the 3D builder's baking:
/// `docs/build3d-polys.md` §5).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct OffMeshLinkDefinition {
    /// World start point (coordinate rule: finite, strictly within ±2^21).
    pub start: [f64; 3],
    /// World end point (coordinate rule).
    pub end: [f64; 3],
    /// Attachment radius, finite and > 0.
    pub radius: f64,
    /// Whether the link may also be taken from end to start.
    pub bidirectional: bool,
    /// Area, 0..=63.
    pub area: u8,
    /// Polygon flags of the link.
    pub flags: u16,
    /// The caller's id, carried to the slot.
    pub user_id: u32,
}

impl OffMeshLinkDefinition {
    /// Checks the link's own rules (coordinate rule on start and end, finite radius > 0,
    /// area ≤ 63); the error names `OffMeshLinks[index]` and the part. The rules relative to
    /// a tile (end within MaxLocalExtent of the start's tile origin) are checked when a
    /// builder bakes the link.
    pub fn validate(&self, index: usize) -> Result<(), CoordinateError> {
        let name = format!("OffMeshLinks[{index}]");
        NavMeshParams::check_point(&format!("{name}.start"), self.start)?;
        NavMeshParams::check_point(&format!("{name}.end"), self.end)?;
        if !(self.radius.is_finite() && self.radius > 0.0) {
            return Err(CoordinateError {
                what: format!("{name}.radius"),
                value: self.radius,
                bound: 0.0,
            });
        }
        if self.area > MAX_AREA {
            return Err(CoordinateError {
                what: format!("{name}.area"),
                value: f64::from(self.area),
                bound: f64::from(MAX_AREA),
            });
        }
        Ok(())
    }

    fn write(&self, w: &mut ByteWriter) {
        self.start.iter().for_each(|&c| w.f64(c));
        self.end.iter().for_each(|&c| w.f64(c));
        w.f64(self.radius);
        w.u8(u8::from(self.bidirectional));
        w.u8(self.area);
        w.u16(self.flags);
        w.u32(self.user_id);
    }
}

/// The settings a mesh is built with: the parameter-block fields plus every builder
/// setting that changes tile content (`docs/navmesh-format.md`, "Settings digest").
///
/// Fields are private; every setter validates. [`NavSettings::default`] gives the Recast
/// demo's values (cell 0.3, cell height 0.2, agent height 2.0, radius 0.6, climb 0.9,
/// slope 45°, regions 8 / 20 cells wide, that is min region area 64 and merge region area
/// 400 spans, max edge length 12, contour max error 1.3, 6 vertices per polygon, detail
/// sample distance 6, detail max error 1) and a tile size of
/// `9.6f32` as f64 (= 9.600000381469727, 32 cells, exactly representable as f32 as the
/// coordinate rule requires).
///
/// ```
/// use onepath_format::NavSettings;
/// let mut s = NavSettings::default();
/// s.set_cell_size(0.25).unwrap();
/// s.set_tile_size(16.0).unwrap();
/// assert!(s.set_agent_max_slope(91.0).is_err());
/// let params = s.to_params().unwrap();
/// assert_eq!(params.settings_digest, s.settings_digest());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct NavSettings {
    origin: [f64; 3],
    tile_size: f64,
    cell_size: f64,
    max_verts_per_poly: u16,
    walkable_climb: f32,
    agent_radius: f32,
    agent_height: f32,
    agent_max_slope: f32,
    cell_height: f64,
    snap_bits: i32,
    partition: Partition,
    min_region_area: i32,
    merge_region_area: i32,
    contour_max_error: f32,
    max_edge_length: f64,
    detail_sample_distance: f64,
    detail_max_error: f64,
    height: f64,
    area: u8,
    flags: u16,
    off_mesh_links: Vec<OffMeshLinkDefinition>,
}

impl Default for NavSettings {
    fn default() -> Self {
        NavSettings {
            origin: [0.0; 3],
            tile_size: f64::from(9.6f32),
            cell_size: 0.3,
            max_verts_per_poly: 6,
            walkable_climb: 0.9,
            agent_radius: 0.6,
            agent_height: 2.0,
            agent_max_slope: 45.0,
            cell_height: 0.2,
            snap_bits: -1,
            partition: Partition::Watershed,
            min_region_area: 64,
            merge_region_area: 400,
            contour_max_error: 1.3,
            max_edge_length: 12.0,
            detail_sample_distance: 6.0,
            detail_max_error: 1.0,
            height: 0.0,
            area: 0,
            flags: 1,
            off_mesh_links: Vec::new(),
        }
    }
}

fn out_of_range(what: &str, value: f64, bound: f64) -> CoordinateError {
    CoordinateError {
        what: what.to_string(),
        value,
        bound,
    }
}

/// Finite and ≥ 0 (bound reported: 0).
fn non_negative(what: &str, v: f64) -> Result<(), CoordinateError> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(out_of_range(what, v, 0.0))
    }
}

/// Finite and > 0 (bound reported: 0).
fn positive(what: &str, v: f64) -> Result<(), CoordinateError> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(out_of_range(what, v, 0.0))
    }
}

/// Within `lo..=hi` (bound reported: the one broken).
fn within(what: &str, v: f64, lo: f64, hi: f64) -> Result<(), CoordinateError> {
    if v.is_nan() || v < lo {
        Err(out_of_range(what, v, lo))
    } else if v > hi {
        Err(out_of_range(what, v, hi))
    } else {
        Ok(())
    }
}

macro_rules! getter {
    ($(#[$m:meta])* $name:ident: $ty:ty) => {
        $(#[$m])*
        pub fn $name(&self) -> $ty {
            self.$name
        }
    };
}

impl NavSettings {
    getter!(
        /// World origin of tile (0, 0) (X, Y, Z).
        origin: [f64; 3]
    );
    getter!(
        /// Tile edge length in world units (exactly representable as f32).
        tile_size: f64
    );
    getter!(
        /// Cell size (horizontal voxel size, the resolution unit).
        cell_size: f64
    );
    getter!(
        /// Largest polygon size, 3..=16.
        max_verts_per_poly: u16
    );
    getter!(
        /// Largest step an agent climbs (world units).
        walkable_climb: f32
    );
    getter!(
        /// Agent radius (world units).
        agent_radius: f32
    );
    getter!(
        /// Agent height (world units).
        agent_height: f32
    );
    getter!(
        /// Steepest walkable slope in degrees, 0..=90.
        agent_max_slope: f32
    );
    getter!(
        /// Cell height (vertical voxel size).
        cell_height: f64
    );
    getter!(
        /// Bits of the 2D builder's snapping grid: −1 automatic, else 0..=31.
        snap_bits: i32
    );
    getter!(
        /// Region partitioning of the 3D builder.
        partition: Partition
    );
    getter!(
        /// Smallest region kept, in spans, ≥ 0.
        min_region_area: i32
    );
    getter!(
        /// Regions smaller than this many spans merge into neighbours, ≥ 0.
        merge_region_area: i32
    );
    getter!(
        /// Largest distance a simplified contour strays from the raw one, ≥ 0.
        contour_max_error: f32
    );
    getter!(
        /// Longest contour edge (world units), ≥ 0; 0 means no limit.
        max_edge_length: f64
    );
    getter!(
        /// Detail mesh sample distance, ≥ 0; 0 means no height samples.
        detail_sample_distance: f64
    );
    getter!(
        /// Largest height error of the detail mesh, ≥ 0.
        detail_max_error: f64
    );
    getter!(
        /// World height (Y) the 2D builder gives its flat polygons (coordinate rule).
        height: f64
    );
    getter!(
        /// Default polygon area of builders, 0..=63.
        area: u8
    );
    getter!(
        /// Default polygon flags of builders.
        flags: u16
    );

    /// Authored off-mesh links, in definition order.
    pub fn off_mesh_links(&self) -> &[OffMeshLinkDefinition] {
        &self.off_mesh_links
    }

    /// Sets the origin; each coordinate finite and strictly within ±2^21.
    pub fn set_origin(&mut self, origin: [f64; 3]) -> Result<&mut Self, CoordinateError> {
        NavMeshParams::check_point("Origin", origin)?;
        self.origin = origin;
        Ok(self)
    }

    /// Sets the tile size: positive, finite and exactly representable as f32.
    pub fn set_tile_size(&mut self, v: f64) -> Result<&mut Self, CoordinateError> {
        positive("TileSize", v)?;
        if f64::from(v as f32) != v {
            return Err(out_of_range("TileSize", v, f64::from(v as f32)));
        }
        self.tile_size = v;
        Ok(self)
    }

    /// Sets the cell size: positive and finite.
    pub fn set_cell_size(&mut self, v: f64) -> Result<&mut Self, CoordinateError> {
        positive("CellSize", v)?;
        self.cell_size = v;
        Ok(self)
    }

    /// Sets the largest polygon size, 3..=16.
    pub fn set_max_verts_per_poly(&mut self, v: u16) -> Result<&mut Self, CoordinateError> {
        within("MaxVertsPerPoly", f64::from(v), 3.0, 16.0)?;
        self.max_verts_per_poly = v;
        Ok(self)
    }

    /// Sets the walkable climb: finite, ≥ 0.
    pub fn set_walkable_climb(&mut self, v: f32) -> Result<&mut Self, CoordinateError> {
        non_negative("WalkableClimb", f64::from(v))?;
        self.walkable_climb = v;
        Ok(self)
    }

    /// Sets the agent radius: finite, ≥ 0.
    pub fn set_agent_radius(&mut self, v: f32) -> Result<&mut Self, CoordinateError> {
        non_negative("AgentRadius", f64::from(v))?;
        self.agent_radius = v;
        Ok(self)
    }

    /// Sets the agent height: finite, ≥ 0.
    pub fn set_agent_height(&mut self, v: f32) -> Result<&mut Self, CoordinateError> {
        non_negative("AgentHeight", f64::from(v))?;
        self.agent_height = v;
        Ok(self)
    }

    /// Sets the steepest walkable slope, 0..=90 degrees.
    pub fn set_agent_max_slope(&mut self, v: f32) -> Result<&mut Self, CoordinateError> {
        within("AgentMaxSlope", f64::from(v), 0.0, 90.0)?;
        self.agent_max_slope = v;
        Ok(self)
    }

    /// Sets the cell height: positive and finite.
    pub fn set_cell_height(&mut self, v: f64) -> Result<&mut Self, CoordinateError> {
        positive("CellHeight", v)?;
        self.cell_height = v;
        Ok(self)
    }

    /// Sets the snapping bits: −1 (automatic) or 0..=31.
    pub fn set_snap_bits(&mut self, v: i32) -> Result<&mut Self, CoordinateError> {
        within("SnapBits", f64::from(v), -1.0, 31.0)?;
        self.snap_bits = v;
        Ok(self)
    }

    /// Sets the region partitioning.
    pub fn set_partition(&mut self, v: Partition) -> &mut Self {
        self.partition = v;
        self
    }

    /// Sets the smallest region kept, ≥ 0.
    pub fn set_min_region_area(&mut self, v: i32) -> Result<&mut Self, CoordinateError> {
        non_negative("MinRegionArea", f64::from(v))?;
        self.min_region_area = v;
        Ok(self)
    }

    /// Sets the merge region size, ≥ 0.
    pub fn set_merge_region_area(&mut self, v: i32) -> Result<&mut Self, CoordinateError> {
        non_negative("MergeRegionArea", f64::from(v))?;
        self.merge_region_area = v;
        Ok(self)
    }

    /// Sets the contour max error: finite, ≥ 0.
    pub fn set_contour_max_error(&mut self, v: f32) -> Result<&mut Self, CoordinateError> {
        non_negative("ContourMaxError", f64::from(v))?;
        self.contour_max_error = v;
        Ok(self)
    }

    /// Sets the longest contour edge: finite, ≥ 0 (0: no limit).
    pub fn set_max_edge_length(&mut self, v: f64) -> Result<&mut Self, CoordinateError> {
        non_negative("MaxEdgeLength", v)?;
        self.max_edge_length = v;
        Ok(self)
    }

    /// Sets the detail sample distance: finite, ≥ 0 (0: no samples).
    pub fn set_detail_sample_distance(&mut self, v: f64) -> Result<&mut Self, CoordinateError> {
        non_negative("DetailSampleDistance", v)?;
        self.detail_sample_distance = v;
        Ok(self)
    }

    /// Sets the detail max error: finite, ≥ 0.
    pub fn set_detail_max_error(&mut self, v: f64) -> Result<&mut Self, CoordinateError> {
        non_negative("DetailMaxError", v)?;
        self.detail_max_error = v;
        Ok(self)
    }

    /// Sets the 2D builder's height: the coordinate rule (finite, strictly within ±2^21).
    pub fn set_height(&mut self, v: f64) -> Result<&mut Self, CoordinateError> {
        NavMeshParams::check_coordinate("Height", v)?;
        self.height = v;
        Ok(self)
    }

    /// Sets the default area, 0..=63.
    pub fn set_area(&mut self, v: u8) -> Result<&mut Self, CoordinateError> {
        within("Area", f64::from(v), 0.0, f64::from(MAX_AREA))?;
        self.area = v;
        Ok(self)
    }

    /// Sets the default flags (any value).
    pub fn set_flags(&mut self, v: u16) -> &mut Self {
        self.flags = v;
        self
    }

    /// Sets the authored off-mesh links; each must pass
    /// [`OffMeshLinkDefinition::validate`] (the error names `OffMeshLinks[i]`).
    pub fn set_off_mesh_links(
        &mut self,
        links: Vec<OffMeshLinkDefinition>,
    ) -> Result<&mut Self, CoordinateError> {
        for (i, l) in links.iter().enumerate() {
            l.validate(i)?;
        }
        self.off_mesh_links = links;
        Ok(self)
    }

    /// Checks the rules across fields: the parameters the settings produce must pass
    /// [`NavMeshParams::validate`] (TileSize ≤ 8192·CellSize).
    pub fn validate(&self) -> Result<(), FormatError> {
        self.to_params().map(|_| ())
    }

    /// The settings digest: the first 8 bytes, read as a little-endian u64, of SHA-256 over
    /// "ONSD", CellHeight f64, SnapBits i32, Partition i32, MinRegionArea i32,
    /// MergeRegionArea i32, ContourMaxError f32, MaxEdgeLength f64, DetailSampleDistance
    /// f64, DetailMaxError f64, Height f64, Area u8, Flags u16, the authored link count u32
    /// and per link start xyz, end xyz, radius (f64 each), bidirectional u8, area u8, flags
    /// u16, user id u32; all little-endian.
    pub fn settings_digest(&self) -> u64 {
        let mut w = ByteWriter::new();
        w.bytes(b"ONSD");
        w.f64(self.cell_height);
        w.i32(self.snap_bits);
        w.i32(self.partition.value());
        w.i32(self.min_region_area);
        w.i32(self.merge_region_area);
        w.f32(self.contour_max_error);
        w.f64(self.max_edge_length);
        w.f64(self.detail_sample_distance);
        w.f64(self.detail_max_error);
        w.f64(self.height);
        w.u8(self.area);
        w.u16(self.flags);
        // A list longer than u32::MAX cannot be validated or encoded; it saturates here.
        w.u32(u32::try_from(self.off_mesh_links.len()).unwrap_or(u32::MAX));
        for l in &self.off_mesh_links {
            l.write(&mut w);
        }
        let d = Sha256::digest(w.as_slice());
        let mut first = [0u8; 8];
        first.copy_from_slice(&d[..8]);
        u64::from_le_bytes(first)
    }

    /// The build fingerprint of the parameters these settings produce (what every tile
    /// built with them carries).
    pub fn fingerprint(&self) -> Result<crate::Fingerprint, FormatError> {
        Ok(self.to_params()?.fingerprint())
    }

    /// The mesh parameters these settings produce (parameter-block fields and the settings
    /// digest), validated as a whole.
    pub fn to_params(&self) -> Result<NavMeshParams, FormatError> {
        let p = NavMeshParams {
            origin_x: self.origin[0],
            origin_y: self.origin[1],
            origin_z: self.origin[2],
            tile_size: self.tile_size,
            cell_size: self.cell_size,
            max_verts_per_poly: self.max_verts_per_poly,
            walkable_climb: self.walkable_climb,
            agent_radius: self.agent_radius,
            agent_height: self.agent_height,
            agent_max_slope: self.agent_max_slope,
            settings_digest: self.settings_digest(),
        };
        p.validate()?;
        Ok(p)
    }
}

/// Encodes every setting, little-endian, in this order (the ONNM settings body):
/// OriginX, OriginY, OriginZ, TileSize, CellSize (f64); MaxVertsPerPoly u16;
/// WalkableClimb, AgentRadius, AgentHeight, AgentMaxSlope (f32); CellHeight f64; SnapBits
/// i32; Partition i32; MinRegionArea i32; MergeRegionArea i32; ContourMaxError f32;
/// MaxEdgeLength, DetailSampleDistance, DetailMaxError, Height (f64); Area u8; Flags u16;
/// then the authored links: u32 count, and per link start xyz, end xyz, radius (f64),
/// bidirectional u8 (0 or 1), area u8, flags u16, user id u32 (64 bytes).
pub fn encode_settings(s: &NavSettings) -> Vec<u8> {
    let mut w = ByteWriter::with_capacity(
        SETTINGS_FIXED_LEN + 4 + SETTINGS_LINK_LEN * s.off_mesh_links.len(),
    );
    s.origin.iter().for_each(|&c| w.f64(c));
    w.f64(s.tile_size);
    w.f64(s.cell_size);
    w.u16(s.max_verts_per_poly);
    w.f32(s.walkable_climb);
    w.f32(s.agent_radius);
    w.f32(s.agent_height);
    w.f32(s.agent_max_slope);
    w.f64(s.cell_height);
    w.i32(s.snap_bits);
    w.i32(s.partition.value());
    w.i32(s.min_region_area);
    w.i32(s.merge_region_area);
    w.f32(s.contour_max_error);
    w.f64(s.max_edge_length);
    w.f64(s.detail_sample_distance);
    w.f64(s.detail_max_error);
    w.f64(s.height);
    w.u8(s.area);
    w.u16(s.flags);
    w.u32(u32::try_from(s.off_mesh_links.len()).unwrap_or(u32::MAX));
    for l in &s.off_mesh_links {
        l.write(&mut w);
    }
    w.into_vec()
}

/// Bytes of the settings encoding before the link count.
pub const SETTINGS_FIXED_LEN: usize = 5 * 8 + 2 + 4 * 4 + 8 + 4 * 4 + 4 + 4 * 8 + 1 + 2;

/// Decodes [`encode_settings`] bytes (exactly; trailing bytes are an error) through the
/// validating setters, then checks the settings as a whole. A value out of range is a
/// [`FormatError::Malformed`] naming the setting. Never panics.
pub fn decode_settings(bytes: &[u8]) -> Result<NavSettings, FormatError> {
    let mut r = ByteReader::new(bytes);
    let mut s = NavSettings::default();
    let origin = [r.f64("OriginX")?, r.f64("OriginY")?, r.f64("OriginZ")?];
    s.set_origin(origin)?;
    s.set_tile_size(r.f64("TileSize")?)?;
    s.set_cell_size(r.f64("CellSize")?)?;
    s.set_max_verts_per_poly(r.u16("MaxVertsPerPoly")?)?;
    s.set_walkable_climb(r.f32("WalkableClimb")?)?;
    s.set_agent_radius(r.f32("AgentRadius")?)?;
    s.set_agent_height(r.f32("AgentHeight")?)?;
    s.set_agent_max_slope(r.f32("AgentMaxSlope")?)?;
    s.set_cell_height(r.f64("CellHeight")?)?;
    s.set_snap_bits(r.i32("SnapBits")?)?;
    let pv = r.i32("Partition")?;
    let partition = Partition::from_value(pv)
        .ok_or_else(|| FormatError::malformed("Partition", format!("{pv} is not 0, 1 or 2")))?;
    s.set_partition(partition);
    s.set_min_region_area(r.i32("MinRegionArea")?)?;
    s.set_merge_region_area(r.i32("MergeRegionArea")?)?;
    s.set_contour_max_error(r.f32("ContourMaxError")?)?;
    s.set_max_edge_length(r.f64("MaxEdgeLength")?)?;
    s.set_detail_sample_distance(r.f64("DetailSampleDistance")?)?;
    s.set_detail_max_error(r.f64("DetailMaxError")?)?;
    s.set_height(r.f64("Height")?)?;
    s.set_area(r.u8("Area")?)?;
    s.set_flags(r.u16("Flags")?);
    let n = r.count("OffMeshLinks count", SETTINGS_LINK_LEN)?;
    let mut links = Vec::with_capacity(n);
    for i in 0..n {
        let at = format!("OffMeshLinks[{i}]");
        let mut f = |name: &str| r.f64(name).map_err(|e| e.within(&at));
        let start = [f("start.x")?, f("start.y")?, f("start.z")?];
        let end = [f("end.x")?, f("end.y")?, f("end.z")?];
        let radius = f("radius")?;
        let bidirectional = r.bool_u8("bidirectional").map_err(|e| e.within(&at))?;
        let area = r.u8("area").map_err(|e| e.within(&at))?;
        let flags = r.u16("flags").map_err(|e| e.within(&at))?;
        let user_id = r.u32("user id").map_err(|e| e.within(&at))?;
        links.push(OffMeshLinkDefinition {
            start,
            end,
            radius,
            bidirectional,
            area,
            flags,
            user_id,
        });
    }
    s.set_off_mesh_links(links)?;
    r.expect_end("settings")?;
    s.validate()?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link() -> OffMeshLinkDefinition {
        OffMeshLinkDefinition {
            start: [1.0, 2.0, 3.0],
            end: [4.5, 2.0, -3.0],
            radius: 0.5,
            bidirectional: true,
            area: 5,
            flags: 0x8001,
            user_id: 77,
        }
    }

    #[test]
    fn defaults_are_valid_and_tile_size_is_exact_f32() {
        let s = NavSettings::default();
        s.validate().unwrap();
        assert_eq!(s.tile_size(), f64::from(9.6f32));
        assert_eq!(f64::from(s.tile_size() as f32), s.tile_size());
    }

    #[test]
    fn settings_digest_hashes_exactly_the_listed_fields_in_order() {
        let mut s = NavSettings::default();
        s.set_off_mesh_links(vec![link()]).unwrap();
        let mut b = Vec::new();
        b.extend_from_slice(b"ONSD");
        b.extend_from_slice(&0.2f64.to_le_bytes());
        b.extend_from_slice(&(-1i32).to_le_bytes());
        b.extend_from_slice(&0i32.to_le_bytes());
        b.extend_from_slice(&64i32.to_le_bytes());
        b.extend_from_slice(&400i32.to_le_bytes());
        b.extend_from_slice(&1.3f32.to_le_bytes());
        for v in [12.0f64, 6.0, 1.0, 0.0] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.push(0);
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&1u32.to_le_bytes());
        for v in [1.0f64, 2.0, 3.0, 4.5, 2.0, -3.0, 0.5] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.push(1);
        b.push(5);
        b.extend_from_slice(&0x8001u16.to_le_bytes());
        b.extend_from_slice(&77u32.to_le_bytes());
        let d = Sha256::digest(&b);
        let want = u64::from_le_bytes(d[..8].try_into().unwrap());
        assert_eq!(s.settings_digest(), want);
        assert_eq!(s.to_params().unwrap().settings_digest, want);
    }

    #[test]
    fn settings_digest_ignores_parameter_block_fields() {
        let a = NavSettings::default();
        let mut b = a.clone();
        b.set_agent_radius(1.0).unwrap();
        b.set_origin([5.0, 0.0, 5.0]).unwrap();
        assert_eq!(a.settings_digest(), b.settings_digest());
        assert_ne!(a.fingerprint().unwrap(), b.fingerprint().unwrap());
        assert_ne!(
            a.to_params().unwrap().fingerprint(),
            b.to_params().unwrap().fingerprint()
        );
        let mut c = a.clone();
        c.set_partition(Partition::Monotone);
        assert_ne!(a.settings_digest(), c.settings_digest());
    }

    #[test]
    fn setter_rejects_out_of_range_value_naming_it() {
        let mut s = NavSettings::default();
        let e = s.set_max_verts_per_poly(17).unwrap_err();
        assert_eq!(
            e,
            CoordinateError {
                what: "MaxVertsPerPoly".into(),
                value: 17.0,
                bound: 16.0
            }
        );
        let e = s.set_tile_size(0.1).unwrap_err();
        assert_eq!(e.what, "TileSize");
        let e = s.set_cell_height(f64::NAN).unwrap_err();
        assert_eq!(e.what, "CellHeight");
        let e = s.set_snap_bits(-2).unwrap_err();
        assert_eq!((e.what.as_str(), e.bound), ("SnapBits", -1.0));
        let e = s.set_area(64).unwrap_err();
        assert_eq!((e.what.as_str(), e.value), ("Area", 64.0));
        let e = s.set_origin([0.0, 0.0, COORD]).unwrap_err();
        assert_eq!(e.what, "Origin.z");
        // A failed setter leaves the settings as they were.
        assert_eq!(s, NavSettings::default());
    }

    const COORD: f64 = crate::params::COORD_BOUND;

    #[test]
    fn authored_link_rules_name_the_link() {
        let mut s = NavSettings::default();
        let mut bad = link();
        bad.end[0] = -COORD;
        assert_eq!(
            s.set_off_mesh_links(vec![link(), bad]).unwrap_err().what,
            "OffMeshLinks[1].end.x"
        );
        bad = link();
        bad.radius = 0.0;
        assert_eq!(
            s.set_off_mesh_links(vec![bad]).unwrap_err().what,
            "OffMeshLinks[0].radius"
        );
        bad = link();
        bad.area = 64;
        assert_eq!(
            s.set_off_mesh_links(vec![bad]).unwrap_err().what,
            "OffMeshLinks[0].area"
        );
        assert!(s.off_mesh_links().is_empty());
    }

    #[test]
    fn tile_size_above_8192_cells_fails_as_a_whole() {
        let mut s = NavSettings::default();
        s.set_cell_size(0.001).unwrap();
        assert!(matches!(
            s.to_params().unwrap_err(),
            FormatError::Malformed { at, .. } if at == "TileSize"
        ));
    }

    #[test]
    fn encode_decode_round_trips() {
        let mut s = NavSettings::default();
        s.set_off_mesh_links(vec![link(), link()]).unwrap();
        s.set_partition(Partition::Layers).set_flags(9);
        let b = encode_settings(&s);
        assert_eq!(b.len(), SETTINGS_FIXED_LEN + 4 + 2 * SETTINGS_LINK_LEN);
        assert_eq!(decode_settings(&b).unwrap(), s);
    }

    #[test]
    fn decode_names_the_value_out_of_range() {
        let mut b = encode_settings(&NavSettings::default());
        // MaxVertsPerPoly sits after five f64.
        b[40..42].copy_from_slice(&2u16.to_le_bytes());
        assert!(matches!(
            decode_settings(&b).unwrap_err(),
            FormatError::Malformed { at, .. } if at == "MaxVertsPerPoly"
        ));
    }

    #[test]
    fn decode_rejects_unknown_partition_huge_link_count_and_trailing_bytes() {
        let good = encode_settings(&NavSettings::default());
        let mut b = good.clone();
        b[70..74].copy_from_slice(&3i32.to_le_bytes()); // after 5 f64, u16, 4 f32, f64, i32
        assert!(matches!(
            decode_settings(&b).unwrap_err(),
            FormatError::Malformed { at, .. } if at == "Partition"
        ));
        let mut b = good.clone();
        let n = b.len();
        b[n - 4..].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            decode_settings(&b).unwrap_err(),
            FormatError::Malformed { at, .. } if at == "OffMeshLinks count"
        ));
        let mut b = good;
        b.push(0);
        assert!(matches!(
            decode_settings(&b).unwrap_err(),
            FormatError::Malformed { at, .. } if at == "settings"
        ));
    }
}
