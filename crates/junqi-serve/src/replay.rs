//! A stored game, step by step, as the omniscient referee or either seat
//! saw it: the board before the first move and after each one, what each
//! move did, and the bots' recorded policy and value where the samples
//! have them.

use crate::board::{encode, extras, Extras, FlagOrigins};
use crate::datasets::GameSummary;
use crate::knowledge::{self, Knowledge};
use crate::ApiError;
use junqi_core::{CombatOutcome, Effect, Game, Move, Observation, ObservedEvent, Piece, Position, Rules, Seat, Square};
use junqi_selfplay::{StoredGame, StoredSample};
use serde::{Deserialize, Serialize};

/// Whose eyes a replay is seen through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// The referee: every piece.
    All,
    /// What this seat knew at each ply.
    Seat(Seat),
}

impl std::str::FromStr for View {
    type Err = ApiError;
    fn from_str(s: &str) -> Result<View, ApiError> {
        match s {
            "" | "all" => Ok(View::All),
            "1" => Ok(View::Seat(Seat::First)),
            "2" => Ok(View::Seat(Seat::Second)),
            _ => Err(ApiError::bad_request(format!("view `{s}`: all, 1 or 2"))),
        }
    }
}

#[derive(Deserialize, Debug)]
pub struct ReplayQuery {
    /// The dataset (`R/path`).
    pub d: String,
    pub id: u64,
    /// `all` (default), `1` or `2`.
    pub view: Option<String>,
}

/// One step: the board after a move (or the start), and what the move did.
#[derive(Serialize, Debug)]
pub struct Frame {
    pub board: String,
    /// The move that led here, in words as the view saw it (empty at the start).
    pub event: String,
    /// Squares the move touched, for marking (empty at the start).
    pub from: String,
    pub to: String,
    /// The seat to move next: 1 or 2.
    pub to_move: u8,
    /// A seat's view only: what its information set knows beyond the board
    /// (the referee's board says it all).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub knowledge: Option<Knowledge>,
    /// Flags on pieces, the mountains' pieces (扛军旗, 山界).
    #[serde(flatten)]
    pub extras: Extras,
}

/// A bot's recorded search output at one ply.
#[derive(Serialize, Debug)]
pub struct SampleView {
    pub ply: u32,
    pub seat: u8,
    pub value: Option<f32>,
    /// The most likely actions and their probabilities, best first (at most 8).
    pub policy: Vec<(String, f32)>,
    pub played: String,
}

#[derive(Serialize, Debug)]
pub struct Replay {
    /// The game as a list shows it (id, bots, result, termination, plies, variant).
    #[serde(flatten)]
    pub game: GameSummary,
    pub view: String,
    pub moves: Vec<String>,
    /// `frames[0]` is the start, `frames[k]` the board after move k.
    pub frames: Vec<Frame>,
    /// The omniscient view only: each frame's position in JFEN.
    pub jfen: Vec<String>,
    pub samples: Vec<SampleView>,
    /// Why the samples could not be read (the game is shown without them).
    pub samples_error: Option<String>,
    /// Where the stored game disagrees with the rules (frames stop there).
    pub error: Option<String>,
}

/// A piece in words: `红 师长`.
pub fn piece_words(p: Piece) -> String {
    format!("{} {}", p.colour.chinese(), p.kind.chinese())
}

fn maybe_piece(p: Option<Piece>) -> String {
    p.map_or_else(|| "?".to_string(), piece_words)
}

fn combat_words(o: CombatOutcome) -> &'static str {
    match o {
        CombatOutcome::AttackerWon => "takes",
        CombatOutcome::DefenderWon => "loses to",
        CombatOutcome::BothRemoved => "trades with",
        CombatOutcome::FlagCaptured => "captures the flag",
        CombatOutcome::Scouted => "scouts",
        CombatOutcome::Bounced => "turns up",
    }
}

