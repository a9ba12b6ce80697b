//! Scoring every legal action from the seat's information set.
//!
//! The score of an action is, in units of material ([`material`]):
//! * attacks: the expected combat result over the defender's possible kinds
//!   ([`super::belief::Belief`]), the flag counting as a won game;
//! * every move: the one-ply threat its piece leaves behind minus the threat
//!   it walks into (what an enemy piece that can reach it next ply would
//!   expect to win), plus the relief of removing an enemy piece that
//!   threatened other pieces;
//! * quiet moves: approach towards the best target the piece expects to beat,
//!   keeping guards beside the own flag, no walking into a locked headquarters;
//! * 翻棋 flips: the revealed piece is own (is it then lost?) or enemy (can
//!   we take it, can it take ours?), weighted by the face-down pool;
//! * pressure to attack as the no-progress counter runs out.

use super::belief::Belief;
use junqi_core::board::{
    flight_targets, rail_run_targets, squares, Bitboard, Square, ADJACENT, CAMPS, HEADQUARTERS, NODES, RAILWAY, RAYS,
};
use junqi_core::piece::{Kind, Piece, KINDS};
use junqi_core::position::combat;
use junqi_core::rules::RailTurns;
use junqi_core::{Colour, CombatOutcome, InfoSet, Mode, Move, Position, Rules};
use std::sync::OnceLock;

/// A won game (a captured flag).
pub const WIN: f32 = 1000.0;
/// Trade aversion: a trade counts this share of the own piece's value extra.
const TRADE: f32 = 0.08;
/// Preference for the cheapest attacker: this share of its value per attack.
const CHEAP: f32 = 0.08;

/// Material value of a kind in `mode` (the flag is priced by [`WIN`] in combat).
pub fn material(kind: Kind, mode: Mode) -> f32 {
    match kind {
        Kind::Commander => 10.0,
        Kind::General => 8.0,
        Kind::Division => 6.5,
        Kind::Brigade => 5.0,
        Kind::Regiment => 4.0,
        Kind::Battalion => 3.0,
        Kind::Company => 2.2,
        Kind::Platoon => 1.6,
        Kind::Engineer => 2.4,
        Kind::Bomb => 5.0,
        Kind::Mine if mode == Mode::Fanqi => 2.5,
        Kind::Mine => 1.5,
        Kind::Flag => 0.0,
    }
}

/// Steps between nodes when every straight railway line counts as one step.
fn distances() -> &'static [[u8; NODES]; NODES] {
    static D: OnceLock<[[u8; NODES]; NODES]> = OnceLock::new();
    D.get_or_init(|| {
        let mut next = [0 as Bitboard; NODES];
        for (i, n) in next.iter_mut().enumerate() {
            let rays = &RAYS[i];
            *n = ADJACENT[i] | rays.up[0] | rays.up[1] | rays.down[0] | rays.down[1];
        }
        let mut d = [[u8::MAX; NODES]; NODES];
        for (s, row) in d.iter_mut().enumerate() {
            row[s] = 0;
            let mut frontier: Bitboard = 1 << s;
            let mut seen = frontier;
            let mut step = 0u8;
            while frontier != 0 {
                step += 1;
                let mut grown = 0;
                for sq in squares(frontier) {
                    grown |= next[sq.index()];
                }
                grown &= !seen;
                for sq in squares(grown) {
                    row[sq.index()] = step;
                }
                seen |= grown;
                frontier = grown;
            }
        }
        d
    })
}

fn dist(a: Square, b: Square) -> u8 {
    distances()[a.index()][b.index()]
}

/// An enemy piece as the seat sees it.
struct Enemy {
    sq: Square,
    p: [f32; KINDS],
    /// Probability that it is a piece that can move and attack.
    p_mobile: f32,
    mobile: bool,
    run: Bitboard,
    fly: Bitboard,
    /// Value of the squares around it being opened (near a likely enemy flag).
    bonus: f32,
}

/// An own face-up piece.
struct Own {
    sq: Square,
    kind: Kind,
    /// Expected loss if left where it is, and the enemy index behind it.
    threat: f32,
    by: Option<usize>,
    reach: Bitboard,
}

