//! §10.1–§10.3: nodes, edges, railway lines and arcs, the picture.

use crate::common::*;
use crate::reference::{place, Reference};
use junqi_core::board as core_board;
use junqi_siguo::{tables, Army, Node, NodeKind, NODES};
use std::collections::BTreeSet;

#[test]
fn s10_1_four_zones_of_the_two_player_half_and_a_nine_node_centre() {
    assert_eq!(NODES, 129);
    for army in Army::ALL {
        let kinds: Vec<NodeKind> = Node::all().filter(|n| n.zone() == Some(army)).map(|n| n.kind()).collect();
        assert_eq!(kinds.len(), 30);
        assert_eq!(kinds.iter().filter(|&&k| k == NodeKind::Post).count(), 23);
        assert_eq!(kinds.iter().filter(|&&k| k == NodeKind::Camp).count(), 5);
        assert_eq!(kinds.iter().filter(|&&k| k == NodeKind::Headquarters).count(), 2);
        for name in ["b3", "d3", "c4", "b5", "d5"] {
            assert_eq!(node(&format!("{}{name}", army.letter())).kind(), NodeKind::Camp);
        }
        for name in ["b1", "d1"] {
            assert_eq!(node(&format!("{}{name}", army.letter())).kind(), NodeKind::Headquarters);
        }
    }
    let centre: Vec<Node> = Node::all().filter(|n| n.zone().is_none()).collect();
    assert_eq!(centre.len(), 9);
    assert!(centre.iter().all(|n| n.kind() == NodeKind::Post && tables(false).railway.contains(*n)));
}

#[test]
fn s10_1_node_places_follow_the_formula_and_no_two_nodes_share_one() {
    let mut seen = BTreeSet::new();
    for n in Node::all() {
        assert_eq!(n.coords(), place(&n.to_string()), "{n}");
        assert!(seen.insert(n.coords()), "{n} shares its place");
        let (x, y) = n.coords();
        assert!((0..17).contains(&x) && (0..17).contains(&y));
    }
    // The 九宫 is the 3 × 3 grid (6, 8, 10)².
    for n in Node::all().filter(|n| n.zone().is_none()) {
        let (x, y) = n.coords();
        assert!([6, 8, 10].contains(&x) && [6, 8, 10].contains(&y), "{n}");
    }
    assert_eq!(node("sa1").coords(), (6, 16));
    assert_eq!(node("se6").coords(), (10, 11));
    assert_eq!(node("ea6").coords(), (11, 10));
    assert_eq!(node("na6").coords(), (10, 5));
    assert_eq!(node("m").coords(), (8, 8));
    assert_eq!(node("ms").coords(), (8, 10));
    assert_eq!(node("mse").coords(), (10, 10));
}

#[test]
fn s10_1_node_indices() {
    assert_eq!(node("sa1").index(), 0);
    assert_eq!(node("se6").index(), 29);
    assert_eq!(node("ea1").index(), 30);
    assert_eq!(node("wc6").index(), 3 * 30 + 27);
    assert_eq!(node("m").index(), 120);
    assert_eq!(node("ms").index(), 121);
    assert_eq!(node("mw").index(), 124);
    assert_eq!(node("mse").index(), 125);
    assert_eq!(node("mws").index(), 128);
}

#[test]
fn s10_4_node_names_round_trip_and_bad_names_are_rejected() {
    for n in Node::all() {
        assert_eq!(n.to_string().parse::<Node>().unwrap(), n);
    }
    for bad in ["", "x", "sa7", "sf1", "s", "ma", "mes", "msn", "mss", "m s", "sa01", "Sa1"] {
        assert!(bad.parse::<Node>().is_err(), "{bad}");
    }
}

/// §10.2: inside a zone, exactly §1's edges of Red's half.
#[test]
fn s10_2_zone_edges_are_the_two_player_half() {
    let t = tables(false);
    for army in Army::ALL {
        for a in 0..30 {
            let n = Node::new(army.index() * 30 + a).unwrap();
            let mine: BTreeSet<usize> =
                t.adjacent[n.index()].iter().filter(|m| m.zone() == Some(army)).map(|m| m.index() % 30).collect();
            let core: BTreeSet<usize> =
                core_board::squares(core_board::ADJACENT[a] & core_board::RED_HALF).map(|s| s.index()).collect();
            assert_eq!(mine, core, "{n}");
        }
    }
}

fn edge_set(t: &junqi_siguo::board::Tables, rail: bool) -> BTreeSet<(usize, usize)> {
    let adj = if rail { &t.rail_adjacent } else { &t.road_adjacent };
    let mut out = BTreeSet::new();
    for (a, neighbours) in adj.iter().enumerate() {
        for b in neighbours {
            out.insert((a, b.index()));
        }
    }
    out
}

