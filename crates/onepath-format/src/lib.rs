//! # onepath-format
//!
//! The bytes and rules of OnePath's tiled navmesh format, version 2 (frozen): mesh
//! parameters and their 68-byte block ([`NavMeshParams`]), builder settings with their
//! digest ([`NavSettings`], [`OffMeshLinkDefinition`]), the build fingerprint, polygon and
//! tile references ([`PolyRef`], [`TileRef`]), tiles ([`NavTileData`] → [`NavTile`]) with
//! exact validation ([`orient2d_exact`]), the tile bytes ONPT ([`NavTile::to_bytes`],
//! [`NavTile::from_bytes`], or [`TileReader`] for many tiles against one set of parameters),
//! the tile content id ([`ContentId`]), the 2D builder hand-over
//! ([`NavTileAssembler`]), and the byte cursor ([`bytes::ByteReader`]) and error family
//! ([`FormatError`]) that every OnePath reader shares, and the hasher of the crates' lookup
//! tables ([`hash::SplitMix64Hasher`]). `docs/navmesh-format.md` has every table and rule.
//!
//! ## Invariants
//! - Readers never panic and never index out of range on any input: every count is checked
//!   against the bytes that remain, with checked arithmetic, before anything is allocated;
//!   every failure is a [`FormatError`] naming the field, polygon, edge or array.
//! - A [`NavTile`] is valid by construction (created only through validation, by
//!   [`NavTile::create`] or [`NavTile::from_bytes`], which run the same rules) and
//!   immutable; it records the fingerprint of the parameters it was created against.
//! - The tile reader checks magic, version, flags, then the fingerprint before any other
//!   validation of the tile, then the exact length, then every tile rule.
//! - Writers are canonical: one value, one encoding, on every platform; readers accept only
//!   canonical bytes, so whatever reads writes back byte for byte.
//! - Only IEEE-exact arithmetic reaches bytes; the orientation predicate is exact.
//!
//! ## Example
//! ```
//! use onepath_format::{NavMeshParams, NavTile, NavTileAssembler, FormatError};
//!
//! let params = NavMeshParams::new([0.0, 0.0, 0.0], 8.0, 0.25, 6);
//! params.validate().unwrap();
//! assert_eq!(params.to_block().len(), 68);
//!
//! // Two world-space squares of tile (1, 0) sharing the edge between vertices 1 and 4;
//! // the second is given clockwise and is reversed.
//! let world = [
//!     [8.0, 0.0, 0.0], [12.0, 0.0, 0.0], [16.0, 0.0, 0.0],
//!     [16.0, 0.0, 8.0], [12.0, 0.0, 8.0], [8.0, 0.0, 8.0],
//! ];
//! let data = NavTileAssembler::from_polygons(
//!     &params, 1, 0, 0, 0.0, &world, &[4, 4], &[0, 1, 4, 5, 1, 4, 3, 2], None, None,
//! ).unwrap();
//! let tile = NavTile::create(&params, data).unwrap();
//! assert_eq!(tile.data().edge_neighbours[1], 2); // polygon 0, edge 1 → polygon 1
//!
//! let bytes = tile.to_bytes();
//! let back = NavTile::from_bytes(&bytes, &params).unwrap();
//! assert_eq!(back.to_bytes(), bytes);
//! assert_eq!(back.content_id(), tile.content_id());
//!
//! // A tile read against other parameters is a fingerprint error.
//! let mut other = params;
//! other.agent_radius = 0.5;
//! assert!(matches!(
//!     NavTile::from_bytes(&bytes, &other),
//!     Err(FormatError::Fingerprint { .. })
//! ));
//!
//! // Many tiles against one set of parameters: the parameters hashed once, same checks.
//! let reader = onepath_format::TileReader::new(&params);
//! assert_eq!(reader.fingerprint(), params.fingerprint());
//! assert_eq!(reader.read(&bytes), NavTile::from_bytes(&bytes, &params));
//! assert_eq!(
//!     onepath_format::TileReader::new(&other).read(&bytes),
//!     NavTile::from_bytes(&bytes, &other)
//! );
//! ```
#![forbid(unsafe_code)]

pub mod assembler;
pub mod bytes;
pub mod content_id;
pub mod error;
pub mod hash;
pub mod normative;
pub mod onpt;
pub mod orient;
pub mod params;
pub mod polyref;
pub mod settings;
#[cfg(feature = "serde")]
mod settings_serde;
pub mod tile;
mod validate;

pub use assembler::{NavTileAssembler, DEFAULT_AREA, DEFAULT_FLAGS};
pub use content_id::ContentId;
pub use error::{CoordinateError, FormatError, FormatErrorKind};
pub use onpt::{onpt_len, TileReader, ONPT_HEADER_LEN, ONPT_MAGIC};
pub use orient::orient2d_exact;
pub use params::{Fingerprint, NavMeshParams, COORD_BOUND, FORMAT_VERSION, PARAMS_BLOCK_LEN};
pub use polyref::{next_salt, PolyRef, TileRef, MAX_SALT, MAX_SLOTS};
pub use settings::{
    decode_settings, encode_settings, NavSettings, OffMeshLinkDefinition, Partition,
};
pub use tile::{
    DetailMesh, DetailTriangle, NavTile, NavTileData, OffMeshLinkSlot, PortalEdge, TileGeometry,
    MAX_AREA, MAX_LAYER, NO_PORTAL,
};
pub use validate::{MAX_TILE_POLYS, MAX_TILE_VERTICES};
