//! What a tile cache keeps of a build (`onepath-tilecache`, `docs/tilecache.md`, "What is
//! cached"): stage 3 of every tile that could hold a walkable span. The stages themselves are
//! the pipeline's own ([`Mesh3DPipeline::eroded_heightfield`], [`Obstacle::mark`],
//! [`Mesh3DPipeline::tile_data_from_compact`]); this module only chooses the tiles.
//!
//! [`Obstacle::mark`]: crate::Obstacle::mark

use rayon::prelude::*;

use crate::error::BuildError;
use crate::input::TriangleSoup;
use crate::pipeline::{
    rasterize_job, tile_jobs_soup, triangle_areas, vertical_grid, ErodedTile, Mesh3DPipeline,
};

impl Mesh3DPipeline {
    /// Stages 1–3 of every tile of a soup a tile cache keeps, in tile order (built in
    /// parallel, merged in order): a tile is kept when a triangle whose area is not 0 after
    /// the slope test touches its grid (the plain build's rule for the triangles of a
    /// tile); a tile without one can never hold a walkable span, is never built and has
    /// nothing cached. Each heightfield is eroded and carries the pipeline's own volumes and
    /// then its own obstacles, so [`Mesh3DPipeline::tile_data_from_compact`] on it gives
    /// exactly the tiles the plain build gives for that column.
    pub fn cached_tiles_soup(&self, soup: &TriangleSoup) -> Result<Vec<ErodedTile>, BuildError> {
        self.check()?;
        soup.validate()?;
        let params = self.config.params();
        let vc = self.config.voxel();
        let Some((bmin, bmax)) = soup.bounds() else {
            return Ok(Vec::new());
        };
        let jobs = tile_jobs_soup(&params, &vc, soup, bmin, bmax)?;
        let vgrid = vertical_grid(&params, &vc, bmin[1], bmax[1])?;
        let areas = triangle_areas(soup, &vc, self.config.area);
        let kept: Vec<_> = jobs
            .into_iter()
            .filter(|j| j.triangles.iter().any(|&t| areas[t as usize] != 0))
            .collect();
        Ok(kept
            .par_iter()
            .map(|job| {
                let mut chf =
                    self.eroded_heightfield(&params, &vc, vgrid, job.tile_x, job.tile_z, |hf| {
                        rasterize_job(hf, soup, &areas, &job.triangles, vc.walkable_climb)
                    });
                for o in &self.obstacles {
                    o.mark(&mut chf, &vc);
                }
                ErodedTile {
                    tile_x: job.tile_x,
                    tile_z: job.tile_z,
                    vgrid,
                    chf,
                }
            })
            .collect())
    }
}
