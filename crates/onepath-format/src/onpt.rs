//! The tile byte layout ONPT (version 2): canonical writer and validating reader.
//!
//! Layout (little-endian, no padding; `docs/navmesh-format.md` has the full table):
//! a 72-byte header (magic `ONPT`, u16 version 2, u16 flags 0, 16-byte fingerprint, TileX
//! i32, TileZ i32, Layer u16, u16 0, OriginY f64, then the counts V, P, C, M, DV, DT, L as
//! u32) followed by the arrays in the order of [`NavTileData`]'s fields. The exact length
//! follows from the header alone ([`onpt_len`]).
//!
//! The reader checks, in this order: magic, version (anything but 2 is
//! [`FormatError::Version`]), flags (every bit is reserved), the fingerprint against the
//! parameters' ([`FormatError::Fingerprint`], before any other validation of the tile),
//! the reserved header field, the exact length implied by the counts (checked arithmetic,
//! before anything is allocated; trailing bytes are an error), the link direction bytes,
//! then every tile rule (see [`NavTile::create`]).

use crate::bytes::{ByteReader, ByteWriter};
use crate::error::FormatError;
use crate::params::{Fingerprint, NavMeshParams, FORMAT_VERSION};
use crate::tile::{DetailMesh, DetailTriangle, NavTile, NavTileData, OffMeshLinkSlot};

/// The tile magic, "ONPT".
pub const ONPT_MAGIC: [u8; 4] = *b"ONPT";
/// Size of the ONPT header in bytes (the arrays start here).
pub const ONPT_HEADER_LEN: usize = 72;
/// Size of one off-mesh link record in ONPT.
pub const ONPT_LINK_LEN: usize = 36;

/// The exact ONPT length for the given counts: `72 + 12V + 4P + 7C + 16M + 12DV + 4DT +
/// 36L`, or `None` when it overflows `usize`.
///
/// Arguments: vertex count V, polygon count P, corner count C, detail mesh count M, detail
/// vertex count DV, detail triangle count DT, off-mesh link count L.
///
/// ```
/// assert_eq!(onepath_format::onpt_len(3, 1, 3, 0, 0, 0, 0), Some(72 + 36 + 4 + 21));
/// assert_eq!(onepath_format::onpt_len(usize::MAX, 1, 3, 0, 0, 0, 0), None);
/// ```
pub fn onpt_len(
    v: usize,
    p: usize,
    c: usize,
    m: usize,
    dv: usize,
    dt: usize,
    l: usize,
) -> Option<usize> {
    let parts = [
        (v, 12),
        (p, 4),
        (c, 7),
        (m, 16),
        (dv, 12),
        (dt, 4),
        (l, ONPT_LINK_LEN),
    ];
    let mut total = ONPT_HEADER_LEN;
    for (count, size) in parts {
        total = total.checked_add(count.checked_mul(size)?)?;
    }
    Some(total)
}

/// Writes a tile's ONPT bytes with the given areas and flags (as-built or current).
fn write_onpt(fingerprint: Fingerprint, d: &NavTileData, areas: &[u8], flags: &[u16]) -> Vec<u8> {
    // A NavTile is valid, so the length exists and every count fits in u32.
    let len = onpt_len(
        d.vertices.len(),
        d.poly_sizes.len(),
        d.corners.len(),
        d.detail_meshes.len(),
        d.detail_vertices.len(),
        d.detail_triangles.len(),
        d.off_mesh_links.len(),
    )
    .unwrap_or(0);
    let mut w = ByteWriter::with_capacity(len);
    w.bytes(&ONPT_MAGIC);
    w.u16(FORMAT_VERSION);
    w.u16(0);
    w.bytes(&fingerprint.0);
    w.i32(d.tile_x);
    w.i32(d.tile_z);
    w.u16(d.layer);
    w.u16(0);
    w.f64(d.origin_y);
    for n in [
        d.vertices.len(),
        d.poly_sizes.len(),
        d.corners.len(),
        d.detail_meshes.len(),
        d.detail_vertices.len(),
        d.detail_triangles.len(),
        d.off_mesh_links.len(),
    ] {
        w.u32(n as u32);
    }
    for v in &d.vertices {
        v.iter().for_each(|&c| w.f32(c));
    }
    w.bytes(&d.poly_sizes);
    w.bytes(areas);
    flags.iter().for_each(|&f| w.u16(f));
    d.corners.iter().for_each(|&i| w.u16(i));
    d.edge_neighbours.iter().for_each(|&n| w.u32(n));
    w.bytes(&d.edge_portal_sides);
    for m in &d.detail_meshes {
        w.u32(m.vertex_base);
        w.u32(m.vertex_count);
        w.u32(m.triangle_base);
        w.u32(m.triangle_count);
    }
    for v in &d.detail_vertices {
        v.iter().for_each(|&c| w.f32(c));
    }
    for t in &d.detail_triangles {
        w.bytes(&t.v);
        w.u8(t.edge_flags);
    }
    for l in &d.off_mesh_links {
        l.start.iter().for_each(|&c| w.f32(c));
        l.end.iter().for_each(|&c| w.f32(c));
        w.f32(l.radius);
        w.u8(l.area);
        w.u8(u8::from(l.bidirectional));
        w.u16(l.flags);
        w.u32(l.user_id);
    }
    debug_assert_eq!(w.len(), len);
    w.into_vec()
}