/// What `effect` of `mv` was, with the true kinds (the referee's words).
pub fn effect_words(mv: Move, effect: &Effect) -> String {
    match *effect {
        Effect::Flip { piece } => format!("{mv}: flips {}", piece_words(piece)),
        Effect::Move { piece } => format!("{mv}: {}", piece_words(piece)),
        Effect::Attack { attacker, defender, outcome } => {
            format!("{mv}: {} {} {}", piece_words(attacker), combat_words(outcome), piece_words(defender))
        }
    }
}

/// What a seat saw of a move: kinds it may not see are `?`.
pub fn observation_words(obs: &Observation) -> String {
    let mv = obs.mv;
    let mut text = match obs.event {
        ObservedEvent::Flip { piece } => format!("{mv}: flips {}", piece_words(piece)),
        ObservedEvent::Move { piece } => format!("{mv}: {}", maybe_piece(piece)),
        ObservedEvent::Attack { attacker, defender, outcome } => {
            format!("{mv}: {} {} {}", maybe_piece(attacker), combat_words(outcome), maybe_piece(defender))
        }
    };
    for (sq, p) in obs.revealed.iter().flatten() {
        text.push_str(&format!("; {} on {sq} made public", piece_words(*p)));
    }
    text
}

/// What an action did under the newer rules that its words do not say
/// (扛军旗, 山界), from the position before and after it (the truth, or a
/// seat's view: what is said is public); `None` for any other action.
pub fn rules_note(before: &Position, after: &Position, mv: Move) -> Option<&'static str> {
    if mv.is_flip() {
        if before.is_face_down(mv.from) {
            return None;
        }
        // The node named twice: a carrier's flag, or a mountain (docs/rules.md §3, §5.3).
        return Some(if before.carried_flag_at(mv.from).is_some() {
            "puts the flag down"
        } else if before.is_occupied(mv.from) {
            "goes into the mountain"
        } else {
            "comes out of the mountain"
        });
    }
    let flag = after.carried_flag_at(mv.to)?;
    if after.outcome().is_some_and(|o| o.termination == junqi_core::Termination::FlagCaptured) {
        Some("brings the flag home and wins")
    } else if before.carried_flag_at(mv.from) != Some(flag) {
        Some("picks the flag up")
    } else {
        None
    }
}

/// `words` with the rules' note on the action, if any (`… — picks the flag up`).
pub fn with_note(words: String, note: Option<&str>) -> String {
    match note {
        Some(note) => format!("{words} — {note}"),
        None => words,
    }
}

/// The frames of `game` seen through `view`.
pub fn replay(game: &StoredGame, view: View, variant: String) -> Replay {
    let mut r = Replay {
        game: GameSummary::of(game, variant),
        view: match view {
            View::All => "all".into(),
            View::Seat(s) => (s.index() + 1).to_string(),
        },
        moves: game.moves.clone(),
        frames: Vec::new(),
        jfen: Vec::new(),
        samples: Vec::new(),
        samples_error: None,
        error: None,
    };
    let rules: Rules = match serde_json::from_str::<Rules>(&game.rules) {
        Ok(rules) => match rules.validate() {
            Ok(()) => rules,
            Err(e) => {
                r.error = Some(format!("the game's rules cannot be played: {e}"));
                return r;
            }
        },
        Err(e) => {
            r.error = Some(format!("the game's rules cannot be read: {e}"));
            return r;
        }
    };
    let start = match Position::from_jfen(&game.start_jfen, rules) {
        Ok(p) => p,
        Err(e) => {
            r.error = Some(format!("the game's start position cannot be read: {e}"));
            return r;
        }
    };
    let mut g = Game::new(start);
    let seen = |g: &Game| match view {
        View::All => g.truth().clone(),
        View::Seat(s) => g.infoset(s).view().clone(),
    };
    let mut origins = FlagOrigins::default();
    let to_move = |g: &Game| g.truth().turn().index() as u8 + 1;
    let known = |g: &Game| match view {
        View::All => None,
        View::Seat(s) => Some(knowledge::of(g.infoset(s))),
    };
    let mut before = seen(&g);
    r.frames.push(Frame {
        board: encode(&before),
        event: String::new(),
        from: String::new(),
        to: String::new(),
        to_move: to_move(&g),
        knowledge: known(&g),
        extras: extras(&before, &origins),
    });
    if view == View::All {
        r.jfen.push(g.truth().to_jfen());
    }
    for (i, text) in game.moves.iter().enumerate() {
        let mv: Move = match text.parse() {
            Ok(m) => m,
            Err(e) => {
                r.error = Some(format!("move {} `{text}`: {e}", i + 1));
                return r;
            }
        };
        let (effect, obs) = match g.play(mv) {
            Ok(x) => x,
            Err(e) => {
                r.error = Some(format!("move {} `{text}` is illegal here: {e}", i + 1));
                return r;
            }
        };
        let after = seen(&g);
        origins.note(&before, &after, mv);
        let words = match view {
            View::All => effect_words(mv, &effect),
            View::Seat(s) => observation_words(&obs[s.index()]),
        };
        r.frames.push(Frame {
            board: encode(&after),
            event: with_note(words, rules_note(&before, &after, mv)),
            from: mv.from.to_string(),
            to: mv.to.to_string(),
            to_move: to_move(&g),
            knowledge: known(&g),
            extras: extras(&after, &origins),
        });
        before = after;
        if view == View::All {
            r.jfen.push(g.truth().to_jfen());
        }
    }
    r
}

