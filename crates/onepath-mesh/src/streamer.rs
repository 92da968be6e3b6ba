//! [`TileStreamer`]: queued tile operations applied a few at a time ("Streaming").

use std::collections::VecDeque;

use crate::error::MeshError;
use crate::mesh::TiledNavMesh;
use crate::serializer::NavMeshSerializer;

/// One queued streaming operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamOp {
    /// Read ONPT bytes against the mesh's parameters, then add the tile.
    Add(Vec<u8>),
    /// Read ONPT bytes against the mesh's parameters, then replace the tile at its position.
    Replace(Vec<u8>),
    /// Read ONPT bytes, then replace the tile at its position if one is there, else add it.
    Load(Vec<u8>),
    /// Remove every layer of a tile column, lowest layer first.
    RemoveColumn {
        /// Tile column.
        x: i32,
        /// Tile row.
        z: i32,
    },
}

/// A queue of tile operations, applied in queue order by [`TileStreamer::update`]. The
/// queue is not part of a mesh or its snapshot.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TileStreamer {
    queue: VecDeque<StreamOp>,
}

impl TileStreamer {
    /// An empty queue.
    pub fn new() -> TileStreamer {
        TileStreamer::default()
    }

    /// Queues an operation.
    pub fn push(&mut self, op: StreamOp) {
        self.queue.push_back(op);
    }

    /// Queues adding the tile in `bytes` (ONPT).
    pub fn queue_add(&mut self, bytes: Vec<u8>) {
        self.push(StreamOp::Add(bytes));
    }

    /// Queues replacing the tile at the position of the tile in `bytes` (ONPT).
    pub fn queue_replace(&mut self, bytes: Vec<u8>) {
        self.push(StreamOp::Replace(bytes));
    }

    /// Queues adding, or replacing when its position is occupied, the tile in `bytes`.
    pub fn queue_load(&mut self, bytes: Vec<u8>) {
        self.push(StreamOp::Load(bytes));
    }

    /// Queues removing every layer of column (x, z).
    pub fn queue_remove_column(&mut self, x: i32, z: i32) {
        self.push(StreamOp::RemoveColumn { x, z });
    }

    /// Operations waiting, front first.
    pub fn pending(&self) -> impl ExactSizeIterator<Item = &StreamOp> + '_ {
        self.queue.iter()
    }

    /// Number of operations waiting.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// True when nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Applies at most `max_operations` operations in queue order; links stitch again after
    /// every operation. Returns how many were applied. A failing operation leaves the queue
    /// (and changes nothing in the mesh) before its error is returned; the operations behind
    /// it stay queued.
    pub fn update(
        &mut self,
        mesh: &mut TiledNavMesh,
        max_operations: usize,
    ) -> Result<usize, MeshError> {
        let mut applied = 0;
        while applied < max_operations {
            let Some(op) = self.queue.pop_front() else {
                break;
            };
            apply(mesh, op)?;
            applied += 1;
        }
        Ok(applied)
    }
}

fn apply(mesh: &mut TiledNavMesh, op: StreamOp) -> Result<(), MeshError> {
    match op {
        StreamOp::Add(bytes) => {
            let tile = NavMeshSerializer::read_tile(&bytes, mesh.params())
                .map_err(|e| e.within("streamed tile"))?;
            mesh.add_tile(tile)?;
        }
        StreamOp::Replace(bytes) => {
            let tile = NavMeshSerializer::read_tile(&bytes, mesh.params())
                .map_err(|e| e.within("streamed tile"))?;
            mesh.replace_tile(tile)?;
        }
        StreamOp::Load(bytes) => {
            let tile = NavMeshSerializer::read_tile(&bytes, mesh.params())
                .map_err(|e| e.within("streamed tile"))?;
            let (x, z, layer) = tile.position();
            if mesh.tile_at(x, z, layer).is_some() {
                mesh.replace_tile(tile)?;
            } else {
                mesh.add_tile(tile)?;
            }
        }
        StreamOp::RemoveColumn { x, z } => {
            mesh.remove_column(x, z);
        }
    }
    Ok(())
}
