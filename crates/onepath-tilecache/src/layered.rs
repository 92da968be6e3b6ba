//! Layer-first tiles in a cache (`docs/tilecache.md` §5, "Layer-first tiles"): with the
//! Layers partition and no height sampling in the detail stage, a cached tile is split into
//! its layers once, at the first build, and each rebuild marks, compares and builds one layer
//! at a time. A layer the shapes in force do not reach is neither marked nor built.

use onepath_build3d::repair::{LayerMemo, RepairOutcome, ScratchReason};
use onepath_build3d::{
    BuildError, CompactHeightfield, ConvexVolume, Mesh3DPipeline, Obstacle, VerticalGrid,
    VoxelConfig,
};
use std::sync::Arc;

use onepath_format::{NavMeshParams, NavTile, NavTileData};

use crate::cache::TileColumn;
use crate::shapes::{obstacle_box, volume_box};

/// An x/z box in world units: (min, max).
pub(crate) type XzBox = ([f64; 2], [f64; 2]);

/// What the cache keeps of one layer of a layer-first tile.
#[derive(Debug, Clone)]
pub(crate) struct CachedLayer {
    /// The layer's spans in compact-heightfield order, their columns and the links between
    /// spans of the layer (built once); its `areas` are those of the last marking (scratch
    /// between rebuilds).
    pub(crate) sub: CompactHeightfield,
    /// The first-build areas (after erosion, the pipeline's own volumes and obstacles).
    pub(crate) first_areas: Vec<u8>,
    /// The x/z box of the layer's walkable cells in the first build; `None` when it has
    /// none (nothing can change such a layer).
    pub(crate) walkable: Option<XzBox>,
    /// The first build's result of the layer (`None`: no polygon). Shared, not copied, by
    /// the rebuilds that take it.
    pub(crate) first_data: Option<Arc<NavTileData>>,
    /// The result `sub.areas` were last built into, when known (forgotten after a restore).
    pub(crate) last_data: Option<Option<Arc<NavTileData>>>,
    /// The tile made of `last_data` with the layer number it had, when the column carries
    /// no authored link (a link may change a tile of an unchanged layer).
    pub(crate) last_tile: Option<NavTile>,
    /// The tile made of `first_data` in the first build (same condition).
    pub(crate) first_tile: Option<NavTile>,
    /// What the first build keeps for repairs (regions, components, contours); `None` for
    /// a layer with no walkable span.
    pub(crate) memo: Option<LayerMemo>,
    /// Scratch, not state: the areas before the last marking when [`mark_layers`] replaced
    /// them (to undo a rebuild that fails), kept so that its buffer is reused.
    pub(crate) undo: Vec<u8>,
}

impl CachedLayer {
    /// A layer of the first build: its heightfield (areas as first built) and result.
    pub(crate) fn new(
        p: &Mesh3DPipeline,
        vc: &VoxelConfig,
        sub: CompactHeightfield,
        first_data: Option<NavTileData>,
    ) -> CachedLayer {
        let walkable = walkable_box(&sub);
        let memo = walkable.is_some().then(|| p.layer_memo(vc, &sub));
        let first_data = first_data.map(Arc::new);
        CachedLayer {
            memo,
            first_areas: sub.areas.clone(),
            walkable,
            last_data: Some(first_data.clone()),
            first_data,
            last_tile: None,
            first_tile: None,
            undo: Vec::new(),
            sub,
        }
    }
}

/// The x/z box (world) of the cells holding a walkable span of `sub`.
fn walkable_box(sub: &CompactHeightfield) -> Option<XzBox> {
    let mut lo = [i32::MAX; 2];
    let mut hi = [i32::MIN; 2];
    for (i, &a) in sub.areas.iter().enumerate() {
        if a != 0 {
            let (x, z) = (i32::from(sub.span_x[i]), i32::from(sub.span_z[i]));
            lo = [lo[0].min(x), lo[1].min(z)];
            hi = [hi[0].max(x), hi[1].max(z)];
        }
    }
    (lo[0] <= hi[0]).then(|| {
        let at = |c: i32, o: f64| o + f64::from(c) * sub.cs;
        (
            [at(lo[0], sub.origin[0]), at(lo[1], sub.origin[2])],
            [at(hi[0] + 1, sub.origin[0]), at(hi[1] + 1, sub.origin[2])],
        )
    })
}

fn touches(a: XzBox, b: XzBox, pad: f64) -> bool {
    a.0[0] - pad <= b.1[0]
        && a.1[0] + pad >= b.0[0]
        && a.0[1] - pad <= b.1[1]
        && a.1[1] + pad >= b.0[1]
}

/// A layer's result (`None`: no polygon), shared with the cache's copy.
pub(crate) type LayerResult = Option<Arc<NavTileData>>;

/// What marking one layer found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LayerChange {
    /// The areas equal those the layer was last built from.
    Unchanged,
    /// The areas equal the first build's.
    FirstBuild,
    /// Anything else: the layer is built again.
    Changed,
}

/// What marking one layer did: whether its areas were replaced (the previous ones are then
/// in the layer's `undo`), and what changed.
pub(crate) type LayerMark = (bool, LayerChange);

