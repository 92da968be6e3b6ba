//! Build settings in world units (RecastDemo's defaults) and their voxel-unit form.

use crate::error::PeerError;

/// Build settings in world units, named as in RecastDemo's settings panel.
/// [`RecastSettings::default`] is RecastDemo's `resetCommonSettings` plus
/// `Sample_TileMesh`'s tile size of 32 cells (watershed partitioning).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RecastSettings {
    /// Cell size (X/Z voxel edge), world units.
    pub cell_size: f32,
    /// Cell height (Y voxel edge), world units.
    pub cell_height: f32,
    /// Agent height, world units.
    pub agent_height: f32,
    /// Agent radius, world units.
    pub agent_radius: f32,
    /// Largest step the agent climbs, world units.
    pub agent_max_climb: f32,
    /// Steepest walkable slope, degrees.
    pub agent_max_slope: f32,
    /// Smallest isolated region kept, in cells along a side (area = size²).
    pub region_min_size: f32,
    /// Regions smaller than this (cells along a side, area = size²) are merged when possible.
    pub region_merge_size: f32,
    /// Longest contour edge along the mesh border, world units.
    pub edge_max_len: f32,
    /// Largest distance a simplified contour strays from the raw one, cells.
    pub edge_max_error: f32,
    /// Largest polygon vertex count (3..=6 for Detour).
    pub verts_per_poly: f32,
    /// Detail sampling distance, in cells (below 0.9: no sampling).
    pub detail_sample_dist: f32,
    /// Largest detail height error, in cell heights.
    pub detail_sample_max_error: f32,
    /// Tile size, cells along a side.
    pub tile_size: f32,
}

impl Default for RecastSettings {
    fn default() -> Self {
        RecastSettings {
            cell_size: 0.3,
            cell_height: 0.2,
            agent_height: 2.0,
            agent_radius: 0.6,
            agent_max_climb: 0.9,
            agent_max_slope: 45.0,
            region_min_size: 8.0,
            region_merge_size: 20.0,
            edge_max_len: 12.0,
            edge_max_error: 1.3,
            verts_per_poly: 6.0,
            detail_sample_dist: 6.0,
            detail_sample_max_error: 1.0,
            tile_size: 32.0,
        }
    }
}

/// The settings in voxel units, as `Sample_TileMesh::buildTileMesh` fills `rcConfig`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VoxelConfig {
    /// Cell size, world units.
    pub cs: f32,
    /// Cell height, world units.
    pub ch: f32,
    /// Walkable slope, degrees.
    pub walkable_slope_angle: f32,
    /// `ceil(agent_height / ch)`, voxels.
    pub walkable_height: i32,
    /// `floor(agent_max_climb / ch)`, voxels.
    pub walkable_climb: i32,
    /// `ceil(agent_radius / cs)`, voxels.
    pub walkable_radius: i32,
    /// `(int)(edge_max_len / cs)`, voxels.
    pub max_edge_len: i32,
    /// Contour simplification error, cells.
    pub max_simplification_error: f32,
    /// `region_min_size²`, cells.
    pub min_region_area: i32,
    /// `region_merge_size²`, cells.
    pub merge_region_area: i32,
    /// Largest polygon vertex count.
    pub max_verts_per_poly: i32,
    /// Tile size, cells.
    pub tile_size: i32,
    /// `walkable_radius + 3`, cells: the border each tile's heightfield adds on every side.
    pub border_size: i32,
    /// `tile_size + 2 * border_size`, cells.
    pub width: i32,
    /// `tile_size + 2 * border_size`, cells.
    pub height: i32,
    /// `cs * detail_sample_dist` (0 when the setting is below 0.9), world units.
    pub detail_sample_dist: f32,
    /// `ch * detail_sample_max_error`, world units.
    pub detail_sample_max_error: f32,
}

impl RecastSettings {
    /// Converts to voxel units with the demo's exact float32 expressions.
    pub fn voxel_config(&self) -> VoxelConfig {
        let cs = self.cell_size;
        let ch = self.cell_height;
        let walkable_radius = (self.agent_radius / cs).ceil() as i32;
        let tile_size = self.tile_size as i32;
        // Saturating: `validate` refuses settings this large; the conversion itself never
        // overflows.
        let border_size = walkable_radius.saturating_add(3);
        VoxelConfig {
            cs,
            ch,
            walkable_slope_angle: self.agent_max_slope,
            walkable_height: (self.agent_height / ch).ceil() as i32,
            walkable_climb: (self.agent_max_climb / ch).floor() as i32,
            walkable_radius,
            max_edge_len: (self.edge_max_len / cs) as i32,
            max_simplification_error: self.edge_max_error,
            min_region_area: (self.region_min_size * self.region_min_size) as i32,
            merge_region_area: (self.region_merge_size * self.region_merge_size) as i32,
            max_verts_per_poly: self.verts_per_poly as i32,
            tile_size,
            border_size,
            width: tile_size.saturating_add(border_size.saturating_mul(2)),
            height: tile_size.saturating_add(border_size.saturating_mul(2)),
            detail_sample_dist: if self.detail_sample_dist < 0.9 {
                0.0
            } else {
                cs * self.detail_sample_dist
            },
            detail_sample_max_error: ch * self.detail_sample_max_error,
        }
    }

