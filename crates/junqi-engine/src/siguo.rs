//! The four-player (四国军棋) engine protocol (docs/protocol.md, "Four
//! players"): what a seat knows as text and back, and `junqi engine --siguo
//! --bot SPEC`, one of our four-player bots behind it.
//!
//! ```text
//! newgame siguo <mode> <option>=<value> … seat <0|1|2|3> seed <n>
//! position <view> [start <view> moves <event> …]
//! ```
//!
//! * a **view** is the position in the four-seat notation of docs/rules.md
//!   §10.4 as the seat sees it: a piece whose kind the seat does not know
//!   is `?` and its army's letter (`?e`); only the kinds the seat sees (its
//!   own, its ally's in 双明, every one in 全明) and the kinds it has
//!   identified (a shown flag) are written;
//! * an **event** is one announcement of the referee (§10.13), the same to
//!   every seat and never a kind: `<move>[:<ruling>][^<flag node>…][~<army><f|x>…]`.
//!
//! A seat's information set is rebuilt from the start view and the events
//! ([`decode_siguo_position`]), exactly the one the referee keeps (tested on
//! every ply of random games), so the engine needs no memory between moves.

use junqi_core::setup::Deployment;
use junqi_core::Kind;
use junqi_siguo::{
    Announcement, Army, EndCause, Move, MoveList, Node, Outcome, Piece, Position, Rules, Ruling, SiguoBot,
    SiguoInfoSet, Team, Termination, NODES, OPTION_NAMES,
};
use std::io::{BufRead, Write};

/// The longest command line `junqi engine --siguo` reads: a position line
/// carries every event of the game (about 10 bytes each), so a game of
/// 4000 plies needs some 50 KB; longer games up to 1 MiB.
pub const SIGUO_MAX_LINE: usize = 1024 * 1024;

/// A filler kind for pieces whose kind a seat does not know (never a flag
/// or a 司令, so no flag passes for shown).
const FILLER: Kind = Kind::Platoon;

// ---------------------------------------------------------------- rules

/// `siguo <mode> <option>=<value> …`: every option of §10.11, in its order.
pub fn encode_siguo_rules(rules: &Rules) -> String {
    let mut out = format!("siguo {}", rules.mode);
    for name in OPTION_NAMES {
        out.push_str(&format!(" {name}={}", rules.value(name).expect("a known option")));
    }
    out
}

/// Rules from `siguo <mode> [<option>=<value> …]` (options left out keep the mode's preset).
pub fn decode_siguo_rules(words: &[&str]) -> Result<Rules, String> {
    let [first, mode, options @ ..] = words else {
        return Err("expected `siguo <mode> [<option>=<value> ...]`".into());
    };
    if *first != "siguo" {
        return Err(format!("expected `siguo`, found `{first}`"));
    }
    let mode = mode.parse().map_err(|e| format!("{e}"))?;
    let mut rules = Rules::preset(mode);
    for o in options {
        rules.apply_override(o).map_err(|e| format!("{e}"))?;
    }
    Ok(rules)
}

/// The usage of the four-player `newgame`.
pub const SIGUO_NEWGAME_USAGE: &str = "usage: newgame siguo <mode> [<option>=<value> ...] seat <0|1|2|3> [seed <n>]";

/// `newgame siguo <mode> <option>=<value> … seat <s> seed <n>`.
pub fn newgame_line(rules: &Rules, seat: Army, seed: u64) -> String {
    format!("newgame {} seat {} seed {seed}", encode_siguo_rules(rules), seat.index())
}

/// The words after `newgame`: the rules, the seat and the seed.
pub fn parse_newgame(args: &[&str]) -> Result<(Rules, Army, Option<u64>), String> {
    let Some(at) = args.iter().position(|&w| w == "seat") else { return Err(SIGUO_NEWGAME_USAGE.into()) };
    let (rules_words, tail) = args.split_at(at);
    let seat = tail
        .get(1)
        .and_then(|w| w.parse::<usize>().ok())
        .and_then(Army::new)
        .filter(|_| tail[1].len() == 1)
        .ok_or_else(|| format!("seat must be 0, 1, 2 or 3; {SIGUO_NEWGAME_USAGE}"))?;
    let seed = match &tail[2..] {
        [] => None,
        ["seed", n] => Some(
            n.parse::<u64>()
                .map_err(|_| format!("seed `{n}` is not a number from 0 to {}; {SIGUO_NEWGAME_USAGE}", u64::MAX))?,
        ),
        _ => return Err(format!("after the seat only `seed <n>` may come; {SIGUO_NEWGAME_USAGE}")),
    };
    let rules = decode_siguo_rules(rules_words).map_err(|e| format!("{e}; {SIGUO_NEWGAME_USAGE}"))?;
    Ok((rules, seat, seed))
}

// ---------------------------------------------------------------- views

use junqi_siguo::notation::{read_board, write_board, Square};

/// What `info`'s seat sees, in the four-seat notation with `?` for every
/// kind it does not know (a piece is written with its letter exactly when
/// its kind is certain to the seat).
pub fn encode_view(info: &SiguoInfoSet) -> String {
    let at = |n: Node| info.army_at(n).map(|a| (a, info.known_kind(n)));
    let mut out = String::new();
    write_board(&mut out, at);
    let mut ended = String::new();
    for army in Army::ALL {
        if let Some(cause) = info.ended(army) {
            ended.push(army.letter());
            ended.push(end_letter(cause));
        }
    }
    if ended.is_empty() {
        ended.push('-');
    }
    out.push_str(&format!(" {} {} {ended} {} {}", info.mode(), info.turn().letter(), info.quiet(), info.ply()));
    out
}

fn end_letter(cause: EndCause) -> char {
    match cause {
        EndCause::FlagCaptured => 'f',
        EndCause::NoLegalMove => 'x',
    }
}

