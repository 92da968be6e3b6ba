//! serde for [`NavSettings`] (the `serde` feature): every field by name, as the getters name
//! them. Deserializing goes through the validating setters, then the check across fields, so
//! a value out of range is an error naming the setting; a missing field keeps its
//! [`NavSettings::default`] value.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::settings::{NavSettings, OffMeshLinkDefinition, Partition};

/// The fields of a [`NavSettings`], in the order of the settings encoding.
#[derive(Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Fields {
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

impl Default for Fields {
    fn default() -> Self {
        Fields::of(&NavSettings::default())
    }
}

impl Fields {
    fn of(s: &NavSettings) -> Fields {
        Fields {
            origin: s.origin(),
            tile_size: s.tile_size(),
            cell_size: s.cell_size(),
            max_verts_per_poly: s.max_verts_per_poly(),
            walkable_climb: s.walkable_climb(),
            agent_radius: s.agent_radius(),
            agent_height: s.agent_height(),
            agent_max_slope: s.agent_max_slope(),
            cell_height: s.cell_height(),
            snap_bits: s.snap_bits(),
            partition: s.partition(),
            min_region_area: s.min_region_area(),
            merge_region_area: s.merge_region_area(),
            contour_max_error: s.contour_max_error(),
            max_edge_length: s.max_edge_length(),
            detail_sample_distance: s.detail_sample_distance(),
            detail_max_error: s.detail_max_error(),
            height: s.height(),
            area: s.area(),
            flags: s.flags(),
            off_mesh_links: s.off_mesh_links().to_vec(),
        }
    }

    fn into_settings(self) -> Result<NavSettings, String> {
        let mut s = NavSettings::default();
        let e = |e: crate::CoordinateError| e.to_string();
        s.set_origin(self.origin).map_err(e)?;
        s.set_tile_size(self.tile_size).map_err(e)?;
        s.set_cell_size(self.cell_size).map_err(e)?;
        s.set_max_verts_per_poly(self.max_verts_per_poly)
            .map_err(e)?;
        s.set_walkable_climb(self.walkable_climb).map_err(e)?;
        s.set_agent_radius(self.agent_radius).map_err(e)?;
        s.set_agent_height(self.agent_height).map_err(e)?;
        s.set_agent_max_slope(self.agent_max_slope).map_err(e)?;
        s.set_cell_height(self.cell_height).map_err(e)?;
        s.set_snap_bits(self.snap_bits).map_err(e)?;
        s.set_partition(self.partition);
        s.set_min_region_area(self.min_region_area).map_err(e)?;
        s.set_merge_region_area(self.merge_region_area).map_err(e)?;
        s.set_contour_max_error(self.contour_max_error).map_err(e)?;
        s.set_max_edge_length(self.max_edge_length).map_err(e)?;
        s.set_detail_sample_distance(self.detail_sample_distance)
            .map_err(e)?;
        s.set_detail_max_error(self.detail_max_error).map_err(e)?;
        s.set_height(self.height).map_err(e)?;
        s.set_area(self.area).map_err(e)?;
        s.set_flags(self.flags);
        s.set_off_mesh_links(self.off_mesh_links).map_err(e)?;
        s.validate().map_err(|e| e.to_string())?;
        Ok(s)
    }
}

impl Serialize for NavSettings {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Fields::of(self).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for NavSettings {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Fields::deserialize(deserializer)?
            .into_settings()
            .map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_round_trip_through_json() {
        let mut s = NavSettings::default();
        s.set_agent_radius(0.4).unwrap().set_flags(3);
        s.set_off_mesh_links(vec![OffMeshLinkDefinition {
            start: [1.0, 0.0, 1.0],
            end: [3.0, 1.0, 1.0],
            radius: 0.5,
            bidirectional: true,
            area: 2,
            flags: 1,
            user_id: 9,
        }])
        .unwrap();
        let json = serde_json::to_string(&s).unwrap();
        let back: NavSettings = serde_json::from_str(&json).unwrap();
        assert_eq!(back, s);
    }

    #[test]
    fn missing_fields_keep_their_defaults_and_bad_values_name_the_setting() {
        let s: NavSettings = serde_json::from_str(r#"{"agent_radius": 1.5}"#).unwrap();
        let mut want = NavSettings::default();
        want.set_agent_radius(1.5).unwrap();
        assert_eq!(s, want);
        let e = serde_json::from_str::<NavSettings>(r#"{"agent_max_slope": 91.0}"#).unwrap_err();
        assert!(e.to_string().contains("AgentMaxSlope"), "{e}");
        let e = serde_json::from_str::<NavSettings>(r#"{"cell_size": 0.0001}"#).unwrap_err();
        assert!(e.to_string().contains("TileSize"), "{e}");
    }
}
