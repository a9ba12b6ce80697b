//! What a person's information set knows beyond the board's tokens, for
//! the play page: the kinds an enemy piece may still be after its fights
//! (暗棋), the face-down pool (翻棋) and the pieces each side has lost.
//! Everything here comes from the information set, never the truth.

use junqi_core::board::squares;
use junqi_core::piece::KindSet;
use junqi_core::{Colour, InfoSet, Kind, Mode};
use serde::Serialize;
use std::collections::BTreeMap;

/// Public counts of one colour's pieces, by kind letter (kinds with none left out).
pub type Counts = BTreeMap<char, u8>;

/// The person's knowledge, as sent to the page.
#[derive(Serialize, Debug, Default, PartialEq)]
pub struct Knowledge {
    /// 暗棋: enemy square → what its fights (and the deployment rules)
    /// narrowed it to, e.g. `≥旅`, `工/雷`; squares with nothing to say left out.
    pub hints: BTreeMap<String, String>,
    /// 翻棋: the face-down pieces by colour (`red`, `black`) and kind.
    pub pool: BTreeMap<String, Counts>,
    /// Pieces lost by each colour, by kind; `?` counts those of unknown kind.
    pub captured: BTreeMap<String, Counts>,
}

/// The kinds that fight by rank, strongest first (司令 … 工兵): the first
/// nine of `Kind::ALL`, the bomb, mine and flag after them.
fn ranked() -> &'static [Kind] {
    &Kind::ALL[..9]
}

/// One character a kind: the first of its name, but 雷 and 旗 for the mine
/// and the flag (地雷's 地 says little; 军旗's 军 is 军长's).
fn short(k: Kind) -> char {
    match k {
        Kind::Mine => '雷',
        Kind::Flag => '旗',
        _ => k.chinese().chars().next().expect("every kind has a name"),
    }
}

/// A short label for a set of kinds an enemy piece may be, or `None` when
/// it rules out no ranked kind (the deployment rules alone say that much)
/// or needs more than five characters.
/// The ranked part is a range (`司`, `≥旅`, `≤连`, `师–营`), the others follow
/// by one character (`/炸/雷/旗`).
pub fn label(set: KindSet) -> Option<String> {
    let kinds = ranked();
    let ranked: Vec<usize> = (0..kinds.len()).filter(|&i| set & kinds[i].bit() != 0).collect();
    if ranked.len() == kinds.len() || set == 0 {
        return None;
    }
    let mut parts = Vec::new();
    if let (Some(&lo), Some(&hi)) = (ranked.first(), ranked.last()) {
        let contiguous = hi - lo + 1 == ranked.len();
        parts.push(match (lo, hi) {
            _ if !contiguous && ranked.len() > 3 => return None,
            _ if !contiguous => ranked.iter().map(|&i| short(kinds[i]).to_string()).collect::<Vec<_>>().join("/"),
            (lo, hi) if lo == hi => short(kinds[lo]).to_string(),
            (0, hi) => format!("≥{}", short(kinds[hi])),
            (lo, 8) => format!("≤{}", short(kinds[lo])),
            (lo, hi) => format!("{}–{}", short(kinds[lo]), short(kinds[hi])),
        });
    }
    for k in [Kind::Bomb, Kind::Mine, Kind::Flag] {
        if set & k.bit() != 0 {
            parts.push(short(k).to_string());
        }
    }
    // Longer ones (`军–排/炸/雷`: not the 司令, not the flag) say little and
    // do not fit on a piece.
    let text = parts.join("/");
    (text.chars().count() <= 5).then_some(text)
}

