//! What is searched: grids (square, hex, voxel), graphs, area costs, the world placement,
//! and the derived views and caches the searches read them through.

pub(crate) mod area;
pub(crate) mod bitgrid;
pub(crate) mod graph;
pub(crate) mod grid;
pub(crate) mod grid_view;
pub(crate) mod hex;
pub(crate) mod move_mask;
pub(crate) mod space;
pub(crate) mod voxel;
