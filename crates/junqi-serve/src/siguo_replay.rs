//! A stored four-player game (a `junqi selfplay --siguo` or `arena --siguo`
//! dataset) step by step, as the referee or one seat saw it: that seat's
//! information set rebuilt from the referee's announcements.

use crate::datasets::Dataset;
use crate::siguo::{seat_board, token};
use crate::ApiError;
use junqi_selfplay::SiguoGame;
use junqi_siguo::{Army, Move, Node, Position, Rules, SiguoInfoSet};
use serde::{Deserialize, Serialize};

/// `GET /api/siguo/game?d=ID&id=N&view=all|0|1|2|3`.
#[derive(Deserialize, Debug)]
pub struct SiguoReplayQuery {
    pub d: String,
    pub id: u64,
    #[serde(default)]
    pub view: Option<String>,
}

/// A stored four-player game step by step, as the referee (`all`) or one
/// seat (its information set, rebuilt from the announcements) saw it.
#[derive(Serialize, Debug)]
pub struct SiguoReplay {
    /// `siguo`: what the page draws it on.
    pub game: &'static str,
    pub id: u64,
    pub view: String,
    pub mode: String,
    pub bots: Vec<String>,
    pub result: String,
    pub termination: String,
    pub moves: Vec<String>,
    /// The board (129 tokens) at the start and after each move.
    pub frames: Vec<Vec<String>>,
    /// The referee's announcement of each move, in words.
    pub events: Vec<String>,
}

/// The view a query names: `all` (or none) the referee, `0`–`3` an army.
pub fn parse_view(view: Option<&str>) -> Result<Option<Army>, ApiError> {
    match view.unwrap_or("all") {
        "all" => Ok(None),
        v => v
            .parse::<usize>()
            .ok()
            .and_then(Army::new)
            .map(Some)
            .ok_or_else(|| ApiError::bad_request(format!("view `{v}`: all, 0, 1, 2 or 3"))),
    }
}

/// Game `id` of a four-player dataset, read (through the cache).
pub fn find(data: &Dataset, id: u64) -> Result<&SiguoGame, ApiError> {
    let k = data
        .siguo
        .binary_search_by_key(&id, |g| g.game_id)
        .map_err(|_| ApiError::not_found(format!("no four-player game {id} in this dataset")))?;
    Ok(&data.siguo[k])
}

/// Replay `g` for `view` (`None`: the referee, every kind).
pub fn replay_stored(g: &SiguoGame, view: Option<Army>) -> Result<SiguoReplay, ApiError> {
    let bad = |m: String| ApiError::unreadable(format!("game {}: {m}", g.game_id));
    let rules = Rules::from_toml_str(&g.rules).map_err(|e| bad(format!("rules: {e}")))?;
    let mut pos = junqi_siguo::parse(&g.start, rules).map_err(|e| bad(format!("start: {e}")))?;
    let mut info = view.map(|a| SiguoInfoSet::new(&pos, a));
    let board = |pos: &Position, info: &Option<SiguoInfoSet>| match info {
        Some(i) => seat_board(i),
        None => {
            Node::all().map(|n| pos.piece_at(n).map_or_else(|| ".".into(), |p| token(p.army, Some(p.kind)))).collect()
        }
    };
    let mut frames = vec![board(&pos, &info)];
    let mut events = Vec::new();
    for (k, text) in g.moves.iter().enumerate() {
        let mv: Move = text.parse().map_err(|e| bad(format!("move {}: {e}", k + 1)))?;
        let before = pos.clone();
        let effect = pos.play(mv).map_err(|e| bad(format!("move {}: {e}", k + 1)))?;
        let a = junqi_siguo::Announcement::new(&before, mv, &effect, &pos);
        if let Some(i) = info.as_mut() {
            i.update(&a);
        }
        events.push(format!("{}. army {} {mv}: {:?}", k + 1, a.mover.index(), a.ruling));
        frames.push(board(&pos, &info));
    }
    Ok(SiguoReplay {
        game: "siguo",
        id: g.game_id,
        view: view.map_or("all".to_string(), |a| a.index().to_string()),
        mode: rules.mode.name().into(),
        bots: g.bots.to_vec(),
        result: g.result.clone(),
        termination: g.termination.clone(),
        moves: g.moves.clone(),
        frames,
        events,
    })
}
