//! Hand-made 暗棋/明棋 deployments: the flag in a headquarters with mines
//! beside it, bombs on its approaches, strong pieces spread over the front and
//! the railway, engineers kept back. One of several formations named in the
//! seed texts is drawn at random and its free nodes are filled with jitter,
//! so the result is sensible but not predictable.

use junqi_core::board::Square;
use junqi_core::piece::Kind;
use junqi_core::{Colour, Deployment, Rules};
use rand::Rng;

/// Three mine nodes and two bomb nodes as (file, rank).
type Mines = [(usize, usize); 3];
type Bombs = [(usize, usize); 2];

/// The formations [`heuristic_deployment`] draws from (names from the source rule texts).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Formation {
    /// 三角雷: three mines around the flag.
    TriangleMines,
    /// 防守型平均阵: defensive balanced, mine on the other headquarters as a decoy.
    DefensiveBalanced,
    /// 进攻型平均阵: offensive balanced, strong pieces on the front rank.
    OffensiveBalanced,
    /// 推土机: bulldozer, the biggest pieces in the front centre.
    Bulldozer,
    /// 闪电阵: lightning, strong pieces on the flank railways for fast attacks.
    Lightning,
}

impl Formation {
    pub const ALL: [Formation; 5] = [
        Formation::TriangleMines,
        Formation::DefensiveBalanced,
        Formation::OffensiveBalanced,
        Formation::Bulldozer,
        Formation::Lightning,
    ];

    pub fn chinese(self) -> &'static str {
        match self {
            Formation::TriangleMines => "三角雷",
            Formation::DefensiveBalanced => "防守型平均阵",
            Formation::OffensiveBalanced => "进攻型平均阵",
            Formation::Bulldozer => "推土机",
            Formation::Lightning => "闪电阵",
        }
    }

    /// Mines, then bomb choices, in Red coordinates with the flag on b1
    /// (file 0..5, rank 1..6): mines only on ranks 1–2, bombs off rank 6.
    fn mines_and_bombs(self) -> (Mines, &'static [Bombs]) {
        match self {
            Formation::TriangleMines => {
                ([(0, 1), (2, 1), (1, 2)], &[[(2, 2), (0, 2)], [(2, 3), (0, 3)], [(2, 2), (1, 4)]])
            }
            Formation::DefensiveBalanced => ([(0, 1), (2, 1), (3, 1)], &[[(1, 2), (2, 3)], [(1, 2), (0, 3)]]),
            Formation::OffensiveBalanced => ([(2, 1), (1, 2), (4, 1)], &[[(0, 2), (3, 2)], [(0, 1), (2, 3)]]),
            Formation::Bulldozer => ([(0, 1), (2, 1), (2, 2)], &[[(1, 2), (1, 4)], [(1, 2), (3, 4)]]),
            Formation::Lightning => ([(0, 1), (1, 2), (3, 2)], &[[(2, 2), (2, 3)], [(2, 1), (2, 3)]]),
        }
    }

    /// How much a node (Red, flag on b1) wants a strong piece.
    fn frontness(self, file: usize, rank: usize) -> f32 {
        let mut f = rank as f32;
        match self {
            Formation::Bulldozer if rank == 6 && (1..=3).contains(&file) => f += 1.5,
            Formation::Bulldozer if rank == 5 => f += 0.5,
            Formation::Lightning if rank >= 4 && (file == 0 || file == 4) => f += 1.5,
            Formation::OffensiveBalanced if rank == 6 => f += 1.0,
            Formation::DefensiveBalanced if (2..=3).contains(&rank) && file <= 2 => f += 1.5,
            Formation::TriangleMines if rank == 2 && file >= 3 => f += 1.0,
            _ => {}
        }
        f
    }
}

/// How strongly a kind wants the front (before jitter).
fn desire(kind: Kind) -> f32 {
    match kind {
        Kind::General => 9.0,
        Kind::Division => 8.5,
        Kind::Commander => 7.5,
        Kind::Brigade => 7.0,
        Kind::Regiment => 6.5,
        Kind::Battalion => 5.5,
        Kind::Company => 5.0,
        Kind::Platoon => 3.5,
        Kind::Engineer => 1.5,
        _ => 0.0,
    }
}

