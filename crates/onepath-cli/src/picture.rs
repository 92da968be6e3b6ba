//! `onepath render`: a top-down picture of a mesh or a grid as SVG (written here, element
//! by element) or PNG (the SVG rasterised by resvg / tiny-skia).
//!
//! World X runs right and world Z up (the debug geometry's "seen from above"). A mesh
//! picture has one `<polygon>` per drawn polygon (filled by area; with every layer drawn,
//! half transparent so that storeys and bridges show through), the tile borders, portal
//! links, off-mesh links as arrows, an optional path, a scale bar and a legend. A grid
//! picture has its walls (runs of wall cells per row) and area cells, and the optional path.

use std::collections::BTreeSet;
use std::fmt::Write;

use onepath_gridstate::{Grid, WALL};
use onepath_mesh::{LinkKind, NavMeshDebug, TiledNavMesh};

/// Pixels of white space around the map.
const MARGIN: f64 = 16.0;

/// What to draw and how big.
#[derive(Debug, Clone)]
pub struct Options {
    /// Picture width in pixels (the height follows from the level's shape).
    pub size: u32,
    /// Only this layer (`None`: every layer, half transparent).
    pub layer: Option<u16>,
    /// A path to draw, in world space (X, Y, Z; Y ignored).
    pub path: Vec<[f64; 3]>,
}

/// A colour per area id: the builder's walkable area (63, Recast's `RC_WALKABLE_AREA`) a
/// light blue, the others from a fixed palette.
pub fn area_colour(area: u8) -> &'static str {
    const PALETTE: [&str; 12] = [
        "#e6a157", "#8fc46a", "#d9675f", "#a98bd6", "#e3c84f", "#5fb8b1", "#c97fb0", "#9c9c5a",
        "#6f8fd9", "#d98f6f", "#6fd99b", "#b5b5b5",
    ];
    if area == onepath_format::MAX_AREA {
        "#8db8e8"
    } else {
        PALETTE[usize::from(area) % PALETTE.len()]
    }
}

/// World → picture transform and the picture's size.
struct View {
    min: [f64; 2],
    max_z: f64,
    scale: f64,
    width: f64,
    map_height: f64,
}

impl View {
    fn new(min: [f64; 2], max: [f64; 2], size: u32) -> View {
        let width = f64::from(size.max(64));
        let dx = (max[0] - min[0]).max(1e-9);
        let dz = (max[1] - min[1]).max(1e-9);
        let scale = (width - 2.0 * MARGIN) / dx;
        View {
            min,
            max_z: max[1],
            scale,
            width,
            map_height: dz * scale + 2.0 * MARGIN,
        }
    }

    fn x(&self, x: f64) -> f64 {
        MARGIN + (x - self.min[0]) * self.scale
    }

    fn y(&self, z: f64) -> f64 {
        MARGIN + (self.max_z - z) * self.scale
    }

    fn pt(&self, p: [f64; 3]) -> String {
        format!("{:.2},{:.2}", self.x(p[0]), self.y(p[2]))
    }

    /// Text and stroke scale: 1 at 800 pixels wide.
    fn unit(&self) -> f64 {
        (self.width / 800.0).clamp(0.5, 4.0)
    }
}

/// The document so far: the drawing, then the band below it (scale bar, legend).
struct Svg {
    body: String,
    legend: Vec<(String, String)>,
}

