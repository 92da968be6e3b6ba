//! Hostile calls never panic: any sequence of adds, removals, targets, velocities, resets,
//! parameter changes and updates with any numbers (NaN, infinities, huge, negative) either
//! fails with a typed error that changes nothing or runs; walking agents stay on the mesh.

use onepath_crowd::{
    AgentId, AgentParams, AgentState, Crowd, CrowdError, CrowdSettings, WorldContext,
};
use onepath_format::PolyRef;
use onepath_mesh::fixtures::bridge_and_building;
use onepath_mesh::query::NavMeshQuery;
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Add([f64; 3], f64),
    Remove(u32),
    Target(u32, [f64; 3]),
    Velocity(u32, [f64; 3]),
    Reset(u32),
    Params(u32, f64, f64),
    Update(f64),
}

fn num() -> impl Strategy<Value = f64> {
    prop_oneof![
        8 => -10.0f64..60.0,
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(-1.0e300),
        1 => Just(0.0),
    ]
}

fn v3() -> impl Strategy<Value = [f64; 3]> {
    (num(), prop_oneof![3 => -1.0f64..4.0, 1 => num()], num()).prop_map(|(x, y, z)| [x, y, z])
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (v3(), num()).prop_map(|(p, r)| Op::Add(p, r)),
        1 => (0u32..8).prop_map(Op::Remove),
        3 => (0u32..8, v3()).prop_map(|(i, p)| Op::Target(i, p)),
        1 => (0u32..8, v3()).prop_map(|(i, v)| Op::Velocity(i, v)),
        1 => (0u32..8).prop_map(Op::Reset),
        1 => (0u32..8, num(), num()).prop_map(|(i, r, s)| Op::Params(i, r, s)),
        6 => prop_oneof![4 => 0.0f64..0.2, 1 => num()].prop_map(Op::Update),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]
    #[test]
    fn any_sequence_of_calls_is_refused_or_runs(ops in proptest::collection::vec(op(), 1..40)) {
        let mesh = bridge_and_building();
        let world = WorldContext::new(&mesh);
        let mut crowd = Crowd::new(CrowdSettings { max_agents: 6, ..CrowdSettings::default() }).unwrap();
        let mut q = NavMeshQuery::new();
        for op in ops {
            let before = format!("{:?}", crowd.agents());
            let r: Result<(), CrowdError> = match op {
                Op::Add(p, radius) => crowd.add_agent(&mesh, p, AgentParams::new(radius)).map(|_| ()),
                Op::Remove(i) => crowd.remove_agent(AgentId(i)),
                Op::Target(i, p) => {
                    let r = match q.find_nearest_poly(&mesh, p, [1.0, 2.0, 1.0], &Default::default()) {
                        Ok(Some(n)) => n.poly,
                        _ => PolyRef::NULL,
                    };
                    crowd.request_move_target(AgentId(i), r, p)
                }
                Op::Velocity(i, v) => crowd.request_move_velocity(AgentId(i), v),
                Op::Reset(i) => crowd.reset_move_target(AgentId(i)),
                Op::Params(i, r, s) => {
                    let mut p = AgentParams::new(r);
                    p.max_speed = s;
                    crowd.set_params(AgentId(i), p)
                }
                Op::Update(dt) => crowd.update(&world, dt).map(|_| ()),
            };
            if r.is_err() {
                prop_assert_eq!(before, format!("{:?}", crowd.agents()));
            }
            for a in crowd.agents() {
                if a.state() == AgentState::Walking {
                    let p = a.position();
                    prop_assert!(p.iter().all(|c| c.is_finite()), "{:?}", p);
                    prop_assert!(mesh.is_valid_poly_ref(a.corridor().first_poly()));
                }
            }
        }
    }
}