fn end_cause(c: char) -> Option<EndCause> {
    match c {
        'f' => Some(EndCause::FlagCaptured),
        'x' => Some(EndCause::NoLegalMove),
        _ => None,
    }
}

/// A view read back.
#[derive(Clone, Debug, PartialEq)]
struct View {
    board: Vec<Square>,
    turn: Army,
    ended: [Option<EndCause>; 4],
    quiet: u32,
    ply: u32,
}

/// Read a view (six words) under `rules`.
fn decode_view(fields: &[&str], rules: &Rules) -> Result<View, String> {
    let [board_text, mode, turn, ended_text, quiet, ply] = fields else {
        return Err(format!(
            "a view has 6 words (<board> <mode> <turn> <ended> <quiet> <ply>), found {}",
            fields.len()
        ));
    };
    if *mode != rules.mode.name() {
        return Err(format!("view: mode `{mode}`, but the game is {}", rules.mode));
    }
    let groups: Vec<&str> = board_text.split('/').collect();
    if groups.len() != 5 {
        return Err(format!("view: {} groups separated by `/`, expected 5", groups.len()));
    }
    let mut board = vec![None; NODES];
    let groups: [&str; 5] = groups.try_into().expect("five groups");
    read_board(&groups, true, |node, army, kind| board[node.index()] = Some((army, kind)))
        .map_err(|e| format!("view: {e}"))?;
    let turn = match turn.chars().collect::<Vec<_>>()[..] {
        [c] => Army::from_letter(c),
        _ => None,
    }
    .ok_or_else(|| format!("view: turn `{turn}` is not an army letter"))?;
    let mut ended = [None; 4];
    if *ended_text != "-" {
        let chars: Vec<char> = ended_text.chars().collect();
        if !chars.len().is_multiple_of(2) {
            return Err(format!("view: ended `{ended_text}`"));
        }
        for pair in chars.chunks(2) {
            let army = Army::from_letter(pair[0]).ok_or_else(|| format!("view: ended `{ended_text}`"))?;
            ended[army.index()] = Some(end_cause(pair[1]).ok_or_else(|| format!("view: ended `{ended_text}`"))?);
        }
    }
    let number = |what: &str, t: &str| t.parse::<u32>().map_err(|_| format!("view: {what} `{t}` is not a number"));
    Ok(View { board, turn, ended, quiet: number("quiet", quiet)?, ply: number("ply", ply)? })
}

/// A position with every piece of `view` where it stands, its written kind
/// or [`FILLER`], and the view's turn, ended armies and counters (not
/// settled: only what the seat is told is in it).
fn stand_in(view: &View, rules: &Rules) -> Position {
    let mut pos = Position::empty(*rules);
    for n in Node::all() {
        if let Some((army, kind)) = view.board[n.index()] {
            pos.put(n, Piece::new(army, kind.unwrap_or(FILLER)));
        }
    }
    for army in Army::ALL {
        pos.set_ended(army, view.ended[army.index()]);
    }
    pos.set_turn(view.turn);
    pos.set_counters(view.quiet, view.ply);
    pos
}

// ---------------------------------------------------------------- events

/// One announcement as an event: `<move>[:<ruling>][^<flag node>…][~<army><f|x>…]`.
pub fn encode_event(a: &Announcement) -> String {
    let mut out = a.mv.to_string();
    let ruling = match a.ruling {
        Ruling::Move => "",
        Ruling::AttackerWon => ":a",
        Ruling::DefenderWon => ":d",
        Ruling::BothRemoved => ":b",
        Ruling::FlagCaptured { capturer_removed: false } => ":f",
        Ruling::FlagCaptured { capturer_removed: true } => ":fb",
        Ruling::Stopped => ":s",
    };
    out.push_str(ruling);
    for flag in a.flag_shown.iter().flatten() {
        out.push('^');
        out.push_str(&flag.to_string());
    }
    for army in Army::ALL {
        if let Some(cause) = a.ended[army.index()] {
            out.push('~');
            out.push(army.letter());
            out.push(end_letter(cause));
        }
    }
    out
}

/// The move, ruling, shown flags and ended armies of one event.
type Event = (Move, Ruling, [Option<Node>; 4], [Option<EndCause>; 4]);

fn decode_event(text: &str) -> Result<Event, String> {
    let bad = |why: &str| format!("event `{text}`: {why}");
    let cut = text.find([':', '^', '~']).unwrap_or(text.len());
    let mv: Move = text[..cut].parse().map_err(|e| bad(&format!("{e}")))?;
    let mut rest = &text[cut..];
    let mut ruling = Ruling::Move;
    if let Some(r) = rest.strip_prefix(':') {
        let end = r.find(['^', '~']).unwrap_or(r.len());
        ruling = match &r[..end] {
            "a" => Ruling::AttackerWon,
            "d" => Ruling::DefenderWon,
            "b" => Ruling::BothRemoved,
            "f" => Ruling::FlagCaptured { capturer_removed: false },
            "fb" => Ruling::FlagCaptured { capturer_removed: true },
            "s" => Ruling::Stopped,
            other => return Err(bad(&format!("`{other}` is not a ruling (a, d, b, f, fb, s)"))),
        };
        rest = &r[end..];
    }
    let mut flags = [None; 4];
    let mut ended = [None; 4];
    while !rest.is_empty() {
        let (mark, body) = rest.split_at(1);
        let end = body.find(['^', '~']).unwrap_or(body.len());
        let item = &body[..end];
        rest = &body[end..];
        match mark {
            "^" => {
                let node: Node = item.parse().map_err(|e| bad(&format!("{e}")))?;
                let army = node.zone().ok_or_else(|| bad("a flag stands in its army's zone"))?;
                flags[army.index()] = Some(node);
            }
            _ => {
                let mut c = item.chars();
                let (Some(army), Some(cause), None) =
                    (c.next().and_then(Army::from_letter), c.next().and_then(end_cause), c.next())
                else {
                    return Err(bad(&format!("`~{item}` is not an army letter and f or x")));
                };
                ended[army.index()] = Some(cause);
            }
        }
    }
    Ok((mv, ruling, flags, ended))
}

