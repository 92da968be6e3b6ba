//! Build settings ([`BuildConfig`]) and the voxel values derived from them ([`VoxelConfig`]).

use onepath_format::{NavMeshParams, NavSettings, OffMeshLinkDefinition, Partition};

use crate::error::BuildError;

/// Every setting of a 3D build, in world units, named as in [`NavSettings`] (the settings a
/// user writes; [`BuildConfig::from_settings`] derives this from them).
///
/// [`BuildConfig::default`] is [`BuildConfig::from_settings`] of [`NavSettings::default`],
/// the Recast demo's configuration: cell 0.3 / 0.2, agent height 2.0, radius 0.6, climb 0.9,
/// slope 45°, regions 8 / 20 cells wide (areas 64 / 400 spans), edges 12 long with error
/// 1.3, 6 vertices per polygon, detail 6 / 1, tiles of 32 cells (9.6), area 63, flags 1,
/// and the settings digest of those settings.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildConfig {
    /// World origin of the tile grid (tile (0, 0)'s corner; Y is the mesh origin Y).
    pub origin: [f64; 3],
    /// Horizontal cell size.
    pub cell_size: f64,
    /// Vertical cell size.
    pub cell_height: f64,
    /// Tile edge in world units: a whole number (4..=8192) of cells, exactly
    /// `(float)(cells · cell_size)` ([`BuildConfig::tile_size_of_cells`]).
    pub tile_size: f64,
    /// Agent height (world).
    pub agent_height: f32,
    /// Agent radius (world).
    pub agent_radius: f32,
    /// Largest step the agent climbs (world).
    pub walkable_climb: f32,
    /// Steepest walkable slope in degrees.
    pub agent_max_slope: f32,
    /// Smallest isolated region kept, in spans.
    pub min_region_area: u32,
    /// Regions smaller than this many spans are merged into a neighbour when possible.
    pub merge_region_area: u32,
    /// Longest contour edge along a wall (world; 0 = no limit).
    pub max_edge_length: f64,
    /// Largest distance a simplified contour strays from the raw one, in cells.
    pub contour_max_error: f32,
    /// Largest polygon size (3..=16).
    pub max_verts_per_poly: u16,
    /// Detail sample spacing in cells (below 0.9: no interior sampling).
    pub detail_sample_distance: f64,
    /// Largest height error of the detail mesh, in cell heights.
    pub detail_max_error: f64,
    /// Region partition.
    pub partition: Partition,
    /// Area id of input triangles without their own area (1..=63).
    pub area: u8,
    /// Flags of every built polygon.
    pub flags: u16,
    /// Authored off-mesh links, baked into the tile holding each start.
    pub off_mesh_links: Vec<OffMeshLinkDefinition>,
    /// The settings digest recorded in the parameters (0 for a hand-made configuration;
    /// [`BuildConfig::from_settings`] takes the settings' own).
    pub settings_digest: u64,
}

impl Default for BuildConfig {
    fn default() -> Self {
        // The default settings are valid (tested in `default_is_the_default_settings`).
        BuildConfig::from_settings(&NavSettings::default())
            .expect("the default settings are a valid 3D build configuration")
    }
}

/// Whole cells of `cell_size` in `tile_size` (4..=8192), when `tile_size` is exactly
/// `(float)(cells · cell_size)`; else why not.
fn whole_tile_cells(tile_size: f64, cell_size: f64) -> Result<u32, String> {
    let cells = tile_size / cell_size;
    let rounded = cells.round();
    if !((rounded - cells).abs() <= 1e-4 && (4.0..=8192.0).contains(&rounded)) {
        return Err(format!(
            "{tile_size} is not a whole number (4..=8192) of cells of {cell_size}"
        ));
    }
    let exact = BuildConfig::tile_size_of_cells(rounded as u32, cell_size);
    if exact.to_bits() != tile_size.to_bits() {
        return Err(format!(
            "{tile_size} differs from (float)(cells · CellSize) = {exact}"
        ));
    }
    Ok(rounded as u32)
}

/// The settings in cells, as every stage uses them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VoxelConfig {
    /// Horizontal cell size (world).
    pub cs: f64,
    /// Vertical cell size (world).
    pub ch: f64,
    /// Tile edge in cells.
    pub tile_cells: i32,
    /// Border cells around a tile: `walkable_radius + 3`.
    pub border: i32,
    /// `ceil(agent_height / ch)` (float32 division).
    pub walkable_height: i32,
    /// `floor(walkable_climb / ch)` (float32 division; the world value is the
    /// [`BuildConfig::walkable_climb`]).
    pub walkable_climb: i32,
    /// `ceil(agent_radius / cs)` (float32 division).
    pub walkable_radius: i32,
    /// `cos(slope)` (libm, f64): a triangle is walkable when its unit normal's Y exceeds it.
    pub walkable_slope_cos: f64,
    /// `trunc(max_edge_length / cs)` in cells.
    pub max_edge_length: i32,
    /// Contour simplification error in cells.
    pub contour_max_error: f32,
    /// Minimum region area in spans.
    pub min_region_area: u32,
    /// Merge region area in spans.
    pub merge_region_area: u32,
    /// Largest polygon size.
    pub nvp: usize,
    /// Detail sample distance in world units (0 = no interior sampling).
    pub detail_sample_distance: f64,
    /// Detail height error in world units.
    pub detail_max_error: f64,
    /// Partition.
    pub partition: Partition,
}

