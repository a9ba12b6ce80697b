//! The compact code of a seat's observation (docs/observation.md, "The
//! four-player code"): the planes rebuilt from it are exactly
//! `observation::encode`'s, along random games of every mode and option;
//! what it calls progress is what surely resets the quiet-move counter.

use super::infoset::Table;
use junqi_core::piece::Kind;
use junqi_core::rng_from_seed;
use junqi_siguo::code::{SiguoCode, CODE_LEN};
use junqi_siguo::observation::{action_index, encode};
use junqi_siguo::{Mode, MoveList, Position, Rules};

/// decode(code) == encode(infoset), for every seat, at every ply of random
/// 暗棋, 双明 and 全明 games (and option sets that turn every rule plane
/// on); the bytes round-trip too.
#[test]
fn planes_rebuilt_from_the_code_equal_the_encoder_s() {
    let mut rng = rng_from_seed(17);
    let mut rules: Vec<Rules> = Mode::ALL.iter().map(|&m| Rules::preset(m)).collect();
    rules.push(
        Rules::preset_with(
            "anqi",
            ["rail_turns=one_turn", "palace_arcs=true", "bomb_flies=true", "mine_rule=trade", "turn_order=clockwise"],
        )
        .unwrap(),
    );
    rules.push(
        Rules::preset_with("shuangming", ["hq_locked=false", "commander_hits_mine=false", "bomb_front_rank=true"])
            .unwrap(),
    );
    let mut checked = 0;
    for (i, r) in rules.into_iter().enumerate() {
        for game in 0..3u64 {
            let mut t = Table::new(Position::new_game(r, 100 + 10 * i as u64 + game));
            loop {
                for s in &t.seats {
                    let code = SiguoCode::of(s);
                    assert_eq!(code.planes(), encode(s), "seat {} at ply {} of {}", s.seat().index(), s.ply(), t.truth);
                    let bytes = code.to_bytes();
                    assert_eq!(bytes.len(), CODE_LEN);
                    assert_eq!(SiguoCode::from_bytes(&bytes).unwrap(), code);
                    checked += 1;
                }
                let Some(mv) = t.random_move(&mut rng) else { break };
                t.play(mv);
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
}

/// `SiguoCode::is_progress` against the referee along random games, under
/// the preset and under `commander_hits_mine = false`: an action it calls
/// progress always resets the quiet-move counter (§10.9); one that resets
/// it is called progress unless it is a 司令's attack on a piece that might
/// be a mine under that option (it might have bounced), or a move onto an
/// empty node that ends an army.
#[test]
fn progress_is_what_surely_resets_the_quiet_counter() {
    let mut rng = rng_from_seed(23);
    let rules = [Rules::preset(Mode::Anqi), Rules::preset_with("anqi", ["commander_hits_mine=false"]).unwrap()];
    let (mut progress, mut unsure, mut quiet) = (0, 0, 0);
    let mut moves = MoveList::new();
    for (i, r) in rules.into_iter().enumerate() {
        for deal in 0..4u64 {
            let mut t = Table::new(Position::new_game(r, 300 + 10 * i as u64 + deal));
            while t.truth.outcome().is_none() {
                let (pos, seat) = (&t.truth, t.truth.turn());
                let code = SiguoCode::of(&t.seats[seat.index()]);
                pos.legal_moves(&mut moves);
                for &mv in moves.iter() {
                    let (said, resets) = (code.is_progress(action_index(seat, mv)), pos.played(mv).quiet() == 0);
                    assert!(!said || resets, "{mv} is called progress and does not reset the counter in {pos}");
                    match (said, resets, pos.piece_at(mv.to)) {
                        (true, _, _) => progress += 1,
                        (false, true, Some(_)) => {
                            let attacker = pos.piece_at(mv.from).unwrap().kind;
                            assert!(!r.commander_hits_mine && attacker == Kind::Commander, "{mv} in {pos}");
                            unsure += 1;
                        }
                        (false, _, _) => quiet += 1,
                    }
                }
                let Some(mv) = t.random_move(&mut rng) else { break };
                t.play(mv);
            }
        }
    }
    assert!(progress > 1000 && unsure > 0 && quiet > 10_000, "{progress} {unsure} {quiet}");
}

/// Bytes of the wrong length or out of range are refused, naming the code.
#[test]
fn bad_bytes_are_refused() {
    let t = Table::new(Position::new_game(Rules::preset(Mode::Anqi), 3));
    let good = SiguoCode::of(&t.seats[1]).to_bytes();
    let mut bad: Vec<Vec<u8>> = vec![good[..CODE_LEN - 1].to_vec()];
    for (i, v) in [(0, 4u8), (1, 4), (2, 16), (12, 0)] {
        let mut b = good.clone();
        b[i] = v;
        if i == 12 {
            b[13..16].fill(0);
        }
        bad.push(b);
    }
    let mut b = good.clone();
    b[20..22].copy_from_slice(&(5u16 << 12 | 1).to_le_bytes());
    bad.push(b);
    for b in bad {
        let err = SiguoCode::from_bytes(&b).unwrap_err().to_string();
        assert!(err.contains("siguo-code/1"), "{err}");
    }
}