// ---------------------------------------------------------------- deployments

/// `<node><kind> …`: `army`'s deployment (written on Red's half, as
/// [`junqi_siguo::setup::validate`] reads it) on the nodes of its own zone,
/// in node order: `sa1F sb1M …` for army 0, `na1F …` for army 2.
pub fn encode_siguo_deployment(army: Army, deployment: &Deployment) -> String {
    let mut pieces: Vec<(Node, Kind)> = deployment
        .pieces
        .iter()
        .map(|&(sq, kind)| (Node::in_zone(army, sq).expect("a deployment lies on Red's half"), kind))
        .collect();
    pieces.sort_by_key(|(node, _)| node.index());
    pieces.iter().map(|(node, kind)| format!("{node}{}", kind.letter())).collect::<Vec<_>>().join(" ")
}

/// `army`'s deployment from the `<node><kind>` words of a `deployment`
/// answer: nodes of its own zone, kind letters of rules.md §2 in either
/// case; checked against the deployment rules of §10.5 under `rules`.
pub fn decode_siguo_deployment(words: &[&str], army: Army, rules: &Rules) -> Result<Deployment, String> {
    let mut pieces = Vec::with_capacity(words.len());
    for word in words {
        let bad = |why: &str| format!("deployment: `{word}` {why}");
        let letter = word.chars().last().ok_or_else(|| bad("is empty"))?;
        let kind = Kind::from_letter(letter).ok_or_else(|| bad("does not end with a kind letter"))?;
        let node: Node = word[..word.len() - letter.len_utf8()]
            .parse()
            .map_err(|_| bad(&format!("is not <node><kind> (a node of {army}'s zone, like {}a1F)", army.letter())))?;
        let square = node.square().filter(|_| node.zone() == Some(army));
        let square = square.ok_or_else(|| bad(&format!("is not on {army}'s zone")))?;
        pieces.push((square, kind));
    }
    let deployment = Deployment { colour: junqi_core::piece::Colour::Red, pieces };
    junqi_siguo::setup::validate(army, &deployment, rules).map_err(|e| format!("deployment: {e}"))?;
    Ok(deployment)
}

/// The handshake line of an engine that deploys its own army in four-player games.
pub(crate) const DEPLOYS_SIGUO: &str = "deploys siguo";

/// Whether a handshake's lines say [`DEPLOYS_SIGUO`] (read alike by the
/// host and by `engine-check`).
pub(crate) fn says_deploys_siguo(hello: &[String]) -> bool {
    hello.iter().any(|l| l.split_whitespace().eq(DEPLOYS_SIGUO.split(' ')))
}

/// Whether `bot` deploys its own armies ([`SiguoBot::deploy`]: a net with
/// a learned deployment model, or the search guided by one): asked once,
/// for army 0 under the 四国暗棋 preset, from a throwaway stream.
fn bot_deploys(bot: &mut dyn SiguoBot) -> bool {
    let rules = Rules::preset(junqi_siguo::Mode::Anqi);
    bot.deploy(Army::ALL[0], &rules, &mut junqi_core::rng_from_seed(0)).is_some()
}

// ---------------------------------------------------------------- knowledge

/// The outcome a seat can tell from a view: a team with both armies ended
/// lost; the counters' draws (§10.8, §10.9). (A draw because nobody can
/// move is not told by the view; a host never asks for a move in a
/// finished game.)
fn told_outcome(view: &View, rules: &Rules) -> Option<Outcome> {
    for team in Team::BOTH {
        if team.armies().iter().all(|a| view.ended[a.index()].is_some()) {
            return Some(Outcome { winner: Some(team.other()), termination: Termination::TeamEliminated });
        }
    }
    if view.quiet >= rules.no_progress_plies {
        return Some(Outcome { winner: None, termination: Termination::QuietPlies });
    }
    (view.ply >= rules.max_plies).then_some(Outcome { winner: None, termination: Termination::MaxPlies })
}

/// What a host keeps to write a seat's position lines: the seat's view of
/// the start and the events since.
#[derive(Clone, Debug)]
pub struct SiguoRecord {
    start: String,
    events: Vec<String>,
}

impl SiguoRecord {
    /// A game whose seat knows `info` at the start.
    pub fn new(info: &SiguoInfoSet) -> SiguoRecord {
        SiguoRecord { start: encode_view(info), events: Vec::new() }
    }

    /// The referee announced a move.
    pub fn observe(&mut self, a: &Announcement) {
        self.events.push(encode_event(a));
    }

    /// The text after `position` for the seat, which knows `info` now.
    pub fn position(&self, info: &SiguoInfoSet) -> String {
        let view = encode_view(info);
        if self.events.is_empty() {
            return view;
        }
        format!("{view} start {} moves {}", self.start, self.events.join(" "))
    }
}

/// The information set of `seat` from the text after `position`:
/// rebuilt from the start view and the events exactly as the referee's,
/// then checked against the view.
pub fn decode_siguo_position(text: &str, rules: &Rules, seat: Army) -> Result<SiguoInfoSet, String> {
    PositionReader::default().read(text, rules, seat)
}

/// A position line cut into its parts.
struct PositionLine<'a> {
    /// The six words of the view now, as sent.
    view_words: &'a [&'a str],
    view: View,
    start: View,
    /// The start view's six words as sent (the view's own at the first move).
    start_words: &'a [&'a str],
    events: &'a [&'a str],
}