fn read_vec3(r: &mut ByteReader<'_>, field: &str) -> Result<[f32; 3], FormatError> {
    Ok([r.f32(field)?, r.f32(field)?, r.f32(field)?])
}

impl NavTile {
    /// The tile's canonical ONPT bytes with its **as-built** areas and flags (what the
    /// content id hashes and a tile library stores).
    pub fn to_bytes(&self) -> Vec<u8> {
        let d = self.data();
        write_onpt(self.fingerprint(), d, &d.poly_areas, &d.poly_flags)
    }

    /// The tile's canonical ONPT bytes with its **current** areas and flags (what a mesh
    /// writes into ONPM). Equal to [`NavTile::to_bytes`] for a fresh tile.
    pub fn to_bytes_current(&self) -> Vec<u8> {
        write_onpt(self.fingerprint(), self.data(), self.areas(), self.flags())
    }

    /// Reads and validates ONPT bytes against `params`. Never panics.
    ///
    /// Order of checks: magic, version (≠ 2 → [`FormatError::Version`]), flags (must be 0),
    /// fingerprint (≠ `params.fingerprint()` → [`FormatError::Fingerprint`], before any
    /// other validation of the tile), reserved header field, exact length from the counts
    /// (before allocating; trailing bytes are an error), then every rule of
    /// [`NavTile::create`]. The tile's areas and flags, as-built and current, are the ones
    /// in the bytes. A reader of many tiles against the same parameters hashes them once
    /// through a [`TileReader`].
    pub fn from_bytes(bytes: &[u8], params: &NavMeshParams) -> Result<NavTile, FormatError> {
        TileReader::new(params).read(bytes)
    }
}

/// Reads ONPT bytes against one set of parameters, whose fingerprint (a SHA-256 of the
/// parameter block) it computes once: for a reader of many tiles (a mesh, a snapshot).
/// [`TileReader::read`] is [`NavTile::from_bytes`], same checks in the same order, same
/// errors.
#[derive(Debug, Clone, Copy)]
pub struct TileReader {
    params: NavMeshParams,
    fingerprint: Fingerprint,
}

impl TileReader {
    /// A reader of tiles built against `params`.
    pub fn new(params: &NavMeshParams) -> TileReader {
        TileReader {
            params: *params,
            fingerprint: params.fingerprint(),
        }
    }

    /// The parameters tiles are read against.
    pub fn params(&self) -> &NavMeshParams {
        &self.params
    }

    /// Their fingerprint, which every tile read must carry.
    pub fn fingerprint(&self) -> Fingerprint {
        self.fingerprint
    }