/// Game `id`'s recorded samples (`rows`, from its samples shard) seen
/// through `view`: only that seat's in a seat's view.
pub fn samples(rows: &[StoredSample], view: View) -> Vec<SampleView> {
    let mut out = Vec::new();
    for row in rows {
        let s = &row.sample;
        if let View::Seat(seat) = view {
            if s.seat != seat.index() as u8 + 1 {
                continue;
            }
        }
        let action = |id: u16| frame_move(id, s.seat);
        let mut policy: Vec<(String, f32)> = s.legal.iter().zip(&s.policy).map(|(&a, &p)| (action(a), p)).collect();
        policy.sort_by(|a, b| b.1.total_cmp(&a.1));
        policy.truncate(8);
        out.push(SampleView { ply: s.ply, seat: s.seat, value: s.value, policy, played: action(s.action) });
    }
    out
}

/// A mover's-frame action id (`from * 60 + to`; seat 2 sees the board
/// turned round) as a move on the board.
/// `?` for an id outside the 60 × 60 table.
fn frame_move(id: u16, seat: u8) -> String {
    let (Some(from), Some(to)) = (Square::new(id as usize / 60), Square::new(id as usize % 60)) else {
        return "?".into();
    };
    let turn = |s: Square| if seat == 2 { s.rotated() } else { s };
    format!("{}{}", turn(from), turn(to))
}

#[cfg(test)]
mod tests {
    use super::*;
    use junqi_core::{Mode, MoveList};

    fn random_game(mode: Mode, seed: u64) -> StoredGame {
        let rules = Rules::preset(mode);
        let start = Position::new_game(rules, seed);
        let mut pos = start.clone();
        let mut list = MoveList::new();
        let mut moves = Vec::new();
        let mut rng = junqi_core::rng_from_seed(seed);
        use rand::Rng as _;
        while moves.len() < 60 {
            pos.legal_moves(&mut list);
            if pos.outcome_given(list.len()).is_some() {
                break;
            }
            let mv = *list.iter().nth(rng.random_range(0..list.len())).unwrap();
            moves.push(mv.to_string());
            pos.play_unchecked(mv);
        }
        StoredGame {
            game_id: 3,
            rules: serde_json::to_string(&rules).unwrap(),
            seed,
            start_jfen: start.to_jfen(),
            plies: moves.len() as u32,
            moves,
            result: "1/2-1/2".into(),
            termination: "max_plies".into(),
            bots: ["random".into(), "random".into()],
            code_version: "test".into(),
        }
    }

