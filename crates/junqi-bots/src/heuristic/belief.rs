//! What the seat believes about enemy pieces: a distribution over kinds per
//! enemy node, from its information set only.
//!
//! * 明棋 and face-up 翻棋 pieces: the exact kind.
//! * 暗棋: the kinds [`InfoSet::possible_kinds`] still allows, weighted by how
//!   many pieces of each kind are unaccounted for: a kind with `r` pieces not
//!   yet identified, shared by `n` pieces (on the board or removed) that may
//!   be it, weighs `r / n` on each of them.
//! * 翻棋 face-down pieces: the public face-down pool of both colours.

use junqi_core::board::{squares, Square, NODES};
use junqi_core::piece::{Kind, KINDS};
use junqi_core::{Colour, InfoSet, Mode};

/// Per-node kind distributions of enemy pieces, and the 翻棋 face-down pool.
pub(crate) struct Belief {
    /// Enemy pieces (known colour): probability of each kind; all zero elsewhere.
    pub dist: [[f32; KINDS]; NODES],
    /// 翻棋: share of each (colour, kind) among the face-down pieces.
    pub pool: [[f32; KINDS]; 2],
}

impl Belief {
    pub fn new(info: &InfoSet, me: Colour) -> Belief {
        let view = info.view();
        let enemy = me.other();
        let mut b = Belief { dist: [[0.0; KINDS]; NODES], pool: [[0.0; KINDS]; 2] };
        let enemy_bb = view.colour_bb(enemy);
        match info.mode() {
            Mode::Anqi => {
                let removed = info.removed_enemy();
                // Per kind: pieces that may be it, and pieces known to be it.
                let mut maybe = [0u32; KINDS];
                let mut sure = [0u32; KINDS];
                let sets = squares(enemy_bb).map(|sq| info.possible_kinds(sq)).chain(removed.iter().copied());
                for set in sets {
                    for k in Kind::in_set(set) {
                        maybe[k.index()] += 1;
                        if set == k.bit() {
                            sure[k.index()] += 1;
                        }
                    }
                }
                let mut weight = [0f32; KINDS];
                for k in Kind::ALL {
                    let i = k.index();
                    let left = (k.count() as u32).saturating_sub(sure[i]);
                    let open = maybe[i] - sure[i].min(maybe[i]);
                    weight[i] = if open == 0 { 0.0 } else { left as f32 / open as f32 };
                }
                for sq in squares(enemy_bb) {
                    let set = info.possible_kinds(sq);
                    let d = &mut b.dist[sq.index()];
                    if set.count_ones() == 1 {
                        d[set.trailing_zeros() as usize] = 1.0;
                        continue;
                    }
                    let mut total = 0.0;
                    for k in Kind::in_set(set) {
                        d[k.index()] = weight[k.index()].max(1e-3);
                        total += d[k.index()];
                    }
                    if total > 0.0 {
                        d.iter_mut().for_each(|p| *p /= total);
                    }
                }
            }
            Mode::Mingqi | Mode::Fanqi => {
                for sq in squares(enemy_bb) {
                    if let Some(p) = view.piece_at(sq) {
                        b.dist[sq.index()][p.kind.index()] = 1.0;
                    }
                }
                if info.mode() == Mode::Fanqi {
                    let total: u32 =
                        Colour::ALL.iter().flat_map(|&c| Kind::ALL.map(|k| info.unseen(c, k) as u32)).sum();
                    if total > 0 {
                        for c in Colour::ALL {
                            for k in Kind::ALL {
                                b.pool[c.index()][k.index()] = info.unseen(c, k) as f32 / total as f32;
                            }
                        }
                    }
                }
            }
        }
        b
    }

    #[inline]
    pub fn at(&self, sq: Square) -> &[f32; KINDS] {
        &self.dist[sq.index()]
    }
}