    /// Checks the settings before any of them reaches Recast: every value finite and not
    /// negative, cell size and height positive, 3..=6 vertices per polygon (Detour's limit),
    /// a tile of 1..=4096 cells, and voxel values (walkable height, climb, radius, edge
    /// length, region areas) of at most 2^15.
    pub fn validate(&self) -> Result<(), PeerError> {
        let named = [
            ("cell_size", self.cell_size),
            ("cell_height", self.cell_height),
            ("agent_height", self.agent_height),
            ("agent_radius", self.agent_radius),
            ("agent_max_climb", self.agent_max_climb),
            ("agent_max_slope", self.agent_max_slope),
            ("region_min_size", self.region_min_size),
            ("region_merge_size", self.region_merge_size),
            ("edge_max_len", self.edge_max_len),
            ("edge_max_error", self.edge_max_error),
            ("verts_per_poly", self.verts_per_poly),
            ("detail_sample_dist", self.detail_sample_dist),
            ("detail_sample_max_error", self.detail_sample_max_error),
            ("tile_size", self.tile_size),
        ];
        for (name, v) in named {
            if !(v.is_finite() && v >= 0.0) {
                return Err(PeerError::input(
                    name,
                    format!("{v} is not finite and >= 0"),
                ));
            }
        }
        if !(self.cell_size > 0.0 && self.cell_height > 0.0) {
            return Err(PeerError::input(
                "cell_size",
                "cell size and height must be > 0",
            ));
        }
        if !(3.0..=6.0).contains(&self.verts_per_poly) {
            return Err(PeerError::input("verts_per_poly", "must be in 3..=6"));
        }
        if !(1.0..=4096.0).contains(&self.tile_size) {
            return Err(PeerError::input("tile_size", "must be in 1..=4096 cells"));
        }
        let limit = 1 << 15;
        let c = self.voxel_config();
        let voxels = [
            ("agent_height", c.walkable_height),
            ("agent_max_climb", c.walkable_climb),
            ("agent_radius", c.walkable_radius),
            ("edge_max_len", c.max_edge_len),
            ("region_min_size", c.min_region_area),
            ("region_merge_size", c.merge_region_area),
        ];
        for (name, v) in voxels {
            if v > limit {
                return Err(PeerError::input(
                    name,
                    format!("{v} voxels, at most {limit}"),
                ));
            }
        }
        Ok(())
    }

    /// Tile edge length in world units (`tile_size * cell_size`, float32 as in the demo).
    pub fn tile_world_size(&self) -> f32 {
        self.tile_size * self.cell_size
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_out_of_range_are_refused_by_name() {
        assert_eq!(RecastSettings::default().validate(), Ok(()));
        let cases = [
            (
                RecastSettings {
                    cell_size: 0.0,
                    ..Default::default()
                },
                "cell_size",
            ),
            (
                RecastSettings {
                    agent_radius: f32::NAN,
                    ..Default::default()
                },
                "agent_radius",
            ),
            (
                RecastSettings {
                    agent_radius: 1e30,
                    ..Default::default()
                },
                "agent_radius",
            ),
            (
                RecastSettings {
                    verts_per_poly: 7.0,
                    ..Default::default()
                },
                "verts_per_poly",
            ),
            (
                RecastSettings {
                    tile_size: 0.5,
                    ..Default::default()
                },
                "tile_size",
            ),
            (
                RecastSettings {
                    region_min_size: 1e4,
                    ..Default::default()
                },
                "region_min_size",
            ),
        ];
        for (s, name) in cases {
            match s.validate() {
                Err(PeerError::Input { at, .. }) => assert_eq!(at, name),
                other => panic!("{name}: expected an input error, got {other:?}"),
            }
        }
    }

    #[test]
    fn demo_defaults_convert_to_the_demo_voxel_values() {
        let c = RecastSettings::default().voxel_config();
        // float32: 2.0/0.2 = 10, 0.9/0.2 = 4.5 -> 4, 0.6/0.3 = 2, 12/0.3 = 40.
        assert_eq!(c.walkable_height, 10);
        assert_eq!(c.walkable_climb, 4);
        assert_eq!(c.walkable_radius, 2);
        assert_eq!(c.max_edge_len, 40);
        assert_eq!((c.min_region_area, c.merge_region_area), (64, 400));
        assert_eq!((c.border_size, c.width, c.height), (5, 42, 42));
        assert_eq!(c.detail_sample_dist, 0.3f32 * 6.0);
        assert_eq!(c.detail_sample_max_error, 0.2f32);
    }
}