fn split_position<'a>(words: &'a [&'a str], rules: &Rules) -> Result<PositionLine<'a>, String> {
    if words.len() < 6 {
        return Err("usage: position <view> [start <view> moves <event> ...]".into());
    }
    let (view_words, rest) = words.split_at(6);
    let view = decode_view(view_words, rules)?;
    let (start, start_words, events) = match rest {
        [] => (view.clone(), view_words, &[][..]),
        ["start", tail @ ..] if tail.len() >= 7 && tail[6] == "moves" => {
            (decode_view(&tail[..6], rules).map_err(|e| format!("start {e}"))?, &tail[..6], &tail[7..])
        }
        _ => return Err("after the view only `start <view> moves <event> ...` may come".into()),
    };
    Ok(PositionLine { view_words, view, start, start_words, events })
}

/// Reads a game's position lines in turn without replaying each from the
/// start: a line grows by the events since the last (about 10 bytes a ply),
/// so replaying every line whole costs the square of the game's length.
/// When a line has the last one's start and rules and extends its events,
/// only the new events are applied to the set kept from the last line;
/// any other line is replayed from its start. Either way the set is the
/// one a whole replay gives: the set is kept *before* the last line's last
/// event, so at least one event is applied to every line with events, and
/// what an event takes from the view (turn, counters, outcome) is always
/// the new view's, exactly as in a whole replay.
#[derive(Default)]
pub struct PositionReader {
    kept: Option<Kept>,
    /// Events applied so far, over every line (what the tests count).
    pub applied: usize,
}

/// The set after the first `events.len()` events of a line with this start.
struct Kept {
    rules: Rules,
    seat: Army,
    start: String,
    events: Vec<String>,
    info: SiguoInfoSet,
}

impl PositionReader {
    /// The information set of `seat` from the text after `position`, as
    /// [`decode_siguo_position`] rebuilds it.
    pub fn read(&mut self, text: &str, rules: &Rules, seat: Army) -> Result<SiguoInfoSet, String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let line = split_position(&words, rules)?;
        let start = line.start_words.join(" ");
        let kept = self.kept.take().filter(|k| {
            k.rules == *rules
                && k.seat == seat
                && k.start == start
                && k.events.len() < line.events.len().max(1)
                && k.events.iter().zip(line.events).all(|(a, b)| a == b)
        });
        let (mut info, done) = match kept {
            Some(k) => (k.info, k.events),
            None => {
                check_start_view(&line.start, rules, seat)?;
                (SiguoInfoSet::new(&stand_in(&line.start, rules), seat), Vec::new())
            }
        };
        let outcome = told_outcome(&line.view, rules);
        let last = line.events.len().saturating_sub(1);
        let mut events = done;
        for (i, text) in line.events.iter().enumerate().skip(events.len()) {
            if i == last {
                self.kept = Some(Kept { rules: *rules, seat, start: start.clone(), events, info: info.clone() });
                events = Vec::new();
            }
            apply_event(&mut info, text, &line.view, outcome)?;
            self.applied += 1;
            if i != last {
                events.push(text.to_string());
            }
        }
        if line.events.is_empty() {
            self.kept = Some(Kept { rules: *rules, seat, start, events: Vec::new(), info: info.clone() });
        }
        let rebuilt = encode_view(&info);
        if rebuilt != line.view_words.join(" ") {
            self.kept = None;
            return Err(format!("inconsistent position: the start and the moves give `{rebuilt}`, not the view"));
        }
        if let Some(why) = info.inconsistency() {
            self.kept = None;
            return Err(format!("inconsistent position: {why}"));
        }
        Ok(info)
    }
}

/// The seat must be told every kind it sees, and no more at the start than
/// its own kinds (its ally's in 双明, all in 全明) and shown flags: the flag
/// of a live army it does not see, and only where that army's 司令 may have
/// left the board (fewer than 25 of its pieces stand, so never at a game's
/// deal), §10.8 司令阵亡，军旗亮开.
fn check_start_view(start: &View, rules: &Rules, seat: Army) -> Result<(), String> {
    let probe = SiguoInfoSet::new(&Position::empty(*rules), seat);
    let mut on_board = [0usize; 4];
    for (army, _) in start.board.iter().flatten() {
        on_board[army.index()] += 1;
    }
    let mut flags = [0usize; 4];
    for n in Node::all() {
        if let Some((army, kind)) = start.board[n.index()] {
            if probe.sees(army) == kind.is_some() {
                continue;
            }
            let a = army.index();
            let shown_flag = kind == Some(Kind::Flag) && start.ended[a].is_none() && on_board[a] < 25;
            flags[a] += shown_flag as usize;
            if !shown_flag || flags[a] > 1 {
                return Err(format!(
                    "inconsistent position: the start view writes the piece on {n} {}",
                    if kind.is_some() {
                        "with a kind the seat does not see (a flag only once its army's 司令 has left the board)"
                    } else {
                        "as `?`, but the seat sees it"
                    }
                ));
            }
        }
    }
    Ok(())
}

/// Apply one event to `info`, with the turn, counters and outcome of the
/// line's view (the last event applied leaves them in the set).
fn apply_event(info: &mut SiguoInfoSet, text: &str, view: &View, outcome: Option<Outcome>) -> Result<(), String> {
    let (mv, ruling, flag_shown, ended) = decode_event(text)?;
    let mover = info.army_at(mv.from).ok_or_else(|| format!("event `{text}`: no piece on {}", mv.from))?;
    if info.army_at(mv.to).is_some_and(|a| a.team() == mover.team()) {
        return Err(format!("event `{text}`: {} holds an allied piece", mv.to));
    }
    if (ruling == Ruling::Move) != info.army_at(mv.to).is_none() {
        return Err(format!("event `{text}`: the ruling does not fit the board"));
    }
    info.update(&Announcement {
        mv,
        mover,
        ruling,
        flag_shown,
        ended,
        turn: view.turn,
        quiet: view.quiet,
        ply: view.ply,
        outcome,
    });
    Ok(())
}