/// A sensible legal deployment for `colour`, drawn at random among the
/// [`Formation`]s (flag headquarters, mine and bomb choices, and jitter in
/// where the officers go). Always passes [`Deployment::validate`].
pub fn heuristic_deployment<R: Rng + ?Sized>(colour: Colour, rules: &Rules, rng: &mut R) -> Deployment {
    let formation = Formation::ALL[rng.random_range(0..Formation::ALL.len())];
    formation_deployment(formation, colour, rules, rng)
}

/// A deployment in one given formation (the flag side and details still random).
pub fn formation_deployment<R: Rng + ?Sized>(
    formation: Formation,
    colour: Colour,
    _rules: &Rules,
    rng: &mut R,
) -> Deployment {
    let mirror = rng.random_bool(0.5);
    // Red coordinates with the flag on b1 → the real node.
    let place = |file: usize, rank: usize| -> Square {
        let f = if mirror { 4 - file } else { file };
        let r = if colour == Colour::Black { 13 - rank } else { rank };
        Square::from_coords(f, r).expect("deployment coordinates are on the board")
    };
    let is_camp = |file: usize, rank: usize| matches!((file, rank), (1, 3) | (3, 3) | (2, 4) | (1, 5) | (3, 5));
    let mut taken: u64 = 0; // bit (rank - 1) * 5 + file
    let mut pieces: Vec<(Square, Kind)> = Vec::with_capacity(25);
    let bit = |file: usize, rank: usize| 1u64 << ((rank - 1) * 5 + file);
    let mut put = |file: usize, rank: usize, kind: Kind, taken: &mut u64| {
        *taken |= bit(file, rank);
        pieces.push((place(file, rank), kind));
    };
    put(1, 1, Kind::Flag, &mut taken);
    let (mines, bomb_sets) = formation.mines_and_bombs();
    for (f, r) in mines {
        put(f, r, Kind::Mine, &mut taken);
    }
    for (f, r) in bomb_sets[rng.random_range(0..bomb_sets.len())] {
        put(f, r, Kind::Bomb, &mut taken);
    }
    let mut rest: Vec<Kind> = vec![
        Kind::Commander,
        Kind::General,
        Kind::Division,
        Kind::Division,
        Kind::Brigade,
        Kind::Brigade,
        Kind::Regiment,
        Kind::Regiment,
        Kind::Battalion,
        Kind::Battalion,
        Kind::Company,
        Kind::Company,
        Kind::Company,
        Kind::Platoon,
        Kind::Platoon,
        Kind::Platoon,
        Kind::Engineer,
        Kind::Engineer,
        Kind::Engineer,
    ];
    // The other headquarters (locked in most rules): a small piece as a decoy.
    if taken & bit(3, 1) == 0 {
        let decoy = if rng.random_bool(0.7) { Kind::Platoon } else { Kind::Company };
        put(3, 1, decoy, &mut taken);
        let i = rest.iter().position(|&k| k == decoy).expect("the army has platoons and companies");
        rest.swap_remove(i);
    }
    let mut nodes: Vec<(f32, usize, usize)> = Vec::with_capacity(20);
    for rank in 1..=6 {
        for file in 0..5 {
            if taken & bit(file, rank) == 0 && !is_camp(file, rank) {
                nodes.push((formation.frontness(file, rank) + rng.random_range(-1.0..1.0f32), file, rank));
            }
        }
    }
    let mut wants: Vec<(f32, Kind)> =
        rest.into_iter().map(|k| (desire(k) + rng.random_range(-1.5..1.5f32), k)).collect();
    nodes.sort_by(|a, b| b.0.total_cmp(&a.0));
    wants.sort_by(|a, b| b.0.total_cmp(&a.0));
    debug_assert_eq!(nodes.len(), wants.len());
    for (&(_, f, r), &(_, k)) in nodes.iter().zip(wants.iter()) {
        put(f, r, k, &mut taken);
    }
    pieces.sort_by_key(|(s, _)| *s);
    let d = Deployment { colour, pieces };
    debug_assert!(d.validate().is_ok(), "{formation:?}: {:?}", d.validate());
    d
}
