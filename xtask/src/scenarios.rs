//! The hash-matrix scenarios. Each is a scripted history; each step records the SHA-256 of
//! the bytes it produced. Add a scenario here and bless its expectations once.

use onepath_format::NavMeshParams;

use crate::hash_matrix::Recorder;

/// One named scenario.
pub(crate) struct Scenario {
    /// `area/name`; also the expectations file `fixtures/hash-matrix/<name>.txt`.
    pub(crate) name: &'static str,
    /// Whether the code under test runs work on several threads (then it also runs on
    /// 2 and several threads and must give the same hashes).
    pub(crate) parallel: bool,
    /// The history.
    pub(crate) run: fn(&mut Recorder) -> Result<(), String>,
}

pub(crate) const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "format/params",
        parallel: false,
        run: format_params,
    },
    Scenario {
        name: "format/tile-bytes",
        parallel: false,
        run: crate::scenarios_mesh::format_tile_bytes,
    },
    Scenario {
        name: "mesh/stitch",
        parallel: false,
        run: crate::scenarios_mesh::mesh_stitch,
    },
    Scenario {
        name: "navmesh/snapshot-bytes",
        parallel: false,
        run: crate::scenarios_snapshot::snapshot_bytes,
    },
    Scenario {
        name: "navmesh/compiled-queries",
        parallel: false,
        run: crate::scenarios_snapshot::compiled_queries,
    },
    Scenario {
        name: "grid/state-bytes",
        parallel: false,
        run: crate::scenarios_grid::grid_state_bytes,
    },
    Scenario {
        name: "crowd/steps",
        parallel: true,
        run: crate::scenarios_crowd::crowd_steps,
    },
    Scenario {
        name: "crowd/snapshot-bytes",
        parallel: true,
        run: crate::scenarios_crowd::crowd_snapshot_bytes,
    },
    Scenario {
        name: "crowd/guides",
        parallel: true,
        run: crate::scenarios_guides::crowd_guides,
    },
    Scenario {
        name: "crowd/grounding",
        parallel: true,
        run: crate::scenarios_grounding::crowd_grounding,
    },
    Scenario {
        name: "build3d/build",
        parallel: true,
        run: crate::scenarios_build3d::build3d_build,
    },
    Scenario {
        name: "build3d/tilecache",
        parallel: true,
        run: crate::scenarios_tilecache::build3d_tilecache,
    },
    Scenario {
        name: "build3d/layer-first",
        parallel: true,
        run: crate::scenarios_tilecache::build3d_layer_first,
    },
    Scenario {
        name: "world/classes",
        parallel: true,
        run: crate::scenarios_world::world_classes,
    },
];

/// Parameter blocks and build fingerprints of a spread of parameter sets.
fn format_params(rec: &mut Recorder) -> Result<(), String> {
    let mut sets = vec![
        NavMeshParams::new([0.0, 0.0, 0.0], 32.0, 0.25, 6),
        NavMeshParams::new([-1000.5, 12.25, 2048.0], 9.600000381469727, 0.3, 6),
        NavMeshParams::new([-0.0, 0.0, 1.0e-300], 1.0, 0.125, 3),
    ];
    let mut p = NavMeshParams::new([100.0, -5.0, 100.0], 64.0, 0.5, 16);
    p.walkable_climb = 0.9;
    p.agent_radius = 0.6;
    p.agent_height = 2.0;
    p.agent_max_slope = 45.0;
    p.settings_digest = 0x0123_4567_89AB_CDEF;
    sets.push(p);
    for (i, p) in sets.iter().enumerate() {
        p.validate().map_err(|e| e.to_string())?;
        rec.record(format!("params-{i}/block"), &p.to_block());
        rec.record(format!("params-{i}/fingerprint"), &p.fingerprint().0);
    }
    Ok(())
}
