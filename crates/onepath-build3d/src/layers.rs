//! The layer partition (`docs/build3d-regions.md` §4): the walkable spans of a tile are
//! split into height layers, none of which has two floors in one column, so a tile with
//! overlapping floors (a bridge, storeys) becomes several tiles of one column.

use std::collections::BTreeSet;

use onepath_format::Partition;

use crate::compact::{CompactHeightfield, NOT_CONNECTED};
use crate::config::VoxelConfig;
use crate::heightfield::NULL_AREA;

/// Sweep regions: each row (Z ascending) is swept along X; a span continues the region of
/// its −x neighbour, else opens a new one; a run whose every −z neighbour lies in one region,
/// which continues into no other run of this row, takes that region. Returns the region of
/// every span (`u32::MAX` for non-walkable spans) and the count.
fn sweep_regions(chf: &CompactHeightfield) -> (Vec<u32>, u32) {
    let n = chf.span_count();
    let mut reg = vec![u32::MAX; n];
    let mut next_id = 0u32;
    let mut prev_count: Vec<u32> = Vec::new();
    for z in 0..chf.depth {
        // Local runs of this row: (neighbour region or NONE/MULTI, connections count).
        let mut runs: Vec<(u32, u32)> = Vec::new();
        let mut local = Vec::new();
        prev_count.clear();
        prev_count.resize(next_id as usize, 0);
        for x in 0..chf.width {
            for i in chf.column(x, z) {
                if chf.areas[i] == NULL_AREA {
                    continue;
                }
                let mut run = u32::MAX;
                if let Some(a) = chf.neighbour(i, 0) {
                    if chf.areas[a] != NULL_AREA && i32::from(chf.span_z[a]) == z {
                        run = reg[a];
                    }
                }
                if run == u32::MAX {
                    run = runs.len() as u32;
                    runs.push((u32::MAX, 0));
                }
                if let Some(a) = chf.neighbour(i, 3) {
                    if chf.areas[a] != NULL_AREA {
                        let nr = reg[a];
                        let r = &mut runs[run as usize];
                        if r.0 == u32::MAX || r.0 == nr {
                            r.0 = nr;
                            r.1 += 1;
                            prev_count[nr as usize] += 1;
                        } else {
                            r.0 = u32::MAX - 1;
                        }
                    }
                }
                reg[i] = run;
                local.push(i);
            }
        }
        let mut ids = Vec::with_capacity(runs.len());
        for &(nei, cnt) in &runs {
            if nei < u32::MAX - 1 && prev_count[nei as usize] == cnt {
                ids.push(nei);
            } else {
                ids.push(next_id);
                next_id += 1;
            }
        }
        for i in local {
            reg[i] = ids[reg[i] as usize];
        }
    }
    (reg, next_id)
}

/// The layer of every span. Regions are taken in id order; each unassigned region opens a
/// layer that grows (depth first, neighbours in first-link order) over linked regions that
/// share no column with a region already in it. A non-walkable span takes the layer of its
/// first walkable neighbour in direction order −x, +z, +x, −z, else layer 0.
pub fn layer_of_spans(chf: &CompactHeightfield) -> (Vec<u16>, u16) {
    let (reg, nreg) = sweep_regions(chf);
    let nreg = nreg as usize;
    // Overlaps (share a column) and neighbours (linked), as ordered sets.
    let mut overlaps: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); nreg];
    let mut neighbours: Vec<Vec<u32>> = vec![Vec::new(); nreg];
    for z in 0..chf.depth {
        for x in 0..chf.width {
            let col = chf.column(x, z);
            for i in col.clone() {
                if reg[i] == u32::MAX {
                    continue;
                }
                for j in col.clone() {
                    if j != i && reg[j] != u32::MAX && reg[j] != reg[i] {
                        overlaps[reg[i] as usize].insert(reg[j]);
                    }
                }
                for dir in 0..4 {
                    if let Some(a) = chf.neighbour(i, dir) {
                        if reg[a] != u32::MAX
                            && reg[a] != reg[i]
                            && !neighbours[reg[i] as usize].contains(&reg[a])
                        {
                            neighbours[reg[i] as usize].push(reg[a]);
                        }
                    }
                }
            }
        }
    }
    let mut layer_of_region = vec![u16::MAX; nreg];
    let mut nlayers: u16 = 0;
    for r in 0..nreg {
        if layer_of_region[r] != u16::MAX {
            continue;
        }
        // Past the format's last layer (1023) further regions share it.
        let l = nlayers.min(onepath_format::MAX_LAYER);
        nlayers = (l + 1).max(nlayers);
        layer_of_region[r] = l;
        let mut members: BTreeSet<u32> = BTreeSet::new();
        members.insert(r as u32);
        let mut stack = vec![r as u32];
        while let Some(c) = stack.pop() {
            for &nb in &neighbours[c as usize] {
                if layer_of_region[nb as usize] != u16::MAX {
                    continue;
                }
                if overlaps[nb as usize].iter().any(|o| members.contains(o)) {
                    continue;
                }
                layer_of_region[nb as usize] = l;
                members.insert(nb);
                stack.push(nb);
            }
        }
    }
    let n = chf.span_count();
    let mut layer = vec![0u16; n];
    for i in 0..n {
        if reg[i] != u32::MAX {
            layer[i] = layer_of_region[reg[i] as usize];
        }
    }
    for i in 0..n {
        if reg[i] != u32::MAX {
            continue;
        }
        layer[i] = [0usize, 1, 2, 3]
            .iter()
            .filter_map(|&d| chf.neighbour(i, d))
            .find(|&a| reg[a] != u32::MAX)
            .map_or(0, |a| layer_of_region[reg[a] as usize]);
    }
    (layer, nlayers.max(1))
}

