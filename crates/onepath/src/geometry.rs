//! What a [`NavMesh`](crate::NavMesh) is built from: a triangle soup, a chunked mesh, an OBJ
//! file, a height grid or voxels. Every form becomes the builder's triangle soup (a chunked
//! mesh keeps its spatial index), so one geometry builds the same tiles whichever form it
//! comes in.

use std::borrow::Cow;
use std::path::Path;

use onepath_build3d::{load_obj, BuildError, ChunkyTriMesh, HeightGrid, TriangleSoup};
use onepath_gridstate::VoxelGrid;

/// Level geometry for a build.
#[derive(Debug, Clone, Copy)]
pub enum Geometry<'a> {
    /// World triangles (faces up are walkable; see [`TriangleSoup`]).
    Soup(&'a TriangleSoup),
    /// Triangles with a spatial index (each tile asks it for its triangles; same tiles as
    /// the soup).
    Chunky(&'a ChunkyTriMesh),
    /// A Wavefront OBJ file (`v` and `f` lines; faces are fanned into triangles).
    Obj(&'a Path),
    /// A height grid (terrain).
    HeightGrid(&'a HeightGrid),
    /// Solid voxels: every voxel of area `WALL` (255) of the grid is a solid box of the
    /// grid's cell size at its world placement ([`VoxelGrid::space`]; unassigned: unit
    /// cells at the origin); every face of a solid voxel that meets a non-solid voxel or
    /// the outside becomes two triangles facing out, so the tops of solid voxels are the
    /// walkable floor. [`voxels_to_soup`] is the conversion.
    Voxels(&'a VoxelGrid),
}

impl<'a> From<&'a TriangleSoup> for Geometry<'a> {
    fn from(s: &'a TriangleSoup) -> Self {
        Geometry::Soup(s)
    }
}

impl<'a> From<&'a ChunkyTriMesh> for Geometry<'a> {
    fn from(s: &'a ChunkyTriMesh) -> Self {
        Geometry::Chunky(s)
    }
}

impl<'a> From<&'a HeightGrid> for Geometry<'a> {
    fn from(s: &'a HeightGrid) -> Self {
        Geometry::HeightGrid(s)
    }
}

impl<'a> From<&'a Path> for Geometry<'a> {
    fn from(s: &'a Path) -> Self {
        Geometry::Obj(s)
    }
}

impl<'a> From<&'a std::path::PathBuf> for Geometry<'a> {
    fn from(s: &'a std::path::PathBuf) -> Self {
        Geometry::Obj(s)
    }
}

impl<'a> From<&'a VoxelGrid> for Geometry<'a> {
    fn from(s: &'a VoxelGrid) -> Self {
        Geometry::Voxels(s)
    }
}

/// A geometry read and converted once (an OBJ file is read once for all agent classes).
pub(crate) enum Prepared<'a> {
    Soup(Cow<'a, TriangleSoup>),
    Chunky(&'a ChunkyTriMesh),
}

impl Prepared<'_> {
    pub(crate) fn soup(&self) -> &TriangleSoup {
        match self {
            Prepared::Soup(s) => s,
            Prepared::Chunky(c) => c.soup(),
        }
    }
}

impl<'a> Geometry<'a> {
    pub(crate) fn prepare(self) -> Result<Prepared<'a>, BuildError> {
        Ok(match self {
            Geometry::Soup(s) => Prepared::Soup(Cow::Borrowed(s)),
            Geometry::Chunky(c) => Prepared::Chunky(c),
            Geometry::Obj(p) => Prepared::Soup(Cow::Owned(load_obj(p)?)),
            Geometry::HeightGrid(g) => Prepared::Soup(Cow::Owned(g.to_soup()?)),
            Geometry::Voxels(v) => Prepared::Soup(Cow::Owned(voxels_to_soup(v)?)),
        })
    }
}

/// Area of a solid voxel in a [`VoxelGrid`] (the grids' wall area).
pub const SOLID_VOXEL: u8 = onepath_gridstate::WALL;

/// The faces of a grid's solid voxels as a triangle soup (see [`Geometry::Voxels`]):
/// voxels in node order (x fastest, then y, then z), per voxel the faces −x, +x, −y, +y,
/// −z, +z, each as four vertices and two triangles `[0, 1, 2]`, `[0, 2, 3]` whose normal
/// points out of the voxel. Coordinates are `origin + index · cell size`, exact.
pub fn voxels_to_soup(grid: &VoxelGrid) -> Result<TriangleSoup, BuildError> {
    let space = grid.space();
    let (origin, cs) = if space.cell_size() > 0.0 {
        (space.origin(), space.cell_size())
    } else {
        ([0.0; 3], 1.0)
    };
    let [sx, sy, sz] = grid.size();
    let solid = |x: i64, y: i64, z: i64| -> bool {
        if x < 0 || y < 0 || z < 0 || x >= i64::from(sx) || y >= i64::from(sy) || z >= i64::from(sz)
        {
            return false;
        }
        // In range by the test above.
        grid.area(x as u32, y as u32, z as u32)
            .is_ok_and(|a| a == SOLID_VOXEL)
    };
    // (neighbour offset, face corner offset in cells, u, v) with u × v the outward normal.
    type Face = ([i64; 3], [f64; 3], [f64; 3], [f64; 3]);
    const FACES: [Face; 6] = [
        (
            [-1, 0, 0],
            [0.0, 0.0, 0.0],
            [0.0, 0.0, 1.0],
            [0.0, 1.0, 0.0],
        ),
        ([1, 0, 0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]),
        (
            [0, -1, 0],
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0],
        ),
        ([0, 1, 0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]),
        (
            [0, 0, -1],
            [0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [1.0, 0.0, 0.0],
        ),
        ([0, 0, 1], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
    ];
    let mut soup = TriangleSoup::default();
    for z in 0..i64::from(sz) {
        for y in 0..i64::from(sy) {
            for x in 0..i64::from(sx) {
                if !solid(x, y, z) {
                    continue;
                }
                for (n, corner, u, v) in FACES {
                    if solid(x + n[0], y + n[1], z + n[2]) {
                        continue;
                    }
                    let cell = [x as f64, y as f64, z as f64];
                    let at = |du: f64, dv: f64| -> [f64; 3] {
                        [0, 1, 2]
                            .map(|k| origin[k] + (cell[k] + corner[k] + du * u[k] + dv * v[k]) * cs)
                    };
                    let base = u32::try_from(soup.vertices.len()).map_err(|_| {
                        BuildError::InvalidInput {
                            what: "voxels".to_string(),
                            reason: "more than 2^32 face vertices".to_string(),
                        }
                    })?;
                    soup.vertices
                        .extend([at(0.0, 0.0), at(1.0, 0.0), at(1.0, 1.0), at(0.0, 1.0)]);
                    soup.triangles.push([base, base + 1, base + 2]);
                    soup.triangles.push([base, base + 2, base + 3]);
                }
            }
        }
    }
    Ok(soup)
}