impl Svg {
    fn finish(self, view: &View, world_per_px: f64, unit: &str) -> String {
        let u = view.unit();
        let font = 12.0 * u;
        let row = 18.0 * u;
        // Legend entries flow in rows across the width.
        let mut rows = 1;
        let mut x = MARGIN;
        let mut placed = Vec::new();
        for (swatch, label) in &self.legend {
            let w = 22.0 * u + font * 0.6 * label.chars().count() as f64 + 14.0 * u;
            if x + w > view.width - MARGIN && x > MARGIN {
                rows += 1;
                x = MARGIN;
            }
            placed.push((x, rows, swatch.clone(), label.clone()));
            x += w;
        }
        let band = row * (f64::from(rows) + 2.0);
        let height = view.map_height + band;
        let top = view.map_height;
        let mut out = String::new();
        let _ = writeln!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}">"#,
            w = view.width,
            h = height.ceil()
        );
        let _ = writeln!(
            out,
            r##"<rect x="0" y="0" width="{:.0}" height="{:.0}" fill="#ffffff"/>"##,
            view.width,
            height.ceil()
        );
        out.push_str(&self.body);
        // Scale bar: the largest 1, 2 or 5 × 10^k world units that fits a quarter of the width.
        let target = (view.width - 2.0 * MARGIN) / 4.0 * world_per_px;
        let mut len = 1.0;
        while len * 10.0 <= target {
            len *= 10.0;
        }
        while len > target && len > 1e-6 {
            len /= 10.0;
        }
        let len = [5.0, 2.0, 1.0]
            .iter()
            .map(|m| m * len)
            .find(|l| *l <= target)
            .unwrap_or(len);
        let px = len / world_per_px;
        let y = top + row;
        let _ = writeln!(
            out,
            r##"<g id="scale-bar" stroke="#222222" stroke-width="{sw:.2}"><line x1="{x0:.2}" y1="{y:.2}" x2="{x1:.2}" y2="{y:.2}"/><line x1="{x0:.2}" y1="{ya:.2}" x2="{x0:.2}" y2="{yb:.2}"/><line x1="{x1:.2}" y1="{ya:.2}" x2="{x1:.2}" y2="{yb:.2}"/><text x="{xt:.2}" y="{yt:.2}" font-family="DejaVu Sans, sans-serif" font-size="{font:.1}" fill="#222222" stroke="none">{len} {unit}</text></g>"##,
            sw = 2.0 * u,
            x0 = MARGIN,
            x1 = MARGIN + px,
            ya = y - 4.0 * u,
            yb = y + 4.0 * u,
            xt = MARGIN + px + 8.0 * u,
            yt = y + font * 0.35,
        );
        out.push_str(r#"<g id="legend" font-family="DejaVu Sans, sans-serif">"#);
        out.push('\n');
        for (x, r, swatch, label) in placed {
            let y = top + row * (1.0 + f64::from(r));
            let _ = writeln!(
                out,
                r##"<rect x="{x:.2}" y="{ys:.2}" width="{s:.2}" height="{s:.2}" {swatch}/><text x="{xt:.2}" y="{yt:.2}" font-size="{font:.1}" fill="#222222">{label}</text>"##,
                ys = y - 6.0 * u,
                s = 12.0 * u,
                xt = x + 18.0 * u,
                yt = y + font * 0.35,
            );
        }
        out.push_str("</g>\n</svg>\n");
        out
    }
}

fn bounds(points: impl Iterator<Item = [f64; 3]>) -> Option<([f64; 2], [f64; 2])> {
    let mut b: Option<([f64; 2], [f64; 2])> = None;
    for p in points {
        let (lo, hi) = b.get_or_insert(([p[0], p[2]], [p[0], p[2]]));
        lo[0] = lo[0].min(p[0]);
        lo[1] = lo[1].min(p[2]);
        hi[0] = hi[0].max(p[0]);
        hi[1] = hi[1].max(p[2]);
    }
    b
}

/// The layers a mesh's tiles use, ascending.
pub fn layers(mesh: &TiledNavMesh) -> BTreeSet<u16> {
    mesh.tiles().map(|t| t.tile().position().2).collect()
}