/// What `info` knows beyond its view's tokens.
pub fn of(info: &InfoSet) -> Knowledge {
    let view = info.view();
    let mut k = Knowledge::default();
    let mode = view.mode();
    if mode == Mode::Anqi {
        if let Some(enemy) = info.colour().map(Colour::other) {
            // Only pieces whose kind the view does not show.
            for sq in squares(view.colour_bb(enemy)).filter(|&sq| view.piece_at(sq).is_none()) {
                if let Some(text) = label(info.possible_kinds(sq)) {
                    k.hints.insert(sq.to_string(), text);
                }
            }
        }
    }
    for colour in Colour::ALL {
        // What stands on the board face up (kind known), face up of unknown
        // kind, and (翻棋) face down: the rest of a 25-piece army was lost.
        let mut left = Counts::new();
        let mut unknown = 0u8;
        for (sq, piece, face_down) in view.pieces() {
            match piece {
                Some(p) if p.colour == colour && !face_down => *left.entry(p.kind.letter()).or_default() += 1,
                None if !face_down && view.colour_at(sq) == Some(colour) => unknown += 1,
                _ => {}
            }
        }
        // Off the 60 nodes but not lost: a flag on a piece (扛军旗), a mountain's piece (山界).
        if view.loose_flag(colour).is_some() {
            *left.entry(Kind::Flag.letter()).or_default() += 1;
        }
        for p in (0..2).filter_map(|m| view.mountain(m)).filter(|p| p.colour == colour) {
            *left.entry(p.kind.letter()).or_default() += 1;
        }
        if mode == Mode::Fanqi {
            let pool: Counts = Kind::ALL
                .into_iter()
                .map(|kind| (kind.letter(), info.unseen(colour, kind)))
                .filter(|c| c.1 > 0)
                .collect();
            for (&letter, &n) in &pool {
                *left.entry(letter).or_default() += n;
            }
            k.pool.insert(colour.name().into(), pool);
        }
        let mut lost = Counts::new();
        let mut known_left = 0u8;
        for kind in Kind::ALL {
            let n = left.get(&kind.letter()).copied().unwrap_or(0);
            known_left += n;
            // With pieces of unknown kind on the board, only the count of the lost is known.
            if unknown == 0 && kind.count() > n {
                lost.insert(kind.letter(), kind.count() - n);
            }
        }
        if unknown > 0 {
            let gone = 25u8.saturating_sub(known_left + unknown);
            if gone > 0 {
                lost.insert('?', gone);
            }
        }
        k.captured.insert(colour.name().into(), lost);
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use junqi_core::{Game, MoveList, Position, Rules, Seat};

    #[test]
    fn labels_name_ranges_and_leave_out_what_says_nothing() {
        use junqi_core::piece::ALL_KINDS;
        assert_eq!(label(ALL_KINDS), None);
        assert_eq!(label(ALL_KINDS & !Kind::Flag.bit()), None);
        assert_eq!(label(Kind::Division.bit()).as_deref(), Some("师"));
        let top = Kind::Commander.bit() | Kind::General.bit() | Kind::Division.bit();
        assert_eq!(label(top | Kind::Mine.bit()).as_deref(), Some("≥师/雷"));
        assert_eq!(label(Kind::Platoon.bit() | Kind::Engineer.bit()).as_deref(), Some("≤排"));
        assert_eq!(label(Kind::Brigade.bit() | Kind::Regiment.bit()).as_deref(), Some("旅–团"));
        assert_eq!(label(Kind::Flag.bit() | Kind::Mine.bit()).as_deref(), Some("雷/旗"));
        let not_commander = junqi_core::piece::RANKED & !Kind::Commander.bit() | Kind::Bomb.bit() | Kind::Mine.bit();
        assert_eq!(label(not_commander), None, "军–排/炸/雷 is too long to help");
    }

    #[test]
    fn a_fresh_fanqi_deal_has_everything_in_the_pool_and_nothing_lost() {
        let game = Game::new(Position::new_game(Rules::preset(Mode::Fanqi), 3));
        let k = of(game.infoset(Seat::First));
        assert!(k.hints.is_empty());
        for colour in ["red", "black"] {
            assert_eq!(k.pool[colour].values().map(|&n| n as u32).sum::<u32>(), 25, "{colour}");
            assert!(k.captured[colour].is_empty(), "{:?}", k.captured);
        }
    }

    #[test]
    fn an_anqi_game_counts_lost_enemy_pieces_without_their_kinds() {
        let mut game = Game::new(Position::new_game(Rules::preset(Mode::Anqi), 11));
        let mut list = MoveList::new();
        let mut rng = junqi_core::rng_from_seed(2);
        use rand::Rng as _;
        // Random plies until some piece has gone.
        for _ in 0..400 {
            game.truth().legal_moves(&mut list);
            if list.is_empty() || game.truth().outcome_given(list.len()).is_some() {
                break;
            }
            let mv = *list.iter().nth(rng.random_range(0..list.len())).unwrap();
            game.play_unchecked(mv);
            if game.truth().pieces().count() < 44 {
                break;
            }
        }
        let k = of(game.infoset(Seat::First));
        let own = game.infoset(Seat::First).colour().unwrap();
        let (mine, theirs) = (own.name(), own.other().name());
        // Own losses by kind; the enemy's only by number.
        assert!(k.captured[mine].keys().all(|&c| c != '?'), "{:?}", k.captured);
        assert!(k.captured[theirs].keys().all(|&c| c == '?'), "{:?}", k.captured);
        let lost: u32 = k.captured.values().flat_map(|c| c.values()).map(|&n| n as u32).sum();
        assert_eq!(lost as usize, 50 - game.truth().pieces().count());
        assert!(k.pool.is_empty());
    }
}