    #[test]
    fn a_carried_flag_is_in_every_view_of_its_frames_with_the_node_it_left() {
        let mut rules = Rules::preset(Mode::Fanqi);
        rules.flag_carry = true;
        let g = StoredGame {
            game_id: 1,
            rules: serde_json::to_string(&rules).unwrap(),
            seed: 0,
            // Red's 工兵 on b3 beside Black's flag on b2, no black mine left.
            start_jfen: "4l/5/5/5/5/5/5/5/5/1E3/1f3/3F1 fanqi 1 r 0 0".into(),
            moves: ["b3b2", "e12e11", "b2c2", "e11e12", "c2c2"].map(String::from).to_vec(),
            result: "1/2-1/2".into(),
            termination: "max_plies".into(),
            plies: 5,
            bots: ["random".into(), "random".into()],
            code_version: "test".into(),
        };
        for view in [View::All, View::Seat(Seat::First), View::Seat(Seat::Second)] {
            let r = replay(&g, view, "fanqi flag_carry=true".into());
            assert!(r.error.is_none(), "{:?}", r.error);
            let flags: Vec<_> = r.frames.iter().map(|f| f.extras.loose_flags.clone()).collect();
            assert!(flags[0].is_empty());
            let carried = |at: &str| {
                vec![crate::board::FlagOnPiece {
                    colour: "black",
                    at: at.into(),
                    carried: true,
                    from: Some("b2".into()),
                }]
            };
            assert_eq!(flags[1], carried("b2"));
            assert_eq!(flags[3], carried("c2"), "the node it was picked up from stays known");
            assert!(!flags[5][0].carried && flags[5][0].from.is_none());
            assert!(r.frames[1].event.ends_with("— picks the flag up"), "{}", r.frames[1].event);
            assert!(r.frames[5].event.ends_with("— puts the flag down"), "{}", r.frames[5].event);
            assert!(r.frames.iter().all(|f| f.extras.mountains.is_none()), "closed mountains are not sent");
        }
    }

    #[test]
    fn the_omniscient_replay_ends_on_the_position_the_rules_give() {
        let g = random_game(Mode::Fanqi, 5);
        let r = replay(&g, View::All, "fanqi".into());
        assert!(r.error.is_none(), "{:?}", r.error);
        assert_eq!(r.frames.len(), g.moves.len() + 1);
        let mut pos = Position::from_jfen(&g.start_jfen, serde_json::from_str(&g.rules).unwrap()).unwrap();
        for m in &g.moves {
            pos.play_unchecked(m.parse().unwrap());
        }
        assert_eq!(r.jfen.last().unwrap(), &pos.to_jfen());
        assert_eq!(r.frames.last().unwrap().board, encode(&pos));
    }

    #[test]
    fn a_seat_replay_of_anqi_never_names_a_hidden_enemy_kind() {
        let g = random_game(Mode::Anqi, 9);
        let r = replay(&g, View::Seat(Seat::First), "anqi".into());
        assert!(r.error.is_none() && r.jfen.is_empty());
        // Seat 1 is red in 暗棋: no black kind letter appears before one is made public.
        let mut public = false;
        for f in &r.frames {
            public |= f.event.contains("made public");
            assert!(public || f.board.split(' ').all(|t| !t.starts_with('b') || t == "b?"), "{}", f.board);
        }
        assert_eq!(frame_move(3600, 1), "?");
        assert_eq!(frame_move(5 * 60 + 10, 1), "a2a3");
        assert_eq!(frame_move(5 * 60 + 10, 2), "e11e10");
        // A seat's frames carry its knowledge: hints on enemy (black) pieces only.
        for f in &r.frames {
            let k = f.knowledge.as_ref().unwrap();
            let tokens: Vec<&str> = f.board.split(' ').collect();
            for sq in k.hints.keys() {
                let i = sq.parse::<Square>().unwrap().index();
                assert_eq!(tokens[i], "b?", "{sq}");
            }
        }
        assert!(r.frames.iter().any(|f| !f.knowledge.as_ref().unwrap().hints.is_empty()), "no fight narrowed a kind");
        assert!(replay(&g, View::All, "anqi".into()).frames.iter().all(|f| f.knowledge.is_none()));
        let bad = StoredGame { moves: vec!["a1a1".into()], ..g };
        assert!(replay(&bad, View::All, String::new()).error.is_some());
    }
}
