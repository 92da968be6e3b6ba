//! The searches: the sliced-search contract, the engines, their options and results.

pub(crate) mod astar;
pub(crate) mod bidirectional;
pub(crate) mod flow;
pub(crate) mod graph_astar;
pub(crate) mod grid_search;
pub(crate) mod hex_search;
pub(crate) mod hpa;
pub(crate) mod jps;
pub(crate) mod jps_plus;
pub(crate) mod jump_search;
pub(crate) mod landmarks;
pub(crate) mod octile;
pub(crate) mod options;
pub(crate) mod pair_astar;
pub(crate) mod replan;
pub(crate) mod result;
pub(crate) mod sliced;
pub(crate) mod theta;
pub(crate) mod voxel_astar;