/// Everything the scorer needs, computed once per decision.
pub(crate) struct Scorer<'a> {
    view: &'a Position,
    rules: &'a Rules,
    mode: Mode,
    me: Colour,
    belief: Belief,
    value: [f32; KINDS],
    /// gain[a][k]: own `a` attacking an enemy `k`; removed[a][k]: the defender goes.
    gain: [[f32; KINDS]; KINDS],
    removed: [[f32; KINDS]; KINDS],
    wins: [[f32; KINDS]; KINDS],
    /// loss[k][a]: an enemy `k` attacking own `a`, from our side (≥ 0).
    loss: [[f32; KINDS]; KINDS],
    enemies: Vec<Enemy>,
    enemy_at: [u8; NODES],
    own: Vec<Own>,
    own_at: [u8; NODES],
    /// Threat scale: in 暗棋 the enemy rarely knows what it would hit.
    threat_scale: f32,
    own_flag: Option<Square>,
    flag_danger: f32,
    /// Per own kind and enemy: the expected value of attacking it (approach targets).
    target: [[f32; 25]; KINDS],
    attack_pressure: f32,
}

const NONE: u8 = u8::MAX;

/// 混棋: our `a` attacking an enemy `k` as (gain, removed, wins), and the
/// enemy's `a` attacking our `k` as our loss: zero where 混棋 forbids the
/// attack (docs/rules.md §5.3 混棋), where every legal flag attack takes it.
fn hunqi_exchange(view: &Position, me: Colour, a: Kind, k: Kind, value: &[f32; KINDS]) -> ((f32, f32, f32), f32) {
    let (ai, ki) = (a.index(), k.index());
    let ours = if view.hunqi_may_attack(a, Piece::new(me.other(), k)) {
        match combat(view.rules(), a, k, true) {
            CombatOutcome::AttackerWon => (value[ki], 1.0, 1.0),
            CombatOutcome::BothRemoved if a == Kind::Flag => (-WIN, 1.0, 0.0),
            CombatOutcome::BothRemoved => (value[ki] - (1.0 + TRADE) * value[ai], 1.0, 0.0),
            CombatOutcome::FlagCaptured => (WIN, 1.0, 0.0),
            _ => (-value[ai], 0.0, 0.0),
        }
    } else {
        (0.0, 0.0, 0.0)
    };
    let theirs = if view.hunqi_may_attack(a, Piece::new(me, k)) {
        match combat(view.rules(), a, k, true) {
            CombatOutcome::AttackerWon => value[ki],
            CombatOutcome::BothRemoved if a == Kind::Flag => 0.0,
            CombatOutcome::BothRemoved => (1.0 + TRADE) * value[ki] - value[ai],
            CombatOutcome::FlagCaptured => WIN,
            _ => 0.0,
        }
    } else {
        0.0
    };
    (ours, theirs.max(0.0))
}