/// Marks every layer of a tile with the obstacles (ascending id) and then the volumes (in
/// the order added) whose box reaches the layer's walkable cells (obstacles grown by the
/// agent radius and a cell, volumes by a cell of slack for rounding; a shape that misses the
/// box has no cell centre over a walkable span of the layer, so skipping it changes
/// nothing). Returns, per layer, whether its previous areas went to its `undo` (see
/// [`undo_marks`]) and what changed.
pub(crate) fn mark_layers<'a>(
    layers: &mut [CachedLayer],
    obstacles: impl Iterator<Item = &'a Obstacle> + Clone,
    volumes: impl Iterator<Item = &'a ConvexVolume> + Clone,
    vc: &VoxelConfig,
) -> Vec<LayerMark> {
    let cs = vc.cs;
    let grown = f64::from(vc.walkable_radius + 1) * cs;
    layers
        .iter_mut()
        .map(|l| {
            let known = l.last_data.is_some();
            let Some(b) = l.walkable else {
                // No walkable span: no shape changes the layer.
                let change = if known {
                    LayerChange::Unchanged
                } else {
                    LayerChange::FirstBuild
                };
                return (false, change);
            };
            let os = obstacles
                .clone()
                .filter(|o| touches(obstacle_box(o), b, grown));
            let vs = volumes.clone().filter(|v| touches(volume_box(v), b, cs));
            let none = os.clone().next().is_none() && vs.clone().next().is_none();
            if none && known && l.sub.areas == l.first_areas {
                // The layer's areas are its first build's already.
                return (false, LayerChange::Unchanged);
            }
            // The previous areas to `undo` (its buffer reused), the first build's in place.
            l.undo.clear();
            l.undo.extend_from_slice(&l.sub.areas);
            l.sub.areas.copy_from_slice(&l.first_areas);
            if none {
                return (true, LayerChange::FirstBuild);
            }
            for o in os {
                o.mark(&mut l.sub, vc);
            }
            for v in vs {
                l.sub.mark_convex_volume(v);
            }
            let change = if known && l.sub.areas == l.undo {
                LayerChange::Unchanged
            } else if l.sub.areas == l.first_areas {
                LayerChange::FirstBuild
            } else {
                LayerChange::Changed
            };
            (true, change)
        })
        .collect()
}

/// Puts back the areas [`mark_layers`] replaced (a rebuild that failed).
pub(crate) fn undo_marks(layers: &mut [CachedLayer], marks: &[LayerMark]) {
    for (l, &(replaced, _)) in layers.iter_mut().zip(marks) {
        if replaced {
            std::mem::swap(&mut l.sub.areas, &mut l.undo);
        }
    }
}

/// How the layers built by one rebuild were obtained: repaired, or from scratch with the
/// precondition that failed (or because repair is turned off).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct RepairCounts {
    pub(crate) repaired: usize,
    pub(crate) off: usize,
    pub(crate) not_only_removed: usize,
    pub(crate) small_region: usize,
    pub(crate) split: usize,
    pub(crate) renumbered: usize,
}

/// The result of every layer for the areas just marked: an unchanged layer keeps its last
/// result, one at its first build's areas takes the first build's, a changed one is built
/// (repaired from its first build when `repair` is on and the preconditions hold
/// ([`Mesh3DPipeline::layer_tile_data_repaired`]), else from scratch by
/// [`Mesh3DPipeline::layer_tile_data`], the plain build's own driver; both give the same
/// bytes). Returns the results (a kept one shared with the layer, not copied), how many
/// layers were built and how.
#[allow(clippy::too_many_arguments)]
pub(crate) fn layer_results(
    p: &Mesh3DPipeline,
    params: &NavMeshParams,
    vc: &VoxelConfig,
    vgrid: VerticalGrid,
    column: TileColumn,
    layers: &[CachedLayer],
    changes: &[LayerMark],
    repair: bool,
) -> Result<(Vec<LayerResult>, usize, RepairCounts), BuildError> {
    let mut out = Vec::with_capacity(layers.len());
    let mut built = 0;
    let mut counts = RepairCounts::default();
    for (l, (layer, (_, change))) in layers.iter().zip(changes).enumerate() {
        let data = match (change, &layer.last_data) {
            (LayerChange::Unchanged, Some(d)) => d.clone(),
            (LayerChange::FirstBuild, _) => layer.first_data.clone(),
            _ => {
                built += 1;
                let (x, z, l) = (column.0, column.1, l as u16);
                match (&layer.memo, repair) {
                    (Some(memo), true) => {
                        let (d, outcome) = p.layer_tile_data_repaired(
                            params, vc, vgrid, x, z, l, &layer.sub, memo,
                        )?;
                        match outcome {
                            RepairOutcome::Repaired => counts.repaired += 1,
                            RepairOutcome::Scratch(ScratchReason::NotOnlyRemoved) => {
                                counts.not_only_removed += 1
                            }
                            RepairOutcome::Scratch(ScratchReason::SmallRegion) => {
                                counts.small_region += 1
                            }
                            RepairOutcome::Scratch(ScratchReason::Split) => counts.split += 1,
                            RepairOutcome::Scratch(ScratchReason::Renumbered) => {
                                counts.renumbered += 1
                            }
                        }
                        d.map(Arc::new)
                    }
                    _ => {
                        counts.off += 1;
                        p.layer_tile_data(params, vc, vgrid, x, z, l, &layer.sub)?
                            .map(Arc::new)
                    }
                }
            }
        };
        out.push(data);
    }
    Ok((out, built, counts))
}

impl CachedLayer {
    /// Forgets what the layer was last built into (after a restore the mesh may hold
    /// anything).
    pub(crate) fn forget_last(&mut self) {
        self.last_data = None;
        self.last_tile = None;
    }
}