/// Spans taller than this (in cells) cannot be represented.
pub const MAX_HEIGHT_CELLS: i32 = 0xFFFF;

impl BuildConfig {
    /// The configuration of a [`NavSettings`], field by field. `MinRegionArea` and
    /// `MergeRegionArea` are in spans (`docs/build3d-spans.md` §0); `ContourMaxError` is in
    /// cells; `DetailSampleDistance` in cells and `DetailMaxError` in cell heights (Recast's
    /// units); `Area` 0 means the 3D default 63 (area 0 is "not walkable" inside the voxel
    /// stages). The tile size must be a whole number of cells, exactly
    /// `(float)(cells · CellSize)`.
    pub fn from_settings(s: &NavSettings) -> Result<BuildConfig, BuildError> {
        let params = s.to_params()?;
        whole_tile_cells(s.tile_size(), s.cell_size())
            .map_err(|reason| BuildError::setting("TileSize", reason))?;
        let non_neg = |what: &'static str, v: i32| {
            u32::try_from(v).map_err(|_| BuildError::setting(what, format!("{v} is negative")))
        };
        let cfg = BuildConfig {
            origin: s.origin(),
            cell_size: s.cell_size(),
            cell_height: s.cell_height(),
            tile_size: s.tile_size(),
            agent_height: s.agent_height(),
            agent_radius: s.agent_radius(),
            walkable_climb: s.walkable_climb(),
            agent_max_slope: s.agent_max_slope(),
            min_region_area: non_neg("MinRegionArea", s.min_region_area())?,
            merge_region_area: non_neg("MergeRegionArea", s.merge_region_area())?,
            max_edge_length: s.max_edge_length(),
            contour_max_error: s.contour_max_error(),
            max_verts_per_poly: s.max_verts_per_poly(),
            detail_sample_distance: s.detail_sample_distance(),
            detail_max_error: s.detail_max_error(),
            partition: s.partition(),
            area: if s.area() == 0 { 63 } else { s.area() },
            flags: s.flags(),
            off_mesh_links: s.off_mesh_links().to_vec(),
            settings_digest: params.settings_digest,
        };
        cfg.validate()?;
        Ok(cfg)
    }

    /// The tile size of `cells` cells of `cell_size`: `(float)(cells · cell_size)` as f64,
    /// the one value [`BuildConfig::tile_size`] may take for that many cells.
    pub fn tile_size_of_cells(cells: u32, cell_size: f64) -> f64 {
        f64::from((f64::from(cells) * cell_size) as f32)
    }

    /// Checks every setting; the error names it.
    pub fn validate(&self) -> Result<(), BuildError> {
        for (i, v) in self.origin.iter().enumerate() {
            if !(v.is_finite() && v.abs() < onepath_format::COORD_BOUND) {
                return Err(BuildError::setting(
                    ["origin.x", "origin.y", "origin.z"][i],
                    format!("{v} is not finite and strictly within ±2^21"),
                ));
            }
        }
        if !(self.cell_size.is_finite() && self.cell_size > 0.0) {
            return Err(BuildError::setting(
                "cell_size",
                "must be positive and finite",
            ));
        }
        if !(self.cell_height.is_finite() && self.cell_height > 0.0) {
            return Err(BuildError::setting(
                "cell_height",
                "must be positive and finite",
            ));
        }
        whole_tile_cells(self.tile_size, self.cell_size)
            .map_err(|reason| BuildError::setting("tile_size", reason))?;
        for (name, v) in [
            ("agent_height", self.agent_height),
            ("agent_radius", self.agent_radius),
            ("walkable_climb", self.walkable_climb),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(BuildError::setting(
                    name,
                    format!("{v} is not finite and non-negative"),
                ));
            }
        }
        if !(self.agent_max_slope.is_finite() && (0.0..=90.0).contains(&self.agent_max_slope)) {
            return Err(BuildError::setting(
                "agent_max_slope",
                "must be in 0..=90 degrees",
            ));
        }
        if !(self.max_edge_length.is_finite() && self.max_edge_length >= 0.0) {
            return Err(BuildError::setting(
                "max_edge_length",
                "must be finite and non-negative",
            ));
        }
        if !(self.contour_max_error.is_finite() && self.contour_max_error >= 0.0) {
            return Err(BuildError::setting(
                "contour_max_error",
                "must be finite and non-negative",
            ));
        }
        if !(3..=16).contains(&self.max_verts_per_poly) {
            return Err(BuildError::setting(
                "max_verts_per_poly",
                "must be in 3..=16",
            ));
        }
        if !(self.detail_sample_distance.is_finite() && self.detail_sample_distance >= 0.0) {
            return Err(BuildError::setting(
                "detail_sample_distance",
                "must be finite and non-negative",
            ));
        }
        if !(self.detail_max_error.is_finite() && self.detail_max_error >= 0.0) {
            return Err(BuildError::setting(
                "detail_max_error",
                "must be finite and non-negative",
            ));
        }
        if !(1..=63).contains(&self.area) {
            return Err(BuildError::setting(
                "area",
                format!("{} is not in 1..=63", self.area),
            ));
        }
        let v = self.voxel();
        for (name, cells) in [
            ("agent_height", v.walkable_height),
            ("walkable_climb", v.walkable_climb),
            ("agent_radius", v.walkable_radius),
        ] {
            if cells > 255 {
                return Err(BuildError::setting(
                    name,
                    format!("{cells} cells; at most 255"),
                ));
            }
        }
        self.params().validate()?;
        for (i, l) in self.off_mesh_links.iter().enumerate() {
            l.validate(i)?;
        }
        Ok(())
    }

    /// The mesh parameters of this build.
    pub fn params(&self) -> NavMeshParams {
        NavMeshParams {
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
            settings_digest: self.settings_digest,
        }
    }

    /// The settings in cells (the Recast demo's conversions).
    pub fn voxel(&self) -> VoxelConfig {
        let cs = self.cell_size;
        let ch = self.cell_height;
        // In float32, as the agent values are stored (0.6 / 0.3 is exactly 2 there, but
        // 2.0000000795 from the float32 radius in double).
        let (cs32, ch32) = (cs as f32, ch as f32);
        let walkable_height = (self.agent_height / ch32).ceil() as i32;
        let walkable_climb = (self.walkable_climb / ch32).floor() as i32;
        let walkable_radius = (self.agent_radius / cs32).ceil() as i32;
        let slope = f64::from(self.agent_max_slope) / 180.0 * std::f64::consts::PI;
        VoxelConfig {
            cs,
            ch,
            // Whole after `validate`; `as` saturates on a configuration that is not.
            tile_cells: (self.tile_size / cs).round() as i32,
            border: walkable_radius.saturating_add(3),
            walkable_height,
            walkable_climb,
            walkable_radius,
            walkable_slope_cos: libm::cos(slope),
            max_edge_length: (self.max_edge_length / cs) as i32,
            contour_max_error: self.contour_max_error,
            min_region_area: self.min_region_area,
            merge_region_area: self.merge_region_area,
            nvp: usize::from(self.max_verts_per_poly),
            detail_sample_distance: if self.detail_sample_distance < 0.9 {
                0.0
            } else {
                cs * self.detail_sample_distance
            },
            detail_max_error: ch * self.detail_max_error,
            partition: self.partition,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agent_radius_of_more_than_255_cells_is_rejected_naming_it() {
        // Found by the odd-settings property: the border (radius + 3) used to overflow.
        let cfg = BuildConfig {
            agent_radius: 1e9,
            ..BuildConfig::default()
        };
        assert_eq!(rejected_setting(&cfg), "agent_radius");
    }

    /// The setting [`BuildConfig::validate`] names; fails the test on any other outcome.
    fn rejected_setting(cfg: &BuildConfig) -> &'static str {
        match cfg.validate() {
            Err(BuildError::InvalidSetting { what, .. }) => what,
            other => panic!("expected InvalidSetting, got {other:?}"),
        }
    }

    #[test]
    fn recast_demo_values_convert_to_the_demo_cells() {
        let v = BuildConfig::default().voxel();
        assert_eq!(
            (
                v.walkable_height,
                v.walkable_climb,
                v.walkable_radius,
                v.border
            ),
            (10, 4, 2, 5)
        );
        assert_eq!((v.max_edge_length, v.tile_cells), (40, 32));
        assert_eq!((v.min_region_area, v.merge_region_area), (64, 400));
    }

    #[test]
    fn default_is_the_default_settings() {
        let s = NavSettings::default();
        let cfg = BuildConfig::default();
        assert_eq!(cfg, BuildConfig::from_settings(&s).unwrap());
        assert!(cfg.params().bitwise_eq(&s.to_params().unwrap()));
        assert_eq!(cfg.settings_digest, s.settings_digest());
        assert_eq!(cfg.tile_size, BuildConfig::tile_size_of_cells(32, 0.3));
        assert_eq!((cfg.area, cfg.flags), (63, 1));
    }

    #[test]
    fn a_tile_size_that_is_not_exactly_whole_cells_is_rejected_naming_it() {
        let exact = BuildConfig::default();
        for tile_size in [10.0, 9.6, 0.3 * 3.0, 0.3 * 9000.0] {
            let cfg = BuildConfig {
                tile_size,
                ..exact.clone()
            };
            assert_eq!(rejected_setting(&cfg), "tile_size", "{tile_size}");
        }
    }
}