// ---------------------------------------------------------------- server

/// The engine's state between commands.
struct Engine {
    spec: String,
    bot: Box<dyn SiguoBot>,
    game: Option<Game>,
    /// The handshake said `deploys siguo` (its bot then deployed by itself).
    announced_deploys: bool,
}

struct Game {
    rules: Rules,
    seat: Army,
    rng: junqi_core::GameRng,
    info: Option<SiguoInfoSet>,
    /// Reads each position line from where the last one left off.
    reader: PositionReader,
}

fn build(spec: &str) -> Result<Box<dyn SiguoBot>, String> {
    junqi_siguo::bot_from_spec(spec)
}

impl Engine {
    fn handle(&mut self, line: &str, out: &mut impl Write) -> std::io::Result<bool> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let answer = match words.split_first() {
            None => return Ok(true),
            Some((&"newgame", args)) => self.newgame(args).map(|()| Vec::new()),
            Some((&"position", _)) => self.position(line.trim_start()["position".len()..].trim()).map(|()| Vec::new()),
            Some((&"legal", args)) => args
                .iter()
                .try_for_each(|m| {
                    m.parse::<Move>().map(drop).map_err(|_| format!("legal: `{m}` is not a four-player move"))
                })
                .map(|()| Vec::new()),
            Some(_) => match crate::grammar::Command::parse(line) {
                Ok(Some(crate::grammar::Command::Quit)) => return Ok(false),
                Ok(Some(command)) => self.answer(command),
                Ok(None) => return Ok(true),
                Err(message) => Err(message),
            },
        };
        crate::server::write_answer(out, answer)?;
        Ok(true)
    }

    fn answer(&mut self, command: crate::grammar::Command) -> Result<Vec<String>, String> {
        use crate::grammar::Command;
        match command {
            Command::Junqi => {
                let mut hello = vec![
                    format!("id name junqi {}", self.spec),
                    "id author the junqi project".into(),
                    format!("id protocol {}", crate::PROTOCOL_VERSION),
                    "option name spec type string".into(),
                    "plays siguo anqi".into(),
                    "plays siguo shuangming".into(),
                    "plays siguo quanming".into(),
                ];
                self.announced_deploys = bot_deploys(self.bot.as_mut());
                if self.announced_deploys {
                    hello.push(DEPLOYS_SIGUO.into());
                }
                hello.push("junqiok".into());
                Ok(hello)
            }
            Command::IsReady => Ok(vec!["readyok".into()]),
            Command::SetOption { name, value } if name == "spec" => {
                self.bot = build(&value)?;
                self.spec = value;
                Ok(Vec::new())
            }
            Command::SetOption { name, .. } => {
                Err(format!("setoption: four-player bots have no option `{name}`; set `spec` (e.g. mcts:400)"))
            }
            Command::Go(limits) => self.go(limits),
            Command::Deploy { .. } => self.deploy(),
            Command::NewGame { .. } => Err(SIGUO_NEWGAME_USAGE.into()),
            Command::Position(_) | Command::Legal(_) => unreachable!("read above"),
            Command::Result { .. } | Command::Stop | Command::Quit => Ok(Vec::new()),
        }
    }

    fn newgame(&mut self, args: &[&str]) -> Result<(), String> {
        let (rules, seat, seed) = parse_newgame(args)?;
        self.bot = build(&self.spec)?;
        self.game = Some(Game {
            rules,
            seat,
            rng: junqi_core::rng_from_seed(seed.unwrap_or(0)),
            info: None,
            reader: PositionReader::default(),
        });
        Ok(())
    }

    /// `deploy`: the seat's army deployed by the bot's own model. A bot
    /// without one refuses (its army keeps the deal's), unless the handshake
    /// promised deployments for another bot (`setoption name spec` since):
    /// then a uniformly random legal one, as a deal draws, so the host's
    /// `deploy` never fails for it.
    fn deploy(&mut self) -> Result<Vec<String>, String> {
        let game = self.game.as_mut().ok_or("deploy before newgame")?;
        if game.info.is_some() {
            return Err("deploy: the game has begun (deploy comes after newgame, before the first position)".into());
        }
        let own = self.bot.deploy(game.seat, &game.rules, &mut game.rng);
        let deployment = match own {
            Some(d) => d,
            None if self.announced_deploys => junqi_siguo::setup::random_deployment(&game.rules, &mut game.rng),
            None => {
                return Err(format!(
                    "deploy: bot `{}` has no deployment of its own: its army keeps the deal's",
                    self.spec
                ))
            }
        };
        // Our own bots deploy legally; checked all the same, as the host will.
        junqi_siguo::setup::validate(game.seat, &deployment, &game.rules)
            .map_err(|e| format!("deploy: the bot's deployment is illegal: {e}"))?;
        Ok(vec![format!("deployment {}", encode_siguo_deployment(game.seat, &deployment))])
    }

    fn position(&mut self, text: &str) -> Result<(), String> {
        let game = self.game.as_mut().ok_or("position before newgame")?;
        game.info = None;
        game.info = Some(game.reader.read(text, &game.rules, game.seat)?);
        Ok(())
    }

    fn go(&mut self, limits: crate::grammar::Limits) -> Result<Vec<String>, String> {
        let game = self.game.as_mut().ok_or("go before newgame")?;
        let info = game.info.as_ref().ok_or("go before position")?;
        if info.outcome().is_some() {
            return Err("go: the game is over in this position".into());
        }
        let mut legal = MoveList::new();
        info.legal_moves(&mut legal);
        if legal.is_empty() {
            return Err(format!("go: seat {} has no move in this position", game.seat.index()));
        }
        let mut notes = Vec::new();
        let mut bot = None;
        if let Some(n) = limits.sims.or(limits.nodes) {
            if self.spec.starts_with("mcts") {
                bot = Some(build(&format!("mcts:{n}"))?);
            } else {
                notes.push(format!("info string sims ignored: bot `{}` has no simulation budget", self.spec));
            }
        }
        let started = std::time::Instant::now();
        let keep_sims = bot.is_some();
        let bot = bot.as_mut().unwrap_or(&mut self.bot);
        // `go movetime` (or the clock's share a `tc` search spends, at most 90 % of `timeout`) for this move;
        // a time past any instant is no limit.
        if let Some(deadline) = crate::server::move_time(&limits).and_then(|t| started.checked_add(t)) {
            if !bot.time_next_move(deadline, keep_sims) {
                notes.push(format!("info string time ignored: four-player bot `{}` has no time budget", self.spec));
            }
        }
        let mv = bot.choose(info, &mut game.rng).ok_or("go: the bot found no move")?;
        notes.push(format!("info time {} pv {mv}", started.elapsed().as_millis()));
        notes.push(format!("bestmove {mv}"));
        Ok(notes)
    }
}