    /// Reads and validates one tile's ONPT bytes, as [`NavTile::from_bytes`] against the
    /// reader's parameters. Never panics.
    pub fn read(&self, bytes: &[u8]) -> Result<NavTile, FormatError> {
        let params = &self.params;
        let mut r = ByteReader::new(bytes);
        r.header(&ONPT_MAGIC, "ONPT", FORMAT_VERSION)?;
        let found = Fingerprint(r.array::<16>("fingerprint")?);
        let expected = self.fingerprint;
        if found != expected {
            return Err(FormatError::Fingerprint {
                at: String::new(),
                found,
                expected,
            });
        }
        let tile_x = r.i32("TileX")?;
        let tile_z = r.i32("TileZ")?;
        let layer = r.u16("Layer")?;
        let reserved = r.u16("tile header reserved")?;
        if reserved != 0 {
            return Err(FormatError::malformed(
                "tile header reserved",
                format!("{reserved} is not 0"),
            ));
        }
        let origin_y = r.f64("OriginY")?;
        let mut counts = [0usize; 7];
        for (slot, name) in counts.iter_mut().zip([
            "vertex count",
            "polygon count",
            "corner count",
            "detail mesh count",
            "detail vertex count",
            "detail triangle count",
            "off-mesh link count",
        ]) {
            *slot = r.u32(name)? as usize;
        }
        let [v, p, c, m, dv, dt, l] = counts;
        let want = onpt_len(v, p, c, m, dv, dt, l);
        if want != Some(bytes.len()) {
            return Err(FormatError::malformed(
                "ONPT length",
                match want {
                    Some(n) => format!("the header counts imply {n} bytes, {} given", bytes.len()),
                    None => "the header counts overflow the address space".to_string(),
                },
            ));
        }
        // Every count is now known to fit in the input, so allocations are bounded by it.
        let mut d = NavTileData {
            tile_x,
            tile_z,
            layer,
            origin_y,
            ..NavTileData::default()
        };
        d.vertices = r.vec3s(v, "vertices")?;
        d.poly_sizes = r.bytes(p, "polygon sizes")?.to_vec();
        d.poly_areas = r.bytes(p, "polygon areas")?.to_vec();
        d.poly_flags = r.u16s(p, "polygon flags")?;
        d.corners = r.u16s(c, "corners")?;
        d.edge_neighbours = r.u32s(c, "edge neighbours")?;
        d.edge_portal_sides = r.bytes(c, "edge portal sides")?.to_vec();
        d.detail_meshes = r
            .chunks::<16>(m, "detail meshes")?
            .map(|b| {
                let w = |k: usize| u32::from_le_bytes([b[k], b[k + 1], b[k + 2], b[k + 3]]);
                DetailMesh {
                    vertex_base: w(0),
                    vertex_count: w(4),
                    triangle_base: w(8),
                    triangle_count: w(12),
                }
            })
            .collect();
        d.detail_vertices = r.vec3s(dv, "detail vertices")?;
        d.detail_triangles = r
            .chunks::<4>(dt, "detail triangles")?
            .map(|b| DetailTriangle {
                v: [b[0], b[1], b[2]],
                edge_flags: b[3],
            })
            .collect();
        d.off_mesh_links = (0..l)
            .map(|i| {
                let start = read_vec3(&mut r, "off-mesh links")?;
                let end = read_vec3(&mut r, "off-mesh links")?;
                let radius = r.f32("off-mesh links")?;
                let area = r.u8("off-mesh links")?;
                let bidirectional = r
                    .bool_u8("bidirectional")
                    .map_err(|e| e.within(format!("off-mesh link {i}")))?;
                Ok(OffMeshLinkSlot {
                    start,
                    end,
                    radius,
                    area,
                    bidirectional,
                    flags: r.u16("off-mesh links")?,
                    user_id: r.u32("off-mesh links")?,
                })
            })
            .collect::<Result<_, FormatError>>()?;
        r.expect_end("ONPT")?;
        crate::validate::validate_tile(params, &d)?;
        Ok(NavTile::from_valid(expected, d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::tests::{params, two_quads};

    fn sample_bytes() -> Vec<u8> {
        NavTile::create(&params(), two_quads()).unwrap().to_bytes()
    }

    #[test]
    fn written_length_equals_onpt_len() {
        let d = two_quads();
        let b = sample_bytes();
        assert_eq!(Some(b.len()), onpt_len(6, 2, 8, 2, 1, 3, 1));
        assert_eq!(&b[..4], b"ONPT");
        assert_eq!(NavTile::from_bytes(&b, &params()).unwrap().data(), &d);
    }

    #[test]
    fn reader_rejects_version_1_with_found_and_expected() {
        let mut b = sample_bytes();
        b[4] = 1;
        assert_eq!(
            NavTile::from_bytes(&b, &params()).unwrap_err(),
            FormatError::Version {
                what: "ONPT",
                found: 1,
                expected: 2
            }
        );
    }

    #[test]
    fn reader_rejects_unknown_version() {
        let mut b = sample_bytes();
        b[4..6].copy_from_slice(&3u16.to_le_bytes());
        assert_eq!(
            NavTile::from_bytes(&b, &params()).unwrap_err(),
            FormatError::Version {
                what: "ONPT",
                found: 3,
                expected: 2
            }
        );
    }

    #[test]
    fn reader_rejects_any_set_flag_bit() {
        let mut b = sample_bytes();
        b[6] = 1; // bit 0: the draft marker
        assert!(matches!(
            NavTile::from_bytes(&b, &params()).unwrap_err(),
            FormatError::Malformed { at, .. } if at == "ONPT flags"
        ));
    }

    #[test]
    fn fingerprint_check_precedes_every_other_tile_validation() {
        let mut b = sample_bytes();
        b.extend_from_slice(&[0xAB; 9]); // wrong length as well
        b[44] = 0xFF; // absurd vertex count too
        let mut other = params();
        other.settings_digest = 42;
        assert_eq!(
            NavTile::from_bytes(&b, &other).unwrap_err(),
            FormatError::Fingerprint {
                at: String::new(),
                found: params().fingerprint(),
                expected: other.fingerprint(),
            }
        );
    }

    #[test]
    fn trailing_bytes_are_an_error() {
        let mut b = sample_bytes();
        b.push(0);
        assert!(matches!(
            NavTile::from_bytes(&b, &params()).unwrap_err(),
            FormatError::Malformed { at, .. } if at == "ONPT length"
        ));
    }

    #[test]
    fn huge_counts_fail_the_length_check_before_allocating() {
        let mut b = sample_bytes();
        for off in (44..72).step_by(4) {
            b[off..off + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        }
        assert!(matches!(
            NavTile::from_bytes(&b, &params()).unwrap_err(),
            FormatError::Malformed { at, .. } if at == "ONPT length"
        ));
    }

    #[test]
    fn reserved_header_field_is_zero() {
        let mut b = sample_bytes();
        b[34] = 1;
        assert!(matches!(
            NavTile::from_bytes(&b, &params()).unwrap_err(),
            FormatError::Malformed { at, .. } if at == "tile header reserved"
        ));
    }

    #[test]
    fn link_direction_byte_is_0_or_1() {
        let mut b = sample_bytes();
        let off = b.len() - 36 + 29;
        assert_eq!(b[off], 1);
        b[off] = 2;
        assert!(matches!(
            NavTile::from_bytes(&b, &params()).unwrap_err(),
            FormatError::Malformed { at, .. } if at == "off-mesh link 0: bidirectional"
        ));
    }

    #[test]
    fn reader_applies_the_tile_rules() {
        let mut b = sample_bytes();
        // Polygon areas start after the header, 6 vertices and 2 sizes.
        let off = 72 + 6 * 12 + 2;
        b[off + 1] = 64;
        assert!(matches!(
            NavTile::from_bytes(&b, &params()).unwrap_err(),
            FormatError::Malformed { at, .. } if at == "polygon 1: area"
        ));
    }

    #[test]
    fn current_areas_and_flags_go_to_to_bytes_current_only() {
        let t = NavTile::create(&params(), two_quads()).unwrap();
        let t2 = t
            .with_current_state(vec![9, 9].into(), vec![4, 4].into(), vec![false].into())
            .unwrap();
        assert_eq!(t2.to_bytes(), t.to_bytes());
        assert_eq!(t2.content_id(), t.content_id());
        let cur = NavTile::from_bytes(&t2.to_bytes_current(), &params()).unwrap();
        assert_eq!(cur.as_built_areas(), &[9, 9]);
        assert_eq!(cur.as_built_flags(), &[4, 4]);
    }
}