/// §10.2 tables: the 12 zone–centre edges, the 12 centre edges and the 4 arcs.
#[test]
fn s10_2_links_to_the_centre_centre_edges_and_arcs() {
    let t = tables(false);
    let rail = edge_set(t, true);
    let has = |a: &str, b: &str| rail.contains(&(node(a).index(), node(b).index()));
    for (a, b) in [("sa6", "mws"), ("sc6", "ms"), ("se6", "mse"), ("ea6", "mse"), ("ec6", "me"), ("ee6", "men")] {
        assert!(has(a, b) && has(b, a), "{a}-{b}");
    }
    for (a, b) in [("na6", "men"), ("nc6", "mn"), ("ne6", "mnw"), ("wa6", "mnw"), ("wc6", "mw"), ("we6", "mws")] {
        assert!(has(a, b), "{a}-{b}");
    }
    for (a, b) in [("se6", "ea6"), ("ee6", "na6"), ("ne6", "wa6"), ("we6", "sa6")] {
        assert!(has(a, b) && has(b, a), "arc {a}-{b}");
    }
    for army in Army::ALL {
        for f in ["b6", "d6"] {
            let n = node(&format!("{}{f}", army.letter()));
            assert!(t.adjacent[n.index()].iter().all(|m| m.zone() == Some(army)), "{n} has no edge forward");
        }
    }
    let centre = |i: usize| i >= 120;
    let count = |f: &dyn Fn(usize, usize) -> bool| rail.iter().filter(|&&(a, b)| a < b && f(a, b)).count();
    assert_eq!(count(&|a, b| centre(a) && centre(b)), 12);
    assert_eq!(count(&|a, b| centre(a) != centre(b)), 12);
    assert_eq!(count(&|a, b| !centre(a) && !centre(b) && a / 30 != b / 30), 4);
    // Nothing joins the centre by road.
    assert!(edge_set(t, false).iter().all(|&(a, b)| !centre(a) && a / 30 == b / 30));
}

/// The tables' edges against the reference's, built from the grid geometry.
#[test]
fn s10_2_tables_match_the_geometry_with_and_without_palace_arcs() {
    for palace_arcs in [false, true] {
        let t = tables(palace_arcs);
        let r = Reference::new(palace_arcs);
        assert_eq!(edge_set(t, true), r.rail_edges(), "palace_arcs={palace_arcs}");
        for a in 0..NODES {
            let road: BTreeSet<usize> = t.road_adjacent[a].iter().map(|n| n.index()).collect();
            assert_eq!(road, r.road_neighbours(a).iter().copied().collect::<BTreeSet<_>>());
        }
    }
}

/// §10.3: the railway nodes are §1's 16 per zone plus the 9 palaces.
#[test]
fn s10_3_railway_nodes() {
    let t = tables(false);
    assert_eq!(t.railway.len(), 4 * 16 + 9);
    for n in Node::all() {
        let expected = match n.square() {
            Some(sq) => core_board::RAILWAY & sq.bit() != 0,
            None => true,
        };
        assert_eq!(t.railway.contains(n), expected, "{n}");
    }
}

/// §10.3's table, expanded (a "rank … of each army" row is four lines).
fn documented_lines() -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for row in table_rows(subsection(3)).into_iter().skip(1) {
        let words: Vec<String> = backticked(&row[1])
            .iter()
            .flat_map(|w| w.split_whitespace().map(str::to_string).collect::<Vec<_>>())
            .collect();
        if row[0].starts_with("rank") {
            for army in "senw".chars() {
                out.push(words.iter().map(|w| format!("{army}{w}")).collect());
            }
        } else {
            out.push(words);
        }
    }
    out
}

#[test]
fn s10_3_every_railway_line_of_the_table_is_a_line_of_the_board() {
    let doc: BTreeSet<Vec<String>> = documented_lines().into_iter().collect();
    let code: BTreeSet<Vec<String>> =
        tables(false).lines.iter().map(|l| l.nodes.iter().map(|n| n.to_string()).collect()).collect();
    assert_eq!(doc.len(), 18);
    assert_eq!(doc, code);
    // Consecutive nodes of a line are joined by a railway edge, and every
    // railway edge lies on some line.
    let rail = edge_set(tables(false), true);
    let mut on_lines = BTreeSet::new();
    for line in &doc {
        for w in line.windows(2) {
            let (a, b) = (node(&w[0]).index(), node(&w[1]).index());
            assert!(rail.contains(&(a, b)), "{}-{}", w[0], w[1]);
            on_lines.insert((a, b));
            on_lines.insert((b, a));
        }
    }
    assert_eq!(on_lines, rail);
}

/// §10.1: the committed picture is the drawing of the tables.
#[test]
fn s10_1_the_committed_svg_is_drawn_from_the_tables() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/siguo-board.svg");
    let committed = std::fs::read_to_string(&path).expect("docs/siguo-board.svg");
    let drawn = junqi_siguo::svg::board_svg();
    assert!(
        committed == drawn,
        "docs/siguo-board.svg is stale: run `cargo run -p junqi-siguo --example siguo_board_svg`"
    );
    // Every node and every railway edge is in the picture.
    for n in Node::all() {
        assert!(drawn.contains(&format!(">{n}</text>")), "{n}");
    }
    assert_eq!(drawn.matches("<path ").count(), 4, "four corner arcs");
}