/// Serve the four-player protocol for bot `spec` (random, greedy,
/// heuristic, mcts:N) on `input`/`output` until `quit` or the end of the
/// input; bad commands are answered with `error` lines.
pub fn serve_siguo(spec: &str, input: impl BufRead, output: impl Write) -> Result<(), String> {
    let mut engine = Engine { spec: spec.trim().to_string(), bot: build(spec)?, game: None, announced_deploys: false };
    crate::server::serve_lines(SIGUO_MAX_LINE, input, output, |line, out| engine.handle(line, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use junqi_siguo::Mode;
    use rand::Rng;

    /// A random game with every seat's set and position record, a move at a time.
    struct RandomGame {
        pos: Position,
        infos: Vec<SiguoInfoSet>,
        records: Vec<SiguoRecord>,
        rng: junqi_core::GameRng,
        list: MoveList,
    }

    impl RandomGame {
        fn new(rules: Rules, deal: u64, seed: u64) -> RandomGame {
            let pos = Position::new_game(rules, deal);
            let infos: Vec<SiguoInfoSet> = Army::ALL.iter().map(|&a| SiguoInfoSet::new(&pos, a)).collect();
            let records = infos.iter().map(SiguoRecord::new).collect();
            RandomGame { pos, infos, records, rng: junqi_core::rng_from_seed(seed), list: MoveList::new() }
        }

        /// Whether the game goes on before ply `plies`.
        fn goes_on(&self, plies: u32) -> bool {
            self.pos.outcome().is_none() && self.pos.ply() < plies
        }

        /// One random legal move, announced to every seat.
        fn step(&mut self) {
            self.pos.legal_moves(&mut self.list);
            let mv = self.list[self.rng.random_range(0..self.list.len())];
            let before = self.pos.clone();
            let effect = self.pos.play(mv).unwrap();
            let a = Announcement::new(&before, mv, &effect, &self.pos);
            for (info, record) in self.infos.iter_mut().zip(self.records.iter_mut()) {
                info.update(&a);
                record.observe(&a);
            }
        }
    }

    /// On every ply of random games in every mode, every seat's set rebuilt
    /// from the position line is the referee's own.
    #[test]
    fn position_lines_rebuild_the_referees_sets() {
        for (i, mode) in Mode::ALL.into_iter().enumerate() {
            let rules = Rules::preset(mode);
            let mut game = RandomGame::new(rules, 7 + i as u64, 40 + i as u64);
            let mut checked = 0;
            while game.goes_on(300) {
                for (info, record) in game.infos.iter().zip(&game.records) {
                    let line = record.position(info);
                    let back =
                        decode_siguo_position(&line, &rules, info.seat()).unwrap_or_else(|e| panic!("{e}: {line}"));
                    assert_eq!(&back, info, "{mode} ply {} seat {}", game.pos.ply(), info.seat());
                    checked += 1;
                }
                game.step();
            }
            assert!(checked > 100, "{mode}: {checked}");
        }
    }

    /// The position lines of every seat over a random game of `mode`
    /// (`plies` moves at most), in the order a host sends them.
    fn game_lines(mode: Mode, deal: u64, seed: u64, plies: u32) -> (Rules, Vec<(Army, String)>) {
        let rules = Rules::preset(mode);
        let mut game = RandomGame::new(rules, deal, seed);
        let mut lines = Vec::new();
        while game.goes_on(plies) {
            let mover = game.pos.turn().index();
            lines.push((game.pos.turn(), game.records[mover].position(&game.infos[mover])));
            game.step();
        }
        (rules, lines)
    }

    /// One seat's lines read in turn give the sets a whole replay gives,
    /// applying each event about once (not once per line since it
    /// happened); a line that goes back to an earlier ply, lines of
    /// another game of the same deal (the same start, other events), and
    /// one whose last event is not an event are replayed whole, and right.
    #[test]
    fn position_lines_are_read_incrementally_and_exactly() {
        for (i, mode) in Mode::ALL.into_iter().enumerate() {
            let (rules, lines) = game_lines(mode, 60 + i as u64, 1, 1200);
            let seat = lines[0].0;
            let own: Vec<&String> = lines.iter().filter(|(a, _)| *a == seat).map(|(_, l)| l).collect();
            assert!(own.len() > 40, "{mode}: {} lines", own.len());
            let mut reader = PositionReader::default();
            for line in &own {
                let whole = decode_siguo_position(line, &rules, seat).unwrap();
                assert_eq!(reader.read(line, &rules, seat).unwrap(), whole, "{mode}: {line}");
            }
            let events = own.last().unwrap().split_whitespace().count() - 14;
            // Each line applies its new events and the last line's last one again.
            assert!(reader.applied <= events + own.len(), "{mode}: {} applied for {events}", reader.applied);
            let (_, other) = game_lines(mode, 60 + i as u64, 2, 200);
            let mut tried = vec![own[own.len() / 2].clone()];
            tried.extend(other.iter().filter(|(a, _)| *a == seat).map(|(_, l)| l.clone()).skip(5).take(3));
            assert!(tried.iter().all(|l| l.contains(" moves ")), "{mode}");
            let late = own[own.len() - 2];
            let mut words: Vec<&str> = late.split_whitespace().collect();
            let last = words.len() - 1;
            let diverged = format!("{}:q", words[last]);
            words[last] = &diverged;
            tried.push(words.join(" "));
            for (n, line) in tried.iter().enumerate() {
                reader.read(own[own.len() - 3], &rules, seat).unwrap();
                let whole = decode_siguo_position(line, &rules, seat);
                assert_eq!(whole.is_err(), n == tried.len() - 1, "{mode}: {line}");
                assert_eq!(reader.read(line, &rules, seat), whole, "{mode}: {line}");
            }
        }
    }

    /// A deployment is written on its army's own zone and read back the
    /// same for every army; a word off the zone, without a kind, or a
    /// deployment that breaks §10.5 is refused with the reason.
    #[test]
    fn deployments_round_trip_on_the_army_s_zone() {
        let rules = Rules::preset(Mode::Anqi);
        let mut rng = junqi_core::rng_from_seed(3);
        for army in Army::ALL {
            let d = junqi_siguo::setup::random_deployment(&rules, &mut rng);
            let line = encode_siguo_deployment(army, &d);
            let words: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(words.len(), 25);
            assert!(words.iter().all(|w| w.starts_with(army.letter())), "{line}");
            let back = decode_siguo_deployment(&words, army, &rules).unwrap_or_else(|e| panic!("{e}: {line}"));
            let sorted = |d: &Deployment| {
                let mut p = d.pieces.clone();
                p.sort();
                p
            };
            assert_eq!(sorted(&back), sorted(&d));
            let lower = line.to_lowercase();
            let lower: Vec<&str> = lower.split_whitespace().collect();
            assert!(decode_siguo_deployment(&lower, army, &rules).is_ok(), "kind letters in either case");
            let other = Army::new((army.index() + 1) % 4).unwrap();
            let err = decode_siguo_deployment(&words, other, &rules).unwrap_err();
            assert!(err.contains("is not on") && err.contains(&words[0].to_string()), "{err}");
        }
        let army = Army::ALL[0];
        let d = junqi_siguo::setup::random_deployment(&rules, &mut rng);
        let line = encode_siguo_deployment(army, &d);
        let words: Vec<&str> = line.split_whitespace().collect();
        for (bad, why) in [
            (words[..24].join(" "), "deployment: army 0 (s)"),
            (line.replacen(&words[0][..3], "sz9", 1), "`sz9"),
            (format!("{} sa1", words[1..].join(" ")), "does not end with a kind letter"),
        ] {
            let bad_words: Vec<&str> = bad.split_whitespace().collect();
            let err = decode_siguo_deployment(&bad_words, army, &rules).unwrap_err();
            assert!(err.contains(why), "{bad}: {err}");
        }
    }

    /// A bot with its own deployment: `deploys siguo` in the handshake,
    /// `deploy` after `newgame` answered with that deployment on the seat's
    /// zone, and refused once the game has begun; a bot without one says
    /// nothing of deploying and refuses `deploy`.
    #[test]
    fn a_bot_that_deploys_says_so_and_answers_deploy() {
        fn fixed(rules: &Rules) -> Deployment {
            junqi_siguo::setup::random_deployment(rules, &mut junqi_core::rng_from_seed(77))
        }
        struct FixedDeploy;
        impl SiguoBot for FixedDeploy {
            fn name(&self) -> String {
                "fixed-deploy".into()
            }
            fn choose(&mut self, info: &SiguoInfoSet, _rng: &mut dyn rand::RngCore) -> Option<Move> {
                let mut list = MoveList::new();
                info.legal_moves(&mut list);
                list.iter().next().copied()
            }
            fn deploy(&mut self, _: Army, rules: &Rules, _: &mut dyn rand::RngCore) -> Option<Deployment> {
                Some(fixed(rules))
            }
        }
        fn factory(spec: &str) -> Option<Result<Box<dyn SiguoBot>, String>> {
            (spec == "fixed-deploy").then(|| Ok(Box::new(FixedDeploy) as Box<dyn SiguoBot>))
        }
        junqi_siguo::register_siguo_bot(factory);
        let rules = Rules::preset(Mode::Anqi);
        let seat = Army::new(2).unwrap();
        let pos = Position::new_game(rules, 5);
        let info = SiguoInfoSet::new(&pos, seat);
        let position = SiguoRecord::new(&info).position(&info);
        let session = |spec: &str| {
            let newgame = newgame_line(&rules, seat, 1);
            let input = format!("junqi\n{newgame}\ndeploy timeout 5000\nposition {position}\ndeploy\nquit\n");
            let mut out = Vec::new();
            serve_siguo(spec, input.as_bytes(), &mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        let out = session("fixed-deploy");
        let lines: Vec<&str> = out.lines().collect();
        let at = lines.iter().position(|l| *l == "junqiok").unwrap();
        assert_eq!(lines[at - 1], "deploys siguo", "{out}");
        let deployment = lines[at + 1].strip_prefix("deployment ").unwrap_or_else(|| panic!("{out}"));
        assert_eq!(deployment, encode_siguo_deployment(seat, &fixed(&rules)));
        assert!(deployment.split(' ').all(|w| w.starts_with('n')), "army 2's own nodes: {deployment}");
        assert!(lines[at + 2].starts_with("error deploy: the game has begun"), "{out}");
        // The handshake promised deployments; a bot set since without one deploys at random.
        let newgame = newgame_line(&rules, seat, 1);
        let input = format!("junqi\nsetoption name spec value heuristic\n{newgame}\ndeploy\nquit\n");
        let mut out = Vec::new();
        serve_siguo("fixed-deploy", input.as_bytes(), &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        let line = out.lines().find_map(|l| l.strip_prefix("deployment ")).unwrap_or_else(|| panic!("{out}"));
        let words: Vec<&str> = line.split_whitespace().collect();
        assert!(decode_siguo_deployment(&words, seat, &rules).is_ok(), "{out}");
        assert_ne!(line, encode_siguo_deployment(seat, &fixed(&rules)), "not the fixed bot's");
        let out = session("heuristic");
        assert!(!out.contains("deploys siguo"), "{out}");
        let refused: Vec<&str> = out.lines().filter(|l| l.starts_with("error deploy")).collect();
        assert_eq!(refused.len(), 2, "{out}");
        assert!(refused[0].contains("bot `heuristic` has no deployment of its own"), "{out}");
    }

    #[test]
    fn rules_and_newgame_round_trip() {
        let mut rules = Rules::preset(Mode::Shuangming);
        rules.apply_override("turn_order=clockwise").unwrap();
        let line = newgame_line(&rules, Army::new(3).unwrap(), u64::MAX);
        let words: Vec<&str> = line.split_whitespace().skip(1).collect();
        assert_eq!(parse_newgame(&words).unwrap(), (rules, Army::new(3).unwrap(), Some(u64::MAX)));
        for bad in ["siguo anqi seat 4", "siguo anqi seat 1 seed -1", "anqi seat 1", "siguo anqi seat 01"] {
            let words: Vec<&str> = bad.split_whitespace().collect();
            assert!(parse_newgame(&words).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_view_with_a_hidden_kind_written_is_refused() {
        let rules = Rules::preset(Mode::Anqi);
        let pos = Position::new_game(rules, 3);
        // The true position: every kind written, which seat 0 does not see.
        let err = decode_siguo_position(&pos.to_string(), &rules, Army::new(0).unwrap()).unwrap_err();
        assert!(err.contains("does not see"), "{err}");
        let info = SiguoInfoSet::new(&pos, Army::new(0).unwrap());
        assert!(decode_siguo_position(&encode_view(&info), &rules, Army::new(0).unwrap()).is_ok());
    }

    /// Another army's flag may be written in a start view only once its 司令
    /// has left the board: with the 司令 gone (24 pieces) the shown flag is
    /// accepted; with all 25 pieces standing (a deal, here with the 司令
    /// turned into an engineer so that the referee's set shows the flag) it
    /// is refused.
    #[test]
    fn a_start_view_shows_a_flag_only_after_its_commander_fell() {
        let rules = Rules::preset(Mode::Anqi);
        let (seat, east) = (Army::new(0).unwrap(), Army::new(1).unwrap());
        let deal = Position::new_game(rules, 5);
        let commander = deal.pieces().find(|(_, p)| p.army == east && p.kind == Kind::Commander).unwrap().0;
        let mut fallen = Position::empty(rules);
        let mut disguised = Position::empty(rules);
        for (node, piece) in deal.pieces() {
            if node != commander {
                fallen.put(node, piece);
                disguised.put(node, piece);
            } else {
                disguised.put(node, junqi_siguo::Piece::new(east, Kind::Engineer));
            }
        }
        for pos in [&mut fallen, &mut disguised] {
            pos.set_turn(seat);
            pos.set_counters(0, 4);
        }
        let view = encode_view(&SiguoInfoSet::new(&fallen, seat));
        assert!(view.contains("Fe"), "{view}");
        assert!(decode_siguo_position(&view, &rules, seat).is_ok(), "{view}");
        let view = encode_view(&SiguoInfoSet::new(&disguised, seat));
        assert!(view.contains("Fe"), "{view}");
        let err = decode_siguo_position(&view, &rules, seat).unwrap_err();
        assert!(err.contains("司令 has left the board"), "{err}");
    }

    /// `go movetime 50` stops `mcts:sims=100000000` by time (a generous
    /// bound: seconds, where the simulations would take hours), with
    /// `go sims` too the smaller budget; a bot without a time notion says so.
    #[test]
    fn go_movetime_bounds_the_four_player_search() {
        let rules = Rules::preset(Mode::Anqi);
        let pos = Position::new_game(rules, 5);
        let seat = pos.turn();
        let info = SiguoInfoSet::new(&pos, seat);
        let position = SiguoRecord::new(&info).position(&info);
        let session = |spec: &str, go: &str| {
            let input = format!("{}\nposition {position}\n{go}\nquit\n", newgame_line(&rules, seat, 1));
            let mut out = Vec::new();
            let started = std::time::Instant::now();
            serve_siguo(spec, input.as_bytes(), &mut out).unwrap();
            (String::from_utf8(out).unwrap(), started.elapsed())
        };
        let mut legal = MoveList::new();
        pos.legal_moves(&mut legal);
        let best =
            |out: &str| out.lines().find_map(|l| l.strip_prefix("bestmove ")).map(|m| m.parse::<Move>().unwrap());
        for (spec, go) in [
            ("mcts:100000000", "go movetime 50"),
            ("mcts:100000000", "go time 1500 inc 0"),
            ("mcts:sims=100000000,movetime=50", "go"),
        ] {
            let (out, took) = session(spec, go);
            assert!(!out.contains("ignored") && !out.contains("error"), "{spec} {go}: {out}");
            assert!(legal.contains(best(&out).expect(&out)), "{out}");
            assert!(took < std::time::Duration::from_secs(10), "{spec} {go}: {took:?}");
        }
        let (out, _) = session("heuristic", "go movetime 50");
        assert!(out.contains("info string time ignored: four-player bot `heuristic` has no time budget"), "{out}");
        assert!(best(&out).is_some(), "{out}");
    }
}