impl<'a> Scorer<'a> {
    pub fn new(info: &'a InfoSet, me: Colour) -> Scorer<'a> {
        let view = info.view();
        let rules = view.rules();
        let mode = view.mode();
        let enemy = me.other();
        let belief = Belief::new(info, me);
        let mut value = [0f32; KINDS];
        for k in Kind::ALL {
            value[k.index()] = material(k, mode);
        }
        let own_mines_left = view.count(me, Kind::Mine) > 0;
        let enemy_mines_left = view.count(enemy, Kind::Mine) > 0;
        let mut gain = [[0f32; KINDS]; KINDS];
        let mut removed = [[0f32; KINDS]; KINDS];
        let mut wins = [[0f32; KINDS]; KINDS];
        let mut loss = [[0f32; KINDS]; KINDS];
        // 混棋 (`hunqi`): a flag may come to move and attack, and which
        // attacks are legal depends on both kinds (and on whose flag moves).
        let attackers = Kind::ALL.into_iter().filter(|k| k.is_movable() || (rules.hunqi && *k == Kind::Flag));
        for a in attackers {
            let may = view.may_capture_flag(me, a) && !(mode == Mode::Fanqi && enemy_mines_left);
            let enemy_may = view.may_capture_flag(enemy, a) && !(mode == Mode::Fanqi && own_mines_left);
            for k in Kind::ALL {
                let (ai, ki) = (a.index(), k.index());
                if rules.hunqi {
                    let (ours, theirs) = hunqi_exchange(view, me, a, k, &value);
                    (gain[ai][ki], removed[ai][ki], wins[ai][ki]) = ours;
                    loss[ai][ki] = theirs;
                    continue;
                }
                let (g, r, w) = match combat(rules, a, k, may) {
                    CombatOutcome::AttackerWon => (value[ki], 1.0, 1.0),
                    CombatOutcome::DefenderWon => (-value[ai], 0.0, 0.0),
                    // A trade costs a little more than its material: it spends
                    // the piece (and tells the enemy what it was).
                    CombatOutcome::BothRemoved => (value[ki] - (1.0 + TRADE) * value[ai], 1.0, 0.0),
                    CombatOutcome::FlagCaptured => (WIN, 1.0, 0.0),
                    CombatOutcome::Scouted => (0.4 - value[ai], 0.0, 0.0),
                    CombatOutcome::Bounced => (0.0, 0.0, 0.0),
                };
                gain[ai][ki] = g;
                removed[ai][ki] = r;
                wins[ai][ki] = w;
                // The enemy `a` attacking our `k`.
                let illegal_on_mine =
                    mode == Mode::Fanqi && k == Kind::Mine && !matches!(a, Kind::Engineer | Kind::Bomb);
                let l = match combat(rules, a, k, enemy_may) {
                    _ if illegal_on_mine => 0.0,
                    CombatOutcome::AttackerWon => value[ki],
                    CombatOutcome::BothRemoved => (1.0 + TRADE) * value[ki] - value[ai],
                    CombatOutcome::FlagCaptured => WIN,
                    _ => 0.0,
                };
                loss[ai][ki] = l.max(0.0);
            }
        }
        let occ = view.occupied();
        let hq_locked = rules.hq_locked;
        // Likely enemy flag nodes (headquarters) and how likely.
        let mut flag_p = [0f32; NODES];
        let mut enemies = Vec::with_capacity(25);
        let mut enemy_at = [NONE; NODES];
        for sq in squares(view.colour_bb(enemy)) {
            let p = *belief.at(sq);
            flag_p[sq.index()] = p[Kind::Flag.index()];
            let mut p_mobile: f32 = Kind::ALL.iter().filter(|k| k.is_movable()).map(|k| p[k.index()]).sum();
            if view.hunqi_flag_moves(enemy) {
                p_mobile += p[Kind::Flag.index()];
            }
            let mobile = !(hq_locked && HEADQUARTERS & sq.bit() != 0) && p_mobile > 0.0;
            let (run, fly) = reaches(sq, occ);
            enemy_at[sq.index()] = enemies.len() as u8;
            enemies.push(Enemy { sq, p, p_mobile, mobile, run, fly, bonus: 0.0 });
        }
        for e in enemies.iter_mut() {
            let near_flag =
                squares(ADJACENT[e.sq.index()] & HEADQUARTERS).map(|s| flag_p[s.index()]).fold(0.0, f32::max);
            e.bonus = 2.0 * near_flag;
        }
        let mut s = Scorer {
            view,
            rules,
            mode,
            me,
            belief,
            value,
            gain,
            removed,
            wins,
            loss,
            enemies,
            enemy_at,
            own: Vec::with_capacity(25),
            own_at: [NONE; NODES],
            threat_scale: if mode == Mode::Anqi { 0.6 } else { 1.0 },
            own_flag: None,
            flag_danger: 0.0,
            target: [[0.0; 25]; KINDS],
            attack_pressure: 0.0,
        };
        for sq in squares(view.colour_bb(me) & !view.face_down()) {
            let Some(piece) = view.piece_at(sq) else { continue };
            if piece.kind == Kind::Flag {
                s.own_flag = Some(sq);
            }
            let (threat, by) = s.threat(piece.kind, sq, None, None);
            let (run, fly) = reaches(sq, occ);
            let locked = hq_locked && HEADQUARTERS & sq.bit() != 0;
            let reach = if locked {
                0
            } else if s.flies(piece.kind) {
                fly
            } else {
                run
            };
            s.own_at[sq.index()] = s.own.len() as u8;
            s.own.push(Own { sq, kind: piece.kind, threat, by, reach });
        }
        if let Some(f) = s.own_flag {
            let mut danger = 0.3;
            for e in s.enemies.iter().filter(|e| e.mobile) {
                let d = dist(e.sq, f) as f32;
                if d < 4.0 {
                    danger += 0.6 * e.p_mobile * (4.0 - d) / 3.0;
                }
            }
            s.flag_danger = danger;
        }
        for a in Kind::ALL.into_iter().filter(|k| k.is_movable()) {
            for (i, e) in s.enemies.iter().enumerate() {
                let ev = s.attack_ev(a, e);
                s.target[a.index()][i] = ev.min(6.0);
            }
        }
        // Material ahead (or even) and the no-progress counter running out: attack.
        let quiet = view.quiet() as f32;
        let limit = rules.no_progress_plies as f32;
        let start = (limit * 0.45).max(limit - 40.0);
        if quiet > start {
            let own_mat: f32 = s.own.iter().map(|o| s.value[o.kind.index()]).sum();
            let enemy_mat: f32 =
                s.enemies.iter().map(|e| e.p.iter().zip(&s.value).map(|(p, v)| p * v).sum::<f32>()).sum();
            if own_mat + 2.0 >= enemy_mat {
                s.attack_pressure = 4.0 * (quiet - start) / (limit - start).max(1.0);
            }
        }
        s
    }

    /// Does `kind` fly along the railway like an engineer?
    fn flies(&self, kind: Kind) -> bool {
        match self.rules.rail_turns {
            RailTurns::All => true,
            RailTurns::Engineer => kind == Kind::Engineer || (kind == Kind::Bomb && self.rules.bomb_flies),
            RailTurns::None => kind == Kind::Bomb && self.rules.bomb_flies,
        }
    }

    /// Expected value of our `a` attacking enemy `e` (combat only, plus the
    /// value of opening a likely enemy flag).
    fn attack_ev(&self, a: Kind, e: &Enemy) -> f32 {
        let ai = a.index();
        let mut ev = 0.0;
        let mut rem = 0.0;
        for k in 0..KINDS {
            let p = e.p[k];
            if p > 0.0 {
                ev += p * self.gain[ai][k];
                rem += p * self.removed[ai][k];
            }
        }
        ev + rem * e.bonus
    }

    /// The one-ply threat to our `a` standing on `sq`: the largest expected
    /// loss any enemy piece that can reach it next ply would inflict, and that
    /// piece. `vacated` is a node our move emptied (it may open a railway
    /// line); `gone` an enemy node whose piece our move removes.
    fn threat(&self, a: Kind, sq: Square, vacated: Option<Square>, gone: Option<Square>) -> (f32, Option<usize>) {
        if CAMPS & sq.bit() != 0 {
            return (0.0, None);
        }
        let ai = a.index();
        let occ = match vacated {
            Some(v) => (self.view.occupied() & !v.bit()) | sq.bit(),
            None => self.view.occupied(),
        };
        let recompute = vacated.is_some_and(|v| v.bit() & RAILWAY != 0);
        let mut best = (0.0f32, None);
        for (i, e) in self.enemies.iter().enumerate() {
            if !e.mobile || Some(e.sq) == gone {
                continue;
            }
            let (run, fly) = if recompute && e.sq.bit() & RAILWAY != 0 { reaches(e.sq, occ) } else { (e.run, e.fly) };
            if (run | fly) & sq.bit() == 0 {
                continue;
            }
            let mut t = 0.0;
            for k in Kind::ALL.into_iter().filter(|k| k.is_movable()) {
                let p = e.p[k.index()];
                if p == 0.0 {
                    continue;
                }
                let reach = if self.flies(k) { fly } else { run };
                if reach & sq.bit() != 0 {
                    t += p * self.loss[k.index()][ai];
                }
            }
            if t > best.0 {
                best = (t, Some(i));
            }
        }
        let scale = if a == Kind::Flag { 1.0 } else { self.threat_scale };
        (best.0 * scale, best.1)
    }

    /// Threats on our other pieces that removing enemy `i` lifts.
    fn relief(&self, i: usize, mover: usize) -> f32 {
        self.own.iter().enumerate().filter(|&(j, o)| j != mover && o.by == Some(i)).map(|(_, o)| o.threat).sum()
    }

    /// Best approach value of our `a` standing on `sq`.
    fn approach(&self, a: Kind, sq: Square) -> f32 {
        let row = &self.target[a.index()];
        let mut best = 0.0f32;
        for (i, e) in self.enemies.iter().enumerate() {
            let t = row[i];
            if t > 0.0 {
                let d = dist(sq, e.sq) as f32;
                best = best.max(t / (1.0 + d));
            }
        }
        best
    }

    /// The score of one legal action.
    pub fn score(&self, mv: Move) -> f32 {
        if mv.is_flip() {
            return self.flip_score(mv.to);
        }
        let Some(oi) = self.own_index(mv.from) else { return 0.0 };
        let own = &self.own[oi];
        let a = own.kind;
        let ai = a.index();
        let (from, to) = (mv.from, mv.to);
        let mut score = own.threat;
        if self.view.is_occupied(to) {
            score += self.attack_pressure;
            if self.view.is_face_down(to) {
                // 翻棋 attack_hidden: the pool decides; an own piece or an
                // uncapturable flag is only turned up.
                let enemy = self.me.other().index();
                let pool = &self.belief.pool;
                let (mut ev, mut win) = (0.0, 0.0);
                for (k, &p) in pool[enemy].iter().enumerate() {
                    if p > 0.0 && !(k == Kind::Flag.index() && self.gain[ai][k] < WIN) {
                        ev += p * self.gain[ai][k];
                        win += p * self.wins[ai][k];
                    }
                }
                let stay: f32 = pool[self.me.index()].iter().sum::<f32>() + pool[enemy][Kind::Flag.index()];
                let (t_new, _) = self.threat(a, to, Some(from), None);
                // Stay: threat unchanged; win: moves on.
                return score + ev - stay * own.threat - win * t_new;
            }
            let Some(ei) = self.enemy_index(to) else { return score };
            let e = &self.enemies[ei];
            let mut ev = 0.0;
            let (mut win, mut rem) = (0.0, 0.0);
            for k in 0..KINDS {
                let p = e.p[k];
                if p > 0.0 {
                    ev += p * self.gain[ai][k];
                    win += p * self.wins[ai][k];
                    rem += p * self.removed[ai][k];
                }
            }
            score += ev + rem * (e.bonus + self.relief(ei, oi));
            if win > 0.0 {
                let (t_new, _) = self.threat(a, to, Some(from), Some(to));
                score -= win * t_new;
            }
            if a == Kind::Commander && self.mode == Mode::Anqi && ev < WIN * 0.5 {
                score -= 1.0; // hide the 司令 unless it wins something decisive
            }
            // Cheapest sure winner: a tiny preference for spending less.
            score -= CHEAP * self.value[ai];
            return score;
        }
        // A quiet move.
        let (t_new, _) = self.threat(a, to, Some(from), None);
        score -= t_new;
        score += self.approach(a, to) - self.approach(a, from);
        if let Some(f) = self.own_flag {
            let guard = ADJACENT[f.index()];
            let (was, is) = (guard & from.bit() != 0, guard & to.bit() != 0);
            if was && !is {
                score -= self.flag_danger;
            } else if is && !was {
                score += 0.5 * self.flag_danger;
            }
        }
        if self.rules.hq_locked && HEADQUARTERS & to.bit() != 0 {
            score -= 0.5;
        }
        score
    }

    /// 翻棋: the value of turning up the piece on `sq`.
    fn flip_score(&self, sq: Square) -> f32 {
        let me = self.me.index();
        let enemy = 1 - me;
        let pool = &self.belief.pool;
        let occ = self.view.occupied();
        let (run, fly) = reaches(sq, occ);
        let mut score = 0.15;
        for k in Kind::ALL {
            let ki = k.index();
            // Our piece turned up here: can an enemy take it next ply?
            let p_own = pool[me][ki];
            if p_own > 0.0 {
                let (t, _) = self.threat(k, sq, None, None);
                score -= p_own * t;
            }
            // An enemy piece turned up here: can it take ours first, can we take it after?
            let p_enemy = pool[enemy][ki];
            if p_enemy > 0.0 && k.is_movable() {
                let reach = if self.flies(k) { fly } else { run };
                let mut hit = 0.0f32;
                let mut take = 0.0f32;
                for o in &self.own {
                    if reach & o.sq.bit() != 0 && CAMPS & o.sq.bit() == 0 {
                        hit = hit.max(self.loss[ki][o.kind.index()]);
                    }
                    if o.kind.is_movable() && o.reach & sq.bit() != 0 {
                        take = take.max(self.gain[o.kind.index()][ki]);
                    }
                }
                score += p_enemy * (0.5 * take.max(0.0) - 0.9 * hit);
            }
        }
        score
    }

    fn own_index(&self, sq: Square) -> Option<usize> {
        let i = self.own_at[sq.index()];
        (i != NONE).then_some(i as usize)
    }
    fn enemy_index(&self, sq: Square) -> Option<usize> {
        let i = self.enemy_at[sq.index()];
        (i != NONE).then_some(i as usize)
    }
}

/// Nodes a piece on `sq` reaches by a step or straight run, and by flight.
fn reaches(sq: Square, occ: Bitboard) -> (Bitboard, Bitboard) {
    let adj = ADJACENT[sq.index()];
    if sq.bit() & RAILWAY == 0 {
        return (adj, adj);
    }
    (adj | rail_run_targets(sq, occ), adj | flight_targets(sq, occ))
}