/// Whether a build takes **layer-first tiles** (`docs/build3d-regions.md` §4, "Layer-first
/// tiles"): the Layers partition with no height sampling in the detail stage (a
/// `DetailSampleDistance` below 0.9 cells, which the voxel configuration turns into 0). Such a
/// tile's layers are decided once, on the eroded heightfield before any area volume or
/// obstacle marks it, and every later stage runs on one layer at a time.
pub fn is_layer_first(vc: &VoxelConfig) -> bool {
    vc.partition == Partition::Layers && vc.detail_sample_distance == 0.0
}

/// The layer of every span of a tile, decided once ([`layer_of_spans`] of the eroded
/// heightfield) and kept for every later marking of the tile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayerSplit {
    /// The layer of every span, in compact-heightfield order.
    pub layer_of_span: Vec<u16>,
    /// The number of layers (at least 1).
    pub count: u16,
}

impl LayerSplit {
    /// The split of `chf` as its areas stand ([`layer_of_spans`]).
    pub fn of(chf: &CompactHeightfield) -> LayerSplit {
        let (layer_of_span, count) = layer_of_spans(chf);
        LayerSplit {
            layer_of_span,
            count,
        }
    }

    /// One heightfield per layer of `chf` (which must have the spans the split was made
    /// on; its areas may have been marked since): each keeps its own spans in the same order
    /// with their columns, areas and the links between spans of that layer (a link to
    /// another layer is dropped).
    pub fn apply(&self, chf: &CompactHeightfield) -> Vec<CompactHeightfield> {
        split_by(chf, &self.layer_of_span, self.count)
    }
}

/// Splits a compact heightfield into one per layer, the layers decided on its areas as they
/// stand ([`layer_of_spans`]): each keeps its own spans in the same order with their
/// columns, areas and the links between spans of that layer (a link to another layer is
/// dropped).
pub fn split_layers(chf: &CompactHeightfield) -> Vec<CompactHeightfield> {
    LayerSplit::of(chf).apply(chf)
}

fn split_by(chf: &CompactHeightfield, layer: &[u16], nlayers: u16) -> Vec<CompactHeightfield> {
    let n = chf.span_count();
    debug_assert_eq!(
        layer.len(),
        n,
        "a split applies to the spans it was made on"
    );
    let mut out = Vec::with_capacity(usize::from(nlayers));
    let mut new_index = vec![NOT_CONNECTED; n];
    let mut counts = vec![0u32; usize::from(nlayers)];
    for i in 0..n {
        let l = usize::from(layer[i]);
        new_index[i] = counts[l];
        counts[l] += 1;
    }
    let ncols = chf.cell_first.len();
    for l in 0..nlayers {
        let k = counts[usize::from(l)] as usize;
        let mut sub = CompactHeightfield {
            cell_first: vec![0; ncols],
            cell_count: vec![0; ncols],
            spans: Vec::with_capacity(k),
            span_x: Vec::with_capacity(k),
            span_z: Vec::with_capacity(k),
            areas: Vec::with_capacity(k),
            ..chf.clone_header()
        };
        for c in 0..ncols {
            sub.cell_first[c] = sub.spans.len() as u32;
            let f = chf.cell_first[c] as usize;
            for i in f..f + chf.cell_count[c] as usize {
                if layer[i] != l {
                    continue;
                }
                let mut s = chf.spans[i];
                for con in s.con.iter_mut() {
                    if *con != NOT_CONNECTED {
                        let j = *con as usize;
                        *con = if layer[j] == l {
                            new_index[j]
                        } else {
                            NOT_CONNECTED
                        };
                    }
                }
                sub.spans.push(s);
                sub.span_x.push(chf.span_x[i]);
                sub.span_z.push(chf.span_z[i]);
                sub.areas.push(chf.areas[i]);
            }
            sub.cell_count[c] = sub.spans.len() as u32 - sub.cell_first[c];
        }
        out.push(sub);
    }
    out
}
