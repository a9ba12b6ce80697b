//! Starting positions: 暗棋/明棋 deployments (validation and uniformly random
//! legal deployments) and the 翻棋 deal (docs/rules.md §5.1, §5.3).

use crate::board::{squares, Bitboard, Square, BLACK_HALF, CAMPS, HEADQUARTERS, RED_HALF};
use crate::piece::{full_army, Colour, Kind, Piece, KINDS};
use crate::position::Position;
use crate::rules::{Mode, Rules};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

/// The random generator every seeded run uses: PCG 64 (MCG variant), whose
/// output for a seed is fixed by its algorithm, not by a library version.
pub type GameRng = rand_pcg::Pcg64Mcg;

/// A generator for `seed`.
pub fn rng_from_seed(seed: u64) -> GameRng {
    GameRng::seed_from_u64(seed)
}

/// One side's placement of its pieces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deployment {
    pub colour: Colour,
    pub pieces: Vec<(Square, Kind)>,
}

/// A broken deployment constraint (docs/rules.md §5.1 Deployment).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeploymentError {
    #[error("{square} is not in {colour}'s half")]
    OutsideHalf { square: Square, colour: &'static str },
    #[error("{square} is a camp; nothing is deployed in camps")]
    InCamp { square: Square },
    #[error("two pieces on {square}")]
    SameSquare { square: Square },
    #[error("{found} {kind}(s) deployed, a side has exactly {expected}")]
    Count { kind: &'static str, expected: u8, found: u8 },
    #[error("the flag is on {square}, it must be in one of its own headquarters")]
    FlagOutsideHeadquarters { square: Square },
    #[error("a mine is on {square}, mines go only on the side's last two ranks")]
    MineOutsideBackRanks { square: Square },
    #[error("a bomb is on {square}, bombs may not stand on the side's front rank")]
    BombOnFrontRank { square: Square },
}

/// The 25 non-camp nodes of `colour`'s half.
pub fn deployment_zone(colour: Colour) -> Bitboard {
    half(colour) & !CAMPS
}
fn half(colour: Colour) -> Bitboard {
    match colour {
        Colour::Red => RED_HALF,
        Colour::Black => BLACK_HALF,
    }
}
/// The last two ranks of `colour` (where its mines go).
pub fn back_ranks(colour: Colour) -> Bitboard {
    match colour {
        Colour::Red => crate::board::rank_bb(1) | crate::board::rank_bb(2),
        Colour::Black => crate::board::rank_bb(11) | crate::board::rank_bb(12),
    }
}
/// The front rank of `colour` (no bombs there).
pub fn front_rank(colour: Colour) -> Bitboard {
    match colour {
        Colour::Red => crate::board::rank_bb(6),
        Colour::Black => crate::board::rank_bb(7),
    }
}

impl Deployment {
    /// Check every constraint; the first one broken is returned.
    pub fn validate(&self) -> Result<(), DeploymentError> {
        self.validate_allowing(false)
    }

    /// As [`Deployment::validate`]; `bombs_on_front_rank` lifts the front-rank
    /// rule for bombs (a four-player variant, `junqi-siguo`'s `bomb_front_rank`).
    pub fn validate_allowing(&self, bombs_on_front_rank: bool) -> Result<(), DeploymentError> {
        let colour = self.colour;
        let mut seen: Bitboard = 0;
        let mut counts = [0u8; KINDS];
        for &(square, kind) in &self.pieces {
            if half(colour) & square.bit() == 0 {
                return Err(DeploymentError::OutsideHalf { square, colour: colour.name() });
            }
            if CAMPS & square.bit() != 0 {
                return Err(DeploymentError::InCamp { square });
            }
            if seen & square.bit() != 0 {
                return Err(DeploymentError::SameSquare { square });
            }
            seen |= square.bit();
            counts[kind.index()] = counts[kind.index()].saturating_add(1);
            match kind {
                Kind::Flag if HEADQUARTERS & square.bit() == 0 => {
                    return Err(DeploymentError::FlagOutsideHeadquarters { square })
                }
                Kind::Mine if back_ranks(colour) & square.bit() == 0 => {
                    return Err(DeploymentError::MineOutsideBackRanks { square })
                }
                Kind::Bomb if !bombs_on_front_rank && front_rank(colour) & square.bit() != 0 => {
                    return Err(DeploymentError::BombOnFrontRank { square })
                }
                _ => {}
            }
        }
        for kind in Kind::ALL {
            if counts[kind.index()] != kind.count() {
                return Err(DeploymentError::Count {
                    kind: kind.english(),
                    expected: kind.count(),
                    found: counts[kind.index()],
                });
            }
        }
        // 25 pieces on 25 distinct nodes of the 25-node zone: every node is filled.
        Ok(())
    }

    /// A uniformly random legal deployment: every legal arrangement (pieces of
    /// one kind being alike) is equally likely.
    ///
    /// Sequential choice is uniform here because the number of ways to finish
    /// never depends on the earlier choices: the flag takes one of 2 HQs, the
    /// mines 3 of the 9 remaining back-rank nodes, the bombs 2 of the 16 free
    /// nodes off the front rank (always 16, as mines never stand there), and
    /// the other 19 pieces fill the last 19 nodes in any order.
    pub fn random<R: Rng + ?Sized>(colour: Colour, rng: &mut R) -> Deployment {
        Deployment::random_allowing(colour, rng, false)
    }

    /// As [`Deployment::random`]; with `bombs_on_front_rank` the bombs take 2
    /// of all 21 nodes left after flag and mines, so the draw stays uniform.
    pub fn random_allowing<R: Rng + ?Sized>(colour: Colour, rng: &mut R, bombs_on_front_rank: bool) -> Deployment {
        let zone = deployment_zone(colour);
        let mut free: Vec<Square> = squares(zone).collect();
        let mut pieces = Vec::with_capacity(25);
        let mut take = |pool: Bitboard, n: usize, kind: Kind, free: &mut Vec<Square>, rng: &mut R| {
            let mut options: Vec<Square> = free.iter().copied().filter(|s| pool & s.bit() != 0).collect();
            options.shuffle(rng);
            for &sq in options.iter().take(n) {
                pieces.push((sq, kind));
                free.retain(|&f| f != sq);
            }
        };
        take(HEADQUARTERS, 1, Kind::Flag, &mut free, rng);
        take(back_ranks(colour), 3, Kind::Mine, &mut free, rng);
        let bomb_nodes = if bombs_on_front_rank { !0 } else { !front_rank(colour) };
        take(bomb_nodes, 2, Kind::Bomb, &mut free, rng);
        let mut rest: Vec<Kind> = full_army().filter(|k| !matches!(k, Kind::Flag | Kind::Mine | Kind::Bomb)).collect();
        rest.shuffle(rng);
        pieces.extend(free.iter().copied().zip(rest));
        pieces.sort_by_key(|(s, _)| *s);
        Deployment { colour, pieces }
    }

    /// The pieces of `colour` in a position.
    pub fn from_position(pos: &Position, colour: Colour) -> Deployment {
        let pieces =
            pos.pieces().filter_map(|(sq, p, _)| p.filter(|p| p.colour == colour).map(|p| (sq, p.kind))).collect();
        Deployment { colour, pieces }
    }
}

impl Position {
    /// A 暗棋/明棋 start position from two deployments, each validated.
    pub fn from_deployments(rules: Rules, red: &Deployment, black: &Deployment) -> Result<Position, DeploymentError> {
        assert!(rules.mode != Mode::Fanqi, "fanqi positions are dealt, not deployed");
        assert_eq!((red.colour, black.colour), (Colour::Red, Colour::Black), "deployments of Red then Black");
        red.validate()?;
        black.validate()?;
        let mut pos = Position::empty(rules);
        for d in [red, black] {
            for &(sq, kind) in &d.pieces {
                pos.put(sq, Piece::new(d.colour, kind), false);
            }
        }
        Ok(pos)
    }

    /// A 翻棋 start: the 50 pieces shuffled face-down onto the 50 non-camp nodes.
    pub fn deal_fanqi<R: Rng + ?Sized>(rules: Rules, rng: &mut R) -> Position {
        assert!(rules.mode == Mode::Fanqi, "only fanqi positions are dealt");
        let mut pieces: Vec<Piece> =
            Colour::ALL.into_iter().flat_map(|c| full_army().map(move |k| Piece::new(c, k))).collect();
        pieces.shuffle(rng);
        let mut pos = Position::empty(rules);
        for (sq, piece) in squares(crate::board::ALL & !CAMPS).zip(pieces) {
            pos.put(sq, piece, true);
        }
        pos
    }

    /// A new game from a seed: a fresh deal (翻棋) or two uniformly random legal
    /// deployments (暗棋/明棋).
    pub fn new_game(rules: Rules, seed: u64) -> Position {
        let mut rng = rng_from_seed(seed);
        Position::new_game_with(rules, &mut rng)
    }

    /// As [`Position::new_game`], drawing from `rng`.
    pub fn new_game_with<R: Rng + ?Sized>(rules: Rules, rng: &mut R) -> Position {
        match rules.mode {
            Mode::Fanqi => Position::deal_fanqi(rules, rng),
            Mode::Anqi | Mode::Mingqi => {
                let red = Deployment::random(Colour::Red, rng);
                let black = Deployment::random(Colour::Black, rng);
                Position::from_deployments(rules, &red, &black).expect("random deployments are legal")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Uniform over legal deployments means: the flag is in either HQ half the
    /// time; given the flag, each of the 9 other back-rank nodes holds a mine
    /// with probability 3/9; each of the 16 nodes left off the front rank holds
    /// a bomb with probability 2/16 … checked here per node with 5-sigma bounds.
    #[test]
    fn random_deployments_are_uniform_per_node() {
        let mut rng = rng_from_seed(9);
        let n = 20_000;
        let mut flag_b1 = 0;
        let mut mine_at = [0u32; 60];
        let mut bomb_at = [0u32; 60];
        let mut commander_at = [0u32; 60];
        for _ in 0..n {
            let d = Deployment::random(Colour::Red, &mut rng);
            d.validate().unwrap();
            for &(sq, kind) in &d.pieces {
                match kind {
                    Kind::Flag if sq.to_string() == "b1" => flag_b1 += 1,
                    Kind::Mine => mine_at[sq.index()] += 1,
                    Kind::Bomb => bomb_at[sq.index()] += 1,
                    Kind::Commander => commander_at[sq.index()] += 1,
                    _ => {}
                }
            }
        }
        let within = |count: u32, p: f64| {
            let mean = n as f64 * p;
            let sigma = (n as f64 * p * (1.0 - p)).sqrt();
            (count as f64 - mean).abs() < 5.0 * sigma
        };
        assert!(within(flag_b1, 0.5), "flag on b1 {flag_b1} of {n}");
        // a1 is never the flag's node: a mine there with probability 3/9.
        let a1 = "a1".parse::<Square>().unwrap().index();
        assert!(within(mine_at[a1], 3.0 / 9.0), "mine on a1 {}", mine_at[a1]);
        // b1 holds a mine only when the flag is on d1 (p = 1/2 · 3/9).
        let b1 = "b1".parse::<Square>().unwrap().index();
        assert!(within(mine_at[b1], 0.5 * 3.0 / 9.0), "mine on b1 {}", mine_at[b1]);
        // A mid-board post (c3): bomb with probability 2/16; the 司令 goes to
        // one of the 19 nodes left after flag, mines and bombs: 1/19 · P(free).
        let c3 = "c3".parse::<Square>().unwrap().index();
        assert!(within(bomb_at[c3], 2.0 / 16.0), "bomb on c3 {}", bomb_at[c3]);
        assert!(within(commander_at[c3], (14.0 / 16.0) / 19.0), "commander on c3 {}", commander_at[c3]);
        // Never a bomb on the front rank, never a mine above rank 2.
        for sq in Square::all() {
            assert!(bomb_at[sq.index()] == 0 || sq.rank() != 6);
            assert!(mine_at[sq.index()] == 0 || sq.rank() <= 2);
        }
    }
}