/// The SVG picture of `mesh`. Fails only when `options.layer` names a layer no tile has.
pub fn mesh_svg(mesh: &TiledNavMesh, options: &Options) -> Result<String, String> {
    let all = layers(mesh);
    if let Some(l) = options.layer {
        if !all.contains(&l) {
            let list: Vec<String> = all.iter().map(u16::to_string).collect();
            return Err(format!(
                "--layer {l}: the mesh has no tile in layer {l} (its layers: {})",
                if list.is_empty() {
                    "none".to_string()
                } else {
                    list.join(", ")
                }
            ));
        }
    }
    let layer_of = |slot: u32| mesh.tile_at_slot(slot).map_or(0, |t| t.tile().position().2);
    let shown = |slot: u32| options.layer.is_none_or(|l| layer_of(slot) == l);
    let debug = NavMeshDebug::collect(mesh);
    let polys: Vec<_> = debug
        .polygons
        .iter()
        .filter(|p| shown(p.poly.slot()))
        .collect();
    let params = mesh.params();
    let columns: BTreeSet<(i32, i32)> = mesh
        .tiles()
        .filter(|t| shown(t.slot()))
        .map(|t| {
            let (x, z, _) = t.tile().position();
            (x, z)
        })
        .collect();
    let corners = columns.iter().flat_map(|&(x, z)| {
        let (ox, oz) = params.tile_origin(x, z);
        [
            [ox, 0.0, oz],
            [ox + params.tile_size, 0.0, oz + params.tile_size],
        ]
    });
    let (min, max) = bounds(
        polys
            .iter()
            .flat_map(|p| p.outline.iter().copied())
            .chain(corners)
            .chain(options.path.iter().copied()),
    )
    .unwrap_or(([0.0, 0.0], [1.0, 1.0]));
    let view = View::new(min, max, options.size);
    let u = view.unit();
    // Every layer at once: half transparent, so that storeys, bridges and the floors one
    // layer stacks (watershed and monotone partitions) show through each other.
    let opacity = if options.layer.is_none() { 0.55 } else { 1.0 };
    let mut body = String::new();
    let _ = writeln!(
        body,
        r##"<g id="polygons" stroke="#2f4a66" stroke-width="{:.2}" stroke-linejoin="round" fill-opacity="{opacity}">"##,
        0.6 * u
    );
    let mut areas = BTreeSet::new();
    for p in &polys {
        areas.insert(p.area);
        let pts: Vec<String> = p.outline.iter().map(|&c| view.pt(c)).collect();
        let _ = writeln!(
            body,
            r#"<polygon points="{}" fill="{}" data-poly="{}" data-layer="{}"/>"#,
            pts.join(" "),
            area_colour(p.area),
            p.poly.0,
            layer_of(p.poly.slot())
        );
    }
    body.push_str("</g>\n");
    let _ = writeln!(
        body,
        r##"<g id="tile-borders" fill="none" stroke="#555555" stroke-width="{:.2}" stroke-dasharray="{:.1} {:.1}">"##,
        1.0 * u,
        6.0 * u,
        4.0 * u
    );
    for &(x, z) in &columns {
        let (ox, oz) = params.tile_origin(x, z);
        let (x0, y0) = (view.x(ox), view.y(oz + params.tile_size));
        let s = params.tile_size * view.scale;
        let _ = writeln!(
            body,
            r#"<rect x="{x0:.2}" y="{y0:.2}" width="{s:.2}" height="{s:.2}"/>"#
        );
    }
    body.push_str("</g>\n");
    let mut portals = String::new();
    let mut off_mesh = String::new();
    for l in &debug.links {
        if !shown(l.from.slot()) {
            continue;
        }
        let line = format!(
            r#"<line x1="{:.2}" y1="{:.2}" x2="{:.2}" y2="{:.2}"/>"#,
            view.x(l.a[0]),
            view.y(l.a[2]),
            view.x(l.b[0]),
            view.y(l.b[2])
        );
        match l.kind {
            LinkKind::Portal { .. } => portals.push_str(&line),
            LinkKind::OffMesh { .. } | LinkKind::OffMeshReverse { .. } => off_mesh.push_str(&line),
        }
        if !matches!(l.kind, LinkKind::Portal { .. }) {
            off_mesh.push('\n');
        } else {
            portals.push('\n');
        }
    }
    let _ = write!(
        body,
        r##"<g id="portals" stroke="#1f9e4a" stroke-width="{:.2}" stroke-linecap="round">
{portals}</g>
"##,
        2.0 * u
    );
    let _ = write!(
        body,
        r##"<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="5" markerHeight="5" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#c2185b"/></marker></defs>
<g id="off-mesh-links" stroke="#c2185b" stroke-width="{:.2}" marker-end="url(#arrow)">
{off_mesh}</g>
"##,
        1.8 * u
    );
    let mut legend: Vec<(String, String)> = areas
        .iter()
        .map(|&a| {
            (
                format!(
                    r##"fill="{}" stroke="#2f4a66" fill-opacity="{opacity}""##,
                    area_colour(a)
                ),
                format!("area {a}"),
            )
        })
        .collect();
    legend.push((
        r##"fill="none" stroke="#555555" stroke-dasharray="3 2""##.into(),
        "tile border".into(),
    ));
    if !portals.is_empty() {
        legend.push((r##"fill="#1f9e4a""##.into(), "portal".into()));
    }
    if !off_mesh.is_empty() {
        legend.push((r##"fill="#c2185b""##.into(), "off-mesh link".into()));
    }
    path_svg(&mut body, &mut legend, &view, &options.path);
    let layer_note = match options.layer {
        Some(l) => format!("layer {l} of {}", all.len()),
        None if all.len() > 1 => format!("{} layers", all.len()),
        None => "1 layer".to_string(),
    };
    legend.push((
        r##"fill="none" stroke="none""##.into(),
        format!(
            "{} polygons, {} tiles, {layer_note}",
            polys.len(),
            mesh.tiles().filter(|t| shown(t.slot())).count()
        ),
    ));
    Ok(Svg { body, legend }.finish(&view, 1.0 / view.scale, "m"))
}

fn path_svg(body: &mut String, legend: &mut Vec<(String, String)>, view: &View, path: &[[f64; 3]]) {
    if path.is_empty() {
        return;
    }
    let u = view.unit();
    let pts: Vec<String> = path.iter().map(|&p| view.pt(p)).collect();
    let _ = writeln!(
        body,
        r##"<g id="path" fill="none" stroke="#111111" stroke-width="{:.2}" stroke-linejoin="round" stroke-linecap="round"><polyline points="{}"/><circle cx="{:.2}" cy="{:.2}" r="{:.2}" fill="#111111"/><circle cx="{:.2}" cy="{:.2}" r="{:.2}" fill="#ffffff"/></g>"##,
        3.0 * u,
        pts.join(" "),
        view.x(path[0][0]),
        view.y(path[0][2]),
        4.0 * u,
        view.x(path[path.len() - 1][0]),
        view.y(path[path.len() - 1][2]),
        4.0 * u,
    );
    legend.push((r##"fill="#111111""##.into(), "path".into()));
}

/// The SVG picture of `grid` (cell (x, y) at world (x, y) seen from above, y down like the
/// map file's rows); `options.path` holds cell centres as (x, 0, y).
pub fn grid_svg(grid: &Grid, options: &Options) -> String {
    let (w, h) = (f64::from(grid.width()), f64::from(grid.height()));
    // Rows run down the picture like the file's: world z = h - y.
    let view = View::new([0.0, 0.0], [w, h], options.size);
    let s = view.scale;
    let mut body = String::new();
    let _ = writeln!(
        body,
        r##"<rect x="{:.2}" y="{:.2}" width="{:.2}" height="{:.2}" fill="#f4f1e8"/>"##,
        view.x(0.0),
        view.y(h),
        w * s,
        h * s
    );
    let _ = writeln!(
        body,
        r##"<g id="cells" stroke="none" shape-rendering="crispEdges">"##
    );
    let mut areas = BTreeSet::new();
    let cells = grid.cells();
    for y in 0..grid.height() {
        let row = &cells[(y * grid.width()) as usize..((y + 1) * grid.width()) as usize];
        let mut x = 0usize;
        while x < row.len() {
            let a = row[x];
            let mut end = x + 1;
            while end < row.len() && row[end] == a {
                end += 1;
            }
            if a != 0 {
                let fill = if a == WALL {
                    "#3b3b3b"
                } else {
                    areas.insert(a);
                    area_colour(a)
                };
                let _ = writeln!(
                    body,
                    r#"<rect x="{:.3}" y="{:.3}" width="{:.3}" height="{:.3}" fill="{fill}"/>"#,
                    view.x(x as f64),
                    view.y(h - f64::from(y)),
                    (end - x) as f64 * s,
                    s
                );
            }
            x = end;
        }
    }
    body.push_str("</g>\n");
    let mut legend = vec![
        (
            r##"fill="#f4f1e8" stroke="#888888""##.to_string(),
            "walkable".to_string(),
        ),
        (r##"fill="#3b3b3b""##.to_string(), "wall".to_string()),
    ];
    for a in areas {
        legend.push((format!(r#"fill="{}""#, area_colour(a)), format!("area {a}")));
    }
    let path: Vec<[f64; 3]> = options
        .path
        .iter()
        .map(|p| [p[0] + 0.5, 0.0, h - (p[2] + 0.5)])
        .collect();
    path_svg(&mut body, &mut legend, &view, &path);
    legend.push((
        r##"fill="none" stroke="none""##.into(),
        format!("{} × {} cells", grid.width(), grid.height()),
    ));
    Svg { body, legend }.finish(&view, 1.0 / s, "cells")
}

/// Rasterises an SVG document (as written by this module) into PNG bytes of its own size.
pub fn png(svg: &str) -> Result<Vec<u8>, String> {
    use resvg::{tiny_skia, usvg};
    let mut options = usvg::Options::default();
    options.fontdb_mut().load_system_fonts();
    let tree = usvg::Tree::from_str(svg, &options).map_err(|e| format!("SVG: {e}"))?;
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height()).ok_or_else(|| {
        format!(
            "a {} × {} picture is too large",
            size.width(),
            size.height()
        )
    })?;
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| format!("PNG: {e}"))
}
