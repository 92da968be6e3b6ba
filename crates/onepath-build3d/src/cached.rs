//! What a tile cache keeps of a build (`onepath-tilecache`, `docs/tilecache.md`, "What is
//! cached"): stage 3 of every tile that could hold a walkable span. The stages themselves are
//! the pipeline's own ([`Mesh3DPipeline::eroded_heightfield`], [`Obstacle::mark`],
//! [`Mesh3DPipeline::tile_data_from_compact`]); this module only chooses the tiles.
//!
//! [`Obstacle::mark`]: crate::Obstacle::mark

use onepath_format::{NavMeshParams, NavTileData};

use crate::compact::CompactHeightfield;
use crate::config::VoxelConfig;
use crate::error::BuildError;
use crate::input::TriangleSoup;
use crate::pipeline::{ErodedTile, Mesh3DPipeline, VerticalGrid};
use crate::repair::{LayerMemo, RepairOutcome};

impl Mesh3DPipeline {
    /// Stages 1–3 of every tile of a soup a tile cache keeps, in tile order (built in
    /// parallel, merged in order): a tile is kept when a triangle whose area is not 0 after
    /// the slope test touches its grid (the plain build's rule for the triangles of a
    /// tile); a tile without one can never hold a walkable span, is never built and has
    /// nothing cached. Each heightfield is eroded and carries the pipeline's own volumes and
    /// then its own obstacles, so [`Mesh3DPipeline::tile_data_from_compact`] on it gives
    /// exactly the tiles the plain build gives for that column.
    pub fn cached_tiles_soup(&self, soup: &TriangleSoup) -> Result<Vec<ErodedTile>, BuildError> {
        self.eroded_tiles_soup_where(soup, true, |job, areas| {
            job.triangles.iter().any(|&t| areas[t as usize] != 0)
        })
    }

    /// Stage 5 of one layer of the Layers partition: the layer's regions
    /// ([`crate::region::layer_components`]) on its heightfield (one element of [`crate::layers::LayerSplit::apply`] of the marked tile),
    /// then contours, polygons, detail and tile data numbered `layer`; `None` when the layer
    /// has no polygon. [`Mesh3DPipeline::tile_data_from_split`] with Layers is exactly this
    /// for every layer in order, numbered by [`crate::pipeline::number_layers`]: the one
    /// driver of the plain build and of a cache's layer-first rebuilds, so a cache may keep a
    /// layer's result for as long as its areas are unchanged.
    #[allow(clippy::too_many_arguments)]
    pub fn layer_tile_data(
        &self,
        params: &NavMeshParams,
        vc: &VoxelConfig,
        vgrid: VerticalGrid,
        tile_x: i32,
        tile_z: i32,
        layer: u16,
        sub: &CompactHeightfield,
    ) -> Result<Option<NavTileData>, BuildError> {
        let frame = crate::pipeline::tile_frame(params, vc, vgrid);
        let regions = crate::region::layer_components(sub, vc.min_region_area);
        self.polygons_to_data(params, vc, &frame, tile_x, tile_z, layer, sub, &regions.ids)
    }

    /// [`Mesh3DPipeline::layer_tile_data`] of a layer whose first build is `memo`
    /// ([`LayerMemo::new`] of the layer at its first-build areas), with the regions and
    /// contours repaired from the first build when only spans were removed and the
    /// preconditions hold ([`LayerMemo::repair`]), else built from scratch. The result is
    /// exactly [`Mesh3DPipeline::layer_tile_data`]'s; the outcome says which way it went.
    #[allow(clippy::too_many_arguments)]
    pub fn layer_tile_data_repaired(
        &self,
        params: &NavMeshParams,
        vc: &VoxelConfig,
        vgrid: VerticalGrid,
        tile_x: i32,
        tile_z: i32,
        layer: u16,
        sub: &CompactHeightfield,
        memo: &LayerMemo,
    ) -> Result<(Option<NavTileData>, RepairOutcome), BuildError> {
        let frame = crate::pipeline::tile_frame(params, vc, vgrid);
        match memo.with_repaired(
            sub,
            vc.min_region_area,
            vc.contour_max_error,
            vc.max_edge_length,
            |regions, contours| {
                self.contours_to_data(
                    params, vc, &frame, tile_x, tile_z, layer, sub, regions, contours,
                )
            },
        ) {
            Ok(data) => Ok((data?, RepairOutcome::Repaired)),
            Err(reason) => Ok((
                self.layer_tile_data(params, vc, vgrid, tile_x, tile_z, layer, sub)?,
                RepairOutcome::Scratch(reason),
            )),
        }
    }

    /// The memo a cache keeps of a layer's first build (`sub` at its first-build areas) for
    /// [`Mesh3DPipeline::layer_tile_data_repaired`].
    pub fn layer_memo(&self, vc: &VoxelConfig, sub: &CompactHeightfield) -> LayerMemo {
        LayerMemo::new(
            sub,
            vc.min_region_area,
            vc.contour_max_error,
            vc.max_edge_length,
        )
    }
}
